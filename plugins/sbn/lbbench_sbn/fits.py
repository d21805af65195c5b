"""The SBN paper's free parameters fitted to its printed figures (``lbbench calibrate --paper sbn``).

``checks`` is the length of an adaptation level in checks for load balancing
activity (§5.4; it sets the processing speed J_avg, plugin README): the paper
fixes f (60 checks a second, its §5.4 example) but not how many checks a level
lasts. It is fitted on the LoadImb of Tables 4 and 5 (SBN with and without the
pre-partitioner) at P = 16, the nine levels: cells no claim reads, and what a
level's length moves (the tail of about one balancing operation over the
level's checks, README "Why LoadImb stays above the paper's"). Table 5's Cut%
and MaxSR at P = 2 and 4, its earlier cells, do not respond to it (README
"Calibration").

``subset`` is |R|, the size of §3.4's random subset (and of §3.7's), which the
paper leaves open ("considering that |R| is a constant", §5.4). It is fitted on
Table 4 (SBN with the pre-partitioner) MaxSR at P = 2 and 4, cells no claim
reads: how much the choice of the vertices to move migrates. Each is fitted
with the other at its committed value: ``checks`` first, then ``subset``, then
``checks`` again if ``subset`` moved, until neither moves (README "Calibration").

``CELLS``, ``SUBSET_CELLS`` and ``CALIBRATIONS`` are declared when first read (PEP 562, :func:`declared`):
``harness.Cells`` and ``harness.Calibration`` load the claims layer and pandas, which registering SBN and
running a level never need (issue 52); its defaults are read with ``harness.fitted`` (the ``csv`` module).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import harness
from harness import fitted

HERE = Path(__file__).parent / "calibration"
PATH = HERE / "sbn-checks.csv"
SUBSET_PATH = HERE / "sbn-subset.csv"
LEVELS = tuple(range(1, 10))
COLUMNS = {"Pre-Exec Cut%": "pre_exec_cut_pct", "Post-Exec Cut%": "post_exec_cut_pct", "MaxSR": "maxsr",
           "LoadImb": "loadimb"}
CANDIDATES = (200, 400, 800, 1200, 1600, 2000, 3200, 6400)
SUBSET_CANDIDATES = (2, 4, 8, 16, 32, 64)


def _figures(opts, method: str, table: str, cells: tuple) -> dict:
    """Our figures of ``method`` at every level of the P of ``cells``, keyed like the cells (those only)."""
    want = set().union(*(c.keys() for c in cells))
    out = {}
    for P in sorted({int(float(k[2])) for k in want}):
        df = opts.compare(method, P=P)
        for _, row in df[df["status"] == "ok"].iterrows():
            for title, col in COLUMNS.items():
                key = ("sbn", table, str(P), str(int(row["level"])), title)
                if key in want:
                    out[key] = float(row[col])
    return out


def measure(value, opts) -> dict:
    """Our LoadImb at P = 16 with ``checks`` = value: Table 4 (``sbn[prepartition=true]``) and Table 5 (``sbn``)."""
    cells = declared()["CELLS"]
    return {**_figures(opts, f"sbn[prepartition=true,checks={value}]", "4", cells[:1]),
            **_figures(opts, f"sbn[checks={value}]", "5", cells[1:])}


def measure_subset(value, opts) -> dict:
    """Our Table 4 MaxSR at P = 2 and 4 with ``sbn[prepartition=true,subset=value]``."""
    return _figures(opts, f"sbn[prepartition=true,subset={value}]", "4", declared()["SUBSET_CELLS"])


@lru_cache(maxsize=None)
def declared() -> dict:
    """``CELLS`` (Tables 4 and 5 LoadImb at P = 16), ``SUBSET_CELLS`` (Table 4 MaxSR at P = 2 and 4) and
    ``CALIBRATIONS``, made once, when first read."""
    Calibration, Cells = harness.Calibration, harness.Cells
    cells = tuple(Cells("sbn", t, P=(16,), rows=LEVELS, columns=("LoadImb",)) for t in ("4", "5"))
    subset_cells = (Cells("sbn", "4", P=(2, 4), rows=LEVELS, columns=("MaxSR",)),)
    return {"CELLS": cells, "SUBSET_CELLS": subset_cells, "CALIBRATIONS": [
        Calibration("sbn-checks", "sbn", "sbn[checks]", cells, CANDIDATES, measure, PATH,
                    why="Tables 4 and 5 LoadImb at P = 16 per level: what a level's length moves (the tail of "
                        "about one balancing operation over the level's checks), on cells no claim reads; Table 5's "
                        "Cut% and MaxSR at P = 2 and 4 do not respond to it (README \"Calibration\")."),
        Calibration("sbn-subset", "sbn", "sbn[subset]", subset_cells, SUBSET_CANDIDATES, measure_subset,
                    SUBSET_PATH,
                    why="Table 4 MaxSR at P = 2 and 4 per level: how much the choice of the vertices to move (|R| "
                        "of §3.4 and §3.7) migrates, on cells no claim reads; the claims judge Table 4's MaxSR at "
                        "P >= 8."),
    ]}


def __getattr__(name: str):
    """``CELLS``, ``SUBSET_CELLS`` and ``CALIBRATIONS`` (:func:`declared`) when first read (PEP 562)."""
    if name not in ("CELLS", "SUBSET_CELLS", "CALIBRATIONS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return declared()[name]


def fitted_checks() -> int:
    """The fitted ``checks`` (the plugin's default), from the committed fit."""
    return fitted(PATH, int)


def fitted_subset() -> int:
    """The fitted ``subset`` (the plugin's default), from the committed fit."""
    return fitted(SUBSET_PATH, int)


def _beside(candidates: tuple, value) -> tuple:
    i = candidates.index(value)
    return tuple(candidates[j] for j in (i - 1, i + 1) if 0 <= j < len(candidates))


def neighbours() -> tuple:
    """The candidates beside the fitted ``checks`` (the claims' variants)."""
    return _beside(CANDIDATES, fitted_checks())


def subset_neighbours() -> tuple:
    """The candidates beside the fitted ``subset`` (the claims' variants)."""
    return _beside(SUBSET_CANDIDATES, fitted_subset())
