"""Run by test_minex_runs.py under mpiexec -n R: print the metric columns of a MinEX comparison as JSON."""
import json
import sys

from harness.run.api import compare

out = sys.argv[1]
df = compare("minex,minex[latency=max,throttle=16]", workload="mini", P=8, machine="grid:2:3", cache=False,
             out=out)
skip = ("time_", "texec_s", "git_commit", "versions", "ranks", "rank_")
cols = [c for c in df.columns if not c.startswith(skip)]
rows = df[cols].to_dict(orient="records")
from harness.engine.vprocs import world  # noqa: E402

comm = world()
if comm is None or comm.Get_rank() == 0:
    print("RESULT " + json.dumps(rows, sort_keys=True, default=str))
