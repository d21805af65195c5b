"""Claims as code: a paper's qualitative claims checked on our numbers (``lbbench claims``).

A plugin registers :class:`Claim` objects through the ``register_claims``
hook, beside its reports. A claim carries the paper, where it is said
(section, table or figure), the sentence quoted, the cells it needs (methods
at processor counts on a machine and, if it is not the command's, a
workload), and ``check(df) -> (holds, ours)``: a predicate over the results
DataFrame of those cells (one row per method and level, as
``harness.compare`` returns) that says whether the claim holds and gives
the measured figures as one line of text. The cells come from the result
store (``ReportOptions.compare``), so claims run after the reports cost
nothing; cells shared by several claims are asked for once.

A claim is the paper's and its predicate reads the sentence as written; it
is never tuned to make the claim pass. The verdicts (``VERDICTS``, defined
here only):

* ``holds`` / ``does not hold``: the predicate on our cells;
* ``not in the paper's own numbers``: the same predicate on the figures the
  paper prints (``on_paper``, from the reference CSVs, see
  :func:`reference_frame`) fails, whatever ours say (ours are still shown);
* ``within noise``: a wall-time comparison whose repeated runs' middle
  halves (25th-75th percentile) overlap (:func:`timing_pairs`; a figure
  derived from a wall time, such as a speedup, is computed per run; the
  runs of the methods compared are interleaved in one session, so drift
  between them is in the spread);
* ``n/a``: a cell failed or is missing, or the predicate finds no figure to
  judge (NaN); the reason is shown.

There is no "report only": a sentence that states an ordering or a
comparison gets a verdict.

A claim's ``kind`` says where its text comes from (``KINDS``): ``quote`` is
the source's own words, verbatim (the paper's, at the section its ``where``
names; a public source's kept under ``workloads/reference/sources/``, its
``source``), shown in quotation marks; ``our test`` is our wording of what
we check, shown without quotation marks and with its ``source`` named
(:func:`shown`). ``tests/test_claim_sources.py`` finds every quote in its
source and makes every claim's predicate change its verdict on a mutated
frame.
"""
from __future__ import annotations

import csv
import math
import sys
import textwrap
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from ..contract.lazy import lazy_module
from ..contract.spec import parse_call, parse_methods
from ..engine.timing import runs
from ..engine.vprocs import world
from ..run import workloads
from ..store.results import DEFAULT_DIR
from .quotes import demote, unfound
from .reference import paper_values

pd = lazy_module("pandas")  # read where a frame is made: importing the claims layer loads no pandas (issue 52)

HOLDS, FAILS, NA = "holds", "does not hold", "n/a"
NOT_IN_PAPER, NOISE = "not in the paper's own numbers", "within noise"
VERDICTS = (HOLDS, FAILS, NOT_IN_PAPER, NOISE, NA)
PAPERS = ("sbn", "minex", "tree", "mlb", "amr")
QUOTE, OURS = "quote", "our test"
KINDS = (QUOTE, OURS)
# why a claim does not hold (``Claim.cause``): a finding about the paper, or a cause of ours
PAPER_NUMBERS, WORKLOAD, READING, IMPLEMENTATION = ("the paper's own numbers", "our workload", "the reading",
                                                    "our implementation")
SOURCE_TEXT = "the source's own text"  # the method built as its paper's text (or its code) says fails the sentence
CAUSES = (PAPER_NUMBERS, SOURCE_TEXT, WORKLOAD, READING, IMPLEMENTATION)


@dataclass(frozen=True)
class Claim:
    """One claim of one paper (docs/plugins.md, "Claims").

    Attributes:
        name: unique id (``sbn-maxsr-vs-plum``).
        paper: short paper name: ``sbn``, ``minex``, ``tree``, ``mlb``, ``amr``, or a plugin's own
            (``lbbench claims --paper NAME`` takes any registered one).
        where: "§5.3, Tables 4-5", and the reading of any word that needs a number.
        text: the paper's sentence, quoted (``kind`` ``quote``), or what we test (``our test``).
        cells: a tuple of dicts ``{"methods": "sbn,plum-pmetis", "P": (8, 32), "machine": "uniform",
            "workload": None, "initial": None}`` (``machine``, ``workload``, ``initial`` optional; None
            means the command's; ``"repeats": 5`` for a wall-time claim: the timed part run 5 times, and the
            dict's methods at each P are the group it compares, timed together, their runs interleaved:
            ``harness.run.api.compare``; claims asking at the same place share one group).
        check: ``check(df) -> (holds, ours)``: the predicate on the cells' rows; ``holds`` True, False,
            None (cannot tell) or ``Claim.NOISE``.
        reported: the paper's figures as text, where ``on_paper`` cannot compute them.
        plugin: set by the harness (the distribution that registered it).
        on_paper: ``on_paper() -> (holds, text)``: the same predicate on the paper's printed figures
            (``Claim.reference``); failing there gives ``not in the paper's own numbers``, and ``text``
            replaces ``reported``.
        kind: ``quote`` (``text`` is the source's words, verbatim; ``[...]`` marks a cut) or ``our test``.
        source: where the words are: empty for the paper's own text (``paper``'s seed), else a file of
            ``workloads/reference/sources/`` (a public source's excerpt with its URL); for ``our test``,
            the source the test is taken from, in words (shown beside it).
        reads: the paper's printed cells the claim judges, a tuple of ``harness.Cells`` (no calibration
            may fit on them: ``lbbench calibrate``).
        cause: ``(label, text)`` shown when the claim does not hold: ``label`` one of ``CAUSES`` (the
            paper's own numbers; the source's own text, where the method built as its paper's text or its code
            says fails the sentence; our workload; the reading; our implementation), ``text`` the figure that
            shows it.
        other: ``(label, check)``: the other fair reading of the sentence (the stricter one is ``check``,
            which decides); its verdict is shown beside.
        variants: ``((label, overrides), ...)``: the robustness column, the verdict again on each variant
            ("holds on k of n"). ``overrides`` may hold ``P`` (a subset of the cells' processor counts),
            ``workload`` (another workload for every cell, e.g. ``shock[scale=2]``), ``seed`` (the workload's and
            the methods' seed, another mesh: ``{"seed": 1}``), ``initial`` (another level-1 start for every
            cell: ``{"initial": "metis"}``) and ``methods`` (``{as
            written in cells: the variant's method}``, e.g. ``{"sbn": "sbn[checks=800]"}``; the rows keep the
            name the predicate knows).

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
    on_paper: Callable | None = None
    kind: str = QUOTE
    source: str = ""
    reads: tuple = ()
    cause: tuple = ()
    other: tuple = ()
    variants: tuple = ()

    def __post_init__(self):
        if self.cause and (len(self.cause) != 2 or self.cause[0] not in CAUSES):
            raise ValueError(f"claim {self.name!r}: cause is (label, text) with a label of {', '.join(CAUSES)}")
        if self.other and (len(self.other) != 2 or not callable(self.other[1])):
            raise ValueError(f"claim {self.name!r}: other is (label, check)")
        for v in self.variants:
            if len(v) != 2 or not isinstance(v[1], dict) or set(v[1]) - {"P", "workload", "methods", "seed", "initial"}:
                raise ValueError(f"claim {self.name!r}: a variant is (label, {{P, workload, methods, seed, initial}})")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.name!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind == OURS and not self.source:
            raise ValueError(f"claim {self.name!r}: an 'our test' claim names its source")

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
    def below(a: float, b: float, digits: int = 2) -> bool:
        """``a < b`` as printed with ``digits`` decimals: a tie at the paper's precision is no strict ordering
        (1.05 against 1.05 is not below)."""
        return bool(round(float(a), digits) < round(float(b), digits))

    @staticmethod
    def num(x: float) -> str:
        """A figure for the ``ours`` line: thousands separators from 1000 on, two decimals below."""
        return fmt_num(x)

    # -- the paper's figures and repeated timings (plugins import only ``harness``'s names) --------------

    NOISE = NOISE  # a predicate may return it instead of True/False

    @staticmethod
    def reference(paper: str, tables: dict, columns: dict) -> pd.DataFrame:
        """The paper's printed figures as result rows (:func:`reference_frame`: rows keyed by level, or by
        method and P), for ``on_paper``; a table it cannot read is a ``LookupError`` naming it."""
        return reference_frame(paper, tables, columns)

    @staticmethod
    def repeated(row, column: str = "texec_s") -> list:
        """A row's repeated figures of a timed column (``compare(..., repeats=k)``; empty if timed once)."""
        return runs(row, column)

    @staticmethod
    def repeated_total(df: pd.DataFrame, method: str, column: str, P: int | None = None,
                       machine: str | None = None) -> list:
        """Run k's figure of a timed column summed over the levels, for every k (a sum over levels of one
        repeat, like :meth:`total` of one run); empty if a level failed, none ran or it was timed once."""
        r = Claim.rows(df, method, P, machine)
        if r.empty or (r["status"] != "ok").any():
            return []
        per_level = [Claim.repeated(row, column) for _, row in r.iterrows()]
        if any(len(x) != len(per_level[0]) or not x for x in per_level):
            return []
        return [float(x) for x in np.sum(per_level, axis=0)]

    @staticmethod
    def timing(pairs: list, need_all: bool = True, lower: bool = True):
        """Verdict of "a faster than b" (``lower``; else "a higher than b") over repeated timings
        (:func:`timing_pairs`)."""
        return timing_pairs(pairs, need_all, lower)


@dataclass
class Outcome:
    """A claim's verdict (one of ``VERDICTS``); ``ours`` the measured figures, ``paper`` the paper's.

    ``other`` is the verdict under the claim's other reading (``Claim.other``), ``robust`` the verdict over
    its variants ("holds on k of n", the claim itself counted), both empty where the claim has none.
    """

    claim: Claim
    verdict: str
    ours: str
    seconds: float = 0.0
    frame: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(), repr=False)
    paper: str = ""  # the paper's figures: ``on_paper``'s, computed, else the claim's ``reported``
    other: str = ""
    robust: str = ""
    start: str = ""  # where its cells started (``--initial``), shown in its row

    @property
    def ok(self) -> bool:
        return self.verdict == HOLDS

    @property
    def why(self) -> str:
        """Why it does not hold: the paper's own numbers, or the claim's declared cause ("" if it holds)."""
        if self.verdict == NOT_IN_PAPER:
            return f"{PAPER_NUMBERS}: {self.paper or self.claim.reported}"
        if self.verdict != FAILS:
            return ""
        return f"{self.claim.cause[0]}: {self.claim.cause[1]}" if self.claim.cause else "cause not stated"


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
                        "initial": c.get("initial"), "repeats": int(c.get("repeats") or 1), "seed": c.get("seed")})
    return out


def _split(methods: str) -> list[str]:
    return [str(m) for m in parse_methods(methods)]


def variant(claim: Claim, label: str, overrides: dict) -> Claim:
    """The claim on a variant of its cells (``Claim.variants``): a P subset, another workload, other methods;
    its predicate sees the rows under the method names it was written for."""
    rename = dict(overrides.get("methods") or {})
    keep = overrides.get("P")
    cells = []
    for c in claim.cells if isinstance(claim.cells, (tuple, list)) else (claim.cells,):
        c = dict(c)
        Ps = c["P"] if isinstance(c["P"], (tuple, list)) else (c["P"],)
        if keep is not None:
            Ps = tuple(p for p in Ps if int(p) in {int(k) for k in keep})
            if not Ps:
                continue
        c["P"] = tuple(Ps)
        if overrides.get("workload"):
            c["workload"] = overrides["workload"]
        if overrides.get("seed") is not None:
            c["seed"] = int(overrides["seed"])
        if overrides.get("initial"):
            c["initial"] = overrides["initial"]
        c["methods"] = ",".join(rename.get(m, m) for m in _split(c["methods"]))
        cells.append(c)
    back = {v: k for k, v in rename.items()}

    def check(df, _check=claim.check):
        if back and "algorithm" in df:
            df = df.assign(algorithm=df["algorithm"].map(lambda a: back.get(a, a)))
        return _check(df)

    return replace(claim, name=f"{claim.name} [{label}]", cells=tuple(cells), check=check, on_paper=None,
                   variants=(), other=())


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
            call = parse_call(c["workload"])
            return call.name, dict(call.given)
        return opts.workload, dict(opts.workload_params)

    claims = checked(claims)
    plans = []
    groups: dict = {}
    family = {id(c): [variant(c, label, ov) for label, ov in c.variants] for c in claims}
    for claim in [*claims, *(v for vs in family.values() for v in vs)]:
        specs = []
        try:
            for c in cell_specs(claim):
                wname, wparams = where(c)
                gkey = (wname, repr(sorted(wparams.items())), c["P"], c["machine"] or opts.machine,
                        start(c, wname, opts), c["repeats"], opts.seed if c["seed"] is None else c["seed"])
                groups.setdefault(gkey, (wparams, []))
                mine = _split(c["methods"])
                for m in mine:
                    if m not in groups[gkey][1]:
                        groups[gkey][1].append(m)
                specs.append((gkey, tuple(mine)))
        except ValueError as exc:
            specs = exc
        plans.append((claim, specs))
    plans_of = {id(claim): specs if isinstance(specs, list) else [] for claim, specs in plans}

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(groups) + len(plans), file=sys.stderr, unit="step", leave=False)
    frames: dict = {}
    for gkey, (wparams, methods) in groups.items():
        wname, _, P, machine, initial, repeats, seed = gkey
        if bar:
            bar.set_description(f"cells {wname} P={P} {machine}")
        frames[gkey] = fetch(opts, methods, P=P, machine=machine, workload=wname, workload_params=wparams,
                             initial=initial, progress=False, seed=seed,
                             **({"repeats": repeats} if repeats > 1 else {}))
        if bar:
            bar.update()

    judged = {}
    for claim, specs in plans:
        if bar:
            bar.set_description(claim.name)
        judged[id(claim)] = judge(claim, specs, frames)
        if bar:
            bar.update()
    if bar:
        bar.close()
    out = []
    for claim in claims:
        o = judged[id(claim)]
        o.start = ", ".join(dict.fromkeys(g[4] for g, _ in plans_of[id(claim)])) if plans_of[id(claim)] else ""
        if family[id(claim)]:
            verdicts = [o.verdict, *(judged[id(v)].verdict for v in family[id(claim)])]
            o.robust = f"holds on {verdicts.count(HOLDS)} of {len(verdicts)}"
        out.append(o)
    return out


def start(c: dict, wname: str, opts) -> str:
    """Where a claim's cell starts: its own ``initial``; else on the command's workload the command's, on
    another (the claim's own) that workload's start (``trace`` on a trace, as ``compare``: issue 50)."""
    if c["initial"]:
        return c["initial"]
    return opts.initial if wname == opts.workload else workloads.get(wname).initial


def checked(claims: list[Claim]) -> list[Claim]:
    """The claims, each quote whose words are not found in a source its plugin ships (:func:`quotes.unfound`)
    turned into our test saying why, with one warning line on stderr (rank 0's under MPI; issue 50)."""
    out = []
    comm = world()
    for c in claims:
        why = unfound(c) if c.kind == QUOTE else ""
        if why:
            if comm is None or comm.Get_rank() == 0:
                print(f"lbbench: warning: claim {c.name!r} is shown as our test: {why}", file=sys.stderr)
            c = demote(c, why, OURS)
        out.append(c)
    return out


def fetch(opts, methods: list, **kw) -> tuple:
    """The cells of ``methods`` at one (workload, P, machine, initial): ``(frame, {method: why missing})``.

    One ``compare`` for all; if it fails (a cell not stored, bad input), one
    per method, so a missing method makes only the claims that need it ``n/a``.
    """
    try:
        return opts.compare(methods, **kw), {}
    except (ValueError, LookupError, OSError) as exc:
        if len(methods) == 1:
            return pd.DataFrame(), {methods[0]: _one_line(exc)}
    parts, missing = [], {}
    for m in methods:
        got, why = fetch(opts, [m], **kw)
        parts.append(got)
        missing.update(why)
    return pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) \
        else pd.DataFrame(), missing


def verdict_of(holds) -> str:
    """A predicate's first value as a verdict: True/False, ``NOISE``, or None/NaN (``n/a``)."""
    if isinstance(holds, str):
        if holds not in VERDICTS:
            raise ValueError(f"unknown verdict {holds!r} (one of {', '.join(VERDICTS)})")
        return holds
    if holds is None or (isinstance(holds, float) and math.isnan(holds)):
        return NA
    return HOLDS if bool(holds) else FAILS


def judge(claim: Claim, specs, frames: dict) -> Outcome:
    """Run one claim's predicate on its cells' rows, and on the paper's printed figures if it has them."""
    t0 = time.perf_counter()
    paper_ok, paper = None, claim.reported
    if claim.on_paper is not None:
        try:
            paper_ok, paper = claim.on_paper()
            paper_ok = verdict_of(paper_ok)
        except Exception as exc:  # noqa: BLE001 - a broken reference reading is shown, not fatal
            paper_ok, paper = NA, f"paper's figures unreadable: {type(exc).__name__}: {_one_line(exc)}"
    if isinstance(specs, Exception):
        return Outcome(claim, NA, f"bad claim: {_one_line(specs)}", paper=paper)
    needed: dict = {}
    for gkey, methods in specs:
        have = needed.setdefault(gkey, [])
        have += [m for m in methods if m not in have]
    parts = []
    for gkey, methods in needed.items():
        got, missing = frames[gkey]
        lost = [m for m in methods if m in missing]
        if lost:
            return Outcome(claim, NA, f"cells unavailable: {missing[lost[0]]}", paper=paper)
        if len(got):
            parts.append(got[got["algorithm"].isin(methods)])
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    bad = df[df["status"] != "ok"] if "status" in df else df
    try:
        holds, ours = claim.check(df)
        verdict = verdict_of(holds)
    except Exception as exc:  # a broken predicate is that claim's problem, not the run's
        return Outcome(claim, NA, f"predicate error: {type(exc).__name__}: {_one_line(exc)}",
                       time.perf_counter() - t0, df, paper)
    if verdict == NA and len(bad):
        ours = f"{ours} ({len(bad)} failed cells)"
    if paper_ok == FAILS:  # the sentence does not hold on the paper's own printed figures
        ours, verdict = f"{ours} [on ours: {verdict}]", NOT_IN_PAPER
    return Outcome(claim, verdict, ours, time.perf_counter() - t0, df, paper, other=_other(claim, df))


def _other(claim: Claim, df: pd.DataFrame) -> str:
    """The verdict under the claim's other reading, as a line ("" without one)."""
    if not claim.other:
        return ""
    label, check = claim.other
    try:
        holds, ours = check(df)
        return f"{label}: {verdict_of(holds)} ({ours})"
    except Exception as exc:  # noqa: BLE001 - shown beside, never decides
        return f"{label}: n/a ({type(exc).__name__}: {_one_line(exc)})"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


TABLE_COLUMNS = ["Paper", "Where", "Start", "Claim", "Ours", "Paper's figures", "Verdict", "Why", "Robustness"]


def table(outcomes: list[Outcome], fmt: str = "text") -> pd.DataFrame:
    """One row per claim: Paper, Where, Start (where its cells started), Claim, Ours (and the other reading's
    verdict), Paper's figures, Verdict, Why (the cause of a "does not hold"), Robustness (text wrapped for
    ``text``)."""
    wrap = (lambda s, w: "\n".join(textwrap.wrap(s, w)) or s) if fmt == "text" else (lambda s, w: s)
    rows = [{"Paper": o.claim.paper, "Where": wrap(o.claim.where, 16), "Start": o.start,
             "Claim": wrap(shown(o.claim), 48),
             "Ours": wrap(o.ours + (f" [other reading, {o.other}]" if o.other else ""), 40),
             "Paper's figures": wrap(o.paper or o.claim.reported, 30),
             "Verdict": wrap(o.verdict, 14), "Why": wrap(o.why, 30), "Robustness": wrap(o.robust, 12)}
            for o in outcomes]
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def shown(claim: Claim) -> str:
    """A claim's text as shown: a quote in quotation marks; ``our test`` without them, its source named."""
    if claim.kind == QUOTE:
        return f"“{claim.text}”"
    return f"Our test ({claim.source}): {claim.text}"


def counts(outcomes: list[Outcome]) -> dict:
    """Claims per verdict, every category of ``VERDICTS`` (0 included)."""
    return {v: sum(o.verdict == v for o in outcomes) for v in VERDICTS}


def summary(outcomes: list[Outcome]) -> str:
    n = counts(outcomes)
    return (f"{len(outcomes)} claims: {n[HOLDS]} hold, {n[FAILS]} do not hold, {n[NOT_IN_PAPER]} not in the "
            f"paper's own numbers, {n[NOISE]} within noise, {n[NA]} n/a")


# -- the paper's figures and repeated timings ------------------------------------------------------------------

def reference_frame(paper: str, tables: dict, columns: dict, status: str = "ok") -> pd.DataFrame:
    """The paper's printed figures as result rows, so a claim's own predicate runs on them (``on_paper``).

    ``tables``: our method -> the paper's table or tables (``{"plum-pmetis": "6", "sbn": ("5", "8")}``);
    ``columns``: the table's column -> our result column(s) (``{"MaxSR":
    "maxsr", "Pre-Exec Cut%": ("pre_exec_cut_pct", "sbn_pre_exec_cut_pct")}``).
    A table's ``row`` is either an adaptation level (``1``, ``2``, ...: one
    row per (method, P, level); rows that are not a level, ``Average``, are
    left out) or a method (a table keyed by method and P, docs/plugins.md's
    example: the rows whose ``row`` is the method, as level 1 of that P). A
    table printed per P only (``row`` = P) becomes level 1 (so a sum over
    levels is its value). Returns the columns ``algorithm, P, level,
    machine`` (``"paper"``), ``status`` and each of our columns; a table with
    none of the method's rows (or of ``columns``) is a ``LookupError`` naming
    it, never an empty frame.
    """
    rows: dict = {}
    for method, tabs in tables.items():
        for tab in (tabs if isinstance(tabs, (tuple, list)) else (tabs,)):
            ref = paper_values(paper, tab)
            if ref.empty:
                raise LookupError(f"no reference values for {paper} table {tab}")
            ref = ref[ref["column"].isin(columns)]
            if ref.empty:
                raise LookupError(f"{paper} table {tab} has none of the columns {', '.join(map(str, columns))}")
            by_method = ref[ref["row"].astype(str) == str(method)]
            if len(by_method):  # keyed by method (and P): the method's rows, level 1
                ref = by_method.assign(level=1.0)
                per_p = False
            else:
                ref = ref.assign(level=pd.to_numeric(ref["row"], errors="coerce"))
                ref = ref[ref["level"].notna()]
                if ref.empty:
                    raise LookupError(f"{paper} table {tab}: no row is a level (1, 2, ...) or the method "
                                      f"{method!r}; Claim.reference reads rows keyed by level or by method")
                per_p = (ref["level"] == pd.to_numeric(ref["P"], errors="coerce")).all()
            for (P, level), g in ref.groupby(["P", "level"], sort=True):
                key = (method, int(float(P)), 1 if per_p else int(level))
                row = rows.setdefault(key, {"algorithm": key[0], "P": key[1], "level": key[2], "machine": "paper",
                                            "status": status})
                for col, v in zip(g["column"], g["value"].astype(float)):
                    for ours in (columns[col] if isinstance(columns[col], (tuple, list)) else (columns[col],)):
                        row[ours] = v
    return pd.DataFrame(list(rows.values()))


def quartiles(samples) -> tuple[float, float]:
    """The middle half of repeated timings, ``(q25, q75)`` (one outlying run does not move it)."""
    x = np.asarray(samples, float)
    return (float(np.quantile(x, 0.25)), float(np.quantile(x, 0.75))) if x.size else (math.nan, math.nan)


def timing_pairs(pairs: list, need_all: bool = True, lower: bool = True):
    """Verdict of "a is faster than b" over ``pairs`` of repeated timings ``(label, a_runs, b_runs)``.

    A pair is decided when the middle halves of its two sets of runs (25th to
    75th percentile, :func:`quartiles`) do not overlap, so one outlying run
    on a shared host neither decides nor blocks a pair; otherwise it is
    within noise. The claim holds if the pairs it needs (every one, or more
    than half) are decided faster; it does not hold if the decided-slower
    pairs make that impossible; otherwise it is ``within noise``.
    ``lower=False``: "a is higher than b" (a speedup computed from each
    run). Returns (verdict, counts text, per-pair figures).
    """
    faster = slower = noise = 0
    figures = []
    for label, a, b in pairs:
        ma, mb = float(np.median(a)), float(np.median(b))
        (a25, a75), (b25, b75) = quartiles(a), quartiles(b)
        if not np.isfinite([ma, mb, a25, a75, b25, b75]).all() or min(len(a), len(b)) < 2:
            return None, "no repeated timings", ""
        if a75 >= b25 and b75 >= a25:
            noise += 1
            mark = "~"
        elif (ma < mb) == lower:
            faster += 1
            mark = "<" if lower else ">"
        else:
            slower += 1
            mark = ">" if lower else "<"
        figures.append(f"{label} {ma:.3g}{mark}{mb:.3g} (IQR {a25:.3g}-{a75:.3g} vs {b25:.3g}-{b75:.3g})")
    n = len(pairs)
    need = n if need_all else n // 2 + 1
    if faster >= need:
        verdict = HOLDS
    elif n - slower < need:
        verdict = FAILS
    else:
        verdict = NOISE
    better, worse = ("faster", "slower") if lower else ("higher", "lower")
    return verdict, f"{faster} {better}, {slower} {worse}, {noise} within noise of {n}", "; ".join(figures)


def record(outcomes: list[Outcome], out: str | None, commit: str) -> Path:
    """Append the verdicts to ``<results>/claims/history.csv`` (time, commit, claim, verdict, ours)."""
    import os


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


    f = Path(out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "claims" / "history.csv"
    if not f.exists():
        return pd.DataFrame(columns=["time", "commit", "paper", "claim", "verdict", "ours"])
    return pd.read_csv(f, dtype=str, keep_default_na=False)


def fmt_num(x: float) -> str:
    """A figure for the ``ours`` line: thousands separators for large values, two decimals otherwise."""
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.2f}"
