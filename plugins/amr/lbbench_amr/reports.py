"""Reports ``amr-fig9`` .. ``amr-fig14`` and ``amr-claims`` (AMR paper §5, Figs. 9-14; spec §4.4, §5).

The paper prints no numbers (captions only), so each figure is a table of our
cumulative figures over the trace (rows: the six schemes, ILD with whole boxes,
``none`` and ``metis`` as context; columns: P) with a PNG (x = P, one line per
scheme), and ``amr-claims`` checks the orderings the text states.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from harness import Claim, Report, Table

SCHEMES = ["amr-sfc", "amr-igd", "amr-cgd", "amr-ild", "amr-itb", "amr-wd"]
ILD_WHOLE = "amr-ild[ild_split=none]"
IGD_ROTATE = "amr-igd[igd_deal=rotate]"
CONTEXT = [ILD_WHOLE, "none", "metis"]
VARIANTS = [IGD_ROTATE]  # shown beside the claims' figures (A8), not in the figures' tables
LABEL = {"amr-sfc": "SFC", "amr-igd": "IGD", "amr-cgd": "CGD", "amr-ild": "ILD", "amr-itb": "ITB",
         "amr-wd": "WD", ILD_WHOLE: "ILD (whole boxes)", IGD_ROTATE: "IGD (igd_deal=rotate)", "none": "none",
         "metis": "metis"}
PS = [16, 32, 64]
MB = 1e6
REPEATS = 5  # runs of the timed part for A6, the wall-time ordering (the report's and the claim's same cells)
NEAR_PERFECT = 1.0  # A8's "near perfect load balance": mean imbalance below 1% (spec amr.md §5)
COMPARABLE_BOXES, COMPARABLE_IMB = 1.25, 1.0  # A9's "comparable": boxes within 25%, imbalance within 1 point

# summary column -> (title, unit)
QUANTITIES = {
    "intra_comm_mb": ("Intra-level communication", "MB"),
    "inter_comm_mb": ("Inter-level communication", "MB"),
    "intra_copy_mb": ("Intra-level memory copy", "MB"),
    "inter_copy_mb": ("Inter-level memory copy", "MB"),
    "moved_mb": ("Data movement", "MB"),
    "time_s": ("Distribution time", "s"),
    "boxes_k": ("Number of boxes", "x 1000"),
    "imb_mean": ("Load imbalance, mean over steps", "%"),
    "imb_max": ("Load imbalance, max over steps", "%"),
    "inter_max_proc_mb": ("Inter-level traffic of the busiest processor", "MB"),
}
FIGURES = {
    "amr-fig9": ("Fig. 9, BL: communication overheads", ["intra_comm_mb", "inter_comm_mb", "inter_max_proc_mb"]),
    "amr-fig10": ("Fig. 10, BL: memory copy overheads", ["intra_copy_mb", "inter_copy_mb"]),
    "amr-fig11": ("Fig. 11, BL: data movement", ["moved_mb"]),
    "amr-fig12": ("Fig. 12, BL: distribution / load-balancing time", ["time_s"]),
    "amr-fig13": ("Fig. 13, BL: distribution quality (boxes)", ["boxes_k"]),
    "amr-fig14": ("Fig. 14, BL: distribution quality (load imbalance)", ["imb_mean", "imb_max"]),
}


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Cumulative figures per (algorithm, P) over the run's levels (spec §1.8): sums of the byte figures
    (data moved from the second level on: the first step moves from the harness's initial distribution),
    of the partition time and of the pieces; mean and max of the imbalance. Failed cells are left out and
    counted in ``failed``."""
    out = []
    for (alg, P), g in df.groupby(["algorithm", "P"], sort=False):
        ok = g[g["status"] == "ok"] if "status" in g else g
        if "amr_pieces" not in ok or ok["amr_pieces"].isna().all():
            continue
        first = ok["level"].min()
        out.append({
            "algorithm": alg, "P": int(P),
            "intra_comm_mb": ok["amr_intra_comm_bytes"].sum() / MB,
            "inter_comm_mb": ok["amr_inter_comm_bytes"].sum() / MB,
            "intra_copy_mb": ok["amr_intra_copy_bytes"].sum() / MB,
            "inter_copy_mb": ok["amr_inter_copy_bytes"].sum() / MB,
            "moved_mb": ok.loc[ok["level"] > first, "amr_data_moved_bytes"].sum() / MB,
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


def _claim_checks(s: pd.DataFrame, P: int) -> dict:
    """claim -> (holds, the figures it was decided on)."""
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
                 f"intra {fmt(intra)}; inter {fmt(inter)}")
    rest = comm[["amr-ild", "amr-itb", "amr-wd"]]
    med = rest.median()
    out["A2"] = (bool(comm["amr-sfc"] < rest.min() and comm["amr-cgd"] < rest.min()),
                 f"comm {fmt(comm)}; best of ILD/ITB/WD {rest.min():.4g} (other reading, at most their median "
                 f"{med:.4g}: {'holds' if comm['amr-sfc'] <= med and comm['amr-cgd'] <= med else 'does not hold'})")
    tot = comm + copy
    ci, ce = col("intra_copy_mb"), col("inter_copy_mb")
    out["A3"] = (ci.idxmax() == "amr-igd" and ce.idxmax() == "amr-igd",
                 f"intra copies {fmt(ci)}; inter copies {fmt(ce)} (other reading, the sum at 2 of 3 P: largest "
                 f"{LABEL[copy.idxmax()]}; with Fig. 9's communication, comm + copies: largest {LABEL[tot.idxmax()]})")
    mv = col("moved_mb")
    out["A4"] = (mv.idxmax() == "amr-igd", f"moved {fmt(mv)}")
    out["A5"] = (mv.idxmin() == "amr-cgd", f"moved {fmt(mv)}")
    t = col("time_s")
    out["A6"] = (t.idxmax() == "amr-ild", f"time {fmt(t)}")
    bx = col("boxes_k")
    out["A7"] = (bx.idxmax() == "amr-igd", f"boxes {fmt(bx)}")
    im = col("imb_mean")
    rotate = _at(s, P, "imb_mean").get(IGD_ROTATE, np.nan)
    out["A8"] = (bool(im["amr-igd"] < NEAR_PERFECT and rotate < NEAR_PERFECT),
                 f"IGD mean imbalance {im['amr-igd']:.4g} (igd_deal=greedy), {rotate:.4g} (igd_deal=rotate); "
                 f"other reading, IGD the smallest of the six: {'holds' if im.idxmin() == 'amr-igd' else 'does not hold'} "
                 f"({fmt(im)})")
    five = [m for m in six if m != "amr-igd"]
    quality = bx[five].rank(method="min") + im[five].rank(method="min")
    best = bool(quality["amr-itb"] < quality.drop("amr-itb").min())
    near = {m: bool(bx[m] <= COMPARABLE_BOXES * bx["amr-itb"] and im[m] <= im["amr-itb"] + COMPARABLE_IMB)
            for m in ("amr-sfc", "amr-cgd")}
    either = bx[five].idxmin() == "amr-itb" or im[five].idxmin() == "amr-itb"
    out["A9"] = (best and all(near.values()),
                 f"rank sums of boxes + imbalance {fmt(quality)} (ITB alone best: {'yes' if best else 'no'}); "
                 f"comparable to ITB: " + ", ".join(f"{LABEL[m]} {'yes' if v else 'no'}" for m, v in near.items()) +
                 f"; boxes {fmt(bx[five])}; mean imbalance {fmt(im[five])} (other reading, ITB fewest boxes or "
                 f"lowest imbalance: {'holds' if either else 'does not hold'})")
    whole = _at(s, P, "imb_mean").get(ILD_WHOLE, np.nan)
    others = im.drop("amr-ild")
    out["A10"] = (bool(im["amr-ild"] > others.max()),
                  f"ILD {im['amr-ild']:.4g}; others {fmt(others)} (beside: ILD with whole boxes {whole:.4g})")
    ranks = sum(x.rank(method="min") for x in (comm, copy, mv, bx, im))
    order = ranks.sort_values(kind="stable")
    best3 = set(order.index[:3])
    top = ranks["amr-itb"] < ranks.drop("amr-itb").min()  # "best": a tie is not best
    out["A11"] = (bool(top and {"amr-sfc", "amr-wd"} <= best3),
                  f"rank sums {fmt(ranks)} (other reading, ITB, SFC, WD the best three in any order: "
                  f"{'holds' if {'amr-itb', 'amr-sfc', 'amr-wd'} <= best3 else 'does not hold'})")
    return out

CLAIMS = {
    "A1": ("required", "IGD has the largest intra-level and the largest inter-level communication", "§5, Fig. 9"),
    "A2": ("expected", "SFC and CGD each below the best of ILD, ITB, WD in total communication", "§5, Fig. 9"),
    "A3": ("required", "IGD has the largest intra-level and the largest inter-level memory copy (Fig. 10; A1's "
           "sentence, its strength)", "§5, Fig. 10"),
    "A4": ("required", "IGD has the largest data movement", "§5, Fig. 11"),
    "A5": ("expected", "CGD has the least data movement", "§5, Fig. 11"),
    "A6": ("required", "ILD takes the longest to distribute (Python wall time, summed over the steps; medians of "
           f"{REPEATS} runs decided beyond the larger spread)", "§5, Fig. 12"),
    "A7": ("required", "IGD has the most boxes", "§5, Fig. 13"),
    "A8": ("required", f"IGD's mean imbalance below {NEAR_PERFECT:g}% (near perfect) with both dealing orders "
           "(igd_deal=greedy and rotate)", "§5, Fig. 13"),
    "A9": ("expected", "ITB alone has the best rank sum of boxes + mean imbalance of the five non-IGD schemes, "
           f"and SFC and CGD are comparable to ITB: boxes at most {COMPARABLE_BOXES:g}x ITB's and mean imbalance "
           f"at most {COMPARABLE_IMB:g} percentage point above ITB's", "§5, Fig. 13"),
    "A10": ("expected", "ILD (default, plane splits) has the largest mean imbalance", "§5, Fig. 13"),
    "A11": ("required", "ITB has the best summed rank of comm, copies, movement, boxes, imbalance; SFC and WD "
            "are next (the best three)", "§6"),
}

def ild_slowest(df: pd.DataFrame):
    """A6 on the repeated runs: every other scheme faster than ILD at every P, decided beyond the spread.
    Each scheme's time sample k is Σ_steps of run k's ``time_partition_s``."""
    Ps = sorted({int(P) for P in df["P"]}) if len(df) else []
    pairs = [(f"P={P} {m[4:].upper()} vs ILD", Claim.repeated_total(df, m, "time_partition_s", P),
              Claim.repeated_total(df, "amr-ild", "time_partition_s", P)) for P in Ps for m in SCHEMES
             if m != "amr-ild"]
    if not pairs or any(not a or not b for _, a, b in pairs):
        return None, "failed cells or no repeated timings"
    verdict, counts, figures = Claim.timing(pairs)
    return verdict, f"{CLAIMS['A6'][1]}, s, medians of {REPEATS} runs: {counts}; {figures}"


def claims_table(s: pd.DataFrame, a6: tuple | None = None) -> pd.DataFrame:
    """One row per claim: status, holds / does not hold at each P, the verdict (required: at every P;
    expected: at >= 2 of 3), and the figures of every P where it fails. ``a6``: A6's verdict and figures
    on the repeated runs (:func:`ild_slowest`), which replace its single-run row."""
    Ps = sorted(s["P"].unique())
    checks = {P: _claim_checks(s, P) for P in Ps}
    rows = []
    for c, (kind, text, where) in CLAIMS.items():
        got = {P: checks[P][c] for P in Ps if c in checks[P]}
        n = sum(bool(h) for h, _ in got.values())
        need = len(got) if kind == "required" else (min(2, len(got)) if kind == "expected" else None)
        verdict = "-" if not got else ("holds" if n == len(got) else
                                       f"holds at {n} of {len(got)} P")
        if need is not None and got:
            verdict += "" if n >= need else " (FAILS)"
        row = {"Claim": c, "Status": kind, "Statement": text, "Paper": where}
        row.update({f"P = {P}": ("holds" if got[P][0] else "does not hold") if P in got else "-" for P in Ps})
        row["Verdict"] = verdict
        row["Figures where it does not hold"] = "; ".join(f"P = {P}: {got[P][1]}" for P in Ps
                                                         if P in got and not got[P][0])
        if c == "A6" and a6 is not None:
            row.update({f"P = {P}": "-" for P in Ps})
            row["Verdict"] = {True: "holds", False: "does not hold (FAILS)"}.get(a6[0], a6[0] or "n/a")
            row["Figures where it does not hold"] = a6[1]
        rows.append(row)
    return pd.DataFrame(rows)


def claims_report(opts):
    s = summarize(collect(opts, VARIANTS))
    kw = {} if opts.workload != "shock" else {"workload": "bl", "workload_params": {}}
    timed = pd.concat([opts.compare(SCHEMES, P=P, repeats=REPEATS, **kw) for P in (opts.P or PS)], ignore_index=True)
    out = [Table("AMR paper claims A1-A11 on our numbers (cumulative over the steps; A6 on "
                 f"{REPEATS} runs of each cell)", claims_table(s, ild_slowest(timed)))]
    for name, (title, columns) in FIGURES.items():
        for c in columns:
            out.append(Table(f"{title}: {QUANTITIES[c][0]} ({QUANTITIES[c][1]})", figure_table(s, c)))
    return out


REPORTS = [Report(name, figure_report(name), title=FIGURES[name][0]) for name in FIGURES] + [
    Report("amr-claims", claims_report, title="AMR paper claims A1-A11: holds / does not hold on our numbers")]
