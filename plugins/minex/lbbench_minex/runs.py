"""How a MinEX table cell is named and read: the method at one ThroTtle, and a run's MaxQwgt and LoadImb summed
over the levels (reports.py's note gives the reading)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from harness import loadimb_of

if TYPE_CHECKING:  # the annotations only: registering MinEX never loads pandas (issue 52)
    import pandas as pd


def _fmt_t(t) -> str:
    return "inf" if math.isinf(t) else f"{t:g}"


def _method(throttle, latency: str, unit: float | None = None) -> str:
    """MinEX at one ThroTtle and latency model; ``unit`` None: the fitted ThroTtle unit (the default)."""
    return f"minex[throttle={_fmt_t(throttle)},latency={latency}" + ("" if unit is None else f",unit={unit:g}") + "]"



def accumulated(rows: pd.DataFrame, model: str, P: int) -> tuple[float, float]:
    """(MaxQwgt in thousands, LoadImb) of one run's rows, summed over levels; NaN if a level failed."""
    if rows.empty or (rows["status"] != "ok").any():
        return math.nan, math.nan
    mx = float(rows[f"lt_{model}_maxqwgt"].sum())
    tot = float(rows[f"lt_{model}_qwgttot"].sum())
    return mx / 1000.0, (loadimb_of(mx, tot, P) if tot > 0 else math.nan)
