"""Under mpiexec -n 2: cells that fail on one rank only, or run past --timeout on one rank, must fail on
every rank and the comparison must go on (no hang); rank 0 prints one status per line."""
import sys
import time
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, State, hookimpl, implements

from harness.contract import plugins
from harness.run.api import compare


@hookimpl
def register_algorithms(register):
    for name in ("raise-on-1", "slow-on-1", "swallow", "huge", "unexchanged-on-1"):
        register(Algorithm(name, "test", roles=("balance",)))


def declare(ctx, state):
    """Level 2: 2^61 bytes declared (every rank), or a message left unexchanged (rank 1 only)."""
    eng, p = ctx.engine, np.arange(ctx.engine.local.start, ctx.engine.local.stop)
    if ctx.level.index == 2 and (ctx.algorithm == "huge" or eng.rank == 1):
        eng.send("h", p, (p + 1) % ctx.P, nbytes=2 ** 61 if ctx.algorithm == "huge" else 8)
        if ctx.algorithm == "huge":
            eng.exchange()
    return State.settled(state.owner, ctx.P)


@implements("raise-on-1", "slow-on-1", "swallow", "huge", "unexchanged-on-1")
def balance(ctx, state):
    if ctx.algorithm in ("huge", "unexchanged-on-1"):
        return declare(ctx, state)
    eng = ctx.engine
    for step in range(50):
        for p in eng.local:
            eng.post(p, (p + 1) % ctx.P, np.zeros(4, np.int64))
        if eng.rank == 1 and ctx.level.index == 2 and step == 3:
            if ctx.algorithm == "raise-on-1":
                raise RuntimeError("only rank 1 fails")
            if ctx.algorithm == "slow-on-1":
                time.sleep(float(sys.argv[2]) * 3)
        try:
            eng.exchange()
        except Exception:  # a plugin that swallows errors must still be released from the cell
            pass
        if ctx.algorithm == "swallow" and eng.rank == 0 and ctx.level.index == 2 and step == 5:
            raise ValueError("rank 0 fails while rank 1 swallows exceptions")
    return State.settled(state.owner, ctx.P)


plugins.add(SimpleNamespace(register_algorithms=register_algorithms, balance=balance), "faults")
df = compare("raise-on-1,slow-on-1,swallow,huge,unexchanged-on-1,none", workload="mini", P=4, out=sys.argv[1], cache=False,
             timeout=float(sys.argv[2]))
from harness.engine.vprocs import world  # noqa: E402

if world().Get_rank() == 0:
    for _, r in df.iterrows():
        print(f"{r['algorithm']} {r['level']} {r['status']}")
