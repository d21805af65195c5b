"""What a level run hands back to the harness, gathered only to the rank that needs it (issue 52, item 3).

What each processor executed (§3.3, read by §5.2's LoadImb) is read only by the ``metrics`` hooks, which run
on one rank, vproc 0's (docs/plugins.md): each rank sends its processors' share once, to that rank, and no
other rank ever holds the whole level's (a level of 1M vertices: 40 MB per rank instead of 170 MB on every
rank at once). The figures and the thresholds (a few numbers per processor) every rank reads, so they stay
:meth:`LevelRun.figures` and :meth:`LevelRun.thresholds`. A rank takes its share (:func:`share`) and lets the level
run go before the share is sent (the hook, ``plugin.balance``): no rank holds SBN's per-vertex arrays of the whole
level while vproc 0's rank puts what ran together.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import Costs, Engine


@dataclass(frozen=True)
class Share:
    """A rank's share of what ran in a finished level run: ``part`` = (the vertices its processors processed, None
    when they are all the level's; the processor of each; their Wgt, Comm and Remap as priced when chosen), with
    what :func:`executed` needs of the run (its engine, its processors on this rank, the level's vertex count), and
    nothing else of the run."""

    eng: Engine
    procs: tuple
    n: int
    part: tuple


def share(run) -> Share:
    """This rank's :class:`Share` of a finished :class:`~lbbench_sbn.balancer.LevelRun` (§3.3): copies of its
    vertices' entries, or the run's four arrays themselves where this rank processed every vertex, so the rest of
    the run can go."""
    if not run.process:
        raise RuntimeError("sbn: share() needs a level run with process=True")
    done = run.done_by
    idx = np.flatnonzero(done >= 0)  # the vertices this rank's processors processed
    if idx.size == run.n:  # all of them (one rank): the run's own arrays (None: every vertex), not copies
        return Share(run.eng, tuple(run.vp), run.n, (None, done, run.cw, run.cc, run.cr))
    return Share(run.eng, tuple(run.vp), run.n, (idx, done[idx], run.cw[idx], run.cc[idx], run.cr[idx]))


def executed(mine: Share) -> tuple[np.ndarray, Costs] | None:
    """What ran (§3.3): for every vertex the processor that processed it and its Wgt/Comm/Remap as priced when that
    processor chose it, on the rank that hosts vproc 0 (the metrics' rank), from every rank's :func:`share`; None on
    every other rank. A collective: every rank calls it."""
    first = mine.procs[0]  # one share per rank, on its first processor
    parts = mine.eng.gather({p: mine.part if p == first else None for p in mine.procs}, what="sbn executed")
    if parts is None:
        return None
    parts = [x for x in parts if x is not None]
    if len(parts) == 1 and parts[0][0] is None:  # one rank processed every vertex: its arrays as they are
        return parts[0][1], Costs(*parts[0][2:])
    n = mine.n
    on, wgt, comm, remap = np.full(n, -1, np.int64), np.zeros(n), np.zeros(n), np.zeros(n)
    for part in parts:
        at = slice(None) if part[0] is None else part[0]
        on[at], wgt[at], comm[at], remap[at] = part[1:]
    return on, Costs(wgt, comm, remap)
