"""MinEX's free parameters fitted to the paper's printed figures (``lbbench calibrate --paper minex``).

Two numbers the paper leaves open (README.md, "Calibration"):

* ``minex[unit]``, ThroTtle's unit (§3.3 gives the gate ``-Gain/ΔMinVar <
  ThroTtle`` but not the unit of the loads in it): loads are measured in
  units of Q0/unit, a constant, so that the best ThroTtle still grows with P
  (§3.3: it "generally converges at values between P and 2P"). The
  candidates run from the whole QwgtTot (1, ``normalize=total``) to the mean
  load at the P of Tables 1-2 (32, ``normalize=mean`` there). It sets how far
  MinEX balances at a given ThroTtle, so it is fitted on LoadImb cells.
* ``shock[cwgt_unit]``, the cost of one leaf face in Cwgt in the unit of one
  element's Pwgt (§2.2: Pwgt and Rwgt count elements, Cwgt "depends on the
  number of leaf faces"). It sets the share of Comm in Qwgt, so it is fitted
  on MaxQwgt cells with and without latency tolerance.

The calibration cells are Table 3's rows at P = 16 and 64 (ThroTtle = 2P,
C = 1 and 8, both latency cases). No claim reads Table 3 there: the
Tables 3-4 claims read P = 2, 4, 8 and the others Tables 1, 2 and §4 at
P = 32. Each fit runs with the other's fitted value (``fitted``), unit first.
"""
from __future__ import annotations

from pathlib import Path

from harness import Calibration, Cells, fitted

HERE = Path(__file__).parent / "calibration"
UNIT_PATH = HERE / "minex-throttle-unit.csv"
CWGT_PATH = HERE / "minex-cwgt-unit.csv"
CAL_P = (16, 64)
CAL_C = (1, 8)
CASES = {"None": "none", "Max": "max"}


def throttle_unit() -> float:
    """The fitted ThroTtle unit (``minex[unit]``'s default)."""
    return fitted(UNIT_PATH, float)


def cwgt_unit() -> int:
    """The fitted cost of one leaf face (``shock[cwgt_unit]`` in the MinEX cells)."""
    return fitted(CWGT_PATH, int)


def table3_figures(opts, unit: float, cwgt: int) -> dict:
    """Our Table 3 cells at ``CAL_P`` (MaxQwgt and LoadImb, C = 1 and 8, None and Max) with these values."""
    from .reports import _method, accumulated

    out = {}
    for P in CAL_P:
        for C in CAL_C:
            methods = {case: _method(2 * P, lat, unit) for case, lat in CASES.items()}
            df = opts.compare(list(methods.values()), P=P, machine=f"grid:{C}:3", workload="shock",
                              workload_params={"cwgt_unit": cwgt})
            for case, lat in CASES.items():
                mx, imb = accumulated(df[df["algorithm"] == methods[case]], lat, P)
                row = f"{case} P={P}"
                out[("minex", "3", str(P), row, f"MaxQwgt C={C}")] = mx
                out[("minex", "3", str(P), row, f"LoadImb C={C}")] = imb
    return out


def _block(what: str) -> tuple:
    return (Cells("minex", "3", P=CAL_P, columns=tuple(f"{what} C={C}" for C in CAL_C)),)


CALIBRATIONS = [
    Calibration(
        "minex-throttle-unit", "minex", "minex[unit]", _block("LoadImb"), (1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
        lambda value, opts: table3_figures(opts, float(value), cwgt_unit()), UNIT_PATH,
        why="ThroTtle's unit sets how far MinEX balances at a given ThroTtle: Table 3's LoadImb at ThroTtle = 2P, "
            "P = 16 and 64 (no claim reads them)"),
    Calibration(
        "minex-cwgt-unit", "minex", "shock[cwgt_unit]", _block("MaxQwgt"), (1, 2, 3, 4, 5, 6, 8, 12, 16),
        lambda value, opts: table3_figures(opts, throttle_unit(), int(value)), CWGT_PATH,
        why="the cost of a leaf face sets the share of Comm in Qwgt: Table 3's MaxQwgt with and without latency "
            "tolerance at P = 16 and 64 (no claim reads them)"),
]
