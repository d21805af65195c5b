"""``lbbench calibrate`` and ``lbbench fidelity``: the fits of the papers' free parameters, and how close our
cells are to the papers' printed ones. Both plan their cells and compute them like ``reproduce`` (``-j N``,
the store, resuming)."""
from __future__ import annotations

import pandas as pd

from ..claims import calibrate as cb
from ..claims import fidelity as fd
from ..claims.reports import Table
from ..contract import plugins
from ..contract.plugins import Report
from . import reproduce as rp


def chosen_calibrations(papers=(), names=()) -> list:
    """The registered calibrations of ``papers`` (all if none), or those ``names``; an unknown one is an error."""
    cals = list(plugins.calibrations().values())
    known = sorted({c.paper for c in cals})
    for p in papers:
        if p not in known:
            raise LookupError(f"no calibrations for paper {p!r} (papers with calibrations: {', '.join(known)})")
    for n in names:
        if n not in {c.name for c in cals}:
            raise LookupError(f"unknown calibration {n!r} (available: {', '.join(c.name for c in cals)})")
    return [c for c in cals if (not papers or c.paper in papers) and (not names or c.name in names)]


def _fit_report(cal) -> Report:
    return Report(f"calibrate-{cal.name}", lambda opts: [Table(cal.name, cb.fit(cal, opts, save=False))],
                  title=f"Calibration of {cal.parameter}")


def calibrate(papers=(), names=(), out=None, workers: int = 1, progress: bool = True, log=None,
              timeout=None) -> tuple[list, object]:
    """Fit every chosen calibration and write its CSV: ``([(calibration, fit rows)], the run's outcome)``."""
    cals = chosen_calibrations(papers, names)
    reps = {f"calibrate-{c.name}": _fit_report(c) for c in cals}
    result = rp.reproduce(out=out, site=None, progress=progress, log=log, workers=workers, timeout=timeout,
                          selected=(reps, []))
    fits = []
    for c in cals:
        tables = result.tables.get(f"calibrate-{c.name}")
        if tables:
            cb.write(tables[0].frame, c.path)
            fits.append((c, tables[0].frame))
    return fits, result


def fit_tables(fits: list) -> list[Table]:
    """Per calibration: every candidate's residual and ours / paper, the chosen value marked."""
    out = []
    for cal, df in fits:
        s = cb.summary(df)
        chosen = s.loc[s["chosen"], "value"].tolist()
        cells = ", ".join(f"{b.paper} Table {b.table}" + (f" P = {','.join(map(str, b.P))}" if b.P else "")
                          + (f" {', '.join(b.columns)}" if b.columns else "") for b in cal.cells)
        out.append(Table(f"{cal.name}: {cal.parameter} = {chosen[0] if chosen else '?'}", s,
                         f"cells: {cells}; written to {cal.path}"))
    return out


def fidelity(papers=(), out=None, workers: int = 1, progress: bool = True, log=None,
             timeout=None) -> tuple[pd.DataFrame, object]:
    """Every report of ``papers`` (all if none) built from the store (missing cells computed): its pairs of
    (ours, paper's), calibration cells left out; and the run's outcome."""
    reps, _ = rp.chosen(papers or None)
    result = rp.reproduce(out=out, site=None, progress=progress, log=log, workers=workers, timeout=timeout,
                          selected=(reps, []))
    return fd.all_pairs(result.tables, cb.calibration_keys(plugins.calibrations().values())), result


def fidelity_tables(pairs: pd.DataFrame, worst: int = 10) -> list[Table]:
    """Per paper, per table, and the worst cells."""
    return [Table("Fidelity per paper (cells within 0.67-1.5x of the paper's, calibration cells left out)",
                  fd.totals(pairs)),
            Table("Per table", fd.summary(pairs)),
            Table(f"The {worst} cells furthest from the paper's",
                  fd.worst(pairs, worst).assign(cell=lambda d: d["cell"].map(fd.cell_text)))]
