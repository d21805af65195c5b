"""Under mpiexec -n 2 (or one process): a ``metrics`` implementation that raises fails its cell on every rank
and the comparison goes on; so does one that calls a collective, under MPI. The metrics run on one rank (vproc
0's) and every rank gets its row: rank 0 prints one status per line (with the rank that computed the metrics),
then whether every rank's rows are rank 0's."""
import sys
from types import SimpleNamespace

from harness import hookimpl

from harness.contract import plugins
from harness.run.api import compare
from harness.engine.vprocs import world


@hookimpl
def metrics(ctx, before, after):
    if ctx.algorithm == "metis" and ctx.level.index == 2:
        raise RuntimeError(f"metrics fail on rank {ctx.engine.rank}")
    if ctx.algorithm == "none" and ctx.level.index == 2:  # a collective: the other ranks are not in it
        ctx.engine.allgather({v: 1 for v in ctx.engine.local})
    if ctx.algorithm == "none" and ctx.level.index == 3:
        raise ValueError("metrics fail everywhere")
    return {"probe_seen": 1, "probe_rank": ctx.engine.rank}


plugins.add(SimpleNamespace(metrics=metrics), "probe")
df = compare("none,metis", workload="mini", P=4, out=sys.argv[1], cache=False)
rows = [f"{r['algorithm']} {r['level']} {r['status']} {r.get('loadimb')} {r.get('probe_rank')}"
        for _, r in df.iterrows()]
comm = world()
every = [rows] if comm is None else comm.gather(rows, root=0)
if comm is None or comm.Get_rank() == 0:
    print("\n".join(rows))
    print(f"agree {all(x == rows for x in every)}")
