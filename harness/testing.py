"""Helpers for plugin tests: run code under a real ``mpiexec -n R``."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def mpiexec() -> str:
    """The mpiexec next to this Python (the mpich wheel's) or on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if not found:
        raise RuntimeError("mpiexec not found: install the mpich wheel (see README)")
    return found


def mpirun(ranks: int, *args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python *args`` on ``ranks`` MPI ranks; output captured as text."""
    cmd = [mpiexec(), "-n", str(ranks), sys.executable, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
