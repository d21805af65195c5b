"""Claims as code: a paper's qualitative claims checked on our numbers (``lbbench claims``).

A plugin registers :class:`Claim` objects through the ``register_claims``
hook, beside its reports. A claim carries the paper, where it is said
(section, table or figure), the sentence quoted, the cells it needs (methods
at processor counts on a machine and, if it is not the command's, a
workload), and ``check(df) -> (holds, ours)``: a predicate over the results
DataFrame of those cells (one row per method and level, as
``harness.api.compare`` returns) that says whether the claim holds and gives
the measured figures as one line of text. The cells come from the result
store (``ReportOptions.compare``), so claims run after the reports cost
nothing; cells shared by several claims are asked for once.

A claim is the paper's and its predicate reads the sentence as written; it
is never tuned to make the claim pass. A claim whose cells failed, or whose
predicate finds no figure to judge (NaN), is ``n/a``, not a verdict.
"""
from __future__ import annotations

import csv
import math
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

HOLDS, FAILS, NA = "holds", "does not hold", "n/a"
PAPERS = ("sbn", "minex", "tree", "mlb", "amr")


@dataclass(frozen=True)
class Claim:
    """One claim of one paper (docs/plugins.md, "Claims").

    Attributes:
        name: unique id (``sbn-maxsr-vs-plum``).
        paper: short paper name: ``sbn``, ``minex``, ``tree``, ``mlb``, ``amr``, or a plugin's own
            (``lbbench claims --paper NAME`` takes any registered one).
        where: "§5.3, Tables 4-5", and the reading of any word that needs a number.
        text: the paper's sentence, quoted.
        cells: a tuple of dicts ``{"methods": "sbn,plum-pmetis", "P": (8, 32), "machine": "uniform",
            "workload": None, "initial": None}`` (``machine``, ``workload``, ``initial`` optional; None
            means the command's).
        check: ``check(df) -> (holds, ours)``: the predicate on the cells' rows; ``holds`` True, False or None.
        reported: the paper's own figures for the same statement, as text.
        plugin: set by the harness (the distribution that registered it).

    Example:
        >>> def check(df):
        ...     a, b = Claim.average(df, "mine", "maxsr", P=32), Claim.average(df, "metis", "maxsr", P=32)
        ...     return a < b, f"MaxSR {Claim.num(a)} vs {Claim.num(b)}"
        >>> Claim("mine-moves-less", "mine", "§4, Table 2", "it moves less data than METIS",
        ...       ({"methods": "mine,metis", "P": (32,)},), check, reported="12 vs 30")
    """

    name: str
    paper: str
    where: str
    text: str
    cells: tuple
    check: Callable
    reported: str = ""
    plugin: str = ""

    # -- helpers for predicates ------------------------------------------------------------------------

    @staticmethod
    def rows(df: pd.DataFrame, method: str, P: int | None = None, machine: str | None = None) -> pd.DataFrame:
        """The rows of one method (as written in ``cells``), optionally at one P and machine."""
        sel = df["algorithm"] == method
        if P is not None:
            sel &= df["P"].astype(int) == int(P)
        if machine is not None:
            sel &= df["machine"] == machine
        return df[sel].sort_values("level")

    @staticmethod
    def average(df: pd.DataFrame, method: str, column: str, P: int | None = None,
                machine: str | None = None) -> float:
        """The mean over levels of ``column`` (the tables' Average row); NaN if a level failed or none ran.

        Args:
            df: the cells' rows, as ``check`` receives them.
            method: the method as written in ``cells`` (``plum-pmetis``, ``metis/sbn``).
            column: a result column (``lbbench columns``), e.g. ``maxsr``.
            P: only the rows at this P.
            machine: only the rows on this machine.

        Returns:
            A float (NaN when it cannot be told).

        Example:
            >>> Claim.average(df, "sbn", "maxsr", P=32)
        """
        r = Claim.rows(df, method, P, machine)
        if r.empty or (r["status"] != "ok").any() or column not in r:
            return math.nan
        return float(r[column].astype(float).mean())

    @staticmethod
    def total(df: pd.DataFrame, method: str, column: str, P: int | None = None,
              machine: str | None = None) -> float:
        """The sum over levels of ``column``; NaN if a level failed or none ran."""
        r = Claim.rows(df, method, P, machine)
        if r.empty or (r["status"] != "ok").any() or column not in r:
            return math.nan
        return float(r[column].astype(float).sum())

    @staticmethod
    def num(x: float) -> str:
        """A figure for the ``ours`` line: thousands separators from 1000 on, two decimals below."""
        return fmt_num(x)


@dataclass
class Outcome:
    """A claim's verdict: ``holds``, ``does not hold`` or ``n/a``; ``ours`` the measured figures."""

    claim: Claim
    verdict: str
    ours: str
    seconds: float = 0.0
    frame: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    @property
    def ok(self) -> bool:
        return self.verdict == HOLDS


def cell_specs(claim: Claim) -> list[dict]:
    """The claim's cells as dicts with every key, one per processor count."""
    cells = claim.cells if isinstance(claim.cells, (tuple, list)) else (claim.cells,)
    out = []
    for c in cells:
        if not isinstance(c, dict) or "methods" not in c or "P" not in c:
            raise ValueError(f"claim {claim.name!r}: a cell is a dict with 'methods' and 'P'")
        Ps = c["P"] if isinstance(c["P"], (tuple, list)) else (c["P"],)
        methods = c["methods"] if isinstance(c["methods"], str) else ",".join(c["methods"])
        for P in Ps:
            out.append({"methods": methods, "P": int(P), "machine": c.get("machine"), "workload": c.get("workload"),
                        "initial": c.get("initial")})
    return out


def _split(methods: str) -> list[str]:
    from .spec import parse_methods

    return [str(m) for m in parse_methods(methods)]


def select(claims: dict, paper: str | None = None, names: list | None = None) -> list[Claim]:
    """Claims of one paper (or all), in registration order; an unknown paper is a one-line error."""
    out = list(claims.values())
    if paper:
        papers = sorted({c.paper for c in out})
        if paper not in papers:
            raise LookupError(f"no claims for paper {paper!r} (available: {', '.join(papers) or 'none'})")
        out = [c for c in out if c.paper == paper]
    if names:
        missing = [n for n in names if n not in claims]
        if missing:
            raise LookupError(f"unknown claim {missing[0]!r}")
        out = [c for c in out if c.name in names]
    return out


def evaluate(claims: list[Claim], opts, workload: str | None = None, workload_params: dict | None = None,
             progress: bool = False) -> list[Outcome]:
    """Judge every claim on the cells it needs, got through ``opts.compare`` (the result store).

    ``workload`` (with its parameters) replaces every claim's own workload (a
    test runs the SBN claims on ``mini``); otherwise a cell's ``workload`` or
    ``opts.workload``. Cells asked for by several claims are fetched once:
    one ``compare`` per (workload, P, machine) with every method needed there.
    """
    def where(c):
        if workload is not None:
            return workload, dict(workload_params or {})
        if c["workload"]:
            from .spec import parse_call

            call = parse_call(c["workload"])
            return call.name, dict(call.given)
        return opts.workload, dict(opts.workload_params)

    plans = []
    groups: dict = {}
    for claim in claims:
        specs = []
        try:
            for c in cell_specs(claim):
                wname, wparams = where(c)
                gkey = (wname, repr(sorted(wparams.items())), c["P"], c["machine"] or opts.machine,
                        c["initial"] or opts.initial)
                groups.setdefault(gkey, (wparams, []))
                for m in _split(c["methods"]):
                    if m not in groups[gkey][1]:
                        groups[gkey][1].append(m)
                specs.append(gkey)
        except ValueError as exc:
            specs = exc
        plans.append((claim, specs))

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(groups) + len(claims), file=sys.stderr, unit="step", leave=False)
    frames: dict = {}
    for gkey, (wparams, methods) in groups.items():
        wname, _, P, machine, initial = gkey
        if bar:
            bar.set_description(f"cells {wname} P={P} {machine}")
        try:
            frames[gkey] = opts.compare(methods, P=P, machine=machine, workload=wname, workload_params=wparams,
                                        initial=initial, progress=False)
        except (ValueError, LookupError, OSError) as exc:
            frames[gkey] = _one_line(exc)
        if bar:
            bar.update()

    out = []
    for claim, specs in plans:
        if bar:
            bar.set_description(claim.name)
        out.append(judge(claim, specs, frames))
        if bar:
            bar.update()
    if bar:
        bar.close()
    return out


def judge(claim: Claim, specs, frames: dict) -> Outcome:
    """Run one claim's predicate on its cells' rows."""
    t0 = time.perf_counter()
    if isinstance(specs, Exception):
        return Outcome(claim, NA, f"bad claim: {_one_line(specs)}")
    parts = []
    for gkey in dict.fromkeys(specs):
        got = frames[gkey]
        if isinstance(got, str):
            return Outcome(claim, NA, f"cells unavailable: {got}")
        parts.append(got)
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    bad = df[df["status"] != "ok"] if "status" in df else df
    try:
        holds, ours = claim.check(df)
    except Exception as exc:  # a broken predicate is that claim's problem, not the run's
        return Outcome(claim, NA, f"predicate error: {type(exc).__name__}: {_one_line(exc)}",
                       time.perf_counter() - t0, df)
    if holds is None or (isinstance(holds, float) and math.isnan(holds)):
        why = f" ({len(bad)} failed cells)" if len(bad) else ""
        return Outcome(claim, NA, f"{ours}{why}", time.perf_counter() - t0, df)
    return Outcome(claim, HOLDS if bool(holds) else FAILS, ours, time.perf_counter() - t0, df)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def table(outcomes: list[Outcome], fmt: str = "text") -> pd.DataFrame:
    """One row per claim: Paper, Where, Claim, Ours, Paper's figures, Verdict (text wrapped for ``text``)."""
    wrap = (lambda s, w: "\n".join(textwrap.wrap(s, w)) or s) if fmt == "text" else (lambda s, w: s)
    rows = [{"Paper": o.claim.paper, "Where": wrap(o.claim.where, 16), "Claim": wrap(f"“{o.claim.text}”", 48),
             "Ours": wrap(o.ours, 40), "Paper's figures": wrap(o.claim.reported, 30), "Verdict": o.verdict}
            for o in outcomes]
    return pd.DataFrame(rows, columns=["Paper", "Where", "Claim", "Ours", "Paper's figures", "Verdict"])


def summary(outcomes: list[Outcome]) -> str:
    n = {v: sum(o.verdict == v for o in outcomes) for v in (HOLDS, FAILS, NA)}
    return f"{len(outcomes)} claims: {n[HOLDS]} hold, {n[FAILS]} do not hold, {n[NA]} n/a"


def record(outcomes: list[Outcome], out: str | None, commit: str) -> Path:
    """Append the verdicts to ``<results>/claims/history.csv`` (time, commit, claim, verdict, ours)."""
    import os

    from .results import DEFAULT_DIR

    d = Path(out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "claims"
    d.mkdir(parents=True, exist_ok=True)
    f = d / "history.csv"
    new = not f.exists()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with f.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["time", "commit", "paper", "claim", "verdict", "ours"])
        for o in outcomes:
            w.writerow([stamp, commit, o.claim.paper, o.claim.name, o.verdict, o.ours])
    return f


def history(out: str | None) -> pd.DataFrame:
    """The recorded verdicts (empty if none)."""
    import os

    from .results import DEFAULT_DIR

    f = Path(out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "claims" / "history.csv"
    if not f.exists():
        return pd.DataFrame(columns=["time", "commit", "paper", "claim", "verdict", "ours"])
    return pd.read_csv(f, dtype=str, keep_default_na=False)


def fmt_num(x: float) -> str:
    """A figure for the ``ours`` line: thousands separators for large values, two decimals otherwise."""
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.2f}"
