"""``lbbench reproduce`` of a tiny paper under mpiexec, then again (every cell stored): ``reproduce_ranks.py OUT``.

Rank 1 reads no store of its own (as on a host that does not see rank 0's disk): the plan must take rank
0's stored cells on every rank, since a call whose cells are all stored is read back by ``compare``,
collectively. Rank 0 prints, for each run and rank, how often the report was built (twice: on placeholders
by the plan, then by the run; once when the plan read every cell), the cells computed (those not stored
when the run began), the verdicts and the report's table.
"""
import sys
from types import SimpleNamespace

import pandas as pd

from harness import Claim, Report, Table, hookimpl

from harness.contract import plugins
from harness.present import reproduce as rp
from harness.engine.vprocs import world


BUILDS = [0]  # of the report, on this rank


@hookimpl
def register_reports(register):
    def build(opts):
        BUILDS[0] += 1
        df = opts.compare("none,metis", P=4, workload="mini")
        return [Table("tiny", df.groupby("algorithm", sort=False)["loadimb"].mean().reset_index())]

    register(Report("mlb-ranks", build, "a tiny report"))


@hookimpl
def register_claims(register):
    register(Claim("mlb-ranks-claim", "mlb", "test", "METIS balances better than nothing.",
                   ({"methods": "metis,none", "P": 4, "workload": "mini"},),
                   lambda df: (Claim.average(df, "metis", "loadimb") < Claim.average(df, "none", "loadimb"), "")))


plugins.add(SimpleNamespace(register_reports=register_reports, register_claims=register_claims), "ranks")
rank = world().Get_rank()
if rank == 1:
    rp.stored_by_key = lambda out: pd.DataFrame()
for run in (1, 2):
    BUILDS[0] = 0
    got = rp.reproduce(["mlb"], out=sys.argv[1], site=None, progress=False, is_root=rank == 0,
                       only=["mlb-ranks", "mlb-ranks-claim"])
    lines = world().gather(f"RUN {run} rank={rank} builds={BUILDS[0]} computed={got.computed} ok={got.ok} "
                           f"verdicts={[o.verdict for o in got.claims]} "
                           f"table={got.tables['mlb-ranks'][0].frame.to_json()}", root=0)
    if rank == 0:
        print("\n".join(lines), flush=True)
