"""Helper for test_rank_balance.py: compare graph methods on ``mini`` with the vprocs laid over the ranks by a
deliberately skewed 'measured work' (vproc v weighs (v + 1) ** 3), so blocks differ from level to level;
rank 0 prints the figures and the layouts used as JSON."""
import json
import sys

import numpy as np

from harness.run.api import compare
from harness.engine.vprocs import Engine, world

layouts = []
real_busy, real_balance = Engine.rank_busy, Engine.balance_ranks


def rank_busy(self, busy=None):
    out = real_busy(self, busy)
    self.last_work = (np.arange(self.P, dtype=float) + 1) ** (3 if self.superstep % 2 else 1)
    return out


def balance_ranks(self, work):
    real_balance(self, work)
    layouts.append([int(x) for x in self.starts])


Engine.rank_busy, Engine.balance_ranks = rank_busy, balance_ranks
df = compare(sys.argv[2], workload="mini", P=int(sys.argv[3]), out=sys.argv[1], cache=False)
skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_")
cols = [c for c in df.columns if not c.startswith(skip) and not c.endswith("_overhead_pct")]  # wall-clock
comm = world()
if comm is None or comm.Get_rank() == 0:
    print("RESULT " + json.dumps({"rows": df[cols].to_dict(orient="records"), "layouts": layouts,
                                  "balance": df["rank_balance"].tolist(),
                                  "busy": df[["rank_busy_s_max", "rank_busy_s_mean", "rank_critical_s",
                                              "rank_step_balance", "ranks"]].to_dict(orient="records")},
                                 sort_keys=True, default=str))
