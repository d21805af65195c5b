"""Two result stores, cell by cell: is every figure but the wall and CPU times identical?

    python3 -m benchmarks.stores A B

A speed-up must leave every figure as it was. Run the same command (e.g.
``lbbench reproduce -j 2 --out A``) at the commit before and after, then
compare the stores. Cells are paired by their identity (workload and its
version and parameters, algorithm and parameters, P, machine, start, seed,
level, ranks), not by file name, and compared on every column of the row but
the measured times (``time_*``, ``texec_s``, the ``rank_*`` figures, SBN's
``*_overhead_pct`` shares of wall time, repeated timings, commit and
versions), and on every stored array (owners, homes). Prints each cell that
differs and the columns that do; exits 1 if any cell differs or is unpaired.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

IDENTITY = ("workload", "workload_version", "workload_params", "algorithm", "params", "P", "machine",
            "initial", "seed", "level", "ranks")
PROVENANCE = {"git_commit", "versions", "timing_runs"}


def measured(column: str) -> bool:
    """A wall or CPU time, or a figure derived from one: not a result of the algorithm."""
    return (column in PROVENANCE or column.startswith(("time_", "texec_s", "rank_"))
            or column.endswith("_overhead_pct"))


def cells(store: Path) -> dict:
    """Identity -> (row, its .npz path) for every stored cell."""
    out = {}
    for path in (store / "cells").glob("*.json"):
        row = json.loads(path.read_text())
        out[tuple(str(row.get(k)) for k in IDENTITY)] = (row, path.with_suffix(".npz"))
    return out


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def differences(a: tuple, b: tuple) -> list[str]:
    """The columns and arrays in which two stored cells differ."""
    (ra, za), (rb, zb) = a, b
    out = sorted(k for k in set(ra) | set(rb) if not measured(k) and not _same(ra.get(k), rb.get(k)))
    if za.exists() or zb.exists():
        with np.load(za) as x, np.load(zb) as y:
            names = (set(x.files) | set(y.files)) - {"cell.json"}  # cell.json: the store's own bookkeeping
            out += sorted(n for n in names if n not in x.files or n not in y.files
                          or not np.array_equal(x[n], y[n]))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not all((Path(d) / "cells").is_dir() for d in argv):
        print("usage: python3 -m benchmarks.stores STORE_A STORE_B (two lbbench result stores)", file=sys.stderr)
        return 2
    a, b = (cells(Path(d)) for d in argv)
    unpaired = set(a) ^ set(b)
    differing = 0
    for key in sorted(set(a) & set(b)):
        diff = differences(a[key], b[key])
        if diff:
            differing += 1
            print(f"differs: {dict(zip(IDENTITY, key))['algorithm']} {key[0]} P={key[5]} level={key[9]}: {', '.join(diff)}")
    print(f"{len(a)} and {len(b)} cells; {len(unpaired)} unpaired; {differing} differ")
    return 1 if differing or unpaired else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
