"""Run the three balancers on the engine, and composites through the runner (under whatever mpiexec launched
this); print the figures (rank 0)."""
import hashlib
import json
import sys

import numpy as np

from harness import Engine, Graph, Machine, ReportOptions
from lbbench_treelb.balancers import run
from lbbench_treelb.mappers import min_cut, orb


def grid(nx, ny):
    idx = np.arange(nx * ny).reshape(ny, nx)
    u = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel(), idx[:-1, :-1].ravel()])
    v = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel(), idx[1:, 1:].ravel()])
    xs, ys = np.meshgrid(np.arange(nx, dtype=float), np.arange(ny, dtype=float))
    return Graph.from_edges(nx * ny, u, v, coords=np.column_stack([xs.ravel(), ys.ravel()]))


P, out_dir = int(sys.argv[1]), sys.argv[2]
g = grid(40, 24)
rng = np.random.default_rng(1)
own = orb(g, P)
own = np.where(rng.random(g.n) < 0.15, own[(np.arange(g.n) * 7) % g.n], own)  # scramble 15 %
out = {"orb": hashlib.sha1(own.tobytes()).hexdigest(),
       "mc": hashlib.sha1(min_cut(g, P).tobytes()).hexdigest()}
for method in ("mcstlb", "btlb", "cbtlb"):
    eng = Engine(P, Machine.sp2(P))
    new, rec, _ = run(method, g, own, P, eng)
    rec["owner"] = hashlib.sha1(np.ascontiguousarray(new).tobytes()).hexdigest()
    for kind in ("balance", "migration"):
        rec.update({f"{kind}_{k}": v for k, v in eng.step_stats(kind).items()})
    out[method] = rec
opts = ReportOptions(workload="mini", out=out_dir, cache=False, progress=False, machine="sp2", initial="root")
df = opts.compare(["ae-orb/cbtlb", "ae-mc/mcstlb", "mlkp/btlb"], P=P)
skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_", "provenance")  # wall-time columns differ
out["runner"] = df[[c for c in df.columns if not c.startswith(skip)]].to_dict(orient="records")
if Engine(P).is_root:
    print("RESULT " + json.dumps(out, sort_keys=True, default=str))
