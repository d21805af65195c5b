"""Claims of KaHIP, Mt-KaHyPar and Zoltan's geometric methods, judged on shock at P = 32 (README.md, "Claims").

Figures are means over the nine levels of the post-level cut (Cut%) and of the moved weight. The KaHIP and
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


def _incremental(df):
    """RCB moves less weight per level than METIS from scratch and no more than the adaptive repartitioner
    (DMeTiS under PLUM, which repartitions from the current partition to move little); RIB and HSFC shown."""
    m, a = _mean(df, "metis", "moved_weight"), _mean(df, ADAPTIVE, "moved_weight")
    moved = {g: _mean(df, g, "moved_weight") for g in GEOMETRIC}
    if math.isnan(m) or math.isnan(a) or math.isnan(moved["rcb"]):
        return None, "a cell failed"
    r = moved["rcb"]
    return bool(r < m and r <= a), ", ".join(f"{g} {Claim.num(v)}" for g, v in moved.items()) + \
        f" vs DMeTiS (PLUM) {Claim.num(a)} and METIS from scratch {Claim.num(m)}: moved weight per level"


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
          "as moving less weight per level than METIS from scratch and no more than the adaptive repartitioner "
          "DMeTiS under PLUM (mean moved weight over the levels); RIB and HSFC shown beside",
          "RCB was first proposed as a static load-balancing algorithm by Berger and Bokhari, but is attractive as "
          "a dynamic load-balancing algorithm because it implicitly produces incremental partitions.",
          _cells(f"rcb,rib,hsfc,metis,{ADAPTIVE}"), _incremental, source="zoltan-ug-rcb.txt"),
]
