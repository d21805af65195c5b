"""Helper for test_sbn_mpi.py: run SBN on ``mini`` and print the figures as JSON (rank 0)."""
import json
import sys

from harness.api import compare

method, out = sys.argv[1], sys.argv[2]
df = compare(method, workload="mini", P=4, levels=[1, 2], cache=False, out=out)
skip = ("time_", "texec_s", "versions", "git_commit", "ranks")  # wall-clock columns differ
cols = [c for c in df.columns if not c.startswith(skip) and not c.endswith("_overhead_pct")]
from harness.engine import world  # noqa: E402

comm = world()
if comm is None or comm.Get_rank() == 0:
    print("RESULT " + df[cols].to_json(orient="records", double_precision=15))
