"""Loading workloads (registered by plugins through ``register_workloads``) through the on-disk level cache.

``load(name, params, seed)`` returns a workload's levels, generated once and
cached under the cache directory keyed by (name, version, params, seed).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..contract import plugins
from ..contract.model import Level
from ..contract.plugins import Workload
from ..contract.spec import coerce
from ..store import wlcache
from ..store.wlcache import cache_dir


def available() -> dict[str, Workload]:
    """Every registered workload by name."""
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
    params = {k: coerce(wl.name, k, given[k], d) if k in given else d for k, d in wl.params.items()}
    if wl.validate is not None:
        plugins.validated(f"workload {wl.name}", wl.validate, params)
    return params


def cache_key(wl: Workload, params: dict, seed: int) -> str:
    blob = json.dumps([wl.name, wl.version, params, seed], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def load(name: str, params: dict | None = None, seed: int = 0, levels: list | None = None
         ) -> tuple[Workload, dict, list[Level]]:
    """The workload, its resolved parameters and its levels (from the data-only cache when present).

    ``levels``: the level indices a run needs; when the cache holds them all, only the levels from the first
    to the last of them are read (a run of one level of a large workload reads one level's arrays). None, or
    a level the workload lacks: every level (a caller's error then names the levels there are).
    """
    wl = get(name)
    params = resolve_params(wl, params or {})
    path = cache_dir() / "workloads" / f"{wl.name}-{cache_key(wl, params, seed)}.npz"
    got = _recent(path, levels) if wl.cache else None
    if got is not None:
        return wl, params, got
    expect = list(wl.level_indices(params)) if wl.level_indices is not None else None
    got = wlcache.read(path, expect, levels) if wl.cache else None
    whole = not levels  # (a read for some levels may have read all; the memo does not count on it)
    if got is None:
        whole = True
        try:
            got = list(wl.generate(seed=seed, **params))
        except (LookupError, OSError):
            raise
        except ValueError as exc:  # name the workload and its parameters
            msg = " ".join(str(exc).split())[:300]
            raise ValueError(msg if msg.startswith(("workload", wl.name)) else f"workload {wl.name} {params}: {msg}") \
                from None
        except Exception as exc:  # a generator that breaks on its parameters: one line, not a traceback
            raise ValueError(f"workload {wl.name} {params}: {type(exc).__name__}: "
                             f"{' '.join(str(exc).split())[:200]}") from None
        if not got:
            raise ValueError(f"workload {wl.name} {params} has no levels")
        if wl.cache:
            wlcache.write(path, got)
    if wl.cache:
        _remember(path, got, whole)
    return wl, params, got


_RECENT: dict = {}  # cache file -> ((size, mtime), levels, whether they are all): the last few loaded
RECENT = 2


def _stamp(path: Path):
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _recent(path: Path, levels: list | None) -> list | None:
    """The levels of ``path`` loaded earlier in this process, if the file has not changed since and they are
    all of them or hold every one of ``levels`` (a report's second ``compare`` on a workload skips reading and
    validating the file again)."""
    got = _RECENT.get(path)
    if got is None or got[0] != _stamp(path) or got[0] is None:
        return None
    if not got[2] and not (levels and set(levels) <= {lv.index for lv in got[1]}):
        return None
    return got[1]


def _remember(path: Path, levels: list, whole: bool) -> None:
    stamp = _stamp(path)
    if stamp is None:
        return
    _RECENT.pop(path, None)
    _RECENT[path] = (stamp, levels, whole)
    while len(_RECENT) > RECENT:
        _RECENT.pop(next(iter(_RECENT)))
