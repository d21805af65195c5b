"""Claims of KaHIP, Mt-KaHyPar and Zoltan's geometric methods, judged on shock at P = 32 (README.md, "Claims").

Figures are means over the nine levels of the post-level cut (Cut%) and of the moved weight.
"""
from __future__ import annotations

import math

from harness import Claim

P = 32
GEOMETRIC = ("rcb", "rib", "hsfc")


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
    m = _mean(df, "metis", "moved_weight")
    moved = {g: _mean(df, g, "moved_weight") for g in GEOMETRIC}
    if math.isnan(m) or any(math.isnan(v) for v in moved.values()):
        return None, "a cell failed"
    return all(v < m for v in moved.values()), ", ".join(f"{g} {Claim.num(v)}" for g, v in moved.items()) + \
        f" vs METIS {Claim.num(m)} moved weight per level"


CLAIMS = [
    Claim("kahip-strong-cut-vs-metis", "kahip", "Sanders & Schulz, SEA 2013, §6 (KaFFPa's strong configuration "
          "against METIS); read as a mean Cut% no higher than METIS's (the issue's test)",
          "KaFFPa strong computes partitions with smaller cuts than METIS", _cells("kahip[preset=strong],metis"),
          _cut_vs_metis("kahip[preset=strong]")),
    Claim("mtkahypar-cut-vs-metis", "mtkahypar", "Gottesbüren et al., Mt-KaHyPar (ALENEX 2021 / TOPC), graph "
          "partitioning evaluation; read as a mean Cut% of the default preset no higher than METIS's",
          "Mt-KaHyPar computes partitions of better quality than METIS", _cells("mtkahypar,metis"),
          _cut_vs_metis("mtkahypar")),
    Claim("zoltan-geometric-incremental", "zoltan", "Zoltan User's Guide, RCB/RIB/HSFC method pages "
          "(“Incremental: yes”); read as less weight moved per level than METIS from scratch",
          "geometric methods are incremental: small changes in the geometry move little data",
          _cells("rcb,rib,hsfc,metis"), _incremental),
]
