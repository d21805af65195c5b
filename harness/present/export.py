"""``--export-vt DIR``: each method's assignment written back in the trace's own format (DARMA vt LBDatafile).

The workload does the writing (``Workload.export``, e.g. the ``vt`` reader's
writer): this module checks the workload can and that DIR is safe to write
(:mod:`.owned`: new, empty or an earlier export; never the trace's own folder,
inside it or around it), names one directory per method and hands it the
owners ``api.compare`` collected.

DIR holds one directory per method that ran without a failed cell, each
written beside and renamed into place (a re-export replaces it whole) with
:data:`DIR_MARK` inside, and ``lbbench-export.json``, the manifest:
``{"methods": {method: directory}, "failed": {method: reason}}``. Directory
names escape every character but ASCII letters, digits and ``_.-=,+[]`` as
``%XX`` (UTF-8 bytes), so two methods never share one and :func:`method_of`
reverses it.

The manifest is data, never instructions (issue 50): every directory it names
must be the name :func:`method_dir` gives its method (one plain component) and,
where it exists, a real directory holding :data:`DIR_MARK`; anything else is
refused (one line naming the file and the entry) before any work, and nothing
is deleted. The temporaries an interrupted export leaves (``.NAME.new-*``,
``.NAME.old-*``, the manifest's own) are removed when the next export starts.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from urllib.parse import quote, unquote

from ..engine.vprocs import world
from ..run import workloads
from .owned import MARKERS, check_owned, fresh_beside, remove, swap_in, write_file

MAX_NAME = 200  # bytes of a directory name (file systems allow 255)
DIR_MARK = ".lbbench-export"  # inside every method directory an export wrote
# what an interrupted export leaves beside: owned.fresh_beside / swap_in's directories, write_file's manifest
LEFTOVER = re.compile(r"\.(.{1,60}\.(new|old)-|lbbench-export\.json\.)[a-z0-9_]{8}")


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


def _written(d: Path) -> bool:
    """``d`` is a real directory an export wrote (its :data:`DIR_MARK` inside, neither a symlink)."""
    return d.is_dir() and not d.is_symlink() and (d / DIR_MARK).is_file() and not (d / DIR_MARK).is_symlink()


def _leftover(d: Path) -> bool:
    return LEFTOVER.fullmatch(d.name) is not None


def read_manifest(out: Path) -> dict:
    """``{method: directory}`` of the earlier export in ``out`` ({} if none), each directory checked (module
    doc): ValueError naming the file and the entry otherwise. Entries whose directory is gone are left out."""
    path = out / MARKERS["export"]
    if not path.is_file() or path.is_symlink():
        return {}
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"--export-vt {out}: {path} is not a JSON manifest ({' '.join(str(exc).split())}); "
                         "remove it or give another directory") from None
    methods = data.get("methods", {}) if isinstance(data, dict) else None
    if not isinstance(methods, dict) or not isinstance(data.get("failed", {}), dict):
        raise ValueError(f"--export-vt {out}: {path} is not an export manifest (an object whose \"methods\" and "
                         "\"failed\" are objects); remove it or give another directory")
    for method, name in methods.items():
        if not isinstance(name, str) or name != method_dir(method):
            raise ValueError(f"--export-vt {out}: {path}: entry {method!r}: {name!r} is not the directory lbbench "
                             f"writes for it ({method_dir(method)!r}); nothing was deleted: remove the entry")
        d = out / name
        if (d.exists() or d.is_symlink()) and not _written(d):
            raise ValueError(f"--export-vt {out}: {path}: entry {method!r}: {d} is not a directory lbbench wrote "
                             f"(no {DIR_MARK} inside); nothing was deleted: remove it or the entry")
    return {m: n for m, n in methods.items() if (out / n).exists()}


def _interrupted(out: Path) -> bool:
    """``out`` holds only what an export writes (a first export stopped before its manifest)."""
    return out.is_dir() and not out.is_symlink() and all(_written(f) or _leftover(f) for f in out.iterdir())


def check_target(workload: str, workload_params: dict, seed: int, directory) -> Path:
    """DIR, resolved, when an export may write there (its manifest checked, :func:`read_manifest`); ValueError
    (one line) otherwise. Run before any work."""
    if not str(directory).strip():
        raise ValueError("--export-vt: give a directory (the name is empty)")
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
    out = Path(directory)
    if not _interrupted(out):
        check_owned(out, "export", "--export-vt")
    read_manifest(out)
    return out


def export_states(workload: str, workload_params: dict, seed: int, states: dict, directory,
                  failed: dict | None = None) -> Path:
    """Write ``states[method][level] = owner`` as ``DIR/METHOD/STEM.RANK.json`` per method not in ``failed``
    (method -> reason), and the manifest; returns DIR."""
    out = check_target(workload, workload_params, seed, directory)
    wl = workloads.get(workload)
    params = workloads.resolve_params(wl, workload_params or {})
    failed = dict(failed or {})
    if _rank_zero():
        methods = read_manifest(out)
        out.mkdir(parents=True, exist_ok=True)
        for f in out.iterdir():
            if _leftover(f):
                remove(f)

        def manifest() -> None:  # written first too: the folder is marked before any method directory lands
            data = {"workload": workload, "workload_params": params, "seed": seed, "methods": methods,
                    "failed": {m: failed[m] for m in sorted(failed)}}
            write_file(out / MARKERS["export"], (json.dumps(data, indent=1, sort_keys=True, default=str)
                                                 + "\n").encode())

        manifest()
        for method in failed:
            if method in methods:  # an earlier export of it no longer stands (a checked name: a marked directory)
                remove(out / methods.pop(method))
        for method, owners in states.items():
            if method in failed:
                continue
            target = out / method_dir(method)
            if (target.exists() or target.is_symlink()) and not _written(target):
                raise ValueError(f"--export-vt {directory}: {target} exists and is not an earlier export")
            new = fresh_beside(target)
            wl.export(params, seed, owners, new)
            write_file(new / DIR_MARK, b"written by lbbench --export-vt; a re-export replaces this directory whole\n")
            swap_in(new, target)
            methods[method] = target.name
        manifest()
    return out


def _rank_zero() -> bool:
    comm = world()
    return comm is None or comm.Get_rank() == 0
