"""``--export-vt DIR``: each method's assignment written back in the trace's own format (DARMA vt LBDatafile).

The workload does the writing (``Workload.export``, e.g. the ``vt`` reader's
writer): this module checks the workload can and that DIR is safe to write
(:mod:`.owned`: new, empty or an earlier export; never the trace's own folder,
inside it or around it), names one directory per method and hands it the
owners ``api.compare`` collected.

DIR holds one directory per method that ran without a failed cell, each
written beside and renamed into place (a re-export replaces it whole), and
``lbbench-export.json``, the manifest: ``{"methods": {method: directory},
"failed": {method: reason}}``. Directory names escape every character but
ASCII letters, digits and ``_.-=,+[]`` as ``%XX`` (UTF-8 bytes), so two
methods never share one and :func:`method_of` reverses it.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import quote, unquote

from ..engine.vprocs import world
from ..run import workloads
from .owned import MARKERS, check_owned, fresh_beside, remove, swap_in, write_file

MAX_NAME = 200  # bytes of a directory name (file systems allow 255)


def check_exportable(workload: str) -> None:
    """ValueError when the workload cannot write its levels back (it is not a trace)."""
    wl = workloads.get(workload)
    if wl.export is None:
        raise ValueError(f"--export-vt: workload {workload} is not a vt trace (use -w vt[path=DIR] or vt-synthetic)")


def method_dir(method: str) -> str:
    """A directory name for a method as given (``metis/sbn[f=40]`` -> ``metis%2Fsbn[f=40]``); reversible by
    :func:`method_of` up to :data:`MAX_NAME` bytes, beyond which it is cut and ends in a hash of the method."""
    name = quote(method, safe="=,+[]")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > MAX_NAME:
        name = name[:MAX_NAME - 17].rstrip("%0123456789ABCDEF") + "~" + hashlib.sha256(method.encode()).hexdigest()[:16]
    return name or "%00"


def method_of(name: str) -> str:
    """The method a :func:`method_dir` name stands for (names under :data:`MAX_NAME` bytes)."""
    return unquote(name)


def _inside(a: Path, b: Path) -> bool:
    return a == b or b in a.parents


def check_target(workload: str, workload_params: dict, seed: int, directory) -> Path:
    """DIR, resolved, when an export may write there; ValueError (one line) otherwise. Run before any work."""
    check_exportable(workload)
    wl = workloads.get(workload)
    if wl.sources is not None:
        params = workloads.resolve_params(wl, workload_params or {})
        target = Path(directory).resolve()
        for src in wl.sources(params, seed):
            src = Path(src).resolve()
            if _inside(target, src) or _inside(src, target):
                raise ValueError(f"--export-vt {directory}: would write {'into' if _inside(target, src) else 'over'} "
                                 f"the trace being read ({src}); give another directory")
    return check_owned(directory, "export", "--export-vt")


def export_states(workload: str, workload_params: dict, seed: int, states: dict, directory,
                  failed: dict | None = None) -> Path:
    """Write ``states[method][level] = owner`` as ``DIR/METHOD/STEM.RANK.json`` per method not in ``failed``
    (method -> reason), and the manifest; returns DIR."""
    out = check_target(workload, workload_params, seed, directory)
    wl = workloads.get(workload)
    params = workloads.resolve_params(wl, workload_params or {})
    failed = dict(failed or {})
    if _rank_zero():
        manifest_path = out / MARKERS["export"]
        old = json.loads(manifest_path.read_bytes()) if manifest_path.is_file() else {}
        owned = set((old.get("methods") or {}).values())
        methods = dict((old.get("methods") or {}))
        for method in failed:
            if method in methods:  # an earlier export of it no longer stands
                remove(out / methods.pop(method))
        for method, owners in states.items():
            if method in failed:
                continue
            name = method_dir(method)
            target = out / name
            if (target.exists() or target.is_symlink()) and name not in owned:
                raise ValueError(f"--export-vt {directory}: {target} exists and is not an earlier export")
            new = fresh_beside(target)
            wl.export(params, seed, owners, new)
            swap_in(new, target)
            methods[method] = name
        manifest = {"workload": workload, "workload_params": params, "seed": seed, "methods": methods,
                    "failed": {m: failed[m] for m in sorted(failed)}}
        write_file(manifest_path, (json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n").encode())
    return out


def _rank_zero() -> bool:
    comm = world()
    return comm is None or comm.Get_rank() == 0
