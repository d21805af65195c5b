"""The MLB paper's complexity claims (abstract, §3.1-3.4, §4) as code, on the ``mlb-complexity`` cells.

Cells: ``mlb`` on ``arrays[dims=1,size=65536,kind=K,steps=10]`` for the three
kinds, ``initial=block``, P = 1, 2, 4, ..., 1024 (the report's). Step and
message counts are read from the engine's log (``engine.step_stats`` after each
phase: ``mlb_phase*_supersteps``, ``mlb_phase*_messages``,
``mlb_schedule_steps``, ``mlb_max_*_per_vproc_step``), the largest over the
steps of a run; log means log2, as in the paper (§1). The Phase 4 claims need
the loan-variable procedure to have run on every level (``mlb_loan_procedure``;
it does from the block start), otherwise they cannot be judged.
"""
from __future__ import annotations

import math

from harness import Claim

from .reports import COMPLEXITY_P, KINDS


def d(P: int) -> int:
    return int(math.log2(P))


def _per_p(df, column: str, Ps) -> dict | None:
    """{P: max of column over kinds and steps}; None if a cell failed or is missing."""
    out = {}
    for P in Ps:
        r = Claim.rows(df, "mlb", P)
        if len(r) == 0 or (r["status"] != "ok").any() or column not in r:
            return None
        out[P] = float(r[column].astype(float).max())
    return out


def _loans_ran(df, Ps) -> bool:
    """Did Phase 4 run the loan-variable procedure on every level of every cell?"""
    rows = [Claim.rows(df, "mlb", P) for P in Ps]
    return all("mlb_loan_procedure" in r and r["mlb_loan_procedure"].astype(bool).all() for r in rows)


def _shown(Ps) -> list:
    """The processor counts quoted in the verdict: 2, 32, 1024 and the largest."""
    return [P for P in Ps if P in (2, 32, 1024) or P == max(Ps)]


def _bound(column: str, bound, what: str, Ps, exact: bool = False, extra: str = ""):
    def check(df):
        got = _per_p(df, column, Ps)
        if got is None:
            return None, "failed or missing cells"
        bad = {P: v for P, v in got.items() if (v != bound(P) if exact else v > bound(P))}
        shown = ", ".join(f"P={P} {got[P]:g}" for P in _shown(Ps))
        return not bad, f"{what}: {shown}{extra}" + (f"; fails at P = {sorted(bad)}" if bad else " (every P)")
    return check


def _phase1(Ps):
    def check(df):
        steps, msgs = _per_p(df, "mlb_phase1_supersteps", Ps), _per_p(df, "mlb_phase1_messages", Ps)
        if steps is None or msgs is None:
            return None, "failed or missing cells"
        bad = [P for P in Ps if steps[P] != d(P)]
        shown = ", ".join(f"P={P} {steps[P]:g} steps (log p = {d(P)}) / {msgs[P]:g} msgs" for P in _shown(Ps))
        return not bad, f"Phase 1: {shown}" + (f"; fails at P = {bad}" if bad else " (every P)")
    return check


def _phase3(Ps, formula, name: str):
    """Phase 3 supersteps against one of the paper's two formulas, both shown beside the measured count."""
    def check(df):
        steps, msgs = _per_p(df, "mlb_phase3_supersteps", Ps), _per_p(df, "mlb_phase3_messages", Ps)
        if steps is None or msgs is None:
            return None, "failed or missing cells"
        bad = [P for P in Ps if steps[P] > formula(d(P))]
        shown = "; ".join(f"P={P}: {steps[P]:g} steps ({msgs[P]:g} msgs), §3.3 d(d+1)/2 = {d(P) * (d(P) + 1) // 2}, "
                          f"§4 d(d-1)/2 = {d(P) * (d(P) - 1) // 2}" for P in _shown(Ps))
        equal = [f for f, fn in (("§3.3's", lambda k: k * (k + 1) // 2), ("§4's", lambda k: k * (k - 1) // 2))
                 if all(steps[P] == fn(d(P)) for P in Ps)]
        exact = (f"; the count equals {' and '.join(equal)} formula at every P" if equal else
                 "; the count equals neither formula at every P")
        return not bad, (f"Phase 3 measured vs {name}: {shown}" + (f"; exceeds at P = {bad}" if bad else " (every P)")
                         + exact)
    return check


def _once_per_edge(Ps):
    def check(df):
        cols = ("mlb_phase4_supersteps", "mlb_max_msgs_per_vproc_step", "mlb_max_recv_per_vproc_step",
                "mlb_phase4_messages")
        steps, sent, recv, msgs = (_per_p(df, c, Ps) for c in cols)
        if steps is None or sent is None or recv is None or msgs is None:
            return None, "failed or missing cells"
        if not _loans_ran(df, Ps):
            return None, "the loan-variable procedure did not run on every level (start not rank-ordered)"
        top = max(Ps)
        ok = all(steps[P] <= d(P) and sent[P] <= 1 and recv[P] <= 1 for P in Ps)
        return ok, (f"Phase 4 steps at P={top}: {steps[top]:g} (log p = {d(top)}), {msgs[top]:g} messages "
                    f"(at most {top * d(top)}); most messages sent / received by a processor in one step: "
                    f"{max(sent.values()):g} / {max(recv.values()):g}")
    return check


def _schedule(Ps):
    inner = _bound("mlb_schedule_steps", d, "schedule steps", Ps)

    def check(df):
        if _per_p(df, "mlb_schedule_steps", Ps) is not None and not _loans_ran(df, Ps):
            return None, "the loan-variable procedure did not run on every level (start not rank-ordered)"
        return inner(df)
    return check


def make_claims(Ps=tuple(COMPLEXITY_P), cells=None) -> list:
    """The claims judged on processor counts ``Ps`` (a test builds them on small cells)."""
    Ps = tuple(Ps)
    if cells is None:
        cells = tuple({"methods": "mlb", "P": Ps, "initial": "block",
                       "workload": f"arrays[dims=1,size=65536,kind={kind},steps=10]"} for kind in KINDS)
    return [
        Claim("mlb-schedule-log-p", "mlb", "abstract, §1 (schedule steps <= log2 p)",
              "produces a communication schedule that requires at most log(p) communication steps, where p is "
              "the number of processors", cells, _schedule(Ps), "bound only"),
        Claim("mlb-phase1-log-p", "mlb", "§3.1 (Phase 1 steps = log2 p)",
              "There are log(p) + 1 levels, hence log(p) steps of communication are needed.",
              cells, _phase1(Ps), "log p"),
        Claim("mlb-desired-spread", "mlb", "§3.2 (max - min desired load <= log2 p)",
              "More precisely, the desired loads on the finest level differ by at most log(p).",
              cells, _bound("mlb_desired_spread", d, "desired-load spread", Ps), "bound only"),
        Claim("mlb-phase3-log2", "mlb", "§3.3 (Phase 3 steps <= log p (log p + 1) / 2)",
              "We need to do that sequentially for each level, starting at the coarsest, so the complexity is of "
              "order (log(p))^2, since 1 + 2 + 3 + ... + log(p) = log(p)(log(p) + 1)/2.",
              cells, _phase3(Ps, lambda k: k * (k + 1) // 2, "§3.3's d(d+1)/2"), "log p (log p + 1) / 2"),
        Claim("mlb-phase3-section4", "mlb", "§4 (Phase 3 steps <= d (d - 1) / 2, l - 1 per level)",
              "On every level l we have to do l - 1 steps of communication. Since there are log(p) levels the "
              "compexity is of order sum_{l=1}^d l = d(d-1)/2",
              cells, _phase3(Ps, lambda k: k * (k - 1) // 2, "§4's d(d-1)/2"),
              "d (d - 1) / 2 (the paper's own sum_{l=1}^{d} l is d(d+1)/2)"),
        Claim("mlb-phase4-once-per-edge", "mlb", "§3.4 (Phase 4 steps <= log2 p, one message each way per step)",
              "Since we need to send and receive at most once along each edge on the finest level the complexity "
              "according to the communication is of order log(p).", cells, _once_per_edge(Ps), "bound only"),
    ]


CLAIMS = make_claims()
