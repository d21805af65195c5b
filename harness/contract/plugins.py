"""The plugin manager: every plugin, built-in or not, comes through the entry-point group ``lbbench``.

A plugin whose module fails to import, that implements a hook that does not
exist (a misspelled ``@hookimpl``), whose registration hook raises, that
registers an algorithm name another plugin already has, or whose
``@implements(...)`` names an algorithm no plugin registers (a misspelled
name), is rejected: it is
unregistered and listed in :func:`broken` with the reason; the others keep
working. Built-in plugins (distribution ``lbbench``) register first, so a
third-party plugin cannot shadow them.
"""
from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, field, fields, is_dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Callable

import pluggy

from . import hookspecs

hookimpl = hookspecs.hookimpl


@dataclass(frozen=True)
class Algorithm:
    """What a plugin declares about one algorithm (docs/plugins.md, "Algorithm").

    Attributes:
        name: the name on the command line (``--plugins name``); unique over all plugins.
        family: a label for ``lbbench list`` (``diffusive``, ``global``, ...).
        params: the parameters with their defaults; ``name[key=value]`` values are converted to the
            default's type; the hook reads them merged as ``ctx.params``.
        accepts: the level forms it takes (``graph``, ``boxes``, ``array``), preferred first.
        roles: the hooks it implements (``partition``, ``remap``, ``accept``, ``balance``).
        description: one line for ``lbbench list``.
        memory: the class (a dataclass with defaults) of its per-run state, ``ctx.memory``.
        mapper: ``"first"`` on a balancer makes ``M/this`` run the mapper only at the first level.
        validate: ``validate(params) -> None`` raises ``ValueError("one line")`` for a bad value (exit 2
            before any cell runs). ``params`` are the defaults merged with the given values, typed like
            the defaults. Any other exception is a bug in the plugin: one line naming the plugin, the
            function, the error and its file:line, exit 2. Without ``validate`` every value of the right
            type is accepted (``lbbench test`` does not check ranges).
        needs: ``needs(params) -> ("shared_id", ...)``: the ``Level`` attributes a run with these parameters
            requires (a transfer that moves shared blocks needs ``shared_id``); a workload none of whose levels
            has one is refused with one line before any cell runs. None: it needs nothing.
        plugin: set by the harness: the distribution that registered it.
        version: set by the harness: that distribution's version.

    Example:
        >>> def check(params):
        ...     if not 0 < params["alpha"] <= 1:
        ...         raise ValueError("mine: alpha must be in (0, 1]")
        >>> Algorithm("mine", family="diffusive", params={"alpha": 0.5}, roles=("balance",), validate=check)
    """

    name: str
    family: str
    params: dict = field(default_factory=dict)
    accepts: tuple = ("graph",)
    roles: tuple = ("partition",)
    description: str = ""
    memory: type | None = None
    mapper: str = "each"
    validate: Callable | None = None
    needs: Callable | None = None
    plugin: str = ""
    version: str = ""


@dataclass(frozen=True)
class Report:
    """A named report (a paper's table), registered through ``register_reports``; ``lbbench report NAME``.

    Attributes:
        name: the name on the command line.
        build: ``build(opts: ReportOptions) -> list[Table]``; ``opts.compare(...)`` gets the cells.
        title: the page title (``lbbench list``, the site).
        description: one line.
        plugin: set by the harness.

    Example:
        >>> def table1(opts):
        ...     df = opts.compare("mine,metis", P=(opts.P or [32])[0])
        ...     return [Table("Table 1", level_table(df[df.algorithm == "mine"]))]
        >>> Report("mine-table1", table1, title="My paper, Table 1")
    """

    name: str
    build: Callable
    title: str = ""
    description: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class Workload:
    """A named source of adaptation levels, registered through ``register_workloads``.

    Attributes:
        name: the name on the command line (``-w name[key=value]``).
        generate: ``generate(seed=..., **params) -> list[Level]``, deterministic for a seed.
        version: bump it when the levels change: it keys the workload cache and the stored cells.
        params: the parameters with their defaults (command-line values are converted to the default's type).
        forms: the level forms it yields (``graph``, ``boxes``, ``array``).
        description: one line for ``lbbench workloads``.
        cache: keep generated levels in the on-disk workload cache (set False for cheap ones).
        plot: ``plot(name, level, path, params=None, seed=0) -> path``: draws one level to a PNG for
            ``lbbench workloads plot NAME --level L -o FILE.png``; None: the command says the workload
            does not draw pictures.
        validate: ``validate(params)`` raises ``ValueError`` naming a bad parameter; run when the command
            line is read, before any work.
        level_indices: ``level_indices(params) -> indices`` of the levels ``generate`` yields; the workload
            cache is checked against it (a cache with other levels is regenerated).
        initial: the default ``--initial`` on this workload (``trace`` for an application trace).
        procs: ``procs(params) -> int``, the processor count the data implies (a trace's ranks): the
            default P, and any other P is an error. None: P defaults to 32.
        export: ``export(params, seed, owners, directory)`` writes one method's assignment
            (``owners[level] = owner array``) in the workload's own file format (``--export-vt``).
        sources: ``sources(params, seed) -> [path, ...]``: the files or directories the workload reads
            (a trace's folder); ``--export-vt`` refuses to write into or over them.

    Example:
        >>> def generate(seed=0, n=100):
        ...     return [Level(1, Graph.from_edges(n, np.arange(n - 1), np.arange(1, n)))]
        >>> Workload("path", generate, version="1", params={"n": 100}, description="a path graph")
    """

    name: str
    generate: Callable[..., list]
    version: str = "1"
    params: dict = field(default_factory=dict)
    forms: tuple = ("graph",)
    description: str = ""
    cache: bool = True
    plot: Callable | None = None  # plot(name, level, path, params=, seed=) -> path: a picture of one level
    validate: Callable | None = None
    level_indices: Callable | None = None
    initial: str = "metis"
    procs: Callable[[dict], int] | None = None
    export: Callable | None = None
    sources: Callable | None = None


def validated(owner: str, validate: Callable, params: dict) -> None:
    """Run a plugin's ``validate(params)``: a ``ValueError`` passes as it is; any other exception becomes one
    ``ValueError`` line naming ``owner`` (``algorithm X (plugin P)``), the function, the error and its line."""
    try:
        validate(params)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - a plugin's bug, reported on one line
        last = traceback.extract_tb(exc.__traceback__)[-1]
        text = " ".join(str(exc).split())[:200]
        raise ValueError(f"{owner}: {getattr(validate, '__qualname__', repr(validate))}(params) raised "
                         f"{type(exc).__name__}: {text} ({Path(last.filename).name}:{last.lineno})") from None


def check_params(owner: str, params: dict, bounds: dict, work: tuple | None = None) -> None:
    """Raise ValueError naming the first parameter outside its bounds, e.g. ``workload vt: task_bytes=-800
    must be in [0, 1099511627776]``, or the work product over its limit.

    Args:
        owner: who the parameters belong to (``workload vt``, ``grapevine``), the start of the message.
        params: the parameters (merged with their defaults).
        bounds: ``{name: (low, high)}``, both inclusive; a value must be a finite number in the range.
        work: ``((name, ...), limit)``: the product of those parameters (the work a cell does grows with it)
            at most ``limit``. Bounds that each hold alone can still multiply to hours on one level.

    Example:
        >>> check_params("workload ring", {"n": 500, "rounds": 4}, {"n": (3, 10**6), "rounds": (1, 100)},
        ...              work=(("n", "rounds"), 10**7))
    """
    for key, (lo, hi) in bounds.items():
        v = params[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:  # NaN fails too
            raise ValueError(f"{owner}: {key}={v!r} must be in [{lo:g}, {hi:g}]" if isinstance(lo, float)
                             or isinstance(hi, float) else f"{owner}: {key}={v!r} must be in [{lo}, {hi}]")
    if work is not None:
        names, limit = work
        product = math.prod(params[k] for k in names)
        if not product <= limit:
            raise ValueError(f"{owner}: {' x '.join(f'{k}={params[k]!r}' for k in names)} = {product:g} must be at "
                             f"most {limit:g} (the work of one level grows with their product)")


_SIGNATURES = {"partition": ("ctx",), "remap": ("ctx", "parts"), "accept": ("ctx", "proposed"),
               "balance": ("ctx", "state")}


def implements(*names: str):
    """Make a hook implementation that answers only for the algorithms ``names``.

    Decorate a function named after its hook: ``partition(ctx)``, ``remap(ctx, parts)``,
    ``accept(ctx, proposed)`` or ``balance(ctx, state)`` (no ``algorithm`` argument). One function may
    serve several algorithms: ``ctx.algorithm`` says which one is being run. Every name must be
    registered by some plugin: a misspelled name rejects the plugin at load (``lbbench list`` shows why).

    Args:
        *names: the algorithms this function serves (at least one).

    Returns:
        A decorator; the decorated function becomes the pluggy hook implementation.

    Example:
        >>> @implements("mine", "mine-fast")
        ... def balance(ctx, state):
        ...     rounds = 1 if ctx.algorithm == "mine-fast" else ctx.params["rounds"]
        ...     return State.settled(my_owner(ctx, state, rounds), ctx.P)
    """
    wanted = frozenset(names)
    if not wanted:
        raise TypeError("implements() needs at least one algorithm name")

    def decorate(fn):
        hook = fn.__name__
        if hook not in _SIGNATURES:
            raise TypeError(f"implements: {hook!r} is not one of {', '.join(_SIGNATURES)}")
        if hook == "partition":
            def impl(algorithm, ctx):
                return fn(ctx) if algorithm in wanted else None
        elif hook == "remap":
            def impl(algorithm, ctx, parts):
                return fn(ctx, parts) if algorithm in wanted else None
        elif hook == "accept":
            def impl(algorithm, ctx, proposed):
                return fn(ctx, proposed) if algorithm in wanted else None
        else:
            def impl(algorithm, ctx, state):
                return fn(ctx, state) if algorithm in wanted else None
        impl.__name__, impl.__qualname__, impl.__doc__ = hook, fn.__qualname__, fn.__doc__
        impl.__module__ = fn.__module__
        impl.implementation = fn
        impl.algorithms = tuple(dict.fromkeys(names))  # checked at load: every name must be registered
        return hookimpl(impl)

    return decorate


def registers(module: str, attribute: str):
    """A ``register_*`` hook implementation that registers every item of ``module.attribute``, imported on first use.

    Args:
        module: the module's dotted name.
        attribute: the name of a list (of Report, Claim, Algorithm, Workload) in it.

    Returns:
        The hook implementation; assign it to the hook's name in the plugin module.

    Example:
        >>> register_reports = registers("lbbench_mine.reports", "REPORTS")
    """
    from importlib import import_module

    @hookimpl
    def register_all(register):
        for item in getattr(import_module(module), attribute):
            register(item)

    return register_all


_pm: pluggy.PluginManager | None = None
_dists: dict = {}     # plugin name -> (distribution, version)
_broken: dict = {}    # plugin name -> reason


def manager() -> pluggy.PluginManager:
    """The plugin manager, loading the entry points on first use (built-ins first)."""
    global _pm
    if _pm is None:
        pm = pluggy.PluginManager("lbbench")
        pm.add_hookspecs(hookspecs)
        eps = metadata.entry_points(group="lbbench")
        for ep in sorted(eps, key=lambda e: (_dist_name(e) != "lbbench", e.name)):
            if pm.has_plugin(ep.name):
                continue
            dist = (_dist_name(ep), ep.dist.version if ep.dist else "")
            try:
                add(ep.load(), ep.name, dist, pm)
            except Exception as exc:  # a broken third-party plugin must not take the others down
                _broken[ep.name] = f"{type(exc).__name__}: {exc}"
        _pm = pm
    return _pm


def _dist_name(ep) -> str:
    return ep.dist.name if ep.dist else ep.name


def add(plugin, name: str, dist: tuple = ("", ""), pm: pluggy.PluginManager | None = None) -> None:
    """Register one plugin object, rejecting hook implementations without a spec."""
    pm = pm or manager()
    pm.register(plugin, name=name)
    unknown = [h for h, caller in vars(pm.hook).items()
               if not h.startswith("_") and not caller.has_spec()
               and any(i.plugin is plugin for i in caller.get_hookimpls())]
    if unknown:
        pm.unregister(name=name)
        raise pluggy.PluginValidationError(plugin, f"plugin {name!r} implements unknown hook {unknown[0]!r}")
    _dists[name] = dist


def reject(name: str, why: str) -> None:
    """Mark a registered plugin broken and unregister it (its hooks no longer answer)."""
    _broken[name] = why
    pm = manager()
    if pm.has_plugin(name):
        pm.unregister(name=name)


def broken() -> dict[str, str]:
    manager()
    _collect()
    return dict(_broken)


def hook():
    return manager().hook


def dist_of(plugin_name: str) -> tuple[str, str]:
    return _dists.get(plugin_name, (plugin_name, ""))


def implementers(dist: str, role: str) -> list:
    """The plugin modules of distribution ``dist`` that implement the hook ``role`` (``balance``, ...)."""
    return [impl.plugin for impl in getattr(manager().hook, role).get_hookimpls()
            if dist_of(impl.plugin_name)[0] == dist]


def _ordered_impls(caller) -> list:
    # built-in plugins first, then third-party ones in name order: a duplicate is the later one's fault
    return sorted(caller.get_hookimpls(), key=lambda i: (dist_of(i.plugin_name)[0] != "lbbench", i.plugin_name))


def _gather(hook_name: str, key: Callable, what: str) -> dict:
    """Call one ``register_*`` hook of every plugin; a plugin that raises or registers a taken name is rejected."""
    found: dict = {}
    owner: dict = {}
    for impl in _ordered_impls(getattr(manager().hook, hook_name)):
        dist, version = dist_of(impl.plugin_name)
        mine: dict = {}

        def register(*obj, _dist=dist, _version=version):
            item = obj[0] if len(obj) == 1 else obj
            mine[key(item)] = _stamp(item, _dist, _version)

        try:
            impl.function(register=register)
        except Exception as exc:  # one plugin's broken registration must not hide the others'
            reject(impl.plugin_name, f"{hook_name}: {type(exc).__name__}: {exc}")
            continue
        taken = sorted(set(mine) & set(found))
        if taken:
            reject(impl.plugin_name, f"registers {what} {taken[0]!r}, which {owner[taken[0]]} already provides")
            continue
        found.update(mine)
        owner.update(dict.fromkeys(mine, dist))
    return found


def _stamp(item, dist: str, version: str):
    """The item with the registering distribution set: every declaration (Algorithm, Report, Claim, ...) is
    a frozen dataclass with a ``plugin`` field, and an Algorithm also records the version."""
    names = {f.name for f in fields(item)} if is_dataclass(item) else set()
    if "plugin" not in names:
        return item
    return replace(item, plugin=dist, **({"version": version} if "version" in names else {}))


_cache: dict = {}


def _collect(papers: bool = True) -> dict:
    """Every registration, computed once per set of registered plugins. ``papers=False``: only what a run
    reads (algorithms, workloads, latency models, reference files); the reports, claims and calibrations are
    gathered when first asked for, since their modules load the claims layer and pandas (issue 52: a rank
    that runs a level loads neither)."""
    pm = manager()
    stamp = tuple(sorted(name for name, _ in pm.list_name_plugin()))
    if _cache.get("stamp") != stamp:
        _cache.clear()
        while True:  # a plugin whose @implements names an unregistered algorithm is rejected, then again
            algs = _gather("register_algorithms", lambda a: a.name, "algorithm")
            bad = _unregistered_implements(algs)
            if not bad:
                break
            for name, why in bad.items():
                _declared[name] = [a.name for a in algs.values() if a.plugin == dist_of(name)[0]]
                reject(name, why)
        _cache.update(
            algorithms=dict(sorted(algs.items())),
            workloads=dict(sorted(_gather("register_workloads", lambda w: w.name, "workload").items())),
            latency=_gather("register_latency_models", lambda t: t[0], "latency model"),
            references=_gather("register_references", lambda p: str(p), "reference file"),
        )
        _cache["stamp"] = tuple(sorted(name for name, _ in pm.list_name_plugin()))
    if papers and "reports" not in _cache:
        _cache.update(
            reports=dict(sorted(_gather("register_reports", lambda r: r.name, "report").items())),
            claims=_gather("register_claims", lambda c: c.name, "claim"),
            calibrations=_gather("register_calibrations", lambda c: c.name, "calibration"),
        )
        _cache["stamp"] = tuple(sorted(name for name, _ in pm.list_name_plugin()))
    return _cache


_declared: dict = {}  # rejected plugin -> the algorithms it had registered (for explain_unknown)


def _unregistered_implements(algs: dict) -> dict[str, str]:
    """Plugin name -> why, for each plugin with an ``@implements`` naming an algorithm no plugin registers."""
    import difflib

    out: dict = {}
    for hook_name in _SIGNATURES:
        for impl in getattr(manager().hook, hook_name).get_hookimpls():
            missing = [n for n in getattr(impl.function, "algorithms", ()) if n not in algs]
            if missing and impl.plugin_name not in out:
                near = difflib.get_close_matches(missing[0], list(algs), n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                where = getattr(impl.function, "implementation", impl.function)
                out[impl.plugin_name] = (f"@implements({missing[0]!r}) on {hook_name} ({_place(where)}): "
                                         f"no plugin registers an algorithm {missing[0]!r}{hint}")
    return out


def _place(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"{Path(code.co_filename).name}:{code.co_firstlineno}" if code else getattr(fn, "__qualname__", "?")


def serves(hook_name: str, algorithm: str) -> bool:
    """Whether some implementation of ``hook_name`` may answer for ``algorithm``: one made by ``@implements``
    naming it, or one written by hand (which checks the name itself, so it may)."""
    return any(algorithm in getattr(impl.function, "algorithms", (algorithm,))
               for impl in getattr(manager().hook, hook_name).get_hookimpls())


def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm by name, with the distribution that provides it."""
    return dict(_collect(papers=False)["algorithms"])


def reports() -> dict[str, Report]:
    return dict(_collect()["reports"])


def claims() -> dict:
    """Every registered claim by name (harness.claims.claim.claim.Claim), in registration order."""
    return dict(_collect()["claims"])


def calibrations() -> dict:
    """Every registered calibration by name (harness.claims.calibrate.Calibration), in registration order."""
    return dict(_collect()["calibrations"])


def workloads() -> dict:
    return dict(_collect(papers=False)["workloads"])


def latency_models() -> dict:
    return {name: fn for name, fn in _collect(papers=False)["latency"].values()}


def references() -> list[Path]:
    return [Path(p) for p in _collect(papers=False)["references"]]


def explain_unknown(name: str) -> str:
    """The one-line error for an algorithm name that is not available: the breakage if a broken plugin has it."""
    for plugin, why in broken().items():
        if name == plugin or name in _declared.get(plugin, ()) or name in _declared_by_entry_point(plugin):
            return f"algorithm {name!r} belongs to the broken plugin {plugin!r}: {why}"
    algs = algorithms()
    own = [a.name for a in algs.values() if a.plugin in (name, f"lbbench-{name}")]
    if own:  # a plugin's name where a method is expected
        return f"{name!r} is a plugin, not a method: name one of its algorithms ({', '.join(own)})"
    known = ", ".join(algs) or "none"
    return f"unknown algorithm {name!r} (available: {known})"


def _declared_by_entry_point(plugin: str) -> list:
    for ep in metadata.entry_points(group="lbbench"):
        if ep.name == plugin:
            try:
                module = ep.load()
            except Exception:  # noqa: BLE001 - the import error is the breakage already shown
                return []
            reg = getattr(module, "register_algorithms", None)
            names: list = []
            try:
                if reg:
                    reg(register=lambda a: names.append(a.name))
            except Exception:  # noqa: BLE001
                pass
            return names
    return []
