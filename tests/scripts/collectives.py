"""Under mpiexec -n 2: a fault on rank 1 just before each engine collective, at level 2 (raised, or the
collective silently skipped: a rank on another path), and a partitioner whose owners differ only on rank 1
(nothing moves on rank 0). Every such cell must fail on every rank, the others stay ok, nothing hangs;
rank 0 prints one ``method level status`` line per cell."""
import sys
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, State, hookimpl, implements

from harness.contract import plugins
from harness.run.api import compare
from harness.engine.vprocs import world

OPS = {
    "exchange": lambda e, ctx: e.exchange(),
    "exchange_tally": lambda e, ctx: e.exchange(tally=1),
    "allgather": lambda e, ctx: e.allgather({v: v for v in e.local}),
    "reduce": lambda e, ctx: e.reduce({v: 1 for v in e.local}),
    "bcast": lambda e, ctx: e.bcast(1),
    "rank_max": lambda e, ctx: e.rank_max(1.0),
    "gather_ranks": lambda e, ctx: e.gather_ranks(1),
    "barrier": lambda e, ctx: e.barrier(),
    "migrate": lambda e, ctx: e.migrate(ctx.state.home, (ctx.state.home + 1) % ctx.P, ctx.graph.rwgt),
    "totals": lambda e, ctx: e.totals(),
    "step_stats": lambda e, ctx: e.step_stats("balance"),
    "pair_matrix": lambda e, ctx: e.pair_matrix("balance"),
}


@hookimpl
def register_algorithms(register):
    register(Algorithm("fault", "test", roles=("balance",), params={"op": "exchange", "mode": "raise"}))
    register(Algorithm("skew", "test", roles=("partition",)))


@implements("fault")
def balance(ctx, state):
    eng, op, mode = ctx.engine, ctx.params["op"], ctx.params["mode"]
    faulty = eng.rank == 1 and ctx.level.index == 2
    if faulty and mode == "raise":
        raise RuntimeError(f"rank 1 fails before {op}")
    if not (faulty and mode == "skip"):
        OPS[op](eng, ctx)
    return State.settled(state.owner, ctx.P)


@implements("skew")
def partition(ctx):
    own = np.asarray(ctx.state.owner).copy()
    return (own + 1) % ctx.P if eng_rank() == 1 else own


def eng_rank():
    return world().Get_rank()


plugins.add(SimpleNamespace(register_algorithms=register_algorithms, balance=balance, partition=partition),
            "collective-faults")
methods = [f"fault[op={op},mode={mode}]" for op in OPS for mode in ("raise", "skip")] + ["skew", "none"]
df = compare(",".join(methods), workload="mini", P=int(sys.argv[2]), out=sys.argv[1], cache=False, timeout=60)
if world().Get_rank() == 0:
    for _, r in df.iterrows():
        print(f"{r['algorithm']} {r['level']} {r['status']}")
