"""What a level run hands back to the harness, gathered only to the rank that needs it (issue 52, item 3).

What each processor executed (§3.3, read by §5.2's LoadImb) is read only by the ``metrics`` hooks, which run
on one rank, vproc 0's (docs/plugins.md): each rank sends its processors' share once, to that rank, and no
other rank ever holds the whole level's (a level of 1M vertices: 40 MB per rank instead of 170 MB on every
rank at once). The figures and the thresholds (a few numbers per processor) every rank reads, so they stay
:meth:`LevelRun.figures` and :meth:`LevelRun.thresholds`.
"""
from __future__ import annotations

import numpy as np

from harness import Costs


def executed(run) -> tuple[np.ndarray, Costs] | None:
    """What ran (§3.3) in a finished :class:`~lbbench_sbn.balancer.LevelRun`: for every vertex the processor that
    processed it and its Wgt/Comm/Remap as priced when that processor chose it, on the rank that hosts vproc 0
    (the metrics' rank); None on every other rank. A collective: every rank calls it."""
    if not run.process:
        raise RuntimeError("sbn: executed() needs a level run with process=True")
    done = run.done_by
    idx = np.flatnonzero(done >= 0)  # the vertices this rank's processors processed
    share = (idx, done[idx], run.cw[idx], run.cc[idx], run.cr[idx])
    first = next(iter(run.vp))  # one share per rank, on its first processor
    parts = run.eng.gather({p: share if p == first else None for p in run.vp}, what="sbn executed")
    if parts is None:
        return None
    on, wgt, comm, remap = np.full(run.n, -1, np.int64), np.zeros(run.n), np.zeros(run.n), np.zeros(run.n)
    for part in filter(None, parts):
        at = part[0]
        on[at], wgt[at], comm[at], remap[at] = part[1:]
    return on, Costs(wgt, comm, remap)
