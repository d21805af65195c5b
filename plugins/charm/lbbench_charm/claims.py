"""Claims of the Charm++ manual's strategy list, Graham's LPT bound and GrapevineLB (README.md, "Claims").

All on ``shock`` at P = 32 from the default start, the strategies' default
parameters; figures are means over the nine levels unless said otherwise.
The two manual claims quote its strategy list (kept in
``workloads/reference/sources/charm-manual-lb-strategies.txt``); the LPT
bound and GrapevineLB's are ``our test`` (no sentence of the source at hand
says them).
"""
from __future__ import annotations

import math

import numpy as np

from harness import Claim

CELLS = ({"methods": "greedy,refine,greedy-refine,grapevine", "P": (32,), "workload": "shock"},)
MANUAL = "Charm++ manual, “Available Load Balancing Strategies”"
MANUAL_FILE = "charm-manual-lb-strategies.txt"
METHODS = ("greedy", "refine", "greedy-refine", "grapevine")


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
    """Graham's bound, max load <= (4/3 - 1/(3P)) x OPT, per level, in units of the mean load: it holds for sure
    where GreedyLB's max is within the factor of a lower bound of OPT, max(mean, heaviest object); it fails
    for sure where GreedyLB's max is above the factor times an upper bound, the lowest max load any of the
    cell's strategies reached (a schedule that exists); in between we cannot tell."""
    rows = {m: Claim.rows(df, m, 32) for m in METHODS}
    if any(r.empty or (r["status"] != "ok").any() for r in rows.values()):
        return None, "a cell failed"
    bound = 4 / 3 - 1 / (3 * 32)
    greedy = rows["greedy"]["work_loadimb"].to_numpy(float)
    lower = np.maximum(1.0, rows["greedy"]["charm_heaviest_object_rel"].to_numpy(float))
    upper = np.min([r["work_loadimb"].to_numpy(float) for r in rows.values()], axis=0)
    above = greedy / lower
    holds = True if np.all(above <= bound) else (False if np.any(greedy > bound * upper) else None)
    return holds, (f"GreedyLB max load / max(mean, heaviest object) per level at most {above.max():.4f}, max load / "
                   f"best max load of the four at most {(greedy / upper).max():.4f} (bound {bound:.4f})")


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
          "Moves objects away from the most overloaded processors to reach average, limits the number of objects "
          "migrated.", CELLS, _refine, source=MANUAL_FILE),
    Claim("charm-greedy-refine-fewer-moves", "charm", f"{MANUAL}, GreedyRefineLB; read as fewer objects moved "
          "than GreedyLB", "Uses a greedy algorithm that assigns the heaviest object to the least loaded processor "
          "when the benefit outweighs the migration cost, otherwise leaves the object on its current processor.",
          CELLS, _greedy_refine, source=MANUAL_FILE),
    Claim("charm-greedy-lpt-bound", "charm", "GreedyLB is Graham's LPT list scheduling (Graham 1969, Thm. 1); holds "
          "where GreedyLB's max load is within the factor of the lower bound max(mean load, heaviest object) of the "
          "optimum at every level, fails where it exceeds the factor times the best max load of the four strategies "
          "(an upper bound of the optimum) at a level, else n/a",
          "GreedyLB's max load is at most (4/3 - 1/(3P)) times the optimum at every level.", CELLS, _lpt,
          kind="our test", source="Graham, Bounds on multiprocessing timing anomalies, SIAM J. Appl. Math. 1969, "
          "Thm. 1 (LPT)"),
    Claim("grapevine-similar-quality-lower-cost", "grapevine", "Menon & Kalé, SC'13; “similar” read as mean max/avg "
          "load within 5% of GreedyLB's, “lower cost” as fewer balancing bytes at the busiest processor (the "
          "centralized root's bottleneck)",
          "GrapevineLB balances about as well as centralized GreedyLB (mean max/avg load within 5%) at a lower cost "
          "(fewer balancing bytes at the busiest processor).", CELLS, _grapevine, kind="our test",
          source="Menon & Kalé, A Distributed Dynamic Load Balancer for Iterative Applications, SC'13: our reading "
          "of its evaluation; no sentence of it was at hand to quote"),
]
