"""The results store: one JSON row and one state file per finished cell, under a results directory.

A cell is keyed by everything that determines it (workload and its version and
parameters, the first level of the run, the level, the method with its
resolved parameters and plugin versions, P, machine, seed), so a comparison
killed half-way resumes from the last finished level of each method and no
finished cell is lost. Files are written atomically (temporary file + rename)
by rank 0 only.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np

from .model import State

DEFAULT_DIR = "lbbench-results"


class Store:
    def __init__(self, path: str | os.PathLike | None = None, writer: bool = True):
        self.path = Path(path or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR))
        self.writer = writer
        cells = self.path / "cells"
        try:
            if writer:
                cells.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OSError(f"results directory {self.path}: {exc.strerror or exc}") from None
        if cells.exists() and not (os.access(cells, os.R_OK | os.X_OK) and (not writer or os.access(cells, os.W_OK))):
            raise OSError(f"results directory {self.path}: not readable and writable")
        self.cells = cells

    @staticmethod
    def key(cell: dict) -> str:
        return hashlib.sha256(json.dumps(cell, sort_keys=True, default=str).encode()).hexdigest()[:24]

    def get(self, key: str) -> tuple[dict, State, dict] | None:
        """A finished cell's row, the state after it and the algorithm's memory, or None."""
        row_f, st_f = self.cells / f"{key}.json", self.cells / f"{key}.pkl"
        if not (row_f.exists() and st_f.exists()):
            return None
        try:
            row = json.loads(row_f.read_text())
            with open(st_f, "rb") as fh:
                owner, home, P, memory = pickle.load(fh)
            return row, State(owner, home, P), memory
        except (OSError, ValueError, KeyError, pickle.UnpicklingError, EOFError) as exc:
            raise OSError(f"results directory {self.path}: unreadable cell {key}: {exc}") from None

    def put(self, key: str, row: dict, state: State, memory: dict) -> None:
        if not self.writer:
            return
        tmp = self.cells / f".{key}.{os.getpid()}"
        with open(f"{tmp}.pkl", "wb") as fh:
            pickle.dump((state.owner, state.home, state.P, memory), fh, protocol=5)
        Path(f"{tmp}.json").write_text(json.dumps(row, default=_jsonable))
        # state first: a row without its state does not count as finished
        os.replace(f"{tmp}.pkl", self.cells / f"{key}.pkl")
        os.replace(f"{tmp}.json", self.cells / f"{key}.json")

    def rows(self) -> list[dict]:
        return [json.loads(f.read_text()) for f in sorted(self.cells.glob("*.json"))]


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


@lru_cache(maxsize=None)
def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=5)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


@lru_cache(maxsize=None)
def versions() -> str:
    """Versions of the packages a result depends on, as a JSON string."""
    from importlib import metadata
    import sys

    out = {"python": sys.version.split()[0]}
    for pkg in ("lbbench", "numpy", "scipy", "pymetis", "mpi4py", "pluggy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return json.dumps(out, sort_keys=True)
