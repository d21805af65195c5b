"""Each MPI rank's share of its host's cores for the BLAS and OpenMP thread pools (docs/architecture.md,
"Engine"; the measurements in docs/performance.md).

numpy's and scipy's OpenBLAS each start a worker per core when they load, and an idle worker spins for a
while after every call. R ranks on one host would each start pools of every core: R x cores threads
contending for the cores, and the spinning counted in each rank's busy CPU (on a 16-core host, 30 workers
per rank spun 3.6 s of CPU in a 3.7 s run). So each rank gets ``cores // local ranks`` threads (at least
one), unless the environment names a number already. It takes effect only before numpy loads: the
``harness`` package applies it first thing, and :func:`harness.engine.launch.mpirun` passes it to the ranks
it starts.
"""
from __future__ import annotations

import os

POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_LOCAL_RANKS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")  # MPICH's and Open MPI's mpiexec set them


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def share(ranks: int, on: int | None = None) -> dict:
    """The pool variables for one of ``ranks`` ranks on this host (sharing ``on`` cores; default all this
    process may use): those the environment leaves unset or empty (``OMP_NUM_THREADS=`` names no number)."""
    n = str(max(1, (on or cores()) // max(1, ranks)))
    return {k: n for k in POOLS if not os.environ.get(k, "").strip()}


def local_ranks() -> int:
    """The ranks mpiexec started on this host (1 when it names none: no mpiexec, or one rank)."""
    for k in _LOCAL_RANKS:
        n = os.environ.get(k, "")
        if n.isdigit() and int(n) > 1:
            return int(n)
    return 1


def share_cores() -> None:
    """Launched by mpiexec with several ranks on this host: set this process's share of the cores."""
    n = local_ranks()
    if n > 1:
        os.environ.update(share(n))
