"""Reports ``amr-fig9`` .. ``amr-fig14`` and ``amr-claims`` (AMR paper §5, Figs. 9-14; spec §4.4, §5).

The paper prints no numbers (captions only), so each figure is a table of our
cumulative figures over the trace (rows: the six schemes, ILD with plane splits,
``none`` and ``metis`` as context; columns: P) with a PNG (x = P, one line per
scheme), and ``amr-claims`` checks the orderings the text states.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from harness import Report, Table

SCHEMES = ["amr-sfc", "amr-igd", "amr-cgd", "amr-ild", "amr-itb", "amr-wd"]
ILD_PLANES = "amr-ild[ild_split=planes]"
IGD_ROTATE = "amr-igd[igd_deal=rotate]"
SFC_BLOCK2 = "amr-sfc[block=2]"
CONTEXT = [ILD_PLANES, "none", "metis"]
VARIANTS = [IGD_ROTATE]  # shown beside the claims' figures (A8), not in the figures' tables
LABEL = {"amr-sfc": "SFC", "amr-igd": "IGD", "amr-cgd": "CGD", "amr-ild": "ILD", "amr-itb": "ITB",
         "amr-wd": "WD", ILD_PLANES: "ILD (plane splits)", IGD_ROTATE: "IGD (igd_deal=rotate)", "none": "none",
         "metis": "metis"}
PS = [16, 32, 64]
MB = 1e6
NEAR_PERFECT = 1.0  # A8's "near perfect load balance": mean imbalance below 1% (spec amr.md §5)
COMPARABLE_BOXES, COMPARABLE_IMB = 1.25, 1.0  # A9's "comparable": boxes within 25%, imbalance within 1 point

# summary column -> (title, unit)
QUANTITIES = {
    "intra_comm_mb": ("Intra-level communication", "MB"),
    "inter_comm_mb": ("Inter-level communication", "MB"),
    "inter_comm_regrid_mb": ("Inter-level communication, restriction once per regrid", "MB"),
    "inter_comm_surface_mb": ("Inter-level communication, restriction over the surface", "MB"),
    "intra_copy_mb": ("Intra-level memory copy (pack + unpack of every exchange)", "MB"),
    "inter_copy_mb": ("Inter-level memory copy (pack + unpack of every exchange)", "MB"),
    "intra_coloc_mb": ("Intra-level co-located traffic", "MB"),
    "inter_coloc_mb": ("Inter-level co-located traffic", "MB"),
    "moved_mb": ("Data movement", "MB"),
    "ops_k": ("Distribution operations (boxes visited + pieces created + cut faces, steps 2-)", "x 1000"),
    "time_s": ("Distribution time (our Python/C wall time)", "s"),
    "boxes_k": ("Number of boxes", "x 1000"),
    "imb_mean": ("Load imbalance, mean over steps", "%"),
    "imb_max": ("Load imbalance, max over steps", "%"),
    "inter_max_proc_mb": ("Inter-level traffic of the busiest processor", "MB"),
}
FIGURES = {
    "amr-fig9": ("Fig. 9, BL: communication overheads", ["intra_comm_mb", "inter_comm_mb", "inter_max_proc_mb",
                                                        "inter_comm_regrid_mb", "inter_comm_surface_mb"]),
    "amr-fig10": ("Fig. 10, BL: memory copy overheads", ["intra_copy_mb", "inter_copy_mb", "intra_coloc_mb",
                                                        "inter_coloc_mb"]),
    "amr-fig11": ("Fig. 11, BL: data movement", ["moved_mb"]),
    "amr-fig12": ("Fig. 12, BL: distribution / load-balancing time", ["ops_k", "time_s"]),
    "amr-fig13": ("Fig. 13, BL: distribution quality (boxes)", ["boxes_k"]),
    "amr-fig14": ("Fig. 14, BL: distribution quality (load imbalance)", ["imb_mean", "imb_max"]),
}


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Cumulative figures per (algorithm, P) over the run's levels (spec §1.8): sums of the byte figures
    (data moved from the second level on: the first step moves from the harness's initial distribution),
    of the partition time, the operation counts (from the second level on, as the data moved) and of the
    pieces; mean and max of the imbalance. Failed cells are left out and counted in ``failed``."""
    out = []
    for (alg, P), g in df.groupby(["algorithm", "P"], sort=False):
        ok = g[g["status"] == "ok"] if "status" in g else g
        if "amr_pieces" not in ok or ok["amr_pieces"].isna().all():
            continue
        later = ok[ok["level"] > ok["level"].min()]
        out.append({
            "algorithm": alg, "P": int(P),
            **{f"{k}_mb": ok[f"amr_{k}_bytes"].sum() / MB
               for k in ("intra_comm", "inter_comm", "inter_comm_regrid", "inter_comm_surface", "intra_copy",
                         "inter_copy")},
            "intra_coloc_mb": ok["amr_intra_colocated_bytes"].sum() / MB,
            "inter_coloc_mb": ok["amr_inter_colocated_bytes"].sum() / MB,
            "moved_mb": later["amr_data_moved_bytes"].sum() / MB,
            "ops_k": later["amr_ops"].sum() / 1000.0 if "amr_ops" in later else np.nan,
            "time_s": ok["time_partition_s"].sum() if "time_partition_s" in ok else np.nan,
            "boxes_k": ok["amr_pieces"].sum() / 1000.0,
            "imb_mean": ok["amr_imbalance_pct"].mean(),
            "imb_max": ok["amr_imbalance_pct"].max(),
            "inter_max_proc_mb": ok["amr_inter_max_proc_bytes"].sum() / MB,
            "steps": len(ok), "failed": len(g) - len(ok),
        })
    return pd.DataFrame(out)


def figure_table(summary: pd.DataFrame, column: str) -> pd.DataFrame:
    """Rows = methods (labelled as in the paper), columns = P."""
    t = summary.pivot(index="algorithm", columns="P", values=column)
    order = [m for m in SCHEMES + CONTEXT if m in t.index] + [m for m in t.index if m not in SCHEMES + CONTEXT]
    t = t.loc[order]
    t.index = [LABEL.get(m, m) for m in t.index]
    t.index.name = "Scheme"
    t.columns = [f"P = {p}" for p in t.columns]
    return t.reset_index()


def plot(summary: pd.DataFrame, columns: list, title: str, path) -> str:
    """x = P, one line per scheme (context rows dashed), one panel per quantity."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(columns), figsize=(max(6.5, 4.6 * len(columns)), 3.8), squeeze=False)
    for ax, col in zip(axes[0], columns):
        for m in SCHEMES + CONTEXT:
            s = summary[summary["algorithm"] == m].sort_values("P")
            if s.empty:
                continue
            ax.plot(s["P"], s[col], marker="o", linestyle="-" if m in SCHEMES else "--", label=LABEL[m])
        name, unit = QUANTITIES[col]
        ax.set_xscale("log", base=2)
        ax.set_yscale("symlog", linthresh=1.0)  # the context rows (none) are orders of magnitude apart
        ax.set_ylim(bottom=0)
        ax.set_xticks(sorted(summary["P"].unique()), [str(p) for p in sorted(summary["P"].unique())])
        ax.set_xlabel("number of processors")
        ax.set_ylabel(f"{name} ({unit})")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def collect(opts, extra: list = ()) -> pd.DataFrame:
    """Every method (and ``extra``) at every P (the result store makes the second report free)."""
    kw = {} if opts.workload != "shock" else {"workload": "bl", "workload_params": {}}
    return pd.concat([opts.compare(SCHEMES + CONTEXT + list(extra), P=P, **kw) for P in (opts.P or PS)],
                     ignore_index=True)


def figure_report(name: str):
    title, columns = FIGURES[name]

    def run(opts):
        s = summarize(collect(opts))
        path = plot(s, columns, title, opts.figure_path(f"{name}.png"))
        return [Table(f"{title}: {QUANTITIES[c][0]} ({QUANTITIES[c][1]}, cumulative over the steps)",
                      figure_table(s, c), figures=[path] if i == 0 else []) for i, c in enumerate(columns)]

    return run


# ------------------------------------------------------------------ claims A1-A11 (spec §3, §5)

def _at(s: pd.DataFrame, P: int, col: str) -> pd.Series:
    x = s[s["P"] == P].set_index("algorithm")[col]
    return x


def _best(rank: pd.Series, m: str, alone: bool) -> bool:
    """``m`` has the lowest rank sum: alone (``alone``), or joint best (a tie shares the best place)."""
    rest = rank.drop(m).min()
    return bool(rank[m] < rest if alone else rank[m] <= rest)


def _claim_checks(s: pd.DataFrame, P: int) -> dict:
    """claim -> (holds, the figures it was decided on, the other reading's holds or None)."""
    six = [m for m in SCHEMES if m in set(s.loc[s["P"] == P, "algorithm"])]
    if len(six) < len(SCHEMES):
        return {}
    col = lambda c: _at(s, P, c).reindex(six)  # noqa: E731
    comm = col("intra_comm_mb") + col("inter_comm_mb")
    copy = col("intra_copy_mb") + col("inter_copy_mb")
    fmt = lambda x: ", ".join(f"{LABEL[k]} {v:.4g}" for k, v in x.items())  # noqa: E731
    out = {}
    intra, inter = col("intra_comm_mb"), col("inter_comm_mb")
    out["A1"] = (intra.idxmax() == "amr-igd" and inter.idxmax() == "amr-igd",
                 f"intra {fmt(intra)}; inter {fmt(inter)}", None)
    rest = comm[["amr-ild", "amr-itb", "amr-wd"]]
    med = rest.median()
    modes = []
    for mode in ("regrid", "surface"):
        c = intra + col(f"inter_comm_{mode}_mb")
        r = c[["amr-ild", "amr-itb", "amr-wd"]].min()
        modes.append(f"restriction {mode}: SFC {c['amr-sfc']:.4g}, CGD {c['amr-cgd']:.4g}, best of the rest "
                     f"{r:.4g}, {'holds' if c['amr-sfc'] < r and c['amr-cgd'] < r else 'does not hold'}")
    out["A2"] = (bool(comm["amr-sfc"] < rest.min() and comm["amr-cgd"] < rest.min()),
                 f"comm (restriction every coarse step) {fmt(comm)}; best of ILD/ITB/WD {rest.min():.4g}, "
                 f"their median {med:.4g}; " + "; ".join(modes),
                 bool(comm["amr-sfc"] <= med and comm["amr-cgd"] <= med))
    ci, ce = col("intra_copy_mb"), col("inter_copy_mb")
    out["A3"] = (ci.idxmax() == "amr-igd" and ce.idxmax() == "amr-igd",
                 f"intra copies {fmt(ci)}; inter copies {fmt(ce)}", copy.idxmax() == "amr-igd")
    mv = col("moved_mb")
    out["A4"] = (mv.idxmax() == "amr-igd", f"moved {fmt(mv)}", None)
    out["A5"] = (mv.idxmin() == "amr-cgd", f"moved {fmt(mv)}", None)
    ops = col("ops_k")
    out["A6"] = (ops.idxmax() == "amr-ild", f"operations x 1000 {fmt(ops)}; Python/C wall s {fmt(col('time_s'))}",
                 None)
    bx = col("boxes_k")
    out["A7"] = (bx.idxmax() == "amr-igd", f"boxes {fmt(bx)}", None)
    im = col("imb_mean")
    rotate = _at(s, P, "imb_mean").get(IGD_ROTATE, np.nan)
    out["A8"] = (bool(im["amr-igd"] < NEAR_PERFECT and rotate < NEAR_PERFECT),
                 f"IGD mean imbalance {im['amr-igd']:.4g} (igd_deal=greedy), {rotate:.4g} (igd_deal=rotate); "
                 f"{fmt(im)}", im.idxmin() == "amr-igd")
    five = [m for m in six if m != "amr-igd"]
    quality = bx[five].rank(method="min") + im[five].rank(method="min")
    near = {m: bool(bx[m] <= COMPARABLE_BOXES * bx["amr-itb"] and im[m] <= im["amr-itb"] + COMPARABLE_IMB)
            for m in ("amr-sfc", "amr-cgd")}
    out["A9"] = (_best(quality, "amr-itb", False) and all(near.values()),
                 f"rank sums of boxes + imbalance {fmt(quality)}; comparable to ITB: "
                 + ", ".join(f"{LABEL[m]} {'yes' if v else 'no'}" for m, v in near.items())
                 + f"; boxes {fmt(bx[five])}; mean imbalance {fmt(im[five])}",
                 _best(quality, "amr-itb", True) and all(near.values()))
    others = im.drop("amr-ild")
    out["A10"] = (bool(im["amr-ild"] > others.max()), f"ILD {im['amr-ild']:.4g}; others {fmt(others)}", None)
    traffic = comm + copy
    ranks = sum(x.rank(method="min") for x in (traffic, mv, bx, im))
    best3 = set(ranks.sort_values(kind="stable").index[:3])
    out["A11"] = (_best(ranks, "amr-itb", False) and {"amr-sfc", "amr-wd"} <= best3,
                  f"rank sums of traffic (comm + copies), movement, boxes, imbalance {fmt(ranks)}",
                  _best(ranks, "amr-itb", True) and {"amr-sfc", "amr-wd"} <= best3)
    return out

CLAIMS = {
    "A1": ("required", "IGD has the largest intra-level and the largest inter-level communication", "§5, Fig. 9"),
    "A2": ("expected", "SFC and CGD each below the best of ILD, ITB, WD in total communication (restriction every "
           "coarse step; once per regrid and over the surface shown beside)", "§5, Fig. 9"),
    "A3": ("required", "IGD has the largest intra-level and the largest inter-level memory copy (Fig. 10; A1's "
           "sentence, its strength; copies = pack + unpack of every exchange, §3.2)", "§5, Fig. 10"),
    "A4": ("required", "IGD has the largest data movement", "§5, Fig. 11"),
    "A5": ("expected", "CGD has the least data movement", "§5, Fig. 11"),
    "A6": ("required", "ILD does the most distribution operations (boxes visited + pieces created + cut faces per "
           "regrid, §4's redistribution scopes, summed from step 2 on; our wall seconds beside)", "§5, Fig. 12"),
    "A7": ("required", "IGD has the most boxes", "§5, Fig. 13"),
    "A8": ("required", f"IGD's mean imbalance below {NEAR_PERFECT:g}% (near perfect) with both dealing orders "
           "(igd_deal=greedy and rotate)", "§5, Fig. 13"),
    "A9": ("expected", "ITB has the best rank sum of boxes + mean imbalance of the five non-IGD schemes (a tie "
           f"shares it), and SFC and CGD are comparable to ITB: boxes at most {COMPARABLE_BOXES:g}x ITB's and mean "
           f"imbalance at most {COMPARABLE_IMB:g} percentage point above ITB's", "§5, Fig. 13"),
    "A10": ("expected", "ILD (default, whole grids) has the largest mean imbalance", "§5, Fig. 13"),
    "A11": ("required", "ITB has the best summed rank of traffic (communication + copies), movement, boxes, "
            "imbalance (a tie shares it); SFC and WD are among the best three", "§6"),
}
OTHER = {  # the other reading of a sentence, shown beside (the check of the claim decides)
    "A2": "SFC and CGD each at most the median of ILD, ITB, WD",
    "A3": "IGD has the largest memory copy, intra + inter",
    "A8": "IGD's mean imbalance the smallest of the six",
    "A9": "ITB alone best (no tie)",
    "A11": "ITB alone best (no tie)",
}


def claims_table(s: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: status, holds / does not hold at each P, the verdict (required: at every P;
    expected: at >= 2 of 3), the other reading's count, and the figures of every P where it fails."""
    Ps = sorted(s["P"].unique())
    checks = {P: _claim_checks(s, P) for P in Ps}
    rows = []
    for c, (kind, text, where) in CLAIMS.items():
        got = {P: checks[P][c] for P in Ps if c in checks[P]}
        n = sum(bool(g[0]) for g in got.values())
        need = len(got) if kind == "required" else min(2, len(got))
        verdict = "-" if not got else ("holds" if n == len(got) else f"holds at {n} of {len(got)} P")
        if got:
            verdict += "" if n >= need else " (FAILS)"
        row = {"Claim": c, "Status": kind, "Statement": text, "Paper": where}
        row.update({f"P = {P}": ("holds" if got[P][0] else "does not hold") if P in got else "-" for P in Ps})
        row["Verdict"] = verdict
        row["Other reading"] = (f"{OTHER[c]}: holds at {sum(bool(g[2]) for g in got.values())} of {len(got)} P"
                                if c in OTHER and got else "")
        row["Figures where it does not hold"] = "; ".join(f"P = {P}: {got[P][1]}" for P in Ps
                                                         if P in got and not got[P][0])
        rows.append(row)
    return pd.DataFrame(rows)


def claims_report(opts):
    s = summarize(collect(opts, VARIANTS))
    out = [Table("AMR paper claims A1-A11 on our numbers (cumulative over the steps)", claims_table(s))]
    for name, (title, columns) in FIGURES.items():
        for c in columns:
            out.append(Table(f"{title}: {QUANTITIES[c][0]} ({QUANTITIES[c][1]})", figure_table(s, c)))
    return out


REPORTS = [Report(name, figure_report(name), title=FIGURES[name][0]) for name in FIGURES] + [
    Report("amr-claims", claims_report, title="AMR paper claims A1-A11: holds / does not hold on our numbers")]
