"""Launching Python on real MPI ranks: the ``mpiexec`` beside this Python (the mpich wheel's), and
``python script`` under ``mpiexec -n R`` (``lbbench --mpi R``, the plugins' MPI tests)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .threads import share


def mpiexec() -> str:
    """The mpiexec next to this Python (the mpich wheel's) or on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if not found:
        raise RuntimeError("mpiexec not found: install the mpich wheel (see README)")
    return found


def mpirun(ranks: int, *args: str, timeout: float = 300, env: dict | None = None,
           cores: int | None = None) -> subprocess.CompletedProcess:
    """Run ``python *args`` on ``ranks`` MPI ranks; output captured as text. ``cores``: the ranks share that
    many of this process's cores (a crowded host: more ranks than cores). Each rank's BLAS and OpenMP pools
    get its share of the cores (:mod:`harness.engine.threads`) unless ``env`` or the environment names them."""
    cmd = [mpiexec(), "-n", str(ranks), sys.executable, *args]
    mine = None if cores is None else sorted(os.sched_getaffinity(0))[:cores]

    def pin():
        os.sched_setaffinity(0, mine)

    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **share(ranks, cores), **(env or {})},
                          preexec_fn=None if mine is None else pin)
