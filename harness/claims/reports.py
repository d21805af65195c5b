"""Tables shaped like the papers' tables, rendered by tabulate (text, github, latex) or as CSV.

A report is registered through the ``register_reports`` hook as a
:class:`harness.contract.plugins.Report` whose ``build(options)`` returns a list of
:class:`Table`. ``options`` is a :class:`ReportOptions`; ``options.compare``
runs (or loads from the results store) the cells a table needs.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..contract import plugins
from ..contract.lazy import lazy_module
from ..run.api import compare
from ..store.results import DEFAULT_DIR
from .claim import PAPERS

pd = lazy_module("pandas")  # (both read where a table is made: the CLI's ranks load neither; issue 52)
tabulate = lazy_module("tabulate")

FORMATS = ("text", "github", "latex", "csv")

GENERIC_REPORTS = ("levels",)  # reports of no paper (they take --plugins): not part of a reproduction
ALSO_REPRODUCED = ("baselines-small",)  # reports of no paper that a full reproduction runs (and the site shows)


def known_papers() -> list:
    """The papers: the five of the core's plugins and any other a registered claim names (a plugin's own)."""
    return list(dict.fromkeys([*PAPERS, *(c.paper for c in plugins.claims().values())]))


def paper_of(report_name: str, known: list | None = None) -> str | None:
    """The paper a report reproduces, from its name (``sbn-table4`` -> ``sbn``); None for a generic one."""
    head = report_name.split("-", 1)[0]
    return head if head in (known or known_papers()) and report_name not in GENERIC_REPORTS else None

# The SBN paper's per-level columns (Tables 4-7) and the result columns they show.
LEVEL_COLUMNS = {
    "Pre-Exec Cut%": "pre_exec_cut_pct",
    "Post-Exec Cut%": "post_exec_cut_pct",
    "MaxSR": "maxsr",
    "LoadImb": "loadimb",
}


@dataclass
class Table:
    """One table of a report, rendered as text, GitHub markdown, LaTeX or CSV (and on the site).

    Attributes:
        title: the table's title.
        frame: the DataFrame, as printed; a column ``X (paper)`` beside ``X`` is the paper's value
            (:func:`with_paper`) and the site colours ``X`` by ours / paper.
        note: a line printed under the table.
        figures: paths of pictures drawn for it (``opts.figure_path("name.png")``).

    Example:
        >>> Table("Table 1, P = 32", with_paper(level_table(df), paper_values("mine", "1")), note="ours vs paper")
    """

    title: str
    frame: pd.DataFrame
    note: str = ""
    figures: list = field(default_factory=list)


@dataclass
class ReportOptions:
    """What the command line passes to a report's ``build(opts)`` (``lbbench report NAME [options]``).

    Attributes:
        P: ``-P 8,32``: the processor counts asked for; None means the report's own list.
        methods: ``--plugins a,b``: the methods asked for (reports that take any methods), else None.
        workload: ``-w``: the workload's name.
        workload_params: its parameters (``-w shock[scale=2]``).
        levels: ``--levels``: the level numbers, None for all.
        machine: ``--machine``: ``uniform``, ``sp2`` or ``grid:C:I``.
        seed: ``--seed``.
        out: ``--out``: the results directory (None: ``$LBBENCH_RESULTS`` or ``./lbbench-results``).
        timeout: ``--timeout``: seconds per cell.
        cache: False with ``--no-cache``.
        progress: show the progress bar.
        initial: ``--initial``: the level-1 start.
        reuse_failed: ``--reuse-failed``.
        show_traceback: ``--traceback``.
        bars: the shared progress bar (internal).
        workloads_asked: the workloads ``compare`` ran on (internal: ``report`` says when it ignored ``-w``).

    Example:
        >>> def table1(opts):
        ...     return [Table(f"P = {P}", level_table(opts.compare("mine", P=P))) for P in opts.P or [8, 32]]
    """

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
    workloads_asked: set = field(default_factory=set, repr=False, compare=False)  # the workloads compare ran on

    def compare(self, methods, P=None, **overrides) -> pd.DataFrame:
        """Run, or load from the result store, the cells of ``methods`` under these options.

        Args:
            methods: ``"a,b"`` or a list of method strings (``name[key=value]``, ``mapper/balancer``).
            P: one processor count (default: the first of ``opts.P``, else 32).
            **overrides: any other argument of ``harness.compare``, e.g. ``machine="grid:4:10"``,
                ``workload="mini"``, ``workload_params={...}``, ``levels=[1, 2]``, ``initial="block"``.

        Returns:
            One row per (method, level) with the result columns (``lbbench columns``) and ``status``.

        Example:
            >>> df = opts.compare("mine,metis", P=32, machine="sp2")
            >>> ours = df[df.algorithm == "mine"]
        """
        kw = dict(workload=self.workload, workload_params=self.workload_params, levels=self.levels,
                  machine=self.machine, seed=self.seed, out=self.out, timeout=self.timeout,
                  cache=self.cache, progress=self.progress, initial=self.initial,
                  reuse_failed=self.reuse_failed, show_traceback=self.show_traceback)
        kw.update(overrides)
        kw["bars"] = self.bars
        self.workloads_asked.add(kw["workload"])
        return compare(methods, P=P if P is not None else (self.P[0] if self.P else None), **kw)

    def close(self) -> None:
        """Close the shared progress bar (the ``report`` command calls it after ``build``)."""
        while self.bars:
            self.bars.pop().close()

    def figure_path(self, name: str) -> Path:
        """Where a report saves a picture: ``<results dir>/figures/<name>`` (the directory is created).

        Args:
            name: a file name, e.g. ``"mine-fig3.png"``.

        Returns:
            The path; name it in ``Table(..., figures=[path])`` so the report and the site show it.

        Example:
            >>> path = opts.figure_path("mine-fig3.png")
            >>> fig.savefig(path)
        """
        d = Path(self.out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "figures"
        d.mkdir(parents=True, exist_ok=True)
        return d / name


def level_table(rows: pd.DataFrame, columns: dict = LEVEL_COLUMNS) -> pd.DataFrame:
    """One algorithm's rows as the SBN paper's Tables 4-7: a row per Adaptation Level, then Average.

    Failed cells show their status instead of numbers and are left out of the Average.

    Args:
        rows: one method's result rows (``df[df.algorithm == "mine"]``).
        columns: ``{title: result column}`` in the order shown (default: Pre-Exec Cut%, Post-Exec Cut%,
            MaxSR, LoadImb).

    Returns:
        A DataFrame whose first column is ``Adaptation Level`` (``1``, ``2``, ..., ``Average``).

    Example:
        >>> level_table(df[df.algorithm == "mine"], {"MaxSR": "maxsr", "Moved": "moved_weight"})
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


def with_paper(ours: pd.DataFrame, paper: pd.DataFrame, key=None) -> pd.DataFrame:
    """Put the paper's values beside ours, as a column ``<column> (paper)`` right after ours.

    ``paper`` holds reference rows in long form (``paper_values(...)``: ``row``, ``column``, ``value``
    and perhaps ``P``, ``table``). Each reference row lands on the row of ``ours`` it names, in the
    column it names:

    - ``key`` says which of our columns identify a row. ``None`` (default): our first column; a name
      or a list of names: the reference's ``row`` holds their values (several joined by ``" / "``,
      e.g. ``"sbn / 32"``); a dict ``{our column: reference column}`` matches each against that
      reference column, e.g. ``{"Method": "row", "P": "P"}``.
    - ``column`` is the title of our column the value goes beside; a value whose column we do not
      show gets a column of its own at the end.

    Values are compared as text, whole numbers without a decimal point (our ``32.0`` matches ``32``).
    Our rows that the paper does not print stay blank. The site colours our value against the
    paper's in every such pair of columns, whatever the key.

    Args:
        ours: our table.
        paper: reference rows (``paper_values(paper, table)``, perhaps filtered, e.g. by P).
        key: which of our columns identify a row (above).

    Returns:
        A copy of ``ours`` with the ``(paper)`` columns.

    Example:
        >>> ours = pd.DataFrame({"Method": ["mine", "mine"], "P": [8, 32], "Cut%": [11.9, 14.0]})
        >>> with_paper(ours, paper_values("mine", "1"), key={"Method": "row", "P": "P"})
        ... # columns: Method, P, Cut%, Cut% (paper)
    """
    if paper.empty:
        return ours
    if key is None:
        key = ours.columns[0]
    pairs = dict(key) if isinstance(key, dict) else {k: "row" for k in ([key] if isinstance(key, str) else key)}
    for mine, theirs in pairs.items():
        if mine not in ours.columns:
            raise KeyError(f"with_paper: {mine!r} is not a column of the table (columns: "
                           f"{', '.join(map(str, ours.columns))})")
        if theirs not in paper.columns or theirs in ("column", "value"):
            raise KeyError(f"with_paper: the reference has no column {theirs!r} to match {mine!r} against")
    by = {}
    for mine, theirs in pairs.items():
        by.setdefault(theirs, []).append(mine)
    ref_key = _labels([paper[c].map(key_label) for c in by])
    our_key = _labels([_labels([ours[m].map(key_label) for m in cols]) for cols in by.values()])
    wide = paper.assign(_key=ref_key.to_numpy()).pivot_table(index="_key", columns="column", values="value",
                                                           aggfunc="first")
    out = ours.copy()
    for col in wide.columns:
        pos = out.columns.get_loc(col) + 1 if col in out.columns else len(out.columns)
        out.insert(pos, f"{col} (paper)", our_key.map(wide[col]).to_numpy())
    out.attrs["paper_cells"] = _cell_keys(paper, ref_key, our_key)
    return out


def _cell_keys(paper: pd.DataFrame, ref_key: pd.Series, our_key: pd.Series) -> dict:
    """``{(our row position, column): (paper, table, P, row, column)}`` for every value put beside ours, so the
    fidelity summary knows which printed cell each pair is (None where the reference rows lack that part)."""
    part = {c: paper[c].map(key_label).to_numpy() if c in paper.columns else [None] * len(paper)
            for c in ("paper", "table", "P", "row")}
    where = {}
    for i, k in enumerate(ref_key.to_numpy()):
        key = (part["paper"][i], part["table"][i], part["P"][i], part["row"][i], str(paper["column"].iloc[i]))
        where.setdefault((k, key[4]), key)
    return {(pos, col): where[(k, col)] for pos, k in enumerate(our_key.to_numpy())
            for col in paper["column"].unique() if (k, col) in where}


def key_label(v) -> str:
    """A key value as text: whole numbers without a decimal point, blanks as ""."""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else str(int(v)) if float(v).is_integer() else str(v)
    return "" if v is None else str(v).strip()


def _labels(parts: list) -> pd.Series:
    out = parts[0].astype(str)
    for p in parts[1:]:
        out = out + " / " + p.astype(str).to_numpy()
    return out


def _fmt(v):
    if isinstance(v, float):
        if np.isnan(v):
            return ""
        return f"{v:.2f}" if abs(v) < 1e6 else f"{v:.4g}"
    return v


def render(tables: list[Table], fmt: str = "text") -> str:
    """Render tables as ``text``, ``github``, ``latex`` or ``csv`` (``csv`` adds a ``table`` column)."""
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
        body = tabulate.tabulate([[_fmt(v) for v in row] for row in t.frame.itertuples(index=False)],
                                 headers=list(t.frame.columns), tablefmt=tablefmt, disable_numparse=True)
        head = {"text": f"{t.title}\n", "github": f"### {t.title}\n\n", "latex": f"% {t.title}\n"}[fmt]
        tail = f"\n{t.note}" if t.note else ""
        tail += "".join(f"\nfigure: {f}" for f in t.figures)
        parts.append(head + body + tail)
    return "\n\n".join(parts) + "\n"
