"""``lbbench reproduce``: every registered report and claim of the chosen papers, then the site.

Two passes over the same reports and claims:

1. **plan**: each report is built, and each claim's cells asked for, with
   :class:`PlanOptions`, whose ``compare`` records the cells asked for (their
   result-store keys, from :func:`harness.run.api.cell_key`) and answers a call
   whose cells are all stored with the rows ``compare`` reads back, any other
   with the stored rows and placeholder rows (status ``ok``, figures NaN) for
   the cells not stored yet. This gives the total of distinct cells for the
   progress bar before anything is computed, and the check that no cell is
   asked for under two keys (:func:`duplicates`); a report that read only
   stored cells is built, and is not built again.
2. **run**: the other builds with :class:`RunOptions`, whose ``compare`` is
   the ordinary one (the result store first, so a finished cell is never
   computed twice and an interrupted run resumes); one bar counts distinct
   cells done out of the planned total, with tqdm's ETA.

Then the claims' verdicts are recorded (``claims/history.csv``) and the site
is built from the store (:func:`harness.present.site.build`), showing the tables and
verdicts the run built. A report whose plan
needs figures the placeholders cannot give asks for more cells when it runs:
they are added to the bar's total as they come.
"""
from __future__ import annotations

import inspect
import json
import math
import sys
import time
import warnings
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from ..claims import calibrate as cb
from ..claims import claim as cl
from ..claims import fidelity as fd
from ..claims.reports import ALSO_REPRODUCED, ReportOptions, Table, known_papers, paper_of
from ..contract import plugins
from ..contract.model import Machine
from ..contract.spec import parse_call
from ..engine.vprocs import world
from ..measure.columns import SCHEMA
from ..run import runner, workloads
from ..run.api import (_methods, cell_key, compare, run_base, select, timing_group,
                       timing_stands)
from ..store import results
from ..store.results import git_commit
from ..store.validate import open_regular
from .site import build as build_site

def chosen(papers: list | tuple | None = None, only: list | tuple | None = None) -> tuple[dict, list]:
    """The reports (name -> Report) and claims of the named papers, or of all; an unknown paper is an error.

    ``only``: report and claim names to keep (the tests' small reproductions).
    """
    known = known_papers()
    papers = [p.strip() for p in papers or () if p.strip()]
    unknown = [p for p in papers if p not in known]
    if unknown:
        raise LookupError(f"unknown paper {unknown[0]!r} (papers: {', '.join(known)})")
    reps = {n: r for n, r in plugins.reports().items()
            if (paper_of(n, known) is not None and (not papers or paper_of(n, known) in papers))
            or (not papers and n in ALSO_REPRODUCED)}
    claims = cl.select(plugins.claims())
    if papers:
        claims = [c for c in claims if c.paper in papers]
    if only is not None:
        reps = {n: r for n, r in reps.items() if n in only}
        claims = [c for c in claims if c.name in only]
    return reps, claims


@dataclass(frozen=True)
class Cell:
    """One cell asked for: its store key, what determines its computation, and where it was asked for."""

    key: str
    identity: str  # the roles' algorithms with resolved parameters + workload, P, machine, initial, seed, levels
    method: str
    level: int
    by: str = field(default="", compare=False)  # the report or claim that asked for it (the plan's record)


def request_cells(methods, P, workload="shock", workload_params=None, levels=None, machine="uniform",
                  seed=0, initial="metis", timeout=None, generate=True, repeats=1, **_ignored) -> list[Cell]:
    """The cells one ``harness.compare`` call runs, in its order (methods, then levels; a timed group,
    ``repeats`` > 1: levels, then methods).

    ``generate=False`` does not load the workload: one cell per method with
    level None and a key standing for all its levels (two requests share it
    exactly when they share their cells' keys), for :func:`duplicates`.
    """
    comm = world()
    ranks = 1 if comm is None else comm.Get_size()  # a cell's key includes the rank count under MPI
    known = plugins.algorithms()
    mach = Machine.parse(machine, int(P))
    if generate:
        wl, wparams, all_levels = _indices(workload, json.dumps(workload_params or {}, sort_keys=True, default=str),
                                           seed)
        indices = [lv.index for lv in select(all_levels, levels)]
        first = indices[0]
    else:
        wl = workloads.get(workload)
        wparams = workloads.resolve_params(wl, workload_params or {})
        indices, first = [None], min(levels) if levels else "first"
    out = []
    for m in _methods(methods):
        pl = runner.plan(m, known)
        base, pversions = run_base(pl, wl, wparams, int(P), mach, initial, seed)
        roles = {phase: {role: [s.name, s.params] for role, s in pl.roles(phase == "first").items()}
                 for phase in ("first", "rest")}
        what = {k: v for k, v in base.items() if k not in ("algorithm", "params")}
        for level in indices:
            ident = json.dumps({"roles": roles, **what, "first_level": first, "level": level, "timeout": timeout},
                               sort_keys=True, default=str)  # not the timing repeats: one cell, topped up
            out.append(Cell(cell_key(base, first, level, pversions, timeout, ranks), ident, str(m), level))
    if int(repeats or 1) > 1:
        out.sort(key=lambda c: indices.index(c.level))  # (stable: the methods' order within a level)
    return out


@dataclass(frozen=True)
class _Index:
    index: int


@lru_cache(maxsize=256)
def _indices(workload: str, params: str, seed: int):
    """A workload, its resolved parameters and its level indices, loaded once per reproduction
    (:func:`reproduce` clears this); generating it here fills the workload cache for the run."""
    wl, wparams, levels = workloads.load(workload, json.loads(params), seed)
    return wl, wparams, [_Index(lv.index) for lv in levels]


class Placeholder(pd.DataFrame):
    """Rows of cells not stored yet: a column nobody filled in reads as NaN (a plan computes nothing)."""

    @property
    def _constructor(self):
        return Placeholder

    def __getitem__(self, key):
        if isinstance(key, str) and key not in self.columns:
            return pd.Series(np.nan, index=self.index, name=key, dtype=float)
        return super().__getitem__(key)


def _compare_arguments(opts: ReportOptions, methods, P, overrides: dict) -> dict:
    """The keyword arguments ``ReportOptions.compare`` passes to ``harness.compare``."""
    accepted = set(inspect.signature(compare).parameters)
    kw = {f.name: getattr(opts, f.name) for f in fields(ReportOptions) if f.name in accepted and f.name != "bars"}
    kw.update(overrides)
    kw["P"] = P if P is not None else (opts.P or [32])[0]
    kw["methods"] = methods
    return kw


class PlanOptions(ReportOptions):
    """Report options that record the cells asked for and compute nothing: a call whose cells are all stored
    is answered by ``compare`` reading them back (``complete`` stays True while every call was), any other
    with the stored rows and placeholder rows (figures NaN)."""

    def __init__(self, asked: list, rows: dict, generate: bool = True, by: str = "",
                 calls: list | None = None, read: bool = True, **kw):
        super().__init__(**kw)
        self.asked = asked
        self.rows = rows
        self.generate = generate
        self.read = read  # answer a call whose every cell is stored with the rows compare reads back
        self.by = by
        self.calls = calls if calls is not None else []
        self.complete = True  # every cell asked for so far was stored: what was built is the real thing

    def compare(self, methods, P=None, **overrides) -> pd.DataFrame:
        kw = _compare_arguments(self, methods, P, overrides)
        cells = [replace(c, by=self.by) for c in request_cells(**kw, generate=self.generate)]
        self.asked.extend(cells)
        self.calls.append((kw, cells))
        stored = [self.rows.get(c.key) for c in cells]
        repeats = int(kw.get("repeats") or 1)
        if self.read and self.generate and kw.get("cache", True) and \
                timing_stands(stored, timing_group(c.method for c in cells), repeats):
            return super().compare(methods, P=P, **overrides)  # every cell stored: the real rows, read back
        self.complete = False
        out = []
        for c, row in zip(cells, stored):
            if row is not None:
                out.append(dict(row))
            else:
                out.append({**dict.fromkeys(SCHEMA, np.nan), "workload": kw["workload"], "algorithm": c.method,
                            "level": c.level, "P": int(kw["P"]), "machine": kw.get("machine"),
                            "initial": kw.get("initial"), "seed": kw.get("seed"), "status": "ok", "ranks": 1})
        return Placeholder(out)

    def figure_path(self, name: str):
        """Pictures drawn from placeholders go to a scratch directory, never over the real ones."""
        import tempfile
        from pathlib import Path

        if self.complete:
            return super().figure_path(name)
        if not hasattr(self, "_scratch"):
            self._scratch = tempfile.TemporaryDirectory(prefix="lbbench-plan-")
        return Path(self._scratch.name) / name


class CellBar:
    """The one progress bar: distinct cells done out of the planned total (api.compare drives it per cell)."""

    def __init__(self, bar, planned: set):
        self.bar, self.planned, self.done, self.queue = bar, set(planned), set(), []

    # what api.compare calls on a shared bar
    @property
    def total(self):
        return self.bar.total if self.bar is not None else len(self.planned)

    @total.setter
    def total(self, _value):  # api.compare adds its cells; the plan already counted them
        pass

    def refresh(self):
        if self.bar is not None:
            self.bar.refresh()

    def set_description(self, text):
        if self.bar is not None:
            self.bar.set_description(text[:40])

    def expect(self, cells: list[Cell]) -> None:
        """The cells the next compare call walks, in its order."""
        self.queue = [c.key for c in cells]
        new = [k for k in dict.fromkeys(self.queue) if k not in self.planned]
        if new:
            self.planned.update(new)
            if self.bar is not None:
                self.bar.total += len(new)
                self.bar.refresh()

    def update(self, n: int = 1):
        for _ in range(n):
            key = self.queue.pop(0) if self.queue else None
            if key is not None and key not in self.done:
                self.done.add(key)
                if self.bar is not None:
                    self.bar.update(1)

    def close(self):  # closed by reproduce, not by a report
        pass

    def finished(self, keys: list[str]) -> None:
        """Cells a worker process computed (:func:`prefill`)."""
        new = [k for k in dict.fromkeys(keys) if k not in self.done]
        self.done.update(new)
        self.planned.update(new)
        if self.bar is not None and new:
            self.bar.update(len(new))


class RunOptions(ReportOptions):
    """Report options whose ``compare`` runs the cells (store first) and drives the one bar."""

    def __init__(self, cellbar: CellBar, failed: dict, **kw):
        super().__init__(**kw)
        self.cellbar = cellbar
        self.failed = failed
        self.bars = [cellbar]

    def compare(self, methods, P=None, **overrides) -> pd.DataFrame:
        kw = _compare_arguments(self, methods, P, overrides)
        cells = request_cells(**kw)
        self.cellbar.expect(cells)
        overrides["progress"] = True  # api.compare then drives the CellBar per cell (claims ask with False)
        df = super().compare(methods, P=P, **overrides)
        keys = {(c.method, c.level): c.key for c in cells}
        if len(df) and "status" in df:
            for row in df[df["status"] != "ok"].to_dict("records"):
                key = keys.get((row["algorithm"], int(row["level"])), repr(row["algorithm"]))
                self.failed[key] = f"{row['algorithm']} on {row['workload']}, P = {row['P']}, level {row['level']}: " \
                                   f"{row['status']}"
        return df


@dataclass
class Outcome:
    """What one reproduction did."""

    reports: list = field(default_factory=list)  # (name, tables, seconds, error or "")
    tables: dict = field(default_factory=dict)  # report name -> its tables (the site shows them)
    claims: list = field(default_factory=list)  # harness.claims.claim.claim.Outcome
    cells: int = 0
    computed: int = 0  # cells not in the store when the run began
    planned: int = 0
    failed: dict = field(default_factory=dict)  # key -> one line
    site: str = ""
    seconds: float = 0.0
    asked: list = field(default_factory=list)  # the plan's cells (with who asked for each)
    keys: set = field(default_factory=set)  # the cells the run went through
    plan_seconds: float = 0.0
    site_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not any(err for *_, err in self.reports)


def stored_by_key(out: str | None) -> pd.DataFrame:
    """The stored rows of finished cells that ran ok, indexed by their store key, read only."""
    ok = [(key, row) for key, row, _ in results.stored(out) if row.get("status") == "ok"]
    return pd.DataFrame([row for _, row in ok], index=[key for key, _ in ok])


def plan(reps: dict, claims: list, base: dict, generate: bool = True, rows: pd.DataFrame | None = None,
         calls: list | None = None, built: dict | None = None, workers: int = 1) -> tuple[list[Cell], dict]:
    """Every cell the reports and claims ask for (in order, with repeats) and, per report, a plan error.

    ``generate=False``: per method and run, not per level, without loading a workload (:func:`request_cells`).
    ``calls``, when given, receives every ``compare`` asked for: its keyword arguments and cells (:func:`jobs`).
    ``built``, when given, receives the tables and seconds of each report whose every cell was stored: its
    plan read the real rows, so it is built (the run does not build it again). ``workers`` > 1: the reports
    are planned in that many forked processes (:func:`_plan_reports`).
    """
    asked: list[Cell] = []
    calls = calls if calls is not None else []
    if rows is None:
        rows = stored_by_key(base.get("out")) if generate else pd.DataFrame()
    by_key = dict(zip(rows.index, rows.to_dict("records")))  # every column (NaN where a row lacks one)
    errors, claimed = {}, ([], [])  # the claims' cells and calls, asked while the reports are planned
    planned = _plan_reports(reps, by_key, generate, base, workers,
                            meanwhile=lambda: _plan_claims(claims, by_key, generate, base, *claimed))
    for name, (cells, its_calls, error, done) in planned.items():
        asked.extend(cells)  # in the reports' order, whoever planned them
        calls.extend(its_calls)
        if error:
            errors[name] = error
        elif done is not None and built is not None:
            built[name] = done
    asked.extend(claimed[0])
    calls.extend(claimed[1])
    return asked, errors


def _plan_claims(claims: list, by_key: dict, generate: bool, base: dict, asked: list, calls: list) -> None:
    """The cells each claim declares (into ``asked`` and ``calls``), without running its predicate."""
    for claim in [*claims, *(cl.variant(c, label, ov) for c in claims for label, ov in c.variants)]:
        opts = PlanOptions(asked, by_key, generate, by=f"{claim.paper} claims", calls=calls, read=False,
                           **{**base, "progress": False})
        try:
            specs = cl.cell_specs(claim)
        except ValueError:
            continue  # a malformed claim is n/a when it is judged
        for c in specs:
            where = {}
            if c["workload"]:
                call = parse_call(c["workload"])
                where = {"workload": call.name, "workload_params": dict(call.given)}
            opts.compare(c["methods"], P=c["P"], **where, **({"machine": c["machine"]} if c["machine"] else {}),
                         initial=cl.start(c, where.get("workload", opts.workload), opts),
                         **({"seed": c["seed"]} if c.get("seed") is not None else {}),
                         **({"repeats": c["repeats"]} if c.get("repeats", 1) > 1 else {}))


def _plan_report(rep, name: str, by_key: dict, generate: bool, base: dict) -> tuple:
    """One report's plan: (its cells asked for, its calls, a plan error or "", (tables, seconds) when every
    cell it read was stored, else None)."""
    asked, calls = [], []
    opts = PlanOptions(asked, by_key, generate, by=name, calls=calls, **{**base, "progress": False})
    t = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # predicates and tables on NaN placeholders
        try:
            tables = rep.build(opts)
        except Exception as exc:  # noqa: BLE001 - placeholders cannot feed this report further
            return asked, calls, f"{type(exc).__name__}: {exc}", None  # (it asks for the rest at run time)
    return asked, calls, "", ((tables, time.perf_counter() - t) if opts.complete else None)


_PLANNING: dict = {}  # what forked planners read (the reports are code: not sent to them)


def _planned(name: str) -> tuple:
    p = _PLANNING
    return _plan_report(p["reps"][name], name, p["by_key"], p["generate"], p["base"])


def _plan_reports(reps: dict, by_key: dict, generate: bool, base: dict, workers: int, meanwhile) -> dict:
    """:func:`_plan_report` of every report, in the reports' order, and ``meanwhile()`` in this process: in
    ``workers`` forked processes when more than one (a report whose plan cannot come back from one, or every
    one after a worker died, is planned here)."""
    got: dict = {}
    if workers > 1 and generate and len(reps) > 1:
        from concurrent.futures import as_completed

        _PLANNING.update(reps=reps, by_key=by_key, generate=generate, base=base)
        pool, futures = _fork(workers, _planned, [(name, name) for name in reps])
        try:
            meanwhile()
            for fut in as_completed(futures):
                try:
                    got[futures[fut]] = fut.result()
                except Exception:  # noqa: BLE001 - a plan that does not pickle, a dead worker: planned here
                    continue
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            _PLANNING.clear()
    else:
        meanwhile()
    return {name: got.get(name) or _plan_report(rep, name, by_key, generate, base) for name, rep in reps.items()}


def _fork(workers: int, fn, tasks: list) -> tuple:
    """``fn(arg)`` for each ``(key, arg)`` of ``tasks`` in a pool of ``workers`` forked processes: (the
    pool, future -> key). This process's objects are frozen while the workers fork (the first submit forks
    them all), so that they stay out of the workers' collections (the gc docs' advice before a fork): their
    pages stay shared, and no worker's full collection walks them, inside a timed run or not."""
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    gc.collect()
    gc.freeze()
    try:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        return pool, {pool.submit(fn, arg): key for key, arg in tasks}
    finally:
        gc.unfreeze()


def jobs(calls: list, seconds: dict | None = None) -> list[tuple[dict, dict]]:
    """The plan's ``compare`` calls as independent jobs: one method through its levels each (runs of
    different methods, P, machines or workloads never depend on each other), asked once; but the methods of
    calls timed more than once (``repeats`` > 1, wall-time claims) at one workload, P, machine, initial and
    levels are one job, their union, with the most repeats asked: their runs are interleaved
    (``harness.run.api.compare``), so drift enters every compared cell's spread alike, and a top-up retimes
    them all. Each job with its cells' keys by (method, level). Longest first: by the seconds an earlier run
    of the same job took (``seconds``, :func:`job_seconds`), a job never timed first of all, then by cells."""
    def where(kw):
        return json.dumps({k: v for k, v in kw.items() if k not in ("methods", "repeats", "progress")},
                          sort_keys=True, default=str)

    timed: dict = {}  # where -> (its arguments, methods, repeats)
    for kw, _ in calls:
        if int(kw.get("repeats") or 1) > 1:
            job, methods, k = timed.setdefault(where(kw), ({k: v for k, v in kw.items() if k != "progress"}, [], 1))
            methods += [str(m) for m in _methods(kw["methods"]) if str(m) not in methods]
            timed[where(kw)] = (job, methods, max(k, int(kw["repeats"])))
    by: dict = {}
    for kw, cells in calls:
        at = where(kw)
        for m in _methods(kw["methods"]):
            if at in timed and str(m) in timed[at][1]:
                job, methods, k = timed[at]
                job = {**job, "methods": ",".join(methods), "repeats": k}
            else:
                job = {k: v for k, v in kw.items() if k not in ("repeats", "progress")} | {"methods": str(m),
                                                                                           "repeats": 1}
            seen, keys = by.setdefault(json.dumps(job, sort_keys=True, default=str), (job, {}))
            keys.update({(c.method, c.level): c.key for c in cells if c.method == str(m)})
    took = seconds or {}
    return sorted(by.values(), key=lambda j: (-took.get(job_name(j[0]), math.inf), -len(j[1]), -int(j[0]["P"] or 0)))


def job_name(kw: dict) -> str:
    """What identifies a job for its recorded time: its arguments but where results go."""
    return json.dumps({k: v for k, v in kw.items() if k != "out"}, sort_keys=True, default=str)


def job_seconds(update: dict | None = None) -> dict:
    """Wall seconds of earlier reproductions' jobs on this machine (the workload cache's
    ``reproduce-jobs.json``: an order for the next run's jobs, never a figure); ``update`` merges new ones
    in. An unreadable record is an empty one."""
    import os


    path = workloads.cache_dir() / "reproduce-jobs.json"
    try:
        with open_regular(path, 1 << 24, "job times") as fh:
            known = {k: float(v) for k, v in json.loads(fh.read().decode()).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        known = {}
    if update:
        known.update(update)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(known, sort_keys=True))
            os.replace(tmp, path)
        except OSError:  # a read-only cache: the next run orders by cells
            pass
    return known


def _job(job: tuple[dict, dict]) -> tuple[list[str], float]:
    """One job in a worker process: its cells computed and stored; the keys of those that finished ok and
    its wall seconds."""
    t = time.perf_counter()
    kw, keys = job
    df = compare(**kw, progress=False)
    ok = df[df["status"] == "ok"] if len(df) else df
    return [keys[(str(a), int(lv))] for a, lv in zip(ok.get("algorithm", []), ok.get("level", []))
            if (str(a), int(lv)) in keys], time.perf_counter() - t


def prefill(todo: list[tuple[dict, dict]], workers: int, cellbar: CellBar, log, between=None) -> dict:
    """Compute the jobs' cells in ``workers`` processes (forked, so the registered plugins are theirs);
    each stores its cells as they finish, and the reports and claims then read them from the store. A job
    that raises or a worker that dies leaves its cells to the ordinary run, which reports the failure.
    ``between()`` runs in this process after each finished job (the reports whose cells are all in).
    Returns the wall seconds of each job that finished (by :func:`job_name`)."""
    import multiprocessing
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    pool, futures = _fork(workers, _job, [(job_name(job[0]), job) for job in todo])
    took = {}
    try:
        for fut in as_completed(futures):
            try:
                keys, took[futures[fut]] = fut.result()
                cellbar.finished(keys)
            except BrokenProcessPool:
                log("reproduce: a worker process died; the remaining cells run in this process")
                break
            except Exception:  # noqa: BLE001 - the ordinary run recomputes the job and reports it
                continue
            if between is not None:
                between()
    except BaseException:  # Ctrl-C, a time limit: the workers stop now (their finished cells are stored)
        pool.shutdown(wait=False, cancel_futures=True)
        while kids := multiprocessing.active_children():  # (one the pool started meanwhile included)
            for child in kids:
                child.kill()  # SIGKILL: a worker forked while a lock was held can block SIGTERM, and hang join()
                child.join()
        raise
    pool.shutdown(wait=True, cancel_futures=True)
    return took


def duplicates(cells: list[Cell]) -> dict:
    """Computations asked for under more than one store key: identity -> the keys and methods."""
    by: dict = {}
    for c in cells:
        by.setdefault(c.identity, {})[c.key] = c.method
    return {ident: keys for ident, keys in by.items() if len(keys) > 1}


def record_history(outcomes: list, out: str | None) -> None:
    """Append the verdicts to ``claims/history.csv``; a results directory that cannot be written (the read-only
    run the store promised) gets one warning line instead of an error."""
    try:
        cl.record(outcomes, out, git_commit())
    except OSError as exc:
        results.warn(f"claims history not recorded ({exc.strerror or exc}): the results directory is read-only")


def reproduce(papers=None, out: str | None = None, site: str | None = "site", progress: bool = True,
              timeout: float | None = None, is_root: bool = True, log=None, only=None, workers: int = 1,
              selected: tuple | None = None) -> Outcome:
    """Plan, run every report and claim of ``papers`` (all if None), record the verdicts, build the site.

    ``is_root``: this rank writes (verdicts, site) and shows the bar; ``only``: see :func:`chosen`;
    ``workers`` > 1: the cells are first computed by that many processes (:func:`prefill`; not under MPI);
    ``selected``: ``(reports, claims)`` to run instead of the papers' (``lbbench calibrate``'s fits).
    """
    t0 = time.perf_counter()
    log = log or (lambda text: None)
    reps, claims = selected or chosen(papers, only)
    _indices.cache_clear()
    base = dict(out=out, timeout=timeout, progress=progress and is_root)
    log(f"planning {len(reps)} reports and {len(claims)} claims")
    comm = world()
    ranks = comm is not None and comm.Get_size() > 1
    stored = stored_by_key(out) if is_root or not ranks else None
    if ranks:  # rank 0's store: every rank's plan takes the same calls as stored (compare reads them collectively)
        stored = comm.bcast(stored, root=0)
    calls: list = []
    ready_built: dict = {}  # reports whose every cell was stored: built by the plan
    asked, plan_errors = plan(reps, claims, base, rows=stored, calls=calls, built=ready_built,
                              workers=1 if ranks else workers)
    planned = list(dict.fromkeys(c.key for c in asked))
    plan_seconds = time.perf_counter() - t0
    bar = None
    if progress and is_root:
        from tqdm import tqdm

        bar = tqdm(total=len(planned), file=sys.stderr, unit="cell", dynamic_ncols=True,
                   bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} cells [{elapsed}<{remaining}]")
    cellbar = CellBar(bar, planned)
    result = Outcome(planned=len(planned), asked=asked, plan_seconds=plan_seconds)
    built: dict = {}  # report name or "PAPER claims" -> what it gave
    need: dict = {}
    for c in asked:
        need.setdefault(c.by, set()).add(c.key)
    papers = {f"{c.paper} claims": [x for x in claims if x.paper == c.paper] for c in claims}
    stored_keys = set(stored.index)

    def build(name: str) -> None:
        """One report, or one paper's claims, on the cells in the store (those missing are computed)."""
        if name in ready_built:
            cellbar.finished(sorted(need.get(name, ())))
            result.tables[name], seconds = ready_built[name]
            built[name] = (name, len(result.tables[name]), seconds, "")
            return
        t = time.perf_counter()
        opts = RunOptions(cellbar, result.failed, **base)
        if name in papers:
            built[name] = cl.evaluate(papers[name], opts)
            return
        try:
            tables: list[Table] = reps[name].build(opts)
            err = ""
        except Exception as exc:  # noqa: BLE001 - one report's error is reported, the others go on
            tables, err = [], f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        built[name] = (name, len(tables), time.perf_counter() - t, err)
        if not err:
            result.tables[name] = tables

    def ready() -> None:
        """While the workers compute: every report and paper's claims whose planned cells are all stored (a
        report whose plan asks for more at run time waits for the end)."""
        have = cellbar.done | stored_keys
        for name in [*reps, *papers]:
            if name not in built and name not in plan_errors and need.get(name, set()) <= have:
                build(name)

    try:
        if workers > 1 and len(planned) > len(set(planned) & stored_keys):
            took = prefill(jobs(calls, job_seconds()), workers, cellbar, log, between=ready)
            if is_root:
                job_seconds(took)
        for name in [*reps, *papers]:
            if name not in built:
                build(name)
        result.reports = [built[name] for name in reps]
        judged = {o.claim.name: o for name in papers for o in built[name]}  # by name: a quote not found is a new claim
        result.claims = [judged[c.name] for c in claims]
    finally:
        if bar is not None:
            bar.close()
    result.cells = len(cellbar.done)
    result.keys = set(cellbar.done)
    result.computed = len(cellbar.done - set(stored.index))
    if is_root:
        if claims:
            record_history(result.claims, out)
        if site:
            t = time.perf_counter()
            result.site = str(build_site(out, site, workers=workers, tables=result.tables, outcomes=result.claims))
            result.site_seconds = time.perf_counter() - t
    result.seconds = time.perf_counter() - t0
    return result


def where_time(result: Outcome, rows: pd.DataFrame) -> list[Table]:
    """Where the reproduction's time went: the stored ``time_total_s`` (a cell's wall time when it was
    computed, in this run or an earlier one) of the cells it went through, per report (a cell asked for
    by several counts for the first that asked, in the plan's order; a paper's claims count as one) and
    per method, beside the planning and the site's wall time of this run."""
    first: dict = {}
    for c in result.asked:
        first.setdefault(c.key, (c.by, c.method))
    keys = [k for k in result.keys if k in rows.index and "time_total_s" in rows]
    cells = pd.DataFrame({"by": [first.get(k, ("asked at run time", ""))[0] for k in keys],
                          "method": rows.loc[keys, "algorithm"].astype(str).to_numpy() if keys else [],
                          "seconds": pd.to_numeric(rows.loc[keys, "time_total_s"], errors="coerce").to_numpy()
                          if keys else []})
    total = float(cells["seconds"].sum())
    tables = []
    for col, title in (("by", "Report"), ("method", "Method")):
        g = cells.groupby(col)["seconds"].agg(["count", "sum"]).sort_values("sum", ascending=False)
        frame = pd.DataFrame({title: g.index, "Cells": g["count"].astype(object).to_numpy(),
                              "Seconds": g["sum"].round(1).to_numpy(),
                              "Share %": (100 * g["sum"] / total).round(1).astype(object).to_numpy() if total else ""})
        extra = [{title: "planning (this run)", "Cells": "", "Seconds": round(result.plan_seconds, 1), "Share %": ""},
                 {title: "site (this run)", "Cells": "", "Seconds": round(result.site_seconds, 1), "Share %": ""}
                 ] if col == "by" else []
        tables.append(Table(f"Where the time went, per {title.lower()} (stored time_total_s of the "
                            f"{len(cells)} cells: {total:.1f} s)", pd.concat([frame, pd.DataFrame(extra)],
                                                                            ignore_index=True)))
    return tables


def summary(result: Outcome, rows: pd.DataFrame | None = None) -> list[Table]:
    """Per report its tables and time; the claims' verdicts; the failed cells; with ``rows`` (the store),
    where the time went (:func:`where_time`)."""
    rows_ = [{"Report": n, "Tables": k, "Seconds": round(s, 1), "Error": e} for n, k, s, e in result.reports]
    tables = [Table("Reports", pd.DataFrame(rows_, columns=["Report", "Tables", "Seconds", "Error"]))]
    if rows is not None:
        tables.extend(where_time(result, rows))
    pairs = fd.all_pairs(result.tables, cb.calibration_keys(plugins.calibrations().values()))
    if len(pairs):
        tables.append(Table("Fidelity: our cells within 0.67-1.5x of the paper's (calibration cells left out)",
                            fd.totals(pairs), "per table and the worst cells: lbbench fidelity"))
    if result.claims:
        frame = pd.DataFrame([{"Paper": o.claim.paper, "Claim": o.claim.name, "Verdict": o.verdict,
                               "Why": o.why.split(":")[0], "Robustness": o.robust} for o in result.claims])
        tables.append(Table("Claims", frame, cl.summary(result.claims) + " (each cause in full: lbbench claims)"))
    if result.failed:
        tables.append(Table("Failed cells", pd.DataFrame({"Cell": list(result.failed.values())})))
    return tables


def line(result: Outcome) -> str:
    """The one-line result: cells, failures, claims, site, wall time."""
    parts = [f"{result.cells} cells ({result.planned} planned, {result.computed} computed)",
             f"{len(result.failed)} failed"]
    errs = sum(1 for *_, e in result.reports if e)
    if errs:
        parts.append(f"{errs} reports with errors")
    if result.claims:
        parts.append(cl.summary(result.claims))
    if result.site:
        parts.append(f"site {result.site}")
    secs = result.seconds
    parts.append(f"{secs:.1f} s" if secs < 120 else f"{math.floor(secs / 60)} min {secs % 60:.0f} s")
    return "reproduce: " + "; ".join(parts)
