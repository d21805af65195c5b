"""Workload registry (entry-point group ``lbbench.workloads``) and the on-disk level cache.

A workload entry point names a :class:`Workload`. ``load(name, params, seed)``
returns its levels, generated once and cached under the cache directory keyed
by (name, version, params, seed).
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable

from .model import Level


@dataclass(frozen=True)
class Workload:
    """A named source of adaptation levels.

    ``generate(seed=..., **params)`` returns a list of :class:`Level`;
    ``params`` are the defaults (values are parsed to the default's type);
    ``forms`` the level forms it yields (``graph``, ``boxes``, ``array``).
    """

    name: str
    generate: Callable[..., list]
    version: str = "1"
    params: dict = field(default_factory=dict)
    forms: tuple = ("graph",)
    description: str = ""
    cache: bool = True


def available() -> dict[str, Workload]:
    found = {}
    for ep in metadata.entry_points(group="lbbench.workloads"):
        found.setdefault(ep.name, ep)
    return dict(sorted(found.items()))


def get(name: str) -> Workload:
    eps = available()
    if name not in eps:
        raise LookupError(f"unknown workload {name!r} (available: {', '.join(eps) or 'none'})")
    wl = eps[name].load()
    return wl() if callable(wl) and not isinstance(wl, Workload) else wl


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
    """The workload, its resolved parameters and its levels (from the cache when present)."""
    wl = get(name)
    params = resolve_params(wl, params or {})
    path = cache_dir() / "workloads" / f"{wl.name}-{cache_key(wl, params, seed)}.pkl"
    if wl.cache and path.exists():
        with open(path, "rb") as fh:
            return wl, params, pickle.load(fh)
    levels = list(wl.generate(seed=seed, **params))
    if wl.cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            pickle.dump(levels, fh, protocol=5)
        os.replace(tmp, path)
    return wl, params, levels
