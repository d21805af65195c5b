"""Helper for test_sbn_mpi.py, run under mpiexec; prints one ``RESULT <json>`` line (rank 0).

``compare METHOD OUT``: SBN through two ``mini`` levels at P = 4 via the harness (every figure; every rank's rows
the same).
``level P``: one SBN level (mini level 2) at P processors directly on the engine: figures, the
final assignment, what ran (``executed``) and the message totals (balance operations that meet
and combine, forwarded data requests and targeted locate messages all cross ranks).
"""
import json
import sys

import numpy as np

from harness import Engine, Machine, graph_of, initial_state, load_workload

mode = sys.argv[1]
if mode == "compare":
    from harness.run.api import compare

    method, out = sys.argv[2], sys.argv[3]
    df = compare(method, workload="mini", P=4, levels=[1, 2], cache=False, out=out)
    skip = ("time_", "texec_s", "versions", "git_commit", "ranks", "rank_")  # wall-clock columns differ
    cols = [c for c in df.columns if not c.startswith(skip) and not c.endswith("_overhead_pct")]
    result = df[cols].to_dict(orient="records")
    eng = Engine(4, comm="world")
    root = eng.is_root
    if len(set(eng.gather_ranks(json.dumps(result, default=str)))) > 1:  # (the cut figures: vproc 0's rank's, sent)
        raise SystemExit("sbn_mpi_run: the ranks' rows differ")
else:
    from lbbench_sbn.balancer import LevelRun, Params
    from lbbench_sbn.outcome import executed, share
    from lbbench_sbn.topology import Trees

    P = int(sys.argv[2])
    levels = load_workload("mini", {}, 0)[2]
    g = graph_of(levels[1])
    m = Machine.uniform(P)
    eng = Engine(P, m)
    run = LevelRun(g, m, eng, initial_state(levels[0], P, 0), Params(), lambda p: np.random.default_rng([3, p]),
                   trees=Trees(P))
    after = run.run()
    ran = executed(share(run))  # on vproc 0's rank (the root) only; the rest are collectives every rank joins
    result = {"figures": run.figures(), "owner": after.owner.tolist(), "thresholds": run.thresholds(),
              "totals": eng.totals()}
    for kind in result["totals"].values():
        kind.pop("modelled_s")  # a sum of floats in rank order
    root = eng.is_root
    if root:
        on, cost = ran
        result.update(on=on.tolist(), cost=[float(cost.wgt.sum()), float(cost.comm.sum()), float(cost.remap.sum())])
if root:
    print("RESULT " + json.dumps(result, default=str))
