"""Run PLUM on ``mini`` under however many ranks mpiexec gives; rank 0 prints the figures as JSON."""
import json
import sys

from harness.run.api import compare

out = sys.argv[1]
methods = "plum-pmetis,plum-dmetis,plum[F=2,remapper=optimal],plum-dmetis[F=2,iterations=3]"
df = compare(methods, workload="mini", P=4, out=out, cache=False)
drop = [c for c in df.columns if c.startswith(("time_", "rank_")) or c in ("ranks", "git_commit", "versions", "texec_s")]
rows = df.drop(columns=drop).to_dict(orient="records")
from harness.engine.vprocs import world  # noqa: E402

comm = world()
if comm is None or comm.Get_rank() == 0:
    print(json.dumps(rows, sort_keys=True, default=str))
