"""The AMR paper's claims (§5 on Figs. 9-13, §6) as code, on the ``amr-fig*`` / ``amr-claims`` cells.

The figures and the per-P checks are the ``amr-claims`` report's own
(:func:`lbbench_amr.reports.summarize`, :func:`lbbench_amr.reports._claim_checks`:
cumulative over the steps of ``bl``, P = 16, 32, 64); this module quotes the
paper's sentences and gives each a verdict with the report's rule: a
"required" check (spec amr.md §5) must hold at every P, an "expected" one at
2 of the 3 P (the paper says the schemes "tend to" behave so). Every
sentence states an ordering, so every one gets a verdict; where a sentence
reads two ways the check takes the stricter and its figures give the other
reading's outcome beside it. The paper prints no numbers (plots only), so
none is judged on the paper's own figures.

A6 ("ILD requires the maximum time") is a wall-time ordering: its cells'
timed part runs ``REPEATS`` times (``compare(..., repeats=5)``); each
scheme's time sample k is Σ_steps of run k's ``time_partition_s`` (the
report's distribution time), and ILD must be decided slower than every
other scheme at every P (medians apart by more than the larger spread),
else "within noise" (:func:`lbbench_amr.reports.ild_slowest`, which the
``amr-claims`` report uses too, on the same cells).
"""
from __future__ import annotations

from harness import Claim

from .reports import CLAIMS as CHECKS
from .reports import CONTEXT, PS, REPEATS, SCHEMES, VARIANTS, _claim_checks, ild_slowest, summarize

CELLS = ({"methods": ",".join(SCHEMES + CONTEXT), "P": tuple(PS), "workload": "bl"},)
TIMED = ({"methods": ",".join(SCHEMES), "P": tuple(PS), "workload": "bl", "repeats": REPEATS},)
WITH_VARIANTS = {"A8": CELLS + ({"methods": ",".join(VARIANTS), "P": tuple(PS), "workload": "bl"},)}  # both deals


def _check(cid: str):
    def check(df):
        if df.empty or (df["status"] != "ok").any():
            return None, "failed or missing cells"
        s = summarize(df)
        got = {int(P): _claim_checks(s, int(P)).get(cid) for P in sorted(s["P"].unique())}
        if not got or any(v is None for v in got.values()):
            return None, "missing schemes"
        n = sum(bool(h) for h, _ in got.values())
        worst = next((f"P={P}: {txt}" for P, (h, txt) in got.items() if not h), "")
        ours = f"{CHECKS[cid][1]}: at {n} of {len(got)} P" + (f"; {worst}" if worst else
                                                               f"; P={max(got)}: {got[max(got)][1]}")
        need = len(got) if CHECKS[cid][0] == "required" else min(2, len(got))
        return n >= need, ours
    return check


TIMED_CHECKS = {"A6": (TIMED, ild_slowest)}

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

TIMED_NOTE = f"; medians of {REPEATS} runs, decided beyond the larger spread (max - min), else within noise"

CLAIMS = [Claim(f"amr-{cid.lower()}", "amr", f"{where} ({CHECKS[cid][0]}: {CHECKS[cid][1]}"
                f"{TIMED_NOTE if cid in TIMED_CHECKS else ''})",
                text, *TIMED_CHECKS.get(cid, (WITH_VARIANTS.get(cid, CELLS), _check(cid))),
                "plots only (no numbers printed)")
          for cid, (where, text) in QUOTES.items()]
