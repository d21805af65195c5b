"""Helper for test_amr_mpi.py: the six schemes through the small bl trace at P = 16 via the runner; prints the
figures as JSON (rank 0)."""
import json
import sys

from harness import ReportOptions
from lbbench_amr.reports import ILD_PLANES, SCHEMES, summarize

out = sys.argv[1]
opts = ReportOptions(workload="bl", workload_params=dict(base=9, levels=3, steps=4, min_size=2), out=out,
                     cache=False, progress=False)
df = opts.compare(SCHEMES + [ILD_PLANES, "none"], P=16)
skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_", "provenance")  # wall-time columns differ
cols = [c for c in df.columns if not c.startswith(skip)]
rows = df[cols].to_dict(orient="records")
figs = summarize(df).drop(columns=["time_s"]).to_dict(orient="records")
from mpi4py import MPI  # noqa: E402  (launched by mpiexec)

if MPI.COMM_WORLD.Get_rank() == 0:
    print("RESULT " + json.dumps({"rows": rows, "figures": figs}, sort_keys=True, default=str))
