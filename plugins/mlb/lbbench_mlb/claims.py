"""The MLB paper's complexity claims (abstract, §3.1-3.4) as code, on the ``mlb-complexity`` cells.

Cells: ``mlb`` on ``arrays[dims=1,size=65536,kind=K,steps=10]`` for the three
kinds, ``initial=block``, P = 1, 2, 4, ..., 1024 (the report's). Step counts
are the engine's supersteps that carried balance or migration messages
(``mlb_phase*_supersteps``, ``mlb_schedule_steps``), the largest over the
steps of a run; log means log2, as in the paper (§1).
"""
from __future__ import annotations

import math


from harness import Claim

from .reports import COMPLEXITY_P, KINDS

CELLS = tuple({"methods": "mlb", "P": tuple(COMPLEXITY_P), "initial": "block",
               "workload": f"arrays[dims=1,size=65536,kind={kind},steps=10]"} for kind in KINDS)


def _per_p(df, column: str) -> dict:
    """{P: max of column over kinds and steps}; None if a cell failed or is missing."""
    out = {}
    for P in COMPLEXITY_P:
        r = Claim.rows(df, "mlb", P)
        if len(r) == 0 or (r["status"] != "ok").any() or column not in r:
            return None
        out[P] = float(r[column].astype(float).max())
    return out


def _bound(column: str, bound, what: str, exact: bool = False):
    def check(df):
        got = _per_p(df, column)
        if got is None:
            return None, "failed or missing cells"
        bad = {P: v for P, v in got.items() if (v != bound(P) if exact else v > bound(P))}
        shown = ", ".join(f"P={P} {v:g}" for P, v in got.items() if P in (2, 32, 1024))
        return not bad, f"{what}: {shown}" + (f"; fails at P = {sorted(bad)}" if bad else " (every P)")
    return check


def d(P: int) -> int:
    return int(math.log2(P))


def once_per_edge(df):
    steps, sent, recv = (_per_p(df, c) for c in ("mlb_phase4_supersteps", "mlb_max_msgs_per_vproc_step",
                                                 "mlb_max_recv_per_vproc_step"))
    if steps is None or sent is None or recv is None:
        return None, "failed or missing cells"
    ok = all(steps[P] <= d(P) and sent[P] <= 1 and recv[P] <= 1 for P in COMPLEXITY_P)
    return ok, (f"Phase 4 steps at P=1024: {steps[1024]:g} (log p = 10); most messages sent / received by a "
                f"processor in one step: {max(sent.values()):g} / {max(recv.values()):g}")


CLAIMS = [
    Claim("mlb-schedule-log-p", "mlb", "abstract, §1 (schedule steps <= log2 p, P = 1..1024)",
          "produces a communication schedule that requires at most log(p) communication steps, where p is the "
          "number of processors", CELLS, _bound("mlb_schedule_steps", d, "schedule steps"), "bound only"),
    Claim("mlb-phase1-log-p", "mlb", "§3.1 (Phase 1 steps = log2 p)",
          "There are log(p) + 1 levels, hence log(p) steps of communication are needed.",
          CELLS, _bound("mlb_phase1_supersteps", d, "Phase 1 steps", exact=True), "log p"),
    Claim("mlb-desired-spread", "mlb", "§3.2 (max - min desired load <= log2 p)",
          "More precisely, the desired loads on the finest level differ by at most log(p).",
          CELLS, _bound("mlb_desired_spread", d, "desired-load spread"), "bound only"),
    Claim("mlb-phase3-log2", "mlb", "§3.3 (Phase 3 steps <= log p (log p + 1) / 2)",
          "We need to do that sequentially for each level, starting at the coarsest, so the complexity is of order "
          "(log(p))^2, since 1 + 2 + 3 + ... + log(p) = log(p)(log(p) + 1)/2.",
          CELLS, _bound("mlb_phase3_supersteps", lambda P: d(P) * (d(P) + 1) // 2, "Phase 3 steps"),
          "log p (log p + 1) / 2"),
    Claim("mlb-phase4-once-per-edge", "mlb", "§3.4 (Phase 4 steps <= log2 p, one message each way per step)",
          "Since we need to send and receive at most once along each edge on the finest level the complexity "
          "according to the communication is of order log(p).", CELLS, once_per_edge, "bound only"),
]

