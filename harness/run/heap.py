"""The C heap a library freed, handed back to the system (issue 52: a host's memory under several ranks)."""
from __future__ import annotations

import ctypes

_LIBC = ctypes.CDLL(None)
_TRIM = getattr(_LIBC, "malloc_trim", None)  # glibc's; None elsewhere
_INFO = getattr(_LIBC, "mallinfo2", None)  # glibc >= 2.33
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
