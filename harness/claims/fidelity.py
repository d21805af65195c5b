"""How close our cells are to the papers' printed ones (``lbbench fidelity``, the site's fidelity page).

Every report table puts the paper's value beside ours (``X`` / ``X (paper)``,
:func:`harness.claims.reports.with_paper`, which records the printed cell of
each pair). A cell is **within** when ours / paper lies in [0.67, 1.5] (both
zero counts as within), at the precision the paper printed it: a printed ``0.00``
is any value in [0, 0.005), so ours is within when it lies in [0.67 x the
interval's low end, 1.5 x its high end]. A calibration cell (``lbbench calibrate``) is left
out where it is computed under the fit that was fitted on it (every cell of a fit used everywhere; none of
a fit held out, such as the tree constants fitted on three P and used at the fourth): a fitted cell says
nothing about fidelity. Per table: the judged cells,
how many are within, the share, and the worst cells (furthest in log ratio).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from .reference import printed_units
from .reports import key_label, paper_of

LOW, HIGH = 0.67, 1.5
PAIR_COLUMNS = ["report", "table", "column", "ours", "paper_value", "ratio", "within", "cell"]


def _num(v) -> float:
    try:
        return float(str(v).replace(",", "")) if v is not None and str(v).strip() != "" else math.nan
    except ValueError:
        return math.nan


@lru_cache(maxsize=1)
def _units() -> dict:
    """{printed cell: one unit of its last printed digit} (the keys of ``with_paper``'s cells)."""
    ref = printed_units()
    keys = zip(*(ref[c].map(key_label) for c in ("paper", "table", "P", "row")), ref["column"].astype(str))
    return dict(zip(keys, ref["unit"]))


def within(ours: float, paper: float, unit: float = 0.0) -> bool:
    """Ours within 0.67-1.5x of some value the paper's printed figure stands for (``paper`` +- half a ``unit``)."""
    if paper < 0 or ours < 0:
        return LOW <= (ours / paper if paper else math.inf) <= HIGH
    return LOW * max(paper - unit / 2, 0.0) <= ours <= HIGH * (paper + unit / 2)


def pairs(report: str, table) -> pd.DataFrame:
    """One row per numeric (ours, paper) pair of one report table, with its printed cell (``PAIR_COLUMNS``)."""
    f = table.frame
    keys = f.attrs.get("paper_cells", {})
    units = _units()
    rows = []
    for col in f.columns:
        if not (isinstance(col, str) and col.endswith(" (paper)")) or col[:-8] not in f.columns:
            continue
        mine = col[:-8]
        for pos, (o, p) in enumerate(zip(f[mine], f[col])):
            o, p = _num(o), _num(p)
            if math.isnan(o) or math.isnan(p):
                continue
            ratio = o / p if p else (1.0 if o == 0 else math.inf)
            cell = keys.get((pos, mine))
            rows.append([report, table.title, mine, o, p, ratio, within(o, p, units.get(cell, 0.0)), cell])
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _excluded(cell, calibration: set) -> bool:
    """Whether a pair's printed cell is a calibration cell (parts the table did not record match any)."""
    if cell is None:
        return False
    if cell in calibration:
        return True
    return any(all(a is None or a == b for a, b in zip(cell, k)) for k in calibration) if None in cell else False


def all_pairs(tables: dict, calibration: set = frozenset()) -> pd.DataFrame:
    """Every pair of every report's tables (``{report: [Table]}``), calibration cells dropped."""
    parts = [pairs(name, t) for name, ts in tables.items() for t in ts]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=PAIR_COLUMNS)
    if len(df) and calibration:
        df = df[~df["cell"].map(lambda c: _excluded(c, calibration))].reset_index(drop=True)
    return df


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per report table: cells judged, within 0.67-1.5x, the share (%), the worst ratio."""
    out = []
    for (report, title), g in df.groupby(["report", "table"], sort=False):
        worst = g["ratio"].iloc[int(np.argmax(_off(g)))]
        out.append({"Report": report, "Table": title, "Cells": len(g), "Within": int(g["within"].sum()),
                    "Share %": 100.0 * g["within"].mean(), "Worst ours/paper": worst})
    return pd.DataFrame(out, columns=["Report", "Table", "Cells", "Within", "Share %", "Worst ours/paper"])


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """Per paper (the report's, :func:`harness.claims.reports.paper_of`): cells judged, within, share (%)."""
    if df.empty:
        return pd.DataFrame(columns=["Paper", "Cells", "Within", "Share %"])
    g = df.assign(Paper=df["report"].map(lambda r: paper_of(r) or r)).groupby("Paper", sort=False)["within"]
    return pd.DataFrame({"Cells": g.size(), "Within": g.sum().astype(int),
                         "Share %": 100.0 * g.mean()}).reset_index()


def worst(df: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` cells furthest from the paper's (log ratio)."""
    if df.empty:
        return df
    order = np.argsort(-_off(df), kind="stable")[:n]
    return df.iloc[order][["report", "table", "column", "ours", "paper_value", "ratio", "cell"]]


def cell_text(cell) -> str:
    """A printed cell as text: ``sbn Table 5, P = 32, row 3, LoadImb`` (parts the table did not record left out)."""
    if cell is None:
        return ""
    paper, table, P, row, column = cell
    parts = [f"{paper} Table {table}" if paper and table else "", f"P = {P}" if P else "", f"row {row}" if row else "",
             column]
    return ", ".join(p for p in parts if p)


def _off(df: pd.DataFrame) -> np.ndarray:
    """How far each pair is from the paper's (|log ratio|), 0 for a pair within at the printed precision."""
    return np.where(df["within"].to_numpy(dtype=bool), 0.0, _distance(df["ratio"]))


def _distance(ratio: pd.Series) -> np.ndarray:
    r = ratio.to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.abs(np.log(np.where(r > 0, r, np.nan)))
    return np.where(np.isnan(d), np.inf, d)
