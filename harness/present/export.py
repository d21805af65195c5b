"""``--export-vt DIR``: each method's assignment written back in the trace's own format (DARMA vt LBDatafile).

The workload does the writing (``Workload.export``, e.g. the ``vt`` reader's
writer): this module checks the workload can, names one directory per method
and hands it the owners ``api.compare`` collected.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..engine.vprocs import world
from ..run import workloads


def check_exportable(workload: str) -> None:
    """ValueError when the workload cannot write its levels back (it is not a trace)."""
    wl = workloads.get(workload)
    if wl.export is None:
        raise ValueError(f"--export-vt: workload {workload} is not a vt trace (use -w vt[path=DIR] or vt-synthetic)")


def method_dir(method: str) -> str:
    """A directory name for a method as given (``metis/sbn[f=40]`` -> ``metis_sbn_f=40``)."""
    return re.sub(r"[^A-Za-z0-9=.,+-]+", "_", method).strip("_") or "method"


def export_states(workload: str, workload_params: dict, seed: int, states: dict, directory) -> Path:
    """Write ``states[method][level] = owner`` as ``DIR/METHOD/STEM.RANK.json`` per method; returns DIR."""
    check_exportable(workload)
    wl = workloads.get(workload)
    params = workloads.resolve_params(wl, workload_params or {})
    out = Path(directory)
    if _rank_zero():
        for method, owners in states.items():
            wl.export(params, seed, owners, out / method_dir(method))
    return out


def _rank_zero() -> bool:
    comm = world()
    return comm is None or comm.Get_rank() == 0
