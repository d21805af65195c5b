"""The AMR paper's claims (§5 on Figs. 9-13, §6) as code, on the ``amr-fig*`` / ``amr-claims`` cells.

The figures and the per-P checks are the ``amr-claims`` report's own
(:func:`lbbench_amr.reports.summarize`, :func:`lbbench_amr.reports._claim_checks`:
cumulative over the steps of ``bl``, P = 16, 32, 64); this module quotes the
paper's sentences and gives each a verdict with the report's rule: a
"required" check (spec amr.md §5) must hold at every P, an "expected" one at
2 of the 3 P (the paper says the schemes "tend to" behave so). Every
sentence states an ordering, so every one gets a verdict; where a sentence
reads two ways the check takes the stricter and the other reading's verdict
is shown beside (``other``). The paper prints no numbers (plots only), so no
claim reads a printed table (``reads`` empty) and none is judged on the
paper's own figures.

A6 ("ILD requires the maximum time", Fig. 12) is a cost of the paper's
implementation: judged on the operation counts of each scheme's §4
description (``amr_ops``, :mod:`lbbench_amr.ops`), our wall seconds shown
beside, never deciding.

Robustness (``variants``): each claim at P = 16 and at P = 64 alone; the
claims on distribution quality (A9-A11) and the operation count (A6) also with
SFC's composite unit at 2 base cells and with ILD's plane splits (the two
granularity choices the paper leaves open, README "Ambiguities"); A10 and A11,
which WD's imbalance decides, also with WD's load cap at 1% (``tol=0.01``, a
threshold §4.6 does not give).
"""
from __future__ import annotations

from harness import Claim

from .reports import CLAIMS as CHECKS
from .reports import IGD_ROTATE, ILD_PLANES, OTHER, PS, SCHEMES, SFC_BLOCK2, _claim_checks, summarize

CELLS = ({"methods": ",".join(SCHEMES), "P": tuple(PS), "workload": "bl"},)
WITH_ROTATE = ({"methods": ",".join(SCHEMES + [IGD_ROTATE]), "P": tuple(PS), "workload": "bl"},)  # A8: both deals


def _check(cid: str, which: int = 0):
    """The claim's check (``which`` 0) or its other reading (2) on the cells' rows, at every P."""
    def check(df):
        if df.empty or (df["status"] != "ok").any():
            return None, "failed or missing cells"
        s = summarize(df)
        got = {int(P): _claim_checks(s, int(P)).get(cid) for P in sorted(s["P"].unique())}
        if not got or any(v is None for v in got.values()):
            return None, "missing schemes"
        n = sum(bool(g[which]) for g in got.values())
        worst = next((f"P={P}: {g[1]}" for P, g in got.items() if not g[which]), "")
        ours = f"{OTHER[cid] if which else CHECKS[cid][1]}: at {n} of {len(got)} P" + (
            f"; {worst}" if worst else f"; P={max(got)}: {got[max(got)][1]}")
        need = len(got) if CHECKS[cid][0] == "required" else min(2, len(got))
        return n >= need, ours
    return check


QUOTES = {
    "A1": ("§5, Fig. 9", "The plots in Figure 9 show the intra and inter level communication overheads [...] "
           "the IGD distribution scheme tends to be particularly bad."),
    "A2": ("§5, Fig. 9", "The other schemes tend to be comparable with the SFC and CGD being slightly better than "
           "the rest."),
    "A3": ("§5, Fig. 10", "Figure 10 show the memory copies in each case. In both the sets of plots, the IGD "
           "distribution scheme tends to be particularly bad."),
    "A4": ("§5, Fig. 11", "Once again IGD results in the maximum datamovement"),
    "A5": ("§5, Fig. 11", "while CGD has the least data movement."),
    "A6": ("§5, Fig. 12", "The ILD scheme requires the maximum time for dynamic distribution and load balancing."),
    "A7": ("§5, Fig. 13", "Once again IGD results in the maximum number of boxes"),
    "A8": ("§5, Fig. 13", "however, it results in a near perfect load balance."),
    "A9": ("§5, Fig. 13", "ITB produces the overall best quality distribution with SFC and CGD schemes comparable."),
    "A10": ("§5, Fig. 13", "ILD produces the most load imbalance."),
    "A11": ("§6", "the iterative tree-balancing scheme provides best overall performance for this application with "
            "the space-filling curve and weighted distribution providing comparable distributions."),
}

BY_P = (("P = 16", {"P": (16,)}), ("P = 64", {"P": (64,)}))
GRAIN = (("SFC unit 2 base cells", {"methods": {"amr-sfc": SFC_BLOCK2}}),
         ("ILD plane splits", {"methods": {"amr-ild": ILD_PLANES}}))
WD_CAP = (("WD load cap 1%", {"methods": {"amr-wd": "amr-wd[tol=0.01]"}}),)
VARIANTS = {cid: BY_P + (GRAIN if cid in ("A6", "A9", "A10", "A11") else ())
            + (WD_CAP if cid in ("A10", "A11") else ()) for cid in QUOTES}

SOURCE_TEXT = "the source's own text"
# why a claim still does not hold: the figures of the full run (README "Results", 2026-11-27)
CAUSES = {
    "A2": (SOURCE_TEXT, "the paper's own §4.3 (Fig. 5) puts CGD's levels on different processors, G21 and G22 "
           "updating G11 \"requiring P2 and P3 to communicate with P1 for every restriction\": 94-99% of CGD's "
           "inter-level traffic crosses processors, 91-106 GB at P = 16-64 under each restriction weighting (every "
           "coarse step, once per regrid, over the surface), against ITB's 9-20 GB (its grids' subtrees kept "
           "together), ILD's 25-72 GB and WD's 39-58 GB; SFC, whose composite blocks keep the levels together, is "
           "below them all"),
    "A6": (SOURCE_TEXT, "by the paper's own §4.3-4.4 ILD redistributes the changed levels, CGD the whole "
           "hierarchy, and ILD keeps grids whole, so ILD's count is at most CGD's on any trace: operations x 1000 at "
           "P = 16 ILD 1,648, CGD 1,723, WD and ITB 10,212, SFC 18,270, IGD 179,170 (IGD cuts every new grid into "
           "P pieces); Fig. 12 times the paper's unpublished implementation"),
    "A9": (SOURCE_TEXT, "ITB is best at every P, but SFC is not comparable to it at P = 32 and 64 (1,096-1,220 "
           "thousand boxes against 826; 2.9-6.0% mean imbalance against 0.8-1.3%): §4.1's indivisible unit, a "
           "composite block with \"the entire grid hierarchy\" above it, is at finest one base cell, which on §5's "
           "hierarchy (\"5 levels of factor 2 refinement\") weighs up to 1 + 16 + ... + 16^4 = 69,905 work units, "
           "4-31% of W/P at P = 64 on bl (the paper's 33^3 base and 5 levels; the refined volume, which the paper "
           "does not give, ours), and every chunk boundary of the composite list cuts the grids it crosses"),
    "A10": (SOURCE_TEXT, "ILD with whole grids 1.3/2.6/5.3% at P = 16/32/64; at P = 32-64 SFC is above it "
            "(2.9-6.0%: §4.1's indivisible composite unit, a base cell's column of §5's 5 levels, up to 69,905 "
            "work units, 4-31% of W/P at P = 64 on bl), and WD (5.2-6.8%, its load cap of 5%, a threshold §4.6 "
            "does not give; with a 1% cap, a variant, 1.3-2.8%) at every P"),
    "A11": (SOURCE_TEXT, "ITB is now best (rank sums of traffic, movement, boxes, imbalance: ITB 10/10/8 at "
            "P = 16/32/64, tied with ILD at 16), but SFC and WD are not among the best three (SFC 15-18, WD "
            "12-15; CGD and ILD 10-13): SFC has the most pieces after IGD (1,010-1,220 thousand boxes against "
            "826, §4.1's composite chunks cut every grid they cross) and 1.2-6.0% imbalance (its indivisible "
            "unit, A9), WD 5.2-6.8% imbalance (its 5% load cap; with 1% SFC still fails)"),
}

CLAIMS = [Claim(f"amr-{cid.lower()}", "amr", f"{where} ({CHECKS[cid][0]}: {CHECKS[cid][1]})", text,
                WITH_ROTATE if cid == "A8" else CELLS, _check(cid), "plots only (no numbers printed)",
                cause=CAUSES.get(cid, ()), other=(OTHER[cid], _check(cid, 2)) if cid in OTHER else (),
                variants=VARIANTS[cid])
          for cid, (where, text) in QUOTES.items()]
