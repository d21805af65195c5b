"""Claims of KaHIP, Mt-KaHyPar and Zoltan's geometric methods, judged on shock at P = 32 (README.md, "Claims").

Figures are means over the nine levels of the post-level cut (Cut%); Zoltan's claim compares each level's
moved weight with how much the adaptation changed the mesh (``changed_weight``, harness.measure.metrics). The KaHIP and
Mt-KaHyPar claims are ``our test`` (no sentence of their papers or manuals was at hand to quote); Zoltan's
quotes its User's Guide (``workloads/reference/sources/zoltan-ug-rcb.txt``).
"""
from __future__ import annotations

import math

from harness import Claim

P = 32
GEOMETRIC = ("rcb", "rib", "hsfc")
ADAPTIVE = "plum-dmetis"  # PLUM with DMeTiS: the adaptive repartitioner beside which "incremental" is judged


def _cells(methods):
    return ({"methods": methods, "P": (P,), "workload": "shock"},)


def _mean(df, m, col):
    return Claim.average(df, m, col, P)


def _cut_vs_metis(method):
    def check(df):
        a, m = _mean(df, method, "post_exec_cut_pct"), _mean(df, "metis", "post_exec_cut_pct")
        if math.isnan(a) or math.isnan(m):
            return None, "a cell failed"
        return bool(a <= m), f"Cut%: {method} {a:.2f}, METIS {m:.2f}"
    return check


def _per_level(df, m, col) -> dict:
    r = Claim.rows(df, m, P)
    if r.empty or (r["status"] != "ok").any() or col not in r:
        return {}
    return {int(lv): float(x) for lv, x in zip(r["level"], r[col].astype(float))}


def _incremental(df):
    """At every level after the first (where the mesh changed), RCB moves no more weight than the adaptation
    changed (``changed_weight``: the rwgt of the vertices it created or changed); DMeTiS under PLUM (the adaptive
    repartitioner), METIS from scratch, RIB and HSFC shown beside as moved / changed, and the other reading (RCB
    no more than DMeTiS)."""
    changed = {lv: x for lv, x in _per_level(df, "rcb", "changed_weight").items() if math.isfinite(x)}
    moved = {m: _per_level(df, m, "moved_weight") for m in (*GEOMETRIC, ADAPTIVE, "metis")}
    if not changed or any(not moved[m] for m in ("rcb", ADAPTIVE)):
        return None, "a cell failed or has no mesh change (changed_weight)"
    levels = sorted(changed)
    over = [lv for lv in levels if moved["rcb"][lv] > changed[lv]]
    total = sum(changed[lv] for lv in levels)
    ratio = {m: sum(v[lv] for lv in levels) / total if total else math.nan for m, v in moved.items() if v}
    return not over, (f"RCB moved more than the mesh changed at {len(over)} of {len(levels)} levels"
                      + (f" (first: level {over[0]}, {Claim.num(moved['rcb'][over[0]])} vs "
                         f"{Claim.num(changed[over[0]])})" if over else "")
                      + "; moved / changed weight over those levels: " + ", ".join(
                          f"{'DMeTiS (PLUM)' if m == ADAPTIVE else m} {x:.2f}" for m, x in ratio.items())
                      + f" (other reading, RCB no more than DMeTiS: "
                      f"{'holds' if ratio['rcb'] <= ratio[ADAPTIVE] else 'does not hold'})")


CLAIMS = [
    Claim("kahip-strong-cut-vs-metis", "kahip", "Sanders & Schulz, SEA 2013, §6 (KaFFPa's strong configuration "
          "against METIS); read as a mean Cut% no higher than METIS's",
          "KaFFPa strong (kahip[preset=strong]) gives a mean Cut% no higher than METIS's.",
          _cells("kahip[preset=strong],metis"), _cut_vs_metis("kahip[preset=strong]"), kind="our test",
          source="Sanders & Schulz, Think Locally, Act Globally: Highly Balanced Graph Partitioning, SEA 2013, §6"),
    Claim("mtkahypar-cut-vs-metis", "mtkahypar", "Gottesbüren et al., Mt-KaHyPar (ALENEX 2021 / TOPC), graph "
          "partitioning evaluation; read as a mean Cut% of the default preset no higher than METIS's",
          "Mt-KaHyPar (default preset) gives a mean Cut% no higher than METIS's.", _cells("mtkahypar,metis"),
          _cut_vs_metis("mtkahypar"), kind="our test",
          source="Gottesbüren et al., Mt-KaHyPar (ALENEX 2021 / ACM TOPC), graph partitioning evaluation"),
    Claim("zoltan-geometric-incremental", "zoltan", "Zoltan User's Guide, RCB page; “incremental partitions” read "
          "as moving no more weight than the mesh changed (changed_weight: rwgt of the vertices the adaptation "
          "created or changed) at every level after the first; the adaptive repartitioner DMeTiS under PLUM, METIS "
          "from scratch, RIB and HSFC shown beside as moved / changed weight, with the other reading (RCB no more "
          "than DMeTiS)",
          "RCB was first proposed as a static load-balancing algorithm by Berger and Bokhari, but is attractive as "
          "a dynamic load-balancing algorithm because it implicitly produces incremental partitions.",
          _cells(f"rcb,rib,hsfc,metis,{ADAPTIVE}"), _incremental, source="zoltan-ug-rcb.txt"),
]
