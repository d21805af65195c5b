"""A partitioner whose owners depend on the MPI rank: under mpiexec -n 2 its cells must fail, on every rank.

``diverge.py OUT [cache]``: with ``cache`` the stored cells under OUT are reused where they may be (a
single-process run of this script first stores them).
"""
import sys
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, hookimpl, implements

from harness.contract import plugins
from harness.run.api import compare
from harness.engine.vprocs import world


def rank() -> int:
    return world().Get_rank() if world() is not None else 0


@hookimpl
def register_algorithms(register):
    register(Algorithm("diverge", "test"))


@implements("diverge")
def partition(ctx):
    return np.full(ctx.graph.n, rank() % ctx.P, np.int64)


plugins.add(SimpleNamespace(register_algorithms=register_algorithms, partition=partition), "diverge")
df = compare("diverge", workload="mini", P=4, out=sys.argv[1], cache=sys.argv[2:] == ["cache"])
if rank() == 0:
    print("\n".join(f"ranks={r} {s}" for r, s in zip(df["ranks"], df["status"])))
