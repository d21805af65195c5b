"""Workloads (registered by plugins through ``register_workloads``) and the on-disk level cache.

``load(name, params, seed)`` returns a workload's levels, generated once and
cached under the cache directory keyed by (name, version, params, seed).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import wlcache
from .model import Level


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
        initial: the default ``--initial`` on this workload (``trace`` for an application trace).
        procs: ``procs(params) -> int``, the processor count the data implies (a trace's ranks): the
            default P, and any other P is an error. None: P defaults to 32.
        export: ``export(params, seed, owners, directory)`` writes one method's assignment
            (``owners[level] = owner array``) in the workload's own file format (``--export-vt``).

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
    initial: str = "metis"
    procs: Callable[[dict], int] | None = None
    export: Callable | None = None


def available() -> dict[str, Workload]:
    """Every registered workload by name."""
    from . import plugins

    return plugins.workloads()


def get(name: str) -> Workload:
    found = available()
    if name not in found:
        raise LookupError(f"unknown workload {name!r} (available: {', '.join(found) or 'none'})")
    return found[name]


def resolve_params(wl: Workload, given: dict) -> dict:
    """Merge ``given`` over the defaults, converting strings to the defaults' types."""
    unknown = set(given) - set(wl.params)
    if unknown:
        raise ValueError(f"workload {wl.name!r} has no parameter {sorted(unknown)[0]!r} "
                         f"(parameters: {', '.join(wl.params) or 'none'})")
    from .spec import coerce

    return {k: coerce(wl.name, k, given[k], d) if k in given else d for k, d in wl.params.items()}


def cache_dir() -> Path:
    return Path(os.environ.get("LBBENCH_CACHE", Path.home() / ".cache" / "lbbench"))


def cache_key(wl: Workload, params: dict, seed: int) -> str:
    blob = json.dumps([wl.name, wl.version, params, seed], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def load(name: str, params: dict | None = None, seed: int = 0) -> tuple[Workload, dict, list[Level]]:
    """The workload, its resolved parameters and its levels (from the data-only cache when present)."""
    wl = get(name)
    params = resolve_params(wl, params or {})
    path = cache_dir() / "workloads" / f"{wl.name}-{cache_key(wl, params, seed)}.npz"
    levels = wlcache.read(path) if wl.cache else None
    if levels is None:
        try:
            levels = list(wl.generate(seed=seed, **params))
        except (ValueError, LookupError, OSError):
            raise
        except Exception as exc:  # a generator that breaks on its parameters: one line, not a traceback
            raise ValueError(f"workload {wl.name} {params}: {type(exc).__name__}: "
                             f"{' '.join(str(exc).split())[:200]}") from None
        if not levels:
            raise ValueError(f"workload {wl.name} {params} has no levels")
        if wl.cache:
            wlcache.write(path, levels)
    return wl, params, levels
