"""Helper for test_mlb_mpi.py: run MLB on small arrays and print the figures as JSON (rank 0)."""
import json
import sys

from harness import ReportOptions

out = sys.argv[1]
rows = []
for method, wp in (("mlb", dict(kind="peaks", dims=1, size=1024, steps=3)),
                   ("mlb[dims=auto]", dict(kind="random", dims=2, size=24, steps=2)),
                   ("mlb[order=hilbert]", dict(kind="peaks", dims=2, size=24, steps=2))):
    opts = ReportOptions(workload="arrays", workload_params=wp, out=out, cache=False, progress=False,
                         initial="block")
    df = opts.compare(method, P=8)
    skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_", "provenance")  # wall-time columns differ
    cols = [c for c in df.columns if not c.startswith(skip)]
    rows += df[cols].to_dict(orient="records")
from mpi4py import MPI  # noqa: E402  (launched by mpiexec)

if MPI.COMM_WORLD.Get_rank() == 0:
    print("RESULT " + json.dumps(rows, sort_keys=True, default=str))
