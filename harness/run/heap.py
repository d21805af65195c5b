"""The C heap a library freed, handed back to the system (issue 52: a host's memory under several ranks).

Where mpiexec started several ranks on this host, each gives every allocation of at least ``MAP_ABOVE`` bytes its
own pages (glibc's ``mallopt(M_MMAP_THRESHOLD)``), handed back to the system the moment it is freed
(:func:`map_large`, applied when this is imported); smaller ones come from the heap as before, whose freed pages
:func:`give_back_freed` hands back.
"""
from __future__ import annotations

import ctypes

from ..engine.threads import local_ranks

_LIBC = ctypes.CDLL(None)
_TRIM = getattr(_LIBC, "malloc_trim", None)  # glibc's; None elsewhere
_INFO = getattr(_LIBC, "mallinfo2", None)  # glibc >= 2.33
_OPT = getattr(_LIBC, "mallopt", None)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
MAP_ABOVE = 4 << 20  # an allocation of at least this many bytes gets its own pages (a level's per-vertex arrays)
TRIM_ABOVE = 256 << 20  # free heap bytes worth handing back
WAITING_TRIM_ABOVE = 64 << 20  # on a rank that only waits for the metrics (runner.metrics_row)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


if _INFO is not None:
    _INFO.restype = _Mallinfo2


def give_back_freed(above: int = TRIM_ABOVE) -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere) when more
    than ``TRIM_ABOVE`` bytes of it are free. Called after METIS and after a level's hooks: glibc keeps what a
    library freed for the process's next allocations, so each rank went on holding it, 287 MiB after METIS at
    ``shock[scale=20]`` (issue 52). A smaller heap is left alone, as its pages would fault in again on the
    next allocations: trimming every cell doubled the page faults of ``reproduce --paper sbn``, and trimming
    above 64 MiB made ``--paper amr``'s 16x theirs (7.2M against 0.45M; 21 s of system time against 6).
    ``above``: another threshold (the ranks that wait while vproc 0's computes the metrics)."""
    if _TRIM is not None and (_INFO is None or _INFO().fordblks > above):
        _TRIM(0)


def map_large(above: int = MAP_ABOVE) -> None:
    """Allocations of at least ``above`` bytes mapped apart and unmapped when freed (glibc; nothing elsewhere).

    glibc maps a large allocation apart only until the first such one is freed: it then raises the threshold to
    that size (up to 32 MiB), and every later allocation as large comes from the heap, whose freed pages the
    process keeps. At ``shock[scale=20]`` (1M vertices: arrays of 8 MB) on 4 ranks, rank 0 so kept 60 MiB and the
    others 20 MiB each that nothing used at the host's peak (METIS's work arrays, the level's temporaries; issue
    52). A fixed threshold stops that (and the heap's top is trimmed above twice it, as glibc's own adjustment
    sets it). Only where several ranks share the host, whose memory they take R times: one process's peak falls
    too (the worked example at R = 1: 367-370 MiB against 405-426), but every cell that allocates arrays this
    large then pays for their pages anew (``benchmarks.amr``'s cells: twice the page faults, the 60 ms ones
    20 ms longer; trimming once after METIS instead left that peak as it was, reached again by the level's
    temporaries)."""
    if _OPT is not None:
        _OPT(M_MMAP_THRESHOLD, above)
        _OPT(M_TRIM_THRESHOLD, 2 * above)


if local_ranks() > 1:
    map_large()
