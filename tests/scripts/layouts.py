"""Helper for test_rank_balance.py: compare graph methods on ``mini`` with the vprocs laid out by each of the
engine's layouts in turn (``Engine(layout=...)``); rank 0 prints each layout's figures and ranks' vproc counts
as JSON."""
import json
import sys

from harness.engine.vprocs import LAYOUTS, Engine, world
from harness.run.api import compare

P = int(sys.argv[3])
skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_")
out = {}
for layout in LAYOUTS:
    eng = Engine(P, layout=layout)
    df = compare(sys.argv[2], workload="mini", P=P, out=f"{sys.argv[1]}/{layout}", cache=False, engine=eng)
    cols = [c for c in df.columns if not c.startswith(skip) and not c.endswith("_overhead_pct")]  # wall-clock
    out[layout] = {"rows": df[cols].to_dict(orient="records"), "status": df["status"].tolist(),
                   "local": eng.gather_ranks(len(eng.mine))}
comm = world()
if comm is None or comm.Get_rank() == 0:
    print("RESULT " + json.dumps(out, sort_keys=True, default=str))
