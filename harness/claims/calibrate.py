"""Free parameters fitted to the papers' own printed figures (``lbbench calibrate``).

A paper that leaves a parameter open (SBN's ``checks``, the tree paper's
cost constants, MinEX's ThroTtle unit) gets it fitted, never guessed and
never tuned on a verdict. A plugin registers a :class:`Calibration` through
the ``register_calibrations`` hook: the parameter, the **calibration cells**
(blocks of the paper's printed tables, :class:`Cells`), the candidate values
and ``measure(value, opts)``, our figures at those cells with the parameter
at that value. :func:`fit` tries every candidate, scores each by the mean
``|log(ours / paper)|`` over the cells, keeps the lowest (the first of a
tie) and writes every candidate's per-cell figures to the calibration's CSV
(``path``, under the plugin's ``calibration/`` folder). The plugin's default
is read back from that file (:func:`fitted`, ``harness.contract.fitted``: the ``csv`` module, no pandas), so
the default is the fit.

A claim lists the paper cells it reads (``Claim.reads``, :class:`Cells`);
no claim may read a calibration cell (:func:`overlaps`, asserted by
``tests/test_calibrate.py``): a fit that wants a cell a claim reads must
choose another cell. A calibration whose value is used only for a block of
cells (``applies``, e.g. the tree paper's constants fitted on the other
three P and used only at the fourth: held out by P) is checked on that
block: no claim may read a cell that is both its calibration cell and
computed under it, and its cells and its block must be disjoint, so no cell
is computed with a value fitted on that cell's own printed figure. Without
``applies`` the value is used everywhere, and no claim may read any of its
cells.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..contract.fitted import fitted
from .reference import paper_values
from .reports import key_label

FIT_COLUMNS = ["calibration", "parameter", "value", "chosen", "paper", "table", "P", "row", "column", "ours",
               "paper_value", "ratio", "residual"]


@dataclass(frozen=True)
class Cells:
    """A block of one printed table of a paper: ``P``, ``rows`` and ``columns`` each a tuple, empty for all.

    Example:
        >>> Cells("sbn", "5", P=(2, 4), columns=("LoadImb",))  # Table 5's LoadImb at P = 2 and 4, every level
    """

    paper: str
    table: str
    P: tuple = ()
    rows: tuple = ()
    columns: tuple = ()

    def keys(self) -> set:
        """The block's cells that the reference CSVs print, as ``(paper, table, P, row, column)`` text keys."""
        return set(_keys(self))

    def frame(self) -> pd.DataFrame:
        """The block's printed values (the reference rows)."""
        ref = paper_values(self.paper, self.table)
        sel = pd.Series(True, index=ref.index)
        if self.P:
            sel &= ref["P"].map(key_label).isin({key_label(p) for p in self.P})
        if self.rows:
            sel &= ref["row"].map(key_label).isin({key_label(r) for r in self.rows})
        if self.columns:
            sel &= ref["column"].isin(set(self.columns))
        return ref[sel].reset_index(drop=True)


@lru_cache(maxsize=None)
def _keys(block: Cells) -> tuple:
    f = block.frame()
    return tuple((block.paper, str(block.table), key_label(p), key_label(r), str(c))
                 for p, r, c in zip(f["P"], f["row"], f["column"]))


def keys_of(blocks) -> set:
    """Every cell of several blocks."""
    out: set = set()
    for b in blocks:
        out |= b.keys()
    return out


@dataclass(frozen=True)
class Calibration:
    """One free parameter fitted to the paper's figures (docs/guide.md, "Calibration").

    Attributes:
        name: unique id (``sbn-checks``).
        paper: the paper whose figures it is fitted to.
        parameter: what it sets, as a user writes it (``sbn[checks]``).
        cells: the calibration cells, a tuple of :class:`Cells`; no claim may read them.
        candidates: the values tried, in order (the first of a tie wins).
        measure: ``measure(value, opts) -> {key: ours}``, our figure at each calibration cell (keys as
            :meth:`Cells.keys` gives them), computed through ``opts.compare`` (the result store).
        path: the CSV the fit is written to (the plugin's ``calibration/NAME.csv``).
        why: why these cells: one or two sentences for the docs and the site.
        applies: the cells whose figures are computed with this fit's value, a tuple of :class:`Cells`
            (empty: everywhere); they must not meet ``cells`` (:func:`overlaps`).
        plugin: set by the harness (the distribution that registered it).
    """

    name: str
    paper: str
    parameter: str
    cells: tuple
    candidates: tuple
    measure: Callable
    path: Path
    why: str = ""
    applies: tuple = ()
    plugin: str = ""

    def __post_init__(self):
        if not self.candidates:
            raise ValueError(f"calibration {self.name!r}: no candidate values")
        if not self.cells or not all(isinstance(c, Cells) for c in self.cells):
            raise ValueError(f"calibration {self.name!r}: cells are a non-empty tuple of Cells")
        if not all(isinstance(c, Cells) for c in self.applies):
            raise ValueError(f"calibration {self.name!r}: applies is a tuple of Cells")


def paper_figures(cal: Calibration) -> dict:
    """The printed value at each calibration cell, ``{key: value}``."""
    out = {}
    for block in cal.cells:
        f = block.frame()
        for p, r, c, v in zip(f["P"], f["row"], f["column"], f["value"]):
            out[(block.paper, str(block.table), key_label(p), key_label(r), str(c))] = float(v)
    return out


def residual(ours: dict, paper: dict) -> float:
    """Mean ``|log(ours / paper)|`` over the cells where both are positive and finite (inf if none)."""
    logs = [abs(math.log(ours[k] / v)) for k, v in paper.items()
            if k in ours and v > 0 and np.isfinite(ours[k]) and ours[k] > 0]
    return float(np.mean(logs)) if logs else math.inf


def fit(cal: Calibration, opts, save: bool = True) -> pd.DataFrame:
    """Try every candidate, keep the lowest residual and (``save``) write the CSV; returns its rows
    (``FIT_COLUMNS``). ``lbbench calibrate`` plans the cells first, so it saves only the real fit."""
    paper = paper_figures(cal)
    if not paper:
        raise LookupError(f"calibration {cal.name!r}: none of its cells is in the reference CSVs")
    rows, scores = [], []
    for value in cal.candidates:
        ours = {k: float(v) for k, v in cal.measure(value, opts).items()}
        score = residual(ours, paper)
        scores.append(score)
        for key, pv in sorted(paper.items()):
            o = ours.get(key, math.nan)
            rows.append([cal.name, cal.parameter, value, False, *key, o, pv,
                         o / pv if pv and np.isfinite(o) else math.nan, score])
    best = cal.candidates[int(np.argmin(scores))]
    df = pd.DataFrame(rows, columns=FIT_COLUMNS)
    df["chosen"] = df["value"].map(lambda v: v == best)
    if save:
        write(df, cal.path)
    return df


def write(df: pd.DataFrame, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False, quoting=csv.QUOTE_MINIMAL, float_format="%.6g")
    fitted.cache_clear()


def read(path: Path) -> pd.DataFrame:
    """A fit's rows as written (empty with ``FIT_COLUMNS`` if it was never run)."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=FIT_COLUMNS)
    return pd.read_csv(path, dtype={"P": str, "row": str, "table": str, "value": str}, keep_default_na=False)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per candidate of a fit: the value, chosen, the residual, ours / paper per cell (median, worst)."""
    if df.empty:
        return pd.DataFrame(columns=["value", "chosen", "residual", "cells", "median ours/paper",
                                     "worst ours/paper"])
    out = []
    for value, g in df.groupby("value", sort=False):
        r = pd.to_numeric(g["ratio"], errors="coerce")
        worst = r.iloc[int(np.nanargmax(np.abs(np.log(r.where(r > 0))).to_numpy()))] if r.gt(0).any() else math.nan
        out.append({"value": value, "chosen": str(g["chosen"].iloc[0]) == "True",
                    "residual": float(g["residual"].iloc[0]), "cells": len(g),
                    "median ours/paper": float(np.nanmedian(r)) if r.notna().any() else math.nan,
                    "worst ours/paper": worst})
    return pd.DataFrame(out)


def own_keys(cal: Calibration) -> set:
    """The calibration cells whose figures are computed under the fit's value: all of them without ``applies``,
    else those in its block (empty for a fit held out right)."""
    ks = keys_of(cal.cells)
    return ks & keys_of(cal.applies) if cal.applies else ks


def overlaps(claims, calibrations) -> list[tuple[str, str, tuple]]:
    """``(claim, calibration, cell)`` for every calibration cell a claim reads that is computed under that
    calibration's value (all its cells without ``applies``), and ``("", calibration, cell)`` for every cell
    of a scoped calibration inside its own block: both must be empty."""
    cal_keys = {c.name: own_keys(c) for c in calibrations}
    out = [("", c.name, k) for c in calibrations if c.applies for k in sorted(cal_keys[c.name])]
    for claim in claims:
        mine = keys_of(getattr(claim, "reads", ()))
        for name, ks in cal_keys.items():
            for k in sorted(mine & ks):
                out.append((claim.name, name, k))
    return out


def calibration_keys(calibrations) -> set:
    """The cells computed under a fit that was fitted on them (:func:`own_keys`; left out of the fidelity
    summary): every calibration cell of an unscoped fit, none of a fit held out right."""
    return set().union(*(own_keys(c) for c in calibrations))
