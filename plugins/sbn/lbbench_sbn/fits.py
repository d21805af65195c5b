"""The SBN paper's free parameter ``checks`` fitted to its printed figures (``lbbench calibrate --paper sbn``).

``checks`` is the length of an adaptation level in checks for load balancing
activity (§5.4; it sets the processing speed J_avg, plugin README): the paper
fixes f (60 checks a second, its §5.4 example) but not how many checks a level
lasts. It is fitted on Table 5 (SBN without the pre-partitioner) at P = 2 and 4:
Pre-Exec Cut%, Post-Exec Cut% and MaxSR of the nine levels. No claim reads these
cells (the claims on Table 5 read LoadImb, and MaxSR and Cut% at P >= 8), and
they are what the level's length moves besides LoadImb: how much the balancer
migrates (MaxSR) and how the cut drifts over the levels (Cut%).
"""
from __future__ import annotations

from pathlib import Path

from harness import Calibration, Cells, fitted

PATH = Path(__file__).parent / "calibration" / "sbn-checks.csv"
PS = (2, 4)
LEVELS = tuple(range(1, 10))
COLUMNS = {"Pre-Exec Cut%": "pre_exec_cut_pct", "Post-Exec Cut%": "post_exec_cut_pct", "MaxSR": "maxsr"}
CELLS = (Cells("sbn", "5", P=PS, rows=LEVELS, columns=tuple(COLUMNS)),)
CANDIDATES = (200, 400, 800, 1600, 3200, 6400)


def measure(value, opts) -> dict:
    """Our Table 5 figures at P = 2 and 4 with ``sbn[checks=value]``, keyed like the calibration cells."""
    out = {}
    for P in PS:
        df = opts.compare(f"sbn[checks={value}]", P=P)
        for _, row in df[df["status"] == "ok"].iterrows():
            for title, col in COLUMNS.items():
                out[("sbn", "5", str(P), str(int(row["level"])), title)] = float(row[col])
    return out


CALIBRATIONS = [
    Calibration("sbn-checks", "sbn", "sbn[checks]", CELLS, CANDIDATES, measure, PATH,
                why="Table 5 at P = 2 and 4 (Pre-Exec and Post-Exec Cut%, MaxSR per level): what a level's "
                    "length moves besides LoadImb, on cells no claim reads; the claims judge LoadImb at every P and "
                    "MaxSR and Cut% at P >= 8."),
]


def fitted_checks() -> int:
    """The fitted ``checks`` (the plugin's default), from the committed fit."""
    return fitted(PATH, int)


def neighbours() -> tuple:
    """The candidates beside the fitted one (the claims' variants)."""
    i = CANDIDATES.index(fitted_checks())
    return tuple(CANDIDATES[j] for j in (i - 1, i + 1) if 0 <= j < len(CANDIDATES))
