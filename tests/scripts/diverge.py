"""Under mpiexec -n 2: a partitioner whose owners depend on the rank must fail its cells, on every rank."""
import sys
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, hookimpl, implements, plugins
from harness.api import compare
from harness.engine import world


@hookimpl
def register_algorithms(register):
    register(Algorithm("diverge", "test"))


@implements("diverge")
def partition(ctx):
    return np.full(ctx.graph.n, world().Get_rank() % ctx.P, np.int64)


plugins.add(SimpleNamespace(register_algorithms=register_algorithms, partition=partition), "diverge")
df = compare("diverge", workload="mini", P=4, out=sys.argv[1], cache=False)
if world().Get_rank() == 0:
    print("\n".join(df["status"]))
