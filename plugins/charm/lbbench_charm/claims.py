"""Claims of the Charm++ manual's strategy list, Graham's LPT bound and GrapevineLB (README.md, "Claims").

All on ``shock`` at P = 32 from the default start, the strategies' default
parameters; figures are means over the nine levels unless said otherwise.
"""
from __future__ import annotations

import math

import numpy as np

from harness import Claim

CELLS = ({"methods": "greedy,refine,greedy-refine,grapevine", "P": (32,), "workload": "shock"},)
MANUAL = "Charm++ manual, “Available Load Balancing Strategies”"


def _mean(df, m, col):
    return Claim.average(df, m, col, 32)


def _refine(df):
    r, g = _mean(df, "refine", "moved_vertices"), _mean(df, "greedy", "moved_vertices")
    rows = Claim.rows(df, "refine", 32)
    worst = float(rows["work_loadimb"].max()) if not rows.empty else math.nan
    if math.isnan(r) or math.isnan(g):
        return None, "a cell failed"
    return bool(r < g and worst <= 1.003), (f"objects moved per level: RefineLB {Claim.num(r)}, GreedyLB {Claim.num(g)}; "
                                            f"worst level max/avg load {worst:.4f} (threshold 1.003)")


def _greedy_refine(df):
    gr, g = _mean(df, "greedy-refine", "moved_vertices"), _mean(df, "greedy", "moved_vertices")
    if math.isnan(gr) or math.isnan(g):
        return None, "a cell failed"
    return bool(gr < g), f"objects moved per level: GreedyRefineLB {Claim.num(gr)}, GreedyLB {Claim.num(g)}"


def _lpt(df):
    """Greedy's max load <= (4/3 - 1/(3P)) x OPT holds for sure where it is below that factor times a lower
    bound of OPT, max(average load, heaviest object); where it is not, we cannot tell (no OPT)."""
    rows = Claim.rows(df, "greedy", 32)
    if rows.empty or (rows["status"] != "ok").any():
        return None, "a cell failed"
    bound = 4 / 3 - 1 / (3 * 32)
    ratio = rows["work_loadimb"].astype(float).to_numpy()  # max / mean >= max / lower bound
    ok = bool(np.all(ratio <= bound))
    return (True if ok else None), f"max/avg load per level at most {ratio.max():.4f} (bound {bound:.4f})"


def _grapevine(df):
    gv, gr = _mean(df, "grapevine", "work_loadimb"), _mean(df, "greedy", "work_loadimb")
    cg, cc = _mean(df, "grapevine", "charm_max_recv_bytes"), _mean(df, "greedy", "charm_max_recv_bytes")
    if any(math.isnan(x) for x in (gv, gr, cg, cc)):
        return None, "a cell failed"
    similar, cheaper = gv <= 1.05 * gr, cg < cc
    return bool(similar and cheaper), (f"max/avg load: GrapevineLB {gv:.3f}, GreedyLB {gr:.3f} (similar: within 5%); "
                                       f"busiest processor's balancing bytes: {Claim.num(cg)} vs {Claim.num(cc)}")


CLAIMS = [
    Claim("charm-refine-few-migrations", "charm", f"{MANUAL}, RefineLB; “limits” read as fewer objects moved than "
          "GreedyLB, “reach average” as max/avg <= its threshold 1.003 at every level",
          "RefineLB: Moves objects away from the most overloaded processors to reach average, limits the number "
          "of objects migrated.", CELLS, _refine),
    Claim("charm-greedy-refine-fewer-moves", "charm", f"{MANUAL}, GreedyRefineLB; read as fewer objects moved "
          "than GreedyLB", "GreedyRefineLB: ... otherwise leaves the object on its current processor",
          CELLS, _greedy_refine),
    Claim("charm-greedy-lpt-bound", "charm", "GreedyLB is Graham's LPT list scheduling (Graham 1969, Thm. 1); "
          "judged against the lower bound max(average, heaviest object) of the optimum, so a level above the "
          "bound is n/a, not a failure", "LPT: max load <= (4/3 - 1/(3P)) x the optimum", CELLS, _lpt),
    Claim("grapevine-similar-quality-lower-cost", "grapevine", "abstract, §V (the issue's summary: the paper's "
          "text was not at hand); “similar” read as mean max/avg load within 5% of GreedyLB's, “a fraction of the "
          "cost” as fewer balancing bytes at the busiest processor (the centralized root's bottleneck)",
          "similar quality to centralized greedy at a fraction of the cost", CELLS, _grapevine),
]
