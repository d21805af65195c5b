"""The plugin manager: every plugin, built-in or not, comes through the entry-point group ``lbbench``.

A plugin whose module fails to import, or that implements a hook that does
not exist (a misspelled ``@hookimpl``), is rejected and listed in
:func:`broken` with the reason; the others keep working.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from importlib import metadata

import pluggy

from . import hookspecs


@dataclass(frozen=True)
class Algorithm:
    """What a plugin declares about one algorithm.

    ``roles`` names the hooks it implements (``partition``, ``remap``,
    ``accept``, ``balance``); ``accepts`` the workload forms (``graph``,
    ``boxes``, ``array``) it takes; ``params`` the parameters with defaults.
    """

    name: str
    family: str
    params: dict = field(default_factory=dict)
    accepts: tuple = ("graph",)
    roles: tuple = ("partition",)
    description: str = ""
    plugin: str = ""
    version: str = ""


@dataclass(frozen=True)
class Report:
    """A named report (a paper's table): ``build(options) -> list[Table]`` (see harness.reports)."""

    name: str
    build: object
    title: str = ""
    description: str = ""
    plugin: str = ""


_pm: pluggy.PluginManager | None = None
_dists: dict = {}
_broken: dict = {}


def manager() -> pluggy.PluginManager:
    """The plugin manager, loading the entry points on first use."""
    global _pm
    if _pm is None:
        pm = pluggy.PluginManager("lbbench")
        pm.add_hookspecs(hookspecs)
        for ep in sorted(metadata.entry_points(group="lbbench"), key=lambda e: e.name):
            if pm.has_plugin(ep.name):
                continue
            dist = (ep.dist.name, ep.dist.version) if ep.dist else (ep.name, "")
            try:
                add(ep.load(), ep.name, dist, pm)
            except Exception as exc:  # a broken third-party plugin must not take the others down
                _broken[ep.name] = f"{type(exc).__name__}: {exc}"
        _pm = pm
    return _pm


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


def broken() -> dict[str, str]:
    manager()
    return dict(_broken)


def hook():
    return manager().hook


def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm by name, with the distribution that provides it."""
    pm = manager()
    found: dict[str, Algorithm] = {}
    for impl in pm.hook.register_algorithms.get_hookimpls():
        dist, version = _dists.get(impl.plugin_name, (impl.plugin_name, ""))

        def register(alg: Algorithm, dist=dist, version=version):
            if alg.name in found:
                raise ValueError(f"algorithm {alg.name!r} registered twice ({found[alg.name].plugin} and {dist})")
            found[alg.name] = replace(alg, plugin=dist, version=version)

        impl.function(register=register)
    return dict(sorted(found.items()))


def reports() -> dict[str, Report]:
    pm = manager()
    found: dict[str, Report] = {}
    for impl in pm.hook.register_reports.get_hookimpls():
        dist = _dists.get(impl.plugin_name, (impl.plugin_name, ""))[0]
        try:
            impl.function(register=lambda r, dist=dist: found.setdefault(r.name, replace(r, plugin=dist)))
        except Exception as exc:  # one plugin's broken reports must not hide the others'
            _broken[impl.plugin_name] = f"register_reports: {type(exc).__name__}: {exc}"
    return dict(sorted(found.items()))
