"""The per-level protocol (docs/architecture.md): one method through the levels of one workload.

For each level: ``home`` and ``owner`` carry over (new vertices inherit their
parent's) -> partition -> remap -> accept -> balance -> the runner's
accounting of the data movement (derived from the homes before and after;
the runner sends the migration messages a method did not send) -> metrics
hook -> one row. A plugin that raises, runs past the timeout, returns an
invalid assignment or computes different owners on different ranks fails
its cell: the row says why, the state stays as it was, and the run goes on.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import sys
import threading
import time
import traceback
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from ..contract import pins, plugins
from ..contract.context import Context, Timer
from ..contract.forms import cell_vertices, convert, form_of
from ..contract.lazy import import_bound
from ..contract.model import (Boxes, Graph, Level, Machine, State,
                              check_integer_dtype)
from ..contract.pieces import BoxPieces, moved_cells
from ..contract.spec import Method, parse_method, resolve
from ..engine.shared import HostArrays
from ..engine.vprocs import CellAborted, Diverged, Engine
from ..store.boxgraphs import box_graph
from ..store.validate import check_types
from .heap import WAITING_TRIM_ABOVE, give_back_freed
from .partitioners import metis_kway

ROLES = ("partition", "remap", "accept", "balance")
BYTES_PER_UNIT = 8  # migration bytes per unit of rwgt
BYTES_PER_CELL = 8  # migration bytes per cell of a box piece
INITIAL = ("metis", "block", "slabs", "root", "trace")


class CellFailed(Exception):
    """A plugin misbehaved in one cell."""


class CellTimeout(BaseException):
    """The cell ran past ``--timeout`` (a BaseException: a plugin's ``except Exception`` cannot swallow it)."""


@dataclass(frozen=True)
class Step:
    """Who plays a role: the algorithm's name, its resolved parameters, its declaration."""

    name: str
    params: dict
    algorithm: plugins.Algorithm


@dataclass(frozen=True)
class Plan:
    """Which algorithm plays each role, at the first level of a run and at the later ones."""

    method: Method
    first: dict
    rest: dict

    def roles(self, first: bool) -> dict[str, Step]:
        return self.first if first else self.rest

    @property
    def steps(self) -> list[Step]:
        seen: dict = {}
        for step in (*self.first.values(), *self.rest.values()):
            seen.setdefault(step.name, step)
        return list(seen.values())

    def params_json(self) -> str:
        return json.dumps({s.name: s.params for s in self.steps}, sort_keys=True, default=str)

    def new_memory(self) -> dict:
        """A fresh per-run state for every algorithm that declares one."""
        return {s.name: s.algorithm.memory() for s in self.steps if s.algorithm.memory is not None}

    def pack(self, memory: dict) -> "RunMemory":
        """The run's memories as data for the result store (each dataclass as its fields)."""
        return RunMemory({name: {f.name: getattr(m, f.name) for f in fields(m)} for name, m in memory.items()})

    def check_memory(self, stored: "RunMemory | None") -> None:
        """``ValueError`` unless ``stored`` (read back from the result store) holds, for algorithms of this
        plan only, fields that fit their memory dataclasses' types (:func:`harness.store.validate.check_types`)."""
        classes = {s.name: s.algorithm.memory for s in self.steps if s.algorithm.memory is not None}
        for name, values in (stored.algorithms if stored is not None else {}).items():
            if name not in classes or not isinstance(values, dict):
                raise ValueError(f"stored memory for {name!r} does not belong to {self.method}")
            check_types(classes[name], values)

    def unpack(self, stored: "RunMemory | None") -> dict:
        classes = {s.name: s.algorithm.memory for s in self.steps if s.algorithm.memory is not None}
        got = stored.algorithms if stored is not None else {}
        return {name: cls(**got[name]) if name in got else cls() for name, cls in classes.items()}


@dataclass
class RunMemory:
    """What one run's algorithms keep across levels, by algorithm name, as plain fields (stored as data)."""

    algorithms: dict = field(default_factory=dict)


def plan(method: Method, known: dict) -> Plan:
    """Map each role to its algorithm (``mapper/balancer`` splits the roles); validate the parameters."""
    steps = []
    for call in method.calls:
        if call.name not in known:
            raise LookupError(plugins.explain_unknown(call.name))
        alg = known[call.name]
        params = resolve(call, alg.params)
        if alg.validate is not None:
            plugins.validated(f"algorithm {alg.name} (plugin {alg.plugin})", alg.validate, params)
        steps.append(Step(call.name, params, alg))
    if len(steps) == 1:
        roles = {role: steps[0] for role in ROLES if role in steps[0].algorithm.roles}
        return Plan(method, roles, roles)
    mapper, balancer = steps
    if "balance" not in balancer.algorithm.roles:
        raise ValueError(f"{method}: {balancer.name} has no balance role and cannot follow '/'")
    mapped = {role: mapper for role in ROLES[:3] if role in mapper.algorithm.roles}
    if "partition" not in mapped:
        raise ValueError(f"{method}: {mapper.name} has no partition role and cannot precede '/'")
    if balancer.algorithm.mapper == "first":  # the tree paper's AE/ORB/MCSTLB: map once, then balance
        return Plan(method, mapped, {"balance": balancer})
    both = {**mapped, "balance": balancer}
    return Plan(method, both, both)


def as_form(data, form: str):
    """``data`` (Graph, Boxes or LoadArray) converted to ``form`` (``graph``, ``boxes``, ``array``;
    :mod:`harness.contract.forms`), a box level's graph from the workload cache; ValueError when impossible.

    Example:
        >>> cells = as_form(level.data, "array")  # a graph's pwgt in Hilbert order of its coordinates
    """
    return convert(data, form, box_graph)


def graph_of(level: Level) -> Graph:
    """The level as a graph (the form every metric is computed on)."""
    return as_form(level.data, "graph")


def block_owner(level: Level, P: int) -> np.ndarray:
    """Contiguous blocks of nearly equal item count along the array order (C order, or Hilbert order of a graph)."""
    order = cell_vertices(level.data, "array") if form_of(level.data) != "graph" or \
        graph_of(level).coords is not None else np.arange(graph_of(level).n)
    owner = np.empty(order.size, np.int64)
    owner[order] = (np.arange(order.size) * P) // max(order.size, 1)
    return owner


def initial_state(level: Level, P: int, seed: int, how: str = "metis", engine: Engine | None = None,
                  known: dict | None = None) -> State:
    """The distribution every method starts from at its first level.

    ``metis``: METIS k-way on the level's graph with unit weights (the mesh as
    partitioned before adaptation); ``block``: contiguous blocks along the
    array order; ``slabs``: P slabs of equal vertex count along the first
    coordinate (ties by index); ``root``: everything on processor 0; ``trace``:
    where the application ran each vertex (``level.meta["node"]``, a trace
    workload's); any other name: that algorithm's ``partition`` from the
    ``root`` start. Under MPI METIS runs on vproc 0's rank and its owners are one
    read-only copy per host (``HostArrays.of(engine)``: freed at the end of
    ``compare``, or when MPI ends), not one per rank.
    """
    g = graph_of(level)
    if how == "trace":
        if "node" not in level.meta:
            raise ValueError(f"--initial trace: level {level.index} carries no application placement "
                             "(only trace workloads such as vt do)")
        owner = np.asarray(level.meta["node"], np.int64)
    elif how == "metis":  # on one rank (METIS's memory is not taken R times), its owners one copy per host
        ones = np.ones(g.n, np.int64)
        here = engine is None or engine.hosts(0)  # vproc 0's rank: the owners' source
        owner = metis_kway(g, P, seed=seed, vweights=ones, eweights=np.ones_like(g.cwgt)) if here else None
        give_back_freed()
        owner = owner if engine is None else HostArrays.of(engine).sent(owner)
    elif how == "block":
        owner = block_owner(level, P)
    elif how == "slabs":
        if g.coords is None:
            raise ValueError(f"--initial slabs: level {level.index} has no coordinates")
        owner = np.empty(g.n, np.int64)
        owner[np.argsort(g.coords[:, 0], kind="stable")] = (np.arange(g.n) * P) // max(g.n, 1)
    elif how == "root":
        owner = np.zeros(g.n, np.int64)
    else:
        roles = plan(parse_method(how), known if known is not None else plugins.algorithms()).first
        if "partition" not in roles:
            raise ValueError(f"--initial {how}: {how} has no partition role")
        root = State.settled(np.zeros(g.n, np.int64), P)
        ctx = Context(level=level, graph=g, state=root, machine=(engine.machine if engine else Machine.uniform(P)),
                      engine=engine or Engine(P, comm=None), params={}, seed=seed, original=level.data)
        owner = partition_state(roles, ctx, root).owner
    return with_pieces(pins.place(State.settled(owner, P), level), level.data)


def with_pieces(state: State, data, before: State | None = None) -> State:
    """On a boxes level (``data``), make sure ``state.pieces`` tiles its boxes (one piece per box by default)."""
    if not isinstance(data, Boxes):
        return state
    if state.pieces is not None and (before is None or state.pieces is not before.pieces):
        return state
    return State(state.owner, state.home, state.P, BoxPieces.whole(data, state.owner))


def carry(state: State, level: Level) -> State:
    """The previous level's state on this level's vertices (a new vertex inherits its parent's).

    Box pieces are geometric and carried as they are: ``before.pieces`` are the previous step's.
    A vertex without a parent (``parent[v] = -1``) starts on ``level.meta["home"][v]``; pinned
    vertices start on their processor.
    """
    if level.parent is None:
        return pins.place(state, level)
    parent = np.asarray(level.parent)
    owner = state.owner[parent]
    home = owner if state.home is state.owner else state.home[parent]  # settled: one array (State shares it)
    new = np.flatnonzero(parent < 0)
    if new.size:
        owner[new] = home[new] = np.asarray(level.meta["home"])[new]
    return pins.place(State(owner, home, state.P, state.pieces), level)


WATCHDOG_GRACE_S = 10.0


@contextmanager
def deadline(seconds: float | None, engine: Engine | None = None):
    """Fail the cell after ``seconds`` (SIGALRM, seen between Python bytecodes). A watchdog ends the job
    ``WATCHDOG_GRACE_S`` later if a rank is stuck where no signal reaches it (native code)."""
    if not seconds:
        yield
        return

    def expire(signum, frame):
        exc = CellTimeout(f"timed out after {seconds:g} s")
        if engine is None or not engine.defer(exc):  # in a collective: raised when it is complete
            raise exc

    def give_up():
        sys.stderr.write(f"lbbench: error: a cell is stuck {WATCHDOG_GRACE_S:g} s past its --timeout of {seconds:g} s"
                         " (native code?); ending the job (finished cells are stored: run again to resume)\n")
        sys.stderr.flush()
        if engine is not None and engine.comm is not None:
            engine.comm.Abort(3)
        os._exit(3)

    watchdog = threading.Timer(seconds + WATCHDOG_GRACE_S, give_up)
    watchdog.daemon = True
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog.start()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        watchdog.cancel()


def check_parts(parts, n: int, nparts: int, who: str) -> np.ndarray:
    """An assignment as int64, or CellFailed naming what is wrong (None, shape, dtype, range)."""
    if parts is None:
        raise CellFailed(f"{who}: no plugin returned a partition")
    a = np.asarray(parts)
    if a.shape != (n,):
        raise CellFailed(f"{who}: partition has shape {a.shape}, expected ({n},)")
    try:
        check_integer_dtype("partition", a)  # the rule State applies to owners
    except ValueError as exc:
        raise CellFailed(f"{who}: {exc}") from None
    if a.size and (a.min() < 0 or a.max() >= nparts):
        raise CellFailed(f"{who}: partition has parts outside [0, {nparts})")
    return a.astype(np.int64)


def _check_state(state, n: int, P: int, who: str) -> State:
    if not isinstance(state, State):
        raise CellFailed(f"{who}: balance returned {type(state).__name__}, not a State")
    if state.owner.size != n or state.P != P:
        raise CellFailed(f"{who}: balance returned a State for {state.owner.size} vertices and P = {state.P}, "
                         f"expected {n} and {P}")
    return state


def _enter(ctx: Context, step: Step, memory: dict) -> str:
    """Point ``ctx`` at one algorithm: its name, parameters, memory and the level in its form."""
    ctx.algorithm, ctx.params, ctx.memory = step.name, dict(step.params), memory.get(step.name)
    accepts, own = step.algorithm.accepts, form_of(ctx.original)
    form = own if own in accepts else accepts[0]
    ctx.level = replace(ctx.level, data=as_form(ctx.original, form))
    return step.name


def partition_state(roles: dict, ctx: Context, before: State, memory: dict | None = None,
                    reference: BoxPieces | None = None) -> State:
    """partition -> remap -> accept: the proposed state (homes unchanged) or ``before`` if rejected.

    ``reference``: a timing repeat's first run's pieces; pieces equal to them are taken as they are (checked
    once, and the data they moved is remembered on them)."""
    hook, P = plugins.hook(), ctx.P
    name = _enter(ctx, roles["partition"], memory or {})
    with ctx.timer("partition"):
        parts = hook.partition(algorithm=name, ctx=ctx)
    pieces = None
    if isinstance(parts, BoxPieces):
        if not isinstance(ctx.original, Boxes):
            raise CellFailed(f"{name}: returned box pieces for a {ctx.level.form} level")
        if reference is not None and reference.equals(parts):
            parts = reference
        else:
            try:
                parts.check(ctx.original, P if "remap" not in roles else np.iinfo(np.int64).max)
            except ValueError as exc:
                raise CellFailed(f"{name}: invalid box pieces: {exc}") from None
        pieces, parts = parts, parts.box_owner(ctx.original.n)
    elif parts is not None and ctx.level.form != form_of(ctx.original):
        # an array-form algorithm partitions cells in Hilbert order: back to graph vertices
        order = ctx.cells()
        cells = check_parts(parts, order.size, np.iinfo(np.int64).max, name)
        parts = np.empty(ctx.graph.n, np.int64)
        parts[order] = cells
    proc = np.arange(P)
    if "remap" in roles:
        with ctx.timer("remap"):
            mapped = hook.remap(algorithm=name, ctx=ctx, parts=parts)
        if mapped is not None:
            proc = check_parts(mapped, np.asarray(mapped).size, P, f"{name} (remap)")
    parts = check_parts(parts, ctx.graph.n, proc.size, name)
    if pieces is not None and "remap" in roles:
        pieces = replace(pieces, owner=proc[pieces.owner])
    owner = proc[parts]
    if pieces is None:  # partitioners are not told about pins: the runner puts pinned vertices back
        owner, cost = pins.reassign(owner, ctx.level, ctx.graph.pwgt)
        ctx.record.update(cost)
    if np.array_equal(owner, before.owner):  # the same owners (SBN without its pre-partitioner): one array, not two
        owner = before.owner
    state = State(owner, before.home, P, pieces)
    if "accept" in roles:
        with ctx.timer("accept"):
            if hook.accept(algorithm=name, ctx=ctx, proposed=state) is False:
                state = before
    return state


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for a block, on again after (no collection forced: the usual
    thresholds resume). Reference counting still frees everything not in a cycle. A level's handlers make
    and drop millions of small objects, and every full collection walks every live one: at P = 2,048 they
    took 12% of an SBN level's CPU (39 full collections)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def run_level(roles: dict, ctx: Context, before: State, memory: dict, reference: BoxPieces | None = None) -> State:
    """One level through the hooks, the cyclic collector paused (:func:`collector_paused`); returns the state
    after it, data movement included (``reference``: :func:`partition_state`)."""
    with collector_paused():
        return _run_level(roles, ctx, before, memory, reference)


def _run_level(roles: dict, ctx: Context, before: State, memory: dict, reference: BoxPieces | None) -> State:
    state = before
    if "partition" in roles:
        state = partition_state(roles, ctx, before, memory, reference)
    if "balance" in roles:
        name = _enter(ctx, roles["balance"], memory)
        with ctx.timer("balance"):
            state = _check_state(plugins.hook().balance(algorithm=name, ctx=ctx, state=state),
                                 ctx.graph.n, ctx.P, name)
        if state.home is not state.owner and np.array_equal(state.home, state.owner):
            state = State.settled(state.owner, ctx.P, state.pieces)  # homes equal to owners: one array, not two
    else:
        state = state.migrated()  # eager migration, as PLUM does
    n_moved = pins.moved(state, ctx.level)
    if n_moved:
        raise CellFailed(f"{ctx.algorithm}: moved {n_moved} pinned objects")
    return with_pieces(state, ctx.original, before)


def movement(g: Graph, before: State, after: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, bytes) per processor pair of the data that moved, derived from the homes (or the pieces)."""
    if before.pieces is not None and after.pieces is not None:
        src, dst, cells = moved_cells(before.pieces, after.pieces)
        return src, dst, np.asarray(cells, np.int64) * BYTES_PER_CELL
    moved = before.home != after.home
    key = before.home[moved] * after.P + after.home[moved]
    pairs, units = pair_sums(key, g.rwgt[moved], after.P * after.P)
    return pairs // after.P, pairs % after.P, units.astype(np.int64) * BYTES_PER_UNIT


def pair_sums(key: np.ndarray, weights: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (in ``[0, span)``), sorted, and the weights of each summed in their order (bincount's):
    counted over the whole span where it is no larger than the keys (P x P pairs at small P: no sort), else
    through ``np.unique``."""
    if span <= max(key.size, 1 << 12):
        pairs = np.flatnonzero(np.bincount(key, minlength=span))
        return pairs, np.bincount(key, weights=weights, minlength=span)[pairs]
    pairs, inv = np.unique(key, return_inverse=True)
    return pairs, np.bincount(inv, weights=weights, minlength=pairs.size)


def account(ctx: Context, before: State, after: State) -> dict:
    """The runner's own accounting of the data movement; sends what the method did not send itself."""
    src, dst, nbytes = movement(ctx.graph, before, after)
    eng = ctx.engine
    # every rank reaches both collectives whatever its own movement (ranks whose owners differ are caught later)
    if eng.step_stats("migration")["messages"] == 0 and eng.rank_max(float(src.size)) > 0:
        with ctx.timer("migration"):  # one message per pair, declaring its bytes (nothing is allocated)
            mine = eng.local_index[src] >= 0  # this rank's vprocs, under any layout
            eng.send("data", src[mine], dst[mine], nbytes=nbytes[mine], kind="migration")
            eng.exchange()
    return {"migration_bytes": int(nbytes.sum()), "migration_messages": int(src.size)}


def metrics_row(ctx: Context, before: State, after: State, skip: frozenset = frozenset()) -> tuple[dict, tuple | None]:
    """Every ``metrics`` implementation's columns (registration order: later ones override), and the first
    implementation that raised as ``(plugin name, status)`` or None; one that raises is left out, never fatal.

    Computed on one rank, vproc 0's, and sent to the others (issue 52): the figures depend only on what every
    rank has agreed on (the level, the states, ``ctx.ran``), so a host holds the metrics' temporaries once, not
    once per rank, and every rank gets the same figures and the same verdict."""
    eng = ctx.engine
    with ctx.timer("metrics"):
        if eng.R == 1:
            return _metrics(ctx, before, after, skip)
        if eng.hosts(0):
            return eng.bcast(_metrics(ctx, before, after, skip), what="metrics")
        give_back_freed(WAITING_TRIM_ABOVE)  # the level's freed heap back while vproc 0's rank is at its peak
        try:
            return eng.bcast(None, what="metrics")
        except Diverged:  # a metrics hook called a collective, which fails it there (below): its row comes next
            return eng.bcast(None, what="metrics")


def _metrics(ctx: Context, before: State, after: State, skip: frozenset) -> tuple[dict, tuple | None]:
    figs: dict = {}
    broken = None
    kwargs = {"ctx": ctx, "before": before, "after": after}
    for impl in plugins.hook().metrics.get_hookimpls():
        if impl.plugin_name in skip:
            continue
        try:
            part = impl.function(*[kwargs[a] for a in impl.argnames])
        except (Exception, Diverged) as exc:  # a metrics plugin's fault fails the cell, the comparison goes on
            broken = broken or (impl.plugin_name, f"failed: metrics of {failure(exc, impl.plugin_name)}")
            continue
        figs.update(part or {})
    return figs, broken


def engine_row(engine: Engine) -> dict:
    """The engine's traffic columns of the cell."""
    out = {}
    for kind, t in engine.totals().items():
        prefix = "wire_" if kind == "migration" else ""
        out[f"{prefix}{kind}_messages"] = t["messages"]
        out[f"{prefix}{kind}_bytes"] = t["bytes"]
        out[f"modelled_{kind}_s"] = t["modelled_s"]
    for kind in ("balance", "migration"):
        out[f"{kind}_supersteps"] = engine.step_stats(kind)["supersteps"]
    return out


def timing_row(engine: Engine, timer: Timer, total: float) -> dict:
    """Wall time per category, max over ranks; T_exec of the tree paper's Eq. 6."""
    per_rank = engine.gather_ranks({**timer.seconds, "total": total})
    cats = sorted({k for d in per_rank for k in d})
    return {f"time_{c}_s": max(d.get(c, 0.0) for d in per_rank) for c in cats}


def texec(row: dict) -> dict:
    model = row.get("modelled_balance_s", 0.0) + row.get("modelled_migration_s", 0.0)
    wall = sum(row.get(f"time_{c}_s", 0.0) for c in ("partition", "remap", "balance"))
    return {"texec_s": wall + model, "texec_model_s": model}


def owners_hash(owner: np.ndarray) -> str:
    return f"{zlib.crc32(np.ascontiguousarray(owner, np.int64)):08x}"  # (its buffer: no copy of the bytes)


MESSAGE_CHARS = 2000  # a longer message keeps its start and end, with what was left out counted between


def failure(exc: BaseException, who: str) -> str:
    """One line naming the algorithm, the error and where the plugin raised it (file:line, never cut off).

    The place is the innermost frame of the plugin's own code (the package of the first frame past the
    harness and pluggy), so ``State.settled(float owners)`` names the plugin's line, not ``model.py``; with
    no such frame, the innermost one.
    """
    if isinstance(exc, (CellFailed, CellTimeout)):
        return _shorten(" ".join(str(exc).split()))
    where = plugin_frame(exc.__traceback__)
    where = f" ({Path(where.f_code.co_filename).name}:{where.lineno})" if where else ""
    return _shorten(" ".join(f"{who}: {type(exc).__name__}: {exc}".split())) + where


def _shorten(text: str) -> str:
    if len(text) <= MESSAGE_CHARS:
        return text
    keep = MESSAGE_CHARS // 2
    return f"{text[:keep]} ... [{len(text) - 2 * keep} characters] ... {text[-keep:]}"


@dataclass(frozen=True)
class _Frame:
    f_code: object
    lineno: int
    module: str


def plugin_frame(tb) -> "_Frame | None":
    """The innermost frame of the plugin's package in a traceback (or the innermost frame)."""
    frames = [_Frame(f.f_code, line, f.f_globals.get("__name__", "")) for f, line in traceback.walk_tb(tb)]
    if not frames:
        return None

    def package(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:3]) if parts[:2] == ["harness", "builtin"] else parts[0]

    def core(module: str) -> bool:
        return package(module) in ("harness", "pluggy")

    own = next((package(f.module) for f in frames if not core(f.module)), None)
    mine = [f for f in frames if own is not None and package(f.module) == own]
    return mine[-1] if mine else frames[-1]


def agree(engine: Engine, status: str, digest: str) -> str:
    """Every rank's verdict on the cell: failed if any rank failed or the ranks' owners differ."""
    try:
        votes = engine.gather_ranks((status, digest))
    except CellAborted as why:  # a rank failed after this rank's last collective: its abort met this vote
        status = status if status != "ok" else f"{why} (on another rank)"
        votes = engine.gather_ranks((status, digest))
    if status != "ok":
        return status
    failed = [s for s, _ in votes if s != "ok"]
    if failed:
        return failed[0] if failed[0].endswith("(on another rank)") else failed[0] + " (on another rank)"
    hashes = [h for _, h in votes]
    if len(set(hashes)) > 1:
        return "failed: ranks computed different owners (" + ", ".join(hashes) + ")"
    return "ok"


def run_cell(roles: dict, level: Level, g: Graph, before: State, machine: Machine, engine: Engine,
             seed: int, memory: dict, timeout: float | None, previous: dict | None = None,
             show_traceback: bool = False, metrics: bool = True, reference: State | None = None
             ) -> tuple[dict, State]:
    """One (method, level) cell: the row's figures and the state after it. Never raises for a plugin's fault.

    ``metrics=False``: a timing repeat (``harness.engine.vprocs.timing``): the hooks and the data movement only, the row
    their timings, traffic and the plugin's own ``ctx.record``; ``reference``: the state after the first
    run, whose box pieces a repeat that returns the same ones reuses (not checked, nor overlapped, again)."""
    for role, step in roles.items():  # what the method's plugin imports when first used, before it is timed
        for module in plugins.implementers(step.algorithm.plugin, role):
            import_bound(module)
    engine.reset_counters()
    engine.timed = bool(timeout)  # on every rank alike: each collective of the cell waits the same way
    ctx = Context(level=level, graph=g, state=before, machine=machine, engine=engine, params={},
                  seed=seed, original=level.data, previous=previous)
    t0 = time.perf_counter()
    status, after, moved = "ok", before, {}
    try:
        with deadline(timeout, engine):
            after = run_level(roles, ctx, before, memory, getattr(reference, "pieces", None))
            engine.drained()  # a message the hooks never exchanged fails the cell, never vanishes
            moved = account(ctx, before, after)
    except Diverged as why:  # every rank raised it in the same collective: nobody waits for an abort
        status = str(why)
    except CellAborted as why:  # another rank failed: its abort released this rank from a collective
        status = f"{why} (on another rank)"
    except (Exception, CellTimeout) as exc:  # the plugin's fault: record it, release the other ranks
        status = "failed: " + failure(exc, ctx.algorithm or str(roles))
        if show_traceback:
            traceback.print_exception(exc, file=sys.stderr)
        engine.abort(status)
    busy = engine.busy_s()  # the method's hooks and the data movement; not the metrics (one rank's)
    give_back_freed()  # what the hooks freed, before the metrics
    agreed, digest = after, owners_hash(after.owner)
    status = agree(engine, status, digest)
    HostArrays.of(engine).sweep()  # host-shared arrays nothing reads any more (an earlier level's owners) freed
    if not metrics:
        row = {**ctx.record, **engine_row(engine), **timing_row(engine, ctx.timer, time.perf_counter() - t0)}
        return {**row, **texec(row), "status": status}, after
    if status != "ok":
        engine.reset_counters()
        after, moved, ctx.ran = before, {}, None
        ctx.record.clear()
    row, broken = metrics_row(ctx, before, after)  # (the same on every rank)
    if broken is not None and after is not before:  # failed: the state stays as it was, figures of that state
        engine.reset_counters()
        after, moved, ctx.ran = before, {}, None
        ctx.record.clear()
        row, _ = metrics_row(ctx, before, after, skip=frozenset({broken[0]}))
    if broken is not None and status == "ok":
        status = broken[1]
    row.update(ctx.record)
    row.update(moved or {"migration_bytes": 0, "migration_messages": 0})
    row.update(engine_row(engine))
    row.update(engine.rank_busy(busy))
    row.update(timing_row(engine, ctx.timer, time.perf_counter() - t0))
    row.update(texec(row))
    row["owners_hash"] = digest if after is agreed else owners_hash(after.owner)
    row["status"] = status
    return row, after
