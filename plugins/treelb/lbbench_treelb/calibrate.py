"""Fit the communication constants of the application model to the paper's MLkP row of Table 4 (in-sample).

``python -m lbbench_treelb.calibrate`` partitions every ``truss`` level with
METIS k-way (ufactor 30, seed 0) at P = 10, 30, 50, 70, and grid-fits
(T_setup, T_c) of Eq. 3 so that Eq. 8 matches 7.18, 19.75, 22.30, 31.90 in the
least-squares log sense. The result is stored in ``IN_SAMPLE_FIT`` (plugin.py).
Spec §2.5: the paper's communication is far costlier than an SP2
latency/bandwidth model predicts. Every printed cell of Tables 2-4 is read
by a claim, so this fit is in-sample: a labelled second reading that may
take a verdict away but never give one (README "The cost constants"); the
default is the SP2 machine's latency and bandwidth.
"""
from __future__ import annotations

import numpy as np

PAPER_MLKP_SMAX = {10: 7.18, 30: 19.75, 50: 22.30, 70: 31.90}


def fit(levels, t_task: float, targets: dict = PAPER_MLKP_SMAX, seed: int = 0,
        t_setup_grid=np.linspace(0, 400e-6, 81), t_c_grid=np.linspace(0, 10e-6, 201)) -> dict:
    """Grid-fit (T_setup, T_c) so that Eq. 8 for METIS partitions of ``levels`` matches ``targets`` {P: value}.

    Per processor, one iteration costs load x T_task + delta x T_setup +
    phi x T_c (Eqs. 2-3), linear in the constants, so the whole grid is
    evaluated at once per (P, level).
    """
    from harness import app_terms, metis_kway

    ts, tc = np.meshgrid(np.asarray(t_setup_grid, float), np.asarray(t_c_grid, float), indexing="ij")
    seq = sum(float(lv.data.pwgt.sum()) for lv in levels) * t_task
    smax = {}
    for P in targets:
        tot = np.zeros(ts.shape)
        for lv in levels:
            t = app_terms(lv.data, metis_kway(lv.data, P, seed=seed), P)
            per = (t["load"] * t_task)[:, None, None] + t["delta"][:, None, None] * ts + \
                t["phi_bytes"][:, None, None] * tc
            tot += per.max(axis=0)
        smax[P] = seq / tot
    err = sum((np.log(smax[P]) - np.log(v)) ** 2 for P, v in targets.items())
    i, j = np.unravel_index(int(np.argmin(err)), err.shape)
    return {"t_setup": float(ts[i, j]), "t_c": float(tc[i, j]), "smax": {P: float(smax[P][i, j]) for P in targets}}


if __name__ == "__main__":
    from harness import load_workload

    _, _, levels = load_workload("truss")
    # T_task = 1 s / sum_i N_i: the paper's tables imply sum_i Seq_i = 1.00 s (spec §2.5)
    print(fit(levels, 1.0 / sum(lv.data.n for lv in levels)))
