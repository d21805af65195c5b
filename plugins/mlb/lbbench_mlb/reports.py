"""MLB's claims as lbbench reports (the paper has no experiments: its complexity statements are the checks).

* ``mlb-complexity``: P = 1, 2, 4, ..., 1024 on ``arrays[dims=1,size=65536]``
  for kinds uniform, random and peaks (10 steps, ``--initial block``): the step
  counts read from the engine beside the paper's formulas (§3.1-§3.4, §4),
  the desired-load spread beside the §3.2 bound, the rounding deviation, the
  contiguity, the moved and passed-through weight and the modelled migration
  time; then the speed of one level with 1,048,576 cells at P = 1024.
* ``mlb-example``: an illustration, not a reproduction (the paper's
  4-processor example is a figure missing from its text): p = 4, the schedule
  step by step (Phase 3's amounts, Phase 4's sender -> receiver: amount),
  desired loads and loans, for 8 unit loads on rank 0 (a pass-through case)
  and a random load array.
* ``mlb-quality``: 2-D ``arrays`` (peaks, 128 x 128): 1-D MLB in C and Hilbert
  order and the §5 n-D extension beside ``none``, ``metis`` and ``sbn``.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness import Engine, Report, Table, available_algorithms

from .execute import run
from .hypercube import Cube
from .phases import bounds, desired, destinations

KINDS = ("uniform", "random", "peaks")
COMPLEXITY_P = [1 << k for k in range(11)]
QUALITY_P = [4, 16, 64, 256]
SPEED = dict(kind="peaks", dims=1, size=1 << 20, steps=1)


def _level_wall(df: pd.DataFrame) -> pd.Series:
    return df.get("time_partition_s", 0.0) + df.get("time_balance_s", 0.0)


def complexity(opts) -> list[Table]:
    tables = []
    for kind in KINDS:
        rows = []
        for P in opts.P or COMPLEXITY_P:
            wp = dict(kind=kind, dims=1, size=65536, steps=10)
            df = opts.compare("mlb", P=P, workload="arrays", workload_params=wp, initial="block")
            ok = df[df["status"] == "ok"]
            d = int(math.log2(P)) if P & (P - 1) == 0 else float("nan")
            if ok.empty:
                rows.append({"P": P, "d": d, "status": df["status"].iloc[0]})
                continue
            rows.append({
                "P": P, "d": d,
                "Phase 1 steps": ok["mlb_phase1_supersteps"].max(),
                "Phase 1 msgs": ok["mlb_phase1_messages"].max(),
                "Phase 3 steps": ok["mlb_phase3_supersteps"].max(),
                "Phase 3 msgs": ok["mlb_phase3_messages"].max(),
                "d(d+1)/2 (§3.3)": d * (d + 1) // 2,
                "d(d-1)/2 (§4)": d * (d - 1) // 2,
                "Phase 4 steps": ok["mlb_phase4_supersteps"].max(),
                "Phase 4 msgs": ok["mlb_phase4_messages"].max(),
                "loan procedure": bool(ok["mlb_loan_procedure"].all()),
                "schedule steps": ok["mlb_schedule_steps"].max(),
                "max msgs/vproc/step": ok["mlb_max_msgs_per_vproc_step"].max(),
                "desired spread": ok["mlb_desired_spread"].max(),
                "log2 P (§3.2 bound)": d,
                "max |L-D| / max elem": ok["mlb_dev_ratio"].max(),
                "contiguous": bool(ok["mlb_contiguous"].all()),
                "work_loadimb": ok["work_loadimb"].mean(),
                "moved": ok["moved_weight"].mean(),
                "pass-through": ok["mlb_passthrough_weight"].mean(),
                "modelled migration ms": 1e3 * ok["modelled_migration_s"].mean(),
                "wall s/level": _level_wall(ok).mean(),
                "failed levels": int((df["status"] != "ok").sum()),
            })
        tables.append(Table(
            f"MLB complexity, arrays[dims=1,size=65536,kind={kind}], initial=block (max / mean over 10 steps)",
            pd.DataFrame(rows),
            note="Step counts are the engine's (supersteps carrying balance / migration messages). Phase 3 is "
                 "computed on the vprocs level by level: level l talks along its l edges, so sum_l l = d(d+1)/2 "
                 "supersteps (§3.3's formula); §4 prints d(d-1)/2 (l - 1 steps per level). loan procedure: "
                 "Phase 4 ran the §3.4 loan-variable procedure on every level. "
                 "The paper bounds the desired-load spread by log2 P; halving with the remainder to the lower "
                 "ranks gives at most 1. moved / pass-through: redistribution weight moved by the runner's "
                 "accounting / sent again by intermediate processors. wall: partition + balance per level."))
    # the speed target: one 1-D level with 1,048,576 cells at P = 1024
    df = opts.compare("mlb", P=1024, workload="arrays", workload_params=SPEED, initial="block")
    r = df.iloc[0]
    speed = pd.DataFrame([{
        "cells": SPEED["size"], "P": 1024, "status": r["status"],
        "partition s": r.get("time_partition_s", float("nan")), "balance s": r.get("time_balance_s", float("nan")),
        "schedule s": r.get("time_mlb_schedule_s", float("nan")),
        "wall s (partition + balance)": float(_level_wall(df).iloc[0]),
        "target s": 1.0,
        "schedule steps": r.get("mlb_schedule_steps"), "max msgs/vproc/step": r.get("mlb_max_msgs_per_vproc_step"),
    }])
    tables.append(Table("MLB speed: one arrays[dims=1,size=1048576] level at P = 1024 (initial=block)", speed,
                        note="Wall seconds measured on this machine (not a paper figure); schedule = Phases 1-4 "
                             "on the engine's virtual processors."))
    return tables


def _steps_table(a_cells: np.ndarray, home: np.ndarray, P: int, label: str) -> Table:
    """Run one p = P case on a private engine and list the schedule step by step."""
    d = int(math.log2(P))
    cube = Cube((P,))
    out, _ = run(Engine(P, comm=None), cube, a_cells, a_cells, home, lambda T, p: bounds(T, p, d),
                 np.arange(a_cells.size), destinations(a_cells, desired(a_cells.sum(), d)))
    held = np.bincount(home, a_cells, P).astype(np.int64)
    rows = [{"step": "start", "edge": "", "Phase 3 amounts": "", "sender -> receiver: amount": "",
             "held": held.tolist(), "desired": out.D.tolist(), "loans": out.loans[0].tolist()}]
    for s in range(d):
        k = d - 1 - s
        partner = cube.partners[k]
        plan = [f"{p}->{int(partner[p])}: {int(out.scheduled[s, p])}" for p in range(P) if out.scheduled[s, p]]
        msgs = [f"{p}->{int(partner[p])}: {int(out.sent[s, p])}" for p in range(P) if out.sent[s, p]]
        held = held - out.sent[s] + out.sent[s][partner]
        rows.append({"step": str(s + 1), "edge": str(k), "Phase 3 amounts": ", ".join(plan) or "-",
                     "sender -> receiver: amount": ", ".join(msgs) or "-",
                     "held": held.tolist(), "desired": out.D.tolist(), "loans": out.loans[s + 1].tolist()})
    note = (f"element loads {a_cells.tolist()}, start ranks {home.tolist()}, final ranks {out.dest.tolist()}; "
            "Phase 3 amounts: the constant-load schedule computed on the vprocs; sender -> receiver: what "
            "Phase 4's loan procedure sent; loan = load held - load held in the constant-load schedule. An "
            "illustration of our implementation, not a reproduction: the paper's example is a figure that "
            "is not in its text.")
    return Table(label, pd.DataFrame(rows), note=note)


def example(opts) -> list[Table]:
    P = 4
    unit = _steps_table(np.ones(8, np.int64), np.zeros(8, np.int64), P,
                        "MLB illustration (not the paper's example): p = 4, 8 unit loads on rank 0")
    rng = np.random.default_rng(opts.seed)
    n = 16
    loads = rng.integers(0, 10, n)
    cuts = np.sort(rng.integers(0, n + 1, P - 1))
    home = np.searchsorted(cuts, np.arange(n), side="right")
    rand = _steps_table(loads, home, P, f"MLB illustration: p = 4, random loads (seed {opts.seed}), "
                                        "rank-contiguous start")
    return [unit, rand]


QUALITY_METHODS = ("mlb", "mlb[order=hilbert]", "mlb[dims=auto]", "none", "metis", "sbn")


def quality(opts) -> list[Table]:
    known = available_algorithms()
    methods = [m for m in QUALITY_METHODS if m.split("[")[0] in known]
    rows = []
    for P in opts.P or QUALITY_P:
        df = opts.compare(",".join(methods), P=P, workload="arrays", workload_params={}, initial="block")
        for m in methods:
            part = df[df["method"] == m] if "method" in df else df[df["algorithm"] == m]
            ok = part[part["status"] == "ok"]
            rows.append({"P": P, "method": m,
                         "work_loadimb": ok["work_loadimb"].mean(), "edge cut": ok["edge_cut"].mean(),
                         "moved": ok["moved_weight"].mean(), "messages": ok["migration_messages"].mean(),
                         "rectangles": bool(ok["mlb_rectangles"].all()) if "mlb_rectangles" in ok and
                         m.startswith("mlb") else "",
                         "failed levels": int((part["status"] != "ok").sum())})
    return [Table("MLB quality on arrays (2-D peaks, 128 x 128, 10 steps), initial=block, mean over steps",
                  pd.DataFrame(rows),
                  note="work_loadimb = max processor work / mean (the load MLB balances; it ignores "
                       "communication, §2). edge cut: grid edges between processors. moved: redistribution "
                       "weight that changed processor; messages: (source, destination) pairs.")]


REPORTS = [
    Report("mlb-complexity", complexity, title="MLB: the paper's complexity claims, P = 1 ... 1024",
           description="step counts from the engine, desired-load spread, rounding deviation, contiguity, "
                       "moved / pass-through weight, modelled migration time; speed at 1,048,576 cells"),
    Report("mlb-example", example, title="MLB illustration (not a reproduction): the p = 4 schedule step by step",
           description="8 unit loads on rank 0 and a random case; the paper's own example is a figure missing "
                       "from its text"),
    Report("mlb-quality", quality, title="MLB on 2-D arrays beside none, metis and sbn",
           description="work_loadimb, edge cut, moved weight and messages for 1-D (C, Hilbert) and n-D MLB"),
]
