"""Under mpiexec -n 2 (or one process): a ``metrics`` implementation that raises, on rank 1 only or on every
rank, fails its cell on every rank and the comparison goes on; rank 0 prints one status per line."""
import sys
from types import SimpleNamespace

from harness import hookimpl

from harness.contract import plugins
from harness.run.api import compare
from harness.engine.vprocs import world


@hookimpl
def metrics(ctx, before, after):
    if ctx.algorithm == "metis" and ctx.level.index == 2 and ctx.engine.rank == ctx.engine.R - 1:
        raise RuntimeError("metrics fail on the last rank")
    if ctx.algorithm == "none" and ctx.level.index == 3:
        raise ValueError("metrics fail everywhere")
    return {"probe_seen": 1}


plugins.add(SimpleNamespace(metrics=metrics), "probe")
df = compare("none,metis", workload="mini", P=4, out=sys.argv[1], cache=False)
if world() is None or world().Get_rank() == 0:
    for _, r in df.iterrows():
        print(f"{r['algorithm']} {r['level']} {r['status']} {r.get('loadimb')}")
