"""The ``baselines`` report: every installed algorithm (the papers' and today's) on shock, truss, bl and a
vt trace at P = 32 and 256, best per column marked (README.md, "The baselines report")."""
from __future__ import annotations

import numpy as np
import pandas as pd

from harness import Report, Table, available_algorithms, available_workloads

P_LIST = (32, 256)
VT_RANKS = 256  # the vt-synthetic trace: 256 ranks, mapped onto P processors (ranks_per_proc = 256 / P)
WORKLOADS = (("shock", {}), ("truss", {}), ("bl", {}), ("vt-synthetic", {"ranks": VT_RANKS}))
# ``baselines-small``, the sizes ``lbbench reproduce`` runs (and the site shows): (workload, params, P, levels);
# every installed algorithm on all nine shock levels alone takes minutes, so two levels of the meshes
SMALL = (("shock", {}, 32, [1, 2]), ("truss", {}, 32, [1, 2]), ("vt-synthetic", {"ranks": 32}, 32, None),
         ("vt-synthetic", {"ranks": 256}, 256, [1]))
COLUMNS = {  # title -> (result column, aggregate over levels)
    "Cut%": ("post_exec_cut_pct", "mean"),
    "work_loadimb": ("work_loadimb", "mean"),
    "loadimb": ("loadimb", "mean"),
    "Moved weight": ("moved_weight", "mean"),
    "MaxSR": ("maxsr", "mean"),
    "Time (s)": ("time_total_s", "sum"),
}
REFERENCE = "none"  # shown, never marked best (it balances nothing)
MARK = " *"


def workloads(opts) -> list:
    """The report's workloads, or only the one given with ``-w`` (any workload other than the default)."""
    if opts.workload != "shock" or opts.workload_params:
        return [(opts.workload, dict(opts.workload_params))]
    return list(WORKLOADS)


def methods_for(opts, forms: tuple) -> list[str]:
    """``--plugins`` or every installed algorithm, those that take one of the workload's forms (through the
    adapters: boxes -> graph -> array)."""
    algs = available_algorithms()
    reach = set(forms) | ({"graph", "array"} if {"boxes", "graph"} & set(forms) else set())
    if opts.methods:
        return [m.strip() for m in opts.methods.split(",") if m.strip()]
    return [n for n, a in algs.items() if reach & set(a.accepts)]


def summary(df: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """One row per method: levels ok and each column's aggregate over its ok levels; best marked."""
    rows = []
    for m in methods:
        r = df[df["algorithm"] == m]
        ok = r[r["status"] == "ok"]
        row = {"Method": m, "Levels ok": f"{len(ok)}/{len(r)}"}
        for title, (col, how) in COLUMNS.items():
            vals = ok[col].astype(float) if col in ok and len(ok) else pd.Series(dtype=float)
            row[title] = getattr(vals, how)() if len(vals) else np.nan
        rows.append(row)
    out = pd.DataFrame(rows)
    for title in COLUMNS:
        cand = out.loc[(out["Method"] != REFERENCE) & out["Levels ok"].map(lambda s: s.split("/")[0] == s.split("/")[1]),
                       title]
        best = cand.min() if cand.notna().any() else np.nan
        out[title] = [("" if np.isnan(v) else _fmt(v)) + (MARK if v == best and m != REFERENCE else "")
                      for v, m in zip(out[title], out["Method"])]
    return out


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3f}" if abs(v) < 10 else f"{v:.2f}"


def _table(opts, wls, name: str, params: dict, P: int, levels=None) -> Table:
    methods = methods_for(opts, wls[name].forms)
    left_out = []
    if name.startswith("vt") and not opts.methods:
        # a trace's pinned tasks are put back by the runner after a partition: a method that balances only to its
        # own array distribution (MLB: rank-contiguous along the array order) cannot take that start
        algs = available_algorithms()
        left_out = [m for m in methods if set(algs[m].accepts) == {"array"}]
        methods = [m for m in methods if m not in left_out]
    wparams = dict(params)
    if name == "vt-synthetic" and "ranks_per_proc" not in wparams:
        wparams["ranks_per_proc"] = max(1, wparams.get("ranks", VT_RANKS) // P)
    df = opts.compare(",".join(methods), P=P, workload=name, workload_params=wparams,
                      **({"levels": levels} if levels else {}))
    label = name + (f"[{','.join(f'{k}={v}' for k, v in wparams.items())}]" if wparams else "")
    which = f", levels {', '.join(map(str, levels))}" if levels else ""
    return Table(f"Baselines — {label}, P = {P}{which}", summary(df, methods),
                 note=f"means over the levels (Time: total); '{MARK.strip()}' best in its column "
                      f"among methods with every level ok ({REFERENCE} excluded)"
                      + (f"; left out: {', '.join(left_out)} (balances only to its own array distribution, "
                         f"which the trace's pinned tasks break)" if left_out else ""))


def baselines(opts) -> list[Table]:
    wls = available_workloads()
    return [_table(opts, wls, name, params, P) for name, params in workloads(opts) for P in opts.P or P_LIST]


def baselines_small(opts) -> list[Table]:
    """The sizes of :data:`SMALL` (``lbbench reproduce`` runs this one)."""
    wls = available_workloads()
    return [_table(opts, wls, name, params, P, levels) for name, params, P, levels in SMALL]


REPORTS = [Report("baselines", baselines, title="Seed algorithms beside today's baselines",
                  description="Cut%, work_loadimb, loadimb, moved weight, MaxSR and time of every algorithm on shock, "
                              "truss, bl (as a graph) and a vt trace at P = 32 and 256, best per column marked"),
           Report("baselines-small", baselines_small, title="Seed algorithms beside today's baselines (small)",
                  description="the baselines report at the sizes reproduce runs: levels 1-2 of shock and truss and "
                              "a 32-rank vt-synthetic at P = 32, level 1 of a 256-rank vt-synthetic at P = 256")]
