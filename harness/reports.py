"""Tables shaped like the papers' tables, rendered by tabulate (text, github, latex) or as CSV.

A report is registered through the ``register_reports`` hook as a
:class:`harness.plugins.Report` whose ``build(options)`` returns a list of
:class:`Table`. ``options`` is a :class:`ReportOptions`; ``options.compare``
runs (or loads from the results store) the cells a table needs.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

FORMATS = ("text", "github", "latex", "csv")

# The SBN paper's per-level columns (Tables 4-7) and the result columns they show.
LEVEL_COLUMNS = {
    "Pre-Exec Cut%": "pre_exec_cut_pct",
    "Post-Exec Cut%": "post_exec_cut_pct",
    "MaxSR": "maxsr",
    "LoadImb": "loadimb",
}


@dataclass
class Table:
    """One rendered table: a title, a DataFrame, a note, and the pictures drawn for it (paths)."""

    title: str
    frame: pd.DataFrame
    note: str = ""
    figures: list = field(default_factory=list)


@dataclass
class ReportOptions:
    """What the command line passes to a report; ``P`` None means the report's own list."""

    P: list | None = None
    methods: str | None = None
    workload: str = "shock"
    workload_params: dict = field(default_factory=dict)
    levels: list | None = None
    machine: str = "uniform"
    seed: int = 0
    out: str | None = None
    timeout: float | None = None
    cache: bool = True
    progress: bool = True
    initial: str = "metis"
    reuse_failed: bool = False
    show_traceback: bool = False
    bars: list = field(default_factory=list, repr=False, compare=False)  # one progress bar over a report's cells

    def compare(self, methods, P=None, **overrides) -> pd.DataFrame:
        from .api import compare

        kw = dict(workload=self.workload, workload_params=self.workload_params, levels=self.levels,
                  machine=self.machine, seed=self.seed, out=self.out, timeout=self.timeout,
                  cache=self.cache, progress=self.progress, initial=self.initial,
                  reuse_failed=self.reuse_failed, show_traceback=self.show_traceback)
        kw.update(overrides)
        kw["bars"] = self.bars
        return compare(methods, P=P if P is not None else (self.P[0] if self.P else None), **kw)

    def close(self) -> None:
        """Close the shared progress bar (the ``report`` command calls it after ``build``)."""
        while self.bars:
            self.bars.pop().close()

    def figure_path(self, name: str) -> Path:
        """Where a report saves a picture: ``<results dir>/figures/<name>`` (the directory is created)."""
        from .results import DEFAULT_DIR

        d = Path(self.out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "figures"
        d.mkdir(parents=True, exist_ok=True)
        return d / name


def level_table(rows: pd.DataFrame, columns: dict = LEVEL_COLUMNS) -> pd.DataFrame:
    """One algorithm's rows as the SBN paper's Tables 4-7: a row per Adaptation Level, then Average.

    Failed cells show their status instead of numbers and are left out of the Average.
    """
    rows = rows.sort_values("level")
    ok = rows["status"] == "ok"
    out = pd.DataFrame({"Adaptation Level": rows["level"].astype(str).to_numpy()})
    for title, col in columns.items():
        vals = rows[col].to_numpy(dtype=float) if col in rows else np.full(len(rows), np.nan)
        out[title] = np.where(ok.to_numpy(), vals, np.nan)
    avg = {"Adaptation Level": "Average"}
    avg.update({t: out.loc[ok.to_numpy(), t].mean() if ok.any() else np.nan for t in columns})
    out = pd.concat([out, pd.DataFrame([avg])], ignore_index=True)
    if (~ok).any():
        out["Status"] = list(rows["status"]) + [""]
    return out


def with_paper(ours: pd.DataFrame, paper: pd.DataFrame, key: str = "Adaptation Level") -> pd.DataFrame:
    """Put the paper's values (long form: row, column, value) beside ours as ``<column> (paper)``."""
    if paper.empty:
        return ours
    wide = paper.pivot_table(index="row", columns="column", values="value", aggfunc="first")
    out = ours.copy()
    for col in wide.columns:
        pos = out.columns.get_loc(col) + 1 if col in out.columns else len(out.columns)
        out.insert(pos, f"{col} (paper)", out[key].astype(str).map(wide[col]))
    return out


def _fmt(v):
    if isinstance(v, float):
        if np.isnan(v):
            return ""
        return f"{v:.2f}" if abs(v) < 1e6 else f"{v:.4g}"
    return v


def render(tables: list[Table], fmt: str = "text") -> str:
    """Render tables; ``csv`` concatenates them with a ``table`` column."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    if fmt == "csv":
        frames = [t.frame.assign(table=t.title) for t in tables]
        buf = io.StringIO()
        pd.concat(frames, ignore_index=True).to_csv(buf, index=False) if frames else None
        return buf.getvalue()
    tablefmt = {"text": "simple", "github": "github", "latex": "latex_booktabs"}[fmt]
    parts = []
    for t in tables:
        body = tabulate([[_fmt(v) for v in row] for row in t.frame.itertuples(index=False)],
                        headers=list(t.frame.columns), tablefmt=tablefmt, disable_numparse=True)
        head = {"text": f"{t.title}\n", "github": f"### {t.title}\n\n", "latex": f"% {t.title}\n"}[fmt]
        tail = f"\n{t.note}" if t.note else ""
        tail += "".join(f"\nfigure: {f}" for f in t.figures)
        parts.append(head + body + tail)
    return "\n\n".join(parts) + "\n"
