"""The tree-LB paper's claims (abstract, §4.2-4.4 on Tables 2-4 and Figs. 6-9) as code.

The cells are the tree reports' (the 12 methods on ``truss``, SP2 machine,
``initial=root``, P = 10, 30, 50, 70), and the figures are the reports' own
(:func:`lbbench_treelb.reports.summarise`): T_exec counted (T_task x node
visits + the modelled messages, never our wall seconds), Speedup = Eq. 7,
Speedup_max = Eq. 8, the Laplace solver's time = Σ_i T_i. "In general" is
read as "in more than half of the comparisons" (spec tree-lb.md §3). Every
claim on Tables 2-4 is also judged on the paper's printed values
(``on_paper``, ``workloads/reference/tree_tables.csv``); the solver claims
(Figs. 6-9) on Table 4, since Σ_i T_i = Σ_i Seq_i / Speedup_max (Eq. 8) and
the paper's Σ_i Seq_i is 1 s.

A figure with T_i depends on the communication constants of Eq. 3, which
the paper does not give. They are fitted held out by P (fits.py, ``lbbench
calibrate --paper tree``: on Table 4 at the other three P, used at the
fourth only), so no cell is computed with constants fitted on its own
printed value; that is the main reading. The SP2 machine's latency and
bandwidth (a published constant, not a fit) are the other: a claim with
T_i holds only where both readings hold (the stricter decides), and the
SP2 reading alone is shown beside.
"""
from __future__ import annotations

import numpy as np

from harness import Cells, Claim, app_speedup_from_tables, paper_values

from . import examples
from .protocol import BALANCERS, ITERATIONS, MAPPERS, METHODS, P_LIST, RUN
from .reports import summarise

LBS = [b for b in BALANCERS if b]
LB_ROWS = tuple(label for label in METHODS if "/" in label)
# "much smaller" (§4.4): the AE/MC family's best speedup at most 0.9x the others' worst, from the paper's own Table 3
# (0.50x-0.86x over P)
MUCH = 0.9
CELLS = tuple({"methods": ",".join(METHODS.values()), "P": P, "workload": "truss", **RUN} for P in P_LIST)
CONSTANTS = (("", "fitted constants"), ("_sp2", "SP2 constants"))
BY_P = tuple((f"P = {P}", {"P": (P,)}) for P in P_LIST)


def _ps(df) -> list:
    return sorted(int(p) for p in df["P"].unique()) if len(df) else []


def _figures(df) -> dict:
    """{(row label, P): summarise(...)} at the processor counts the frame holds."""
    return {(label, P): summarise(Claim.rows(df, method, P)) for P in _ps(df) for label, method in METHODS.items()}


def lb_pairs(Ps) -> list:
    return [(f"{m}/{lb}", m, P) for m in MAPPERS for lb in LBS for P in Ps]


def cbtlb_pairs(Ps) -> list:
    return [(f"{m}/CBTLB", f"{m}/{o}", P) for m in MAPPERS for o in ("MCSTLB", "BTLB") for P in Ps]


def aemc_pairs(Ps) -> list:
    return [(f"AE/MC{s}", f"{o}{s}", P) for o in ("AE/ORB", "MLkP") for s in ("", "/MCSTLB", "/BTLB", "/CBTLB")
            for P in Ps]


def paper_figures() -> dict:
    """{(row label, P): {texec, speedup, smax, solver}} from the paper's Tables 2, 3 and 4 (solver = Σ_i T_i =
    1 s / Speedup_max, Eq. 8 with the paper's Σ_i Seq_i = 1 s); ``*_sp2`` the same (one reading of the paper's)."""
    out = {(label, P): {"texec": np.nan, "speedup": np.nan, "smax": np.nan} for label in METHODS for P in P_LIST}
    for table, key in (("2", "texec"), ("3", "speedup"), ("4", "smax")):
        ref = paper_values("tree", table)
        for row, P, v in zip(ref["row"], ref["P"].astype(float).astype(int), ref["value"].astype(float)):
            if (row, P) in out:
                out[(row, P)][key] = v
    for f in out.values():
        f["solver"] = 1.0 / f["smax"]
        for key in ("speedup", "smax", "solver"):
            f[f"{key}_sp2"] = f[key]
    return out


def compared(f: dict, key: str, lower: bool, pairs: list, what: str, need_all: bool = True):
    """Figure ``key`` of the first row lower (or higher) than of the second, for every pair (``need_all``)
    or for more than half of them ("in general")."""
    vals = [(f[(a, P)][key], f[(b, P)][key]) for a, b, P in pairs]
    if not vals or not np.isfinite(vals).all():
        return None, "failed or missing cells"
    k = sum((x < y) if lower else (x > y) for x, y in vals)
    return (k == len(vals) if need_all else k > len(vals) / 2), f"{what}: {k}/{len(vals)}"


def stricter(judge, figures=None):
    """``judge(f, suffix) -> (holds, text)`` under both constant sets, the fitted and the SP2: holds only where
    both hold (two readings, the stricter decides). ``figures(df)``: the figures judged (default ours)."""
    def check(df):
        f = (figures or _figures)(df)
        got = [(judge(f, sfx), label) for sfx, label in CONSTANTS]
        if any(v is None for (v, _), _ in got):
            return None, "; ".join(f"{label}: {t}" for (_, t), label in got)
        return all(v for (v, _), _ in got), "; ".join(f"{label}: {t}" for (_, t), label in got)
    return check


def alone(judge, sfx: str):
    """The same judgement under one constant set only (the other reading)."""
    return lambda df: judge(_figures(df), sfx)


def pairwise(key: str, lower: bool, pairs, what: str, need_all: bool = True, constants: bool = True):
    """(check, on_paper) of one comparison over ``pairs(Ps)``; ``constants``: the figure has T_i in it."""
    def judge(f, sfx=""):
        Ps = sorted({P for _, P in f})
        return compared(f, key + sfx, lower, pairs(Ps), what, need_all)

    check = stricter(judge) if constants else (lambda df: judge(_figures(df)))
    return check, (lambda: judge(paper_figures())), judge


def _best(f, sfx: str = ""):
    """MLkP/CBTLB has the best speedup at more than half of the P."""
    Ps = sorted({P for _, P in f})
    best = {}
    for P in Ps:
        sp = {label: f[(label, P)]["speedup" + sfx] for label in METHODS}
        if not np.isfinite(list(sp.values())).all():
            return None, "failed or missing cells"
        best[P] = max(sp, key=sp.get)
    k = sum(b == "MLkP/CBTLB" for b in best.values())
    return k > len(Ps) / 2, f"best speedup at {k}/{len(Ps)} P: " + ", ".join(f"P={P} {b}" for P, b in best.items())


def _smallest(factor: float):
    """Every AE/MC-family speedup at most ``factor`` x every other method's, at every P."""
    def judge(f, sfx=""):
        res = []
        for P in sorted({P for _, P in f}):
            fam = [f[(label, P)]["speedup" + sfx] for label in METHODS if label.startswith("AE/MC")]
            other = [f[(label, P)]["speedup" + sfx] for label in METHODS if not label.startswith("AE/MC")]
            if not np.isfinite(fam + other).all():
                return None, "failed or missing cells"
            res.append((P, max(fam), min(other)))
        return all(a <= factor * b for _, a, b in res), \
            f"max AE/MC-family vs min other speedup (at most {factor:g}x): " + \
            ", ".join(f"P={P} {a:.2f} vs {b:.2f}" for P, a, b in res)
    return judge


T_EXEC_LB = pairwise("texec", True, lb_pairs, "T_exec of M/LB < T_exec of M", constants=False)
T_EXEC_CBTLB = pairwise("texec", True, cbtlb_pairs, "T_exec of M/CBTLB < M/MCSTLB, M/BTLB", constants=False)
SOLVER_LB = pairwise("solver", True, lb_pairs, "Σ T_i of M/LB < Σ T_i of M")
SOLVER_CBTLB = pairwise("solver", True, cbtlb_pairs, "Σ T_i of M/CBTLB < M/MCSTLB, M/BTLB")
SMAX_AEMC = pairwise("smax", False, aemc_pairs, "Speedup_max AE/MC(+X) > AE/ORB(+X), MLkP(+X)", need_all=False)
SPEEDUP_LB = pairwise("speedup", False, lb_pairs, "speedup (Eq. 7) of M/LB > of M")
SPEEDUP_CBTLB = pairwise("speedup", False, cbtlb_pairs, "speedup of M/CBTLB > M/MCSTLB, M/BTLB")
MUCH_SMALLER, SMALLER = _smallest(MUCH), _smallest(1.0)


def aemc_replay(df) -> dict:
    """Our figures with the AE/MC family's T_exec replaced by the paper's Table 2 (a labelled replay: AE/MC is
    not described in the paper, its ref. [6]): Eq. 7 on that T_exec and our Σ_i T_i (Σ_i T_i S_i = A /
    Speedup_max, A = our Σ_i Seq_i S_i); every other row is ours."""
    f, paper = _figures(df), paper_figures()
    out = dict(f)
    for k, v in f.items():
        if k[0].startswith("AE/MC") and k in paper:
            A = ITERATIONS * v["seq"]
            out[k] = {**v, **{f"speedup{s}": float(app_speedup_from_tables(paper[k]["texec"], v[f"smax{s}"], A))
                              for s, _ in CONSTANTS}}
    return out


def with_plain(check, plain):
    """``check``'s verdict, its text followed by the plain reading's verdict (shown, not judged)."""
    def run(df):
        holds, text = check(df)
        v, t = plain(df)
        shown = "n/a" if v is None else ("holds" if v else "does not hold")
        return holds, f"{text} (the plain reading, smaller = at most 1x, not judged: {shown})"
    return run


SP2_ALONE = "the SP2 constants alone (without the fitted constants)"


def example(method: str, paper_tree: bool = False):
    """The schedule (sender -> receiver per step) and the final loads are the paper's (the amounts are not
    printed): on our own tree construction, or (``paper_tree``, Example 2) a labelled replay on the tree the
    printed schedule implies (Fig. 3b is not in the text)."""
    def check(df):
        steps, final, rec = examples.replay(method, paper_tree=paper_tree)
        pairs = [[(s, r) for s, r, _ in st] for _, st in steps]
        paper = examples.PAPER_STEPS[method]
        same = sum(a == b for a, b in zip(pairs, paper))
        which = "replay on the tree the printed schedule implies" if paper_tree else "our tree"
        text = (f"{same}/{len(paper)} steps as printed ({len(pairs)} steps), final loads {final} vs "
                f"{examples.PAPER_FINAL[method]}; {which}: root P{rec['tree_root']}, depth {rec['tree_depth']}")
        return pairs == paper and final == examples.PAPER_FINAL[method], text
    return check


EXAMPLES = [("tree-example1-mcstlb", 1, "mcstlb", "§3.1, Example 1 (Fig. 2)", "lines 71-77"),
            ("tree-example2-btlb", 2, "btlb", "§3.2, Example 2 (Fig. 3)", "lines 100-106"),
            ("tree-example3-cbtlb", 3, "cbtlb", "§3.3, Example 3 (Fig. 4)", "lines 140-142 and 146-148")]
# Example 3 prints two sequences, each numbered from Step 1: among the metaprocessors, then the DEM inside them
SEQUENCES = {"cbtlb": (("among the metaprocessors", 0, 2), ("then the DEM inside the metaprocessors", 2, 4))}


def _steps(steps: list) -> str:
    return "; ".join(f"Step {i + 1}: " + ", ".join(f"P{s} → P{r}" for s, r in st) for i, st in enumerate(steps))


def _example_text(n: int, method: str) -> str:
    """What the example's claim tests, in our words (the paper prints the steps in its own notation)."""
    steps = examples.PAPER_STEPS[method]
    seqs = SEQUENCES.get(method, (("", 0, len(steps)),))
    shown = "; ".join(f"{what}: {_steps(steps[a:b])}" if what else _steps(steps[a:b]) for what, a, b in seqs)
    on = " (a labelled replay on the tree the printed schedule implies)" if method == "btlb" else ""
    return (f"{method.upper()} on the processor graph of Example {n}{on} gives the paper's load transfer "
            f"sequence{'s' if len(seqs) > 1 else ''} ({shown}) and its final loads.")


T2, T3, T4 = (Cells("tree", t) for t in "234")
T2_LB, T3_LB, T4_LB = (Cells("tree", t, rows=LB_ROWS) for t in "234")
SP2_OTHER = lambda judge: (SP2_ALONE, alone(judge, "_sp2"))  # noqa: E731
# AE/MC is not described in the paper (its ref. [6]): the claim judges a labelled replay with the paper's own AE/MC
# cost; our reconstruction of AE/MC (its counted T_exec) is the other reading
AEMC_REPLAY = ("§4.4, Table 3 (every P; much smaller = at most 0.9x: the paper's own Table 3 gives 0.50x-0.86x); a "
               "labelled replay: the AE/MC family's T_exec is the paper's Table 2 (AE/MC is not described in the paper: "
               "its ref. [6]), in Eq. 7 with our Σ_i T_i; every other row ours")
AEMC_OURS = ("our reconstruction of AE/MC (recursive bisection refined by FM passes; about 2x AE/ORB's node visits, "
             "the paper's Table 2 has 75-390x), its counted T_exec, both constant sets")

# why the T_i claims do not hold: figures from the tree reports (tree-table4 prints the Σ T_comp / Σ T_comm split
# under both readings); the fitted constants at P = 10, 30, 50, 70: T_setup 320, 160, 0, 0 µs, T_c 0, 1.0, 1.78,
# 1.78 µs per byte (the SP2's: 40 µs, 0.028 µs per byte)
FRESH = ("the paper's Table 4 implies each fresh mapping's solver 3-54% slower per iteration than its balanced variants "
         "at P = 50 and 70 (Σ_i T_i = 1 s / Speedup_max: AE/ORB 32.83 ms against AE/ORB/X 24.17-29.37 ms at P = 70), "
         "and neither its text nor a printed figure says why (no cut, imbalance or T_comp / T_comm split is printed). "
         "A fresh AE/ORB or AE/MC partition is balanced within one node (Fig. 2a: 8 or 9 nodes each), as the balanced "
         "ones are, so these can only be faster by communicating less than a fresh partition of the same refined "
         "graph; ours communicate more: at P = 70 Σ T_comp is 14.30 ms for AE/ORB and AE/ORB/X alike, Σ T_comm "
         "10.45 ms against 14.53-18.23 ms under the fitted constants (1.96 against 2.05-2.40 ms under the SP2's), "
         "7.5k cut edges at refinement 5 against 9.8-11.9k (Phase 4 moves load boundary-first along the tree, and "
         "the cut grows with every refinement). The fitted constants (held out by P) price communication 36-64x "
         "the SP2's per byte at P = 30-70, so the fresh mappings' smaller cut decides: 3/36 (the AE/MC pairs at "
         "P = 10 only). Under the SP2 constants only MLkP's imbalance (METIS ufactor 30: Σ T_comp 14.68 ms) lets "
         "its balanced variants win (the 12 MLkP pairs of 36)")
FRESH_CAUSE = ("the source's own text", FRESH)
CBTLB_CAUSE = ("the source's own text",
               "the paper's Table 4 implies CBTLB's solver the fastest for every mapper and P (e.g. MLkP/CBTLB 23.83 ms "
               "against MLkP/BTLB 26.15 ms at P = 70) without saying why (§4.2 explains only CBTLB's own T_exec). "
               "CBTLB as §3.3 describes it moves load twice, along the condensed tree and then by the DEM inside each "
               "cube, and its cut is the largest or as large: at P = 70, refinement 5, 11.9k cut edges for "
               "AE/ORB/CBTLB against 9.8k for AE/ORB/MCSTLB and /BTLB, 9.8k for MLkP/CBTLB against 9.8k and 9.2k; "
               "Σ T_comm under the fitted constants 18.23 against 14.53 and 14.85 ms (AE/ORB), 15.52 against 13.78 "
               "and 12.08 ms (MLkP); under the SP2's 2.40 against 2.05-2.06 ms (AE/ORB), 1.76 against 1.84 and "
               "1.74 ms (MLkP); Σ T_comp equal within 0.3%. Phase 5 follows the text (README \"CBTLB's Phase 5\"): "
               "no Case 2 transfer empties its sender, and 1-4% of the moved nodes move twice. At P = 10 the three "
               "balancers are within 0.1% of each other for each mapper (no strict win)")
BEST_CAUSE = ("the source's own text", "under the fitted constants MLkP/CBTLB is best at no P: the fresh MLkP is best "
              "at P = 50 and 70 (30.19 against 28.52, 37.24 against 33.00), for the reason of tree-solver-lb-faster: "
              + FRESH + "; at P = 10 and 30 AE/ORB/CBTLB and AE/ORB/BTLB are 3.6% and 1.7% ahead (9.59 against "
              "9.24, 21.23 against 20.88: METIS's parts have more neighbours, Σ T_comm 7.68 against 3.84 ms at "
              "P = 10, where the fit prices a message set-up at 320 µs). Under the SP2 constants MLkP/CBTLB is best "
              "at P = 50 and 70; at P = 10 AE/ORB/CBTLB is 0.6% ahead (9.89 against 9.83: refinement 0 runs on the "
              "initial mapping, where METIS's T_comp is 1% above AE/ORB's, and that is the whole gap) and at P = 30 "
              "MLkP/BTLB 0.5% (28.31 against 28.18: CBTLB's larger cut, see tree-solver-cbtlb-fastest), margins the "
              "size of the paper's own (its Table 3 has AE/ORB/CBTLB 0.2% ahead of MLkP/CBTLB at P = 50)")
APP_LB_CAUSE = ("the reading", "under the SP2 constants it holds at 36/36; the fitted constants (held out by P), "
                "which price communication 36-64x the SP2's per byte at P = 30-70, take it away (29/36): the fresh "
                "MLkP beats its three balanced variants at P = 50 and 70 (30.19 against 28.27-28.60, 37.24 against "
                "33.00-37.18) and AE/ORB beats AE/ORB/CBTLB at P = 70 (32.34 against 30.17): there our fresh "
                "mappings' smaller communication outweighs their larger T_exec (" + FRESH + ")")
# one more mesh for the claims that do not hold: the truss generator's seed 1 (a different DIME-like mesh)
SEED = (("another truss mesh (seed 1)", {"seed": 1}),)

CLAIMS = [
    Claim("tree-lb-faster-than-mapping", "tree", "§4.2, Table 2 (every mapper, LB method and P; T_exec counted: "
          "T_task x node visits + modelled messages)",
          "From Table 2, we can observe that the execution time of the proposed load-balancing methods is less "
          "than that of the mapping methods.", CELLS, T_EXEC_LB[0], on_paper=T_EXEC_LB[1], reads=(T2,),
          variants=BY_P),
    Claim("tree-cbtlb-fastest", "tree", "§4.2, Table 2 (same mapper, every P; T_exec counted)",
          "For the proposed methods, the execution time of the CBTLB method is less than that of the MCSTLB "
          "method and the BTLB method.", CELLS, T_EXEC_CBTLB[0], on_paper=T_EXEC_CBTLB[1], reads=(T2_LB,),
          variants=BY_P),
    Claim("tree-solver-lb-faster", "tree", "§4.3, Figs. 6-9 (Σ over refinements of T_i; the paper's: Σ_i T_i = "
          "1 s / Table 4)",
          "the execution time of a Laplace solver under the proposed load-balancing methods [...] (for example "
          "AE/ORB/BTLB) is less than that of their counterparts (AE/ORB).", CELLS, SOLVER_LB[0],
          on_paper=SOLVER_LB[1], reads=(T4,), other=SP2_OTHER(SOLVER_LB[2]), variants=BY_P + SEED, cause=FRESH_CAUSE),
    Claim("tree-solver-cbtlb-fastest", "tree", "§4.3, Figs. 6-9 (Σ T_i, same mapper, every P; the paper's: "
          "1 s / Table 4)",
          "the execution time of a Laplace solver under the CBTLB method is less than that of the MCSTLB and the "
          "BTLB methods for all cases (Assume that the same initial mapping method is used).", CELLS,
          SOLVER_CBTLB[0], on_paper=SOLVER_CBTLB[1], reads=(T4_LB,), other=SP2_OTHER(SOLVER_CBTLB[2]),
          variants=BY_P + SEED, cause=CBTLB_CAUSE),
    Claim("tree-mlkp-cbtlb-best", "tree", "§4.4, Table 3 (in general = best at more than half of the P)",
          "In Table 3, the MLkP/CBTLB method, in general, has the best performance among the "
          "mapping/load-balancing methods for the test sample.", CELLS, stricter(_best),
          on_paper=lambda: _best(paper_figures()), reads=(T3,), other=SP2_OTHER(_best), variants=BY_P + SEED,
          cause=BEST_CAUSE),
    Claim("tree-aemc-smallest-speedup", "tree", AEMC_REPLAY,
          "The speedups produced by the AE/MC method and its counterparts (AE/MC/MCSTLB, AE/MC/BTLB, and "
          "AE/MC/CBTLB) are much smaller than other mapping/load-balancing methods.", CELLS,
          with_plain(stricter(MUCH_SMALLER, aemc_replay), stricter(SMALLER, aemc_replay)),
          on_paper=lambda: MUCH_SMALLER(paper_figures()), reads=(T3,),
          other=(AEMC_OURS, stricter(MUCH_SMALLER)), variants=BY_P),
    Claim("tree-aemc-best-max-speedup", "tree", "§4.4, Table 4 (in general = more than half the pairs)",
          "if the number of iterations executed by a Laplace solver is set to ∞, the AE/MC method (its "
          "counterparts), in general, produces better speedups than those of AE/ORB (its counterparts) and the "
          "MLkP (its counterparts) methods", CELLS, SMAX_AEMC[0], on_paper=SMAX_AEMC[1], reads=(T4,),
          other=SP2_OTHER(SMAX_AEMC[2]), variants=BY_P),
    Claim("tree-app-lb-shorter", "tree", "abstract, §5 (Table 3 speedups, every case)",
          "the execution time of an application program under a load-balancing method is always shorter than "
          "that of the mapping method", CELLS, SPEEDUP_LB[0], on_paper=SPEEDUP_LB[1], reads=(T3,),
          other=SP2_OTHER(SPEEDUP_LB[2]), variants=BY_P + SEED, cause=APP_LB_CAUSE),
    Claim("tree-app-cbtlb-shorter", "tree", "abstract, §5 (Table 3 speedups)",
          "the execution time of an application program under the CBTLB method is shorter than that of the BTLB "
          "method and the MCSTLB method.", CELLS, SPEEDUP_CBTLB[0], on_paper=SPEEDUP_CBTLB[1], reads=(T3_LB,),
          other=SP2_OTHER(SPEEDUP_CBTLB[2]), variants=BY_P + SEED, cause=CBTLB_CAUSE),
] + [Claim(name, "tree", f"{where}; the fixture processor graph of spec §1.3, "
           + ("a labelled replay on the tree the printed schedule implies (Fig. 3b is not in the text)"
              if method == "btlb" else "our own tree construction"),
           _example_text(n, method), (), example(method, paper_tree=method == "btlb"),
           f"steps as printed; final loads {examples.PAPER_FINAL[method]} (derived, spec §1.1-1.3)",
           kind="our test", source=f"Example {n}'s printed steps, {lines} of the paper's text",
           other=("our own BTLB tree (root P5, depth 3)", example(method)) if method == "btlb" else ())
     for name, n, method, where, lines in EXAMPLES]
