"""The tree-LB paper's claims (abstract, §4.2-4.4 on Tables 2-4 and Figs. 6-9) as code.

The cells are the tree reports' (the 12 methods on ``truss``, SP2 machine,
``initial=root``, P = 10, 30, 50, 70), and the figures are the reports' own
(:func:`lbbench_treelb.reports.summarise`): T_exec = Σ ``texec_s``,
Speedup = Eq. 7, Speedup_max = Eq. 8, the Laplace solver's time = Σ_i T_i.
"In general" is read as "in more than half of the comparisons"; the paper's
own tables give the counts in ``reported`` (spec tree-lb.md §3).
"""
from __future__ import annotations

import numpy as np

from harness import Claim

from .reports import BALANCERS, MAPPERS, METHODS, P_LIST, RUN, summarise

LBS = [b for b in BALANCERS if b]
CELLS = tuple({"methods": ",".join(METHODS.values()), "P": P, "workload": "truss", **RUN} for P in P_LIST)


def _figures(df) -> dict:
    """{(row label, P): summarise(...)} with the Laplace solver's time Σ_i T_i as ``solver``."""
    out = {}
    for P in P_LIST:
        for label, method in METHODS.items():
            s = summarise(Claim.rows(df, method, P))
            it = s.get("iter")
            s["solver"] = float(np.sum(it)) if it is not None else np.nan
            out[(label, P)] = s
    return out


LB_PAIRS = [(f"{m}/{lb}", m, P) for m in MAPPERS for lb in LBS for P in P_LIST]
CBTLB_PAIRS = [(f"{m}/CBTLB", f"{m}/{o}", P) for m in MAPPERS for o in ("MCSTLB", "BTLB") for P in P_LIST]
AEMC_PAIRS = [(f"AE/MC{s}", f"{o}{s}", P) for o in ("AE/ORB", "MLkP") for s in ("", "/MCSTLB", "/BTLB", "/CBTLB")
              for P in P_LIST]


def pairwise(key: str, lower: bool, pairs: list, what: str, need_all: bool = True):
    """A predicate: figure ``key`` of the first row is lower (or higher) than of the second, for every pair
    (``need_all``) or for more than half of them ("in general")."""
    def check(df):
        f = _figures(df)
        vals = [(f[(a, P)][key], f[(b, P)][key]) for a, b, P in pairs]
        if not np.isfinite(vals).all():
            return None, "failed or missing cells"
        k = sum((x < y) if lower else (x > y) for x, y in vals)
        return (k == len(vals) if need_all else k > len(vals) / 2), f"{what}: {k}/{len(vals)}"
    return check


def mlkp_cbtlb_best(df):
    f = _figures(df)
    best = {}
    for P in P_LIST:
        sp = {label: f[(label, P)]["speedup"] for label in METHODS}
        if not np.isfinite(list(sp.values())).all():
            return None, "failed or missing cells"
        best[P] = max(sp, key=sp.get)
    k = sum(b == "MLkP/CBTLB" for b in best.values())
    return k > len(P_LIST) / 2, "best speedup: " + ", ".join(f"P={P} {b}" for P, b in best.items())


def aemc_smallest(df):
    f = _figures(df)
    res = []
    for P in P_LIST:
        fam = [f[(label, P)]["speedup"] for label in METHODS if label.startswith("AE/MC")]
        other = [f[(label, P)]["speedup"] for label in METHODS if not label.startswith("AE/MC")]
        if not np.isfinite(fam + other).all():
            return None, "failed or missing cells"
        res.append((P, max(fam), min(other)))
    return all(a < b for _, a, b in res), "max AE/MC-family vs min other speedup: " + ", ".join(
        f"P={P} {a:.2f} vs {b:.2f}" for P, a, b in res)


T_EXEC_LB = pairwise("texec", True, LB_PAIRS, "T_exec of M/LB < T_exec of M")
T_EXEC_CBTLB = pairwise("texec", True, CBTLB_PAIRS, "T_exec of M/CBTLB < M/MCSTLB, M/BTLB")
SOLVER_LB = pairwise("solver", True, LB_PAIRS, "Σ T_i of M/LB < Σ T_i of M")
SOLVER_CBTLB = pairwise("solver", True, CBTLB_PAIRS, "Σ T_i of M/CBTLB < M/MCSTLB, M/BTLB")
SMAX_AEMC = pairwise("smax", False, AEMC_PAIRS, "Speedup_max AE/MC(+X) > AE/ORB(+X), MLkP(+X)", need_all=False)
SPEEDUP_LB = pairwise("speedup", False, LB_PAIRS, "speedup (Eq. 7) of M/LB > of M")
SPEEDUP_CBTLB = pairwise("speedup", False, CBTLB_PAIRS, "speedup of M/CBTLB > M/MCSTLB, M/BTLB")

CLAIMS = [
    Claim("tree-lb-faster-than-mapping", "tree", "§4.2, Table 2 (every mapper, LB method and P)",
          "From Table 2, we can observe that the execution time of the proposed load-balancing methods is less "
          "than that of the mapping methods.", CELLS, T_EXEC_LB, "36/36"),
    Claim("tree-cbtlb-fastest", "tree", "§4.2, Table 2 (same mapper, every P)",
          "For the proposed methods, the execution time of the CBTLB method is less than that of the MCSTLB "
          "method and the BTLB method.", CELLS, T_EXEC_CBTLB, "24/24"),
    Claim("tree-solver-lb-faster", "tree", "§4.3, Figs. 6-9 (Σ over refinements of T_i)",
          "the execution time of a Laplace solver under the proposed load-balancing methods (for example "
          "AE/ORB/BTLB) is less than that of their counterparts (AE/ORB).", CELLS, SOLVER_LB,
          "36/36 (Table 4 proxy)"),
    Claim("tree-solver-cbtlb-fastest", "tree", "§4.3, Figs. 6-9 (Σ T_i, same mapper, every P)",
          "the execution time of a Laplace solver under the CBTLB method is less than that of the MCSTLB and the "
          "BTLB methods for all cases (Assume that the same initial mapping method is used).", CELLS,
          SOLVER_CBTLB, "24/24 (Table 4 proxy)"),
    Claim("tree-mlkp-cbtlb-best", "tree", "§4.4, Table 3 (in general = at most P)",
          "In Table 3, the MLkP/CBTLB method, in general, has the best performance among the "
          "mapping/load-balancing methods for the test sample.", CELLS, mlkp_cbtlb_best,
          "best at P=10, 30, 70; AE/ORB/CBTLB at P=50"),
    Claim("tree-aemc-smallest-speedup", "tree", "§4.4, Table 3 (every P)",
          "The speedups produced by the AE/MC method and its counterparts (AE/MC/MCSTLB, AE/MC/BTLB, and "
          "AE/MC/CBTLB) are much smaller than other mapping/load-balancing methods.", CELLS, aemc_smallest, "4/4 P"),
    Claim("tree-aemc-best-max-speedup", "tree", "§4.4, Table 4 (in general = more than half the pairs)",
          "if the number of iterations executed by a Laplace solver is set to ∞, the AE/MC method (its "
          "counterparts), in general, produces better speedups than those of AE/ORB (its counterparts) and the "
          "MLkP (its counterparts) methods", CELLS, SMAX_AEMC, "27/32"),
    Claim("tree-app-lb-shorter", "tree", "abstract, §5 (Table 3 speedups, every case)",
          "the execution time of an application program under a load-balancing method is always shorter than "
          "that of the mapping method", CELLS, SPEEDUP_LB, "36/36"),
    Claim("tree-app-cbtlb-shorter", "tree", "abstract, §5 (Table 3 speedups)",
          "the execution time of an application program under the CBTLB method is shorter than that of the BTLB "
          "method and the MCSTLB method.", CELLS, SPEEDUP_CBTLB, "24/24"),
]
