"""The Python entry point: ``compare(...) -> DataFrame`` (one row per method and level)."""
from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Callable

from ..contract import pins, plugins
from ..contract.forms import vertices
from ..contract.lazy import lazy_module
from ..contract.model import Boxes, Graph, Machine, State
from ..contract.spec import Method, parse_methods
from ..engine.shared import HostArrays
from ..engine.timing import repeat_timing, repeats_of, snapshot, timed_columns
from ..engine.vprocs import Engine, world
from ..measure.metrics import changed_weight
from ..store.results import (CORE, Store, core_code, git_commit, plugin_code,
                             versions)
from ..store.validate import check_level
from . import workloads
from .runner import (INITIAL, RunMemory, carry, graph_of, initial_state, plan,
                     run_cell)

pd = lazy_module("pandas")  # read once the rows are made: no rank holds pandas while it runs a level (issue 52)


def _methods(methods) -> list[Method]:
    if isinstance(methods, str):
        return parse_methods(methods)
    return [m if isinstance(m, Method) else parse_methods(m)[0] for m in methods]


def load_levels(engine: Engine | None, name: str, params: dict | None, seed: int, levels: list | None = None):
    """The workload's levels (those ``levels`` span, when cached: :func:`harness.run.workloads.load`); rank 0
    generates (and caches) them first, the other ranks then load.

    ``engine`` None: the ranks of MPI.COMM_WORLD when launched by mpiexec (before any Engine exists).
    """
    comm = world() if engine is None else engine.comm
    root = comm is None or comm.Get_rank() == 0
    if root:
        out = workloads.load(name, params, seed, levels)
    if comm is not None and comm.Get_size() > 1:
        comm.Barrier()
    if not root:
        out = workloads.load(name, params, seed, levels)
    return out


MAX_SEED = 2**31 - 1  # METIS and the plugins' generators take a C int


def select(levels: list, wanted: list | None) -> list:
    if not wanted:
        return levels
    have = {lv.index: lv for lv in levels}
    missing = [i for i in wanted if i not in have]
    if missing:
        raise ValueError(f"level {missing[0]} does not exist (levels {min(have)}-{max(have)})")
    first = min(wanted)
    return [lv for lv in levels if first <= lv.index <= max(wanted)]


def run_base(pl, wl, wparams: dict, P: int, mach: Machine, initial: str, seed: int) -> tuple[dict, dict]:
    """The identity columns of one method's run and the versions (with source hashes) of its plugins."""
    pversions = {s.algorithm.plugin: [s.algorithm.version, plugin_code(s.algorithm.plugin)] for s in pl.steps}
    pversions[CORE] = core_code()  # every cell's figures are the harness's too (the core's methods' own code)
    base = dict(workload=wl.name, workload_version=wl.version, workload_params=json.dumps(wparams, sort_keys=True),
                algorithm=str(pl.method), params=pl.params_json(), P=P, machine=mach.name, initial=initial,
                seed=seed)
    return base, pversions


def cell_key(base: dict, first_level: int, level: int, pversions: dict, timeout: float | None, ranks: int = 1) -> str:
    """The result-store key of one cell: everything that determines it (and the MPI rank count, ``ranks_key``;
    not the timing repeats: a stored group timed fewer times than asked is retimed, :func:`_interleave`)."""
    return Store.key({**base, "first_level": first_level, "level": level, "plugins": pversions, "timeout": timeout,
                      **ranks_key(ranks)})


def progress_bar(cells: int, bars: list | None):
    """A bar over ``cells`` more cells: a new one, or the shared one in ``bars`` (a report's), made on first use."""
    from tqdm import tqdm

    if bars:
        bars[0].total += cells
        bars[0].refresh()
        return bars[0]
    bar = tqdm(total=cells, file=sys.stderr, unit="cell", leave=False)
    if bars is not None:
        bars.append(bar)
    return bar


def _check_cell(pl, row: dict, state, memory, g) -> None:
    """A stored cell's row, state and memory fit this run: figures within the level (:func:`check_level`), one
    owner per vertex of the level (State checks the range), the plan's memory types (raises ValueError: the store
    moves the cell aside)."""
    check_level(row, g)
    if state.owner.size != g.n:
        raise ValueError(f"state has {state.owner.size} owners, the level {g.n} vertices")
    pl.check_memory(memory)


def _fits(row: dict, lv) -> bool:
    """Whether a stored row's figures fit its level (a graph level; other forms are checked when their cell
    is read whole)."""
    try:
        return not isinstance(lv.data, Graph) or bool(check_level(row, lv.data))
    except ValueError:
        return False


def ranks_key(R: int) -> dict:
    """The MPI rank count's part of a cell's key: none for one process (keys of stores from before it joined
    stay valid), ``{"ranks": R}`` otherwise, so ``--mpi R`` recomputes, and so checks, every cell."""
    return {"ranks": R} if R > 1 else {}


def processors(workload: str, workload_params: dict | None, P: int | None) -> tuple[int, dict]:
    """P for a run: the given one, else the processors the workload's data implies (a trace's ranks), else 32.

    A P different from the one the data implies is ValueError (a trace workload offers its own mapping).
    Also returns the workload's resolved parameters.
    """
    wl = workloads.get(workload)
    params = workloads.resolve_params(wl, workload_params or {})
    wanted = wl.procs(params) if wl.procs is not None else None
    if P is None:
        return wanted or 32, params
    if wanted is not None and P != wanted:
        raise ValueError(f"-P {P}: workload {workload} has {wanted} processors; map ranks onto fewer processors "
                         f"with its parameter ranks_per_proc (e.g. {workload}[ranks_per_proc=2]) or leave -P out")
    return P, params


def compare(methods, workload: str = "shock", P: int | None = 32, levels: list | None = None,
            machine: str = "uniform", seed: int = 0, out: str | None = None, timeout: float | None = None,
            cache: bool = True, progress: bool = False, workload_params: dict | None = None,
            engine: Engine | None = None, initial: str | None = None, reuse_failed: bool = False,
            show_traceback: bool = False, bars: list | None = None, repeats: int = 1,
            states: dict | None = None) -> "pandas.DataFrame":
    """Run every method through the workload's levels at P processors; resume from ``out`` when possible.

    Every method starts its first level from the same ``initial`` distribution
    (``metis``, ``block``, ``root``, ``trace`` or a partitioning algorithm's
    name; None: the workload's default). With ``trace`` every level starts
    where the application ran it. ``P`` None: the workload's own (a trace's
    ranks) or 32. Stored
    cells are reused; failed ones are recomputed unless ``reuse_failed``.
    ``repeats`` > 1 makes the methods' cells one timed group, run level by
    level: each method's cell is computed once, then the timed part of those
    cells runs that many times, interleaved (:func:`_interleave`: A1 B1 A2
    B2 ...), and each row gets the
    runs, median and spread of its timed columns (``harness.engine.timing``),
    the group and the session; a group not stored whole from one session is
    retimed whole, the cells' figures unchanged (:func:`timing_stands`).
    ``states``, when given, receives each method's owners after every level
    (``states[method][level] = owner``, for ``--export-vt``).
    Returns one row per (method, level) on every rank. Bad input raises
    ValueError, LookupError or OSError with a one-line message.
    """
    methods = _methods(methods)
    P, _ = processors(workload, workload_params, P)
    initial = initial or workloads.get(workload).initial
    if int(repeats) != repeats or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats}")
    if isinstance(P, bool) or int(P) != P or P < 1:
        raise ValueError(f"P must be a positive integer, got {P}")
    P = int(P)
    if isinstance(seed, bool) or int(seed) != seed or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed}: must be an integer in [0, {MAX_SEED}]")
    seen = set()
    for m in methods:
        if str(m) in seen:
            raise ValueError(f"method {str(m)!r} is given twice")
        seen.add(str(m))
    known = plugins.algorithms()
    plans = [plan(m, known) for m in methods]
    resolved: dict = {}  # two spellings of one method (lbaf-iat, lbaf-iat[rounds=2] at its default) are one
    for m, pl in zip(methods, plans):
        roles = tuple((r, st.name) for part in (pl.first, pl.rest) for r, st in part.items())
        other = resolved.setdefault((roles, pl.params_json()), str(m))
        if other != str(m):
            raise ValueError(f"methods {other!r} and {str(m)!r} are one method (the same parameters): give it once")
    if initial not in INITIAL:
        plan(parse_methods(initial)[0], known)  # an unknown or broken algorithm is a one-line error now
    # the workload first: P is checked against its size before anything of size P is allocated
    wl, wparams, all_levels = load_levels(engine, workload, workload_params, seed, levels)
    run_levels = select(all_levels, levels)
    shown = {lv.index for lv in run_levels} if not levels else set(levels)
    first_data = run_levels[0].data
    if isinstance(first_data, Boxes):  # box pieces can be split down to cells: P is bounded by the cells
        if P > int(first_data.cells.sum()):
            raise ValueError(f"P = {P} is larger than the workload's level {run_levels[0].index} "
                             f"({int(first_data.cells.sum())} cells)")
    elif P > (n := vertices(first_data)):
        raise ValueError(f"P = {P} is larger than the graph of the workload's level {run_levels[0].index} "
                         f"({n} vertices)")
    for lv in run_levels:
        pins.check_range(lv, P)
    for pl in plans:  # what a method needs of the levels (Algorithm.needs): refused now, not silently ignored
        for st in pl.steps:
            lacking = [a for a in (st.algorithm.needs(st.params) if st.algorithm.needs else ())
                       if all(getattr(lv, a, None) is None for lv in run_levels)]
            if lacking:
                raise ValueError(f"{pl.method}: {st.name} with these parameters needs Level.{lacking[0]}, which no "
                                 f"level of workload {workload} has")
    mach = Machine.parse(machine, P)
    eng = engine or Engine(P, mach)
    store = Store(out, writer=eng.is_root)
    start = partial(initial_state, run_levels[0], P, seed, initial, eng, known)  # made when a cell needs it

    bar = progress_bar(len(plans) * len(run_levels), bars) if progress and eng.is_root else None
    bases = [run_base(pl, wl, wparams, P, mach, initial, seed) for pl in plans]
    group = timing_group(str(pl.method) for pl in plans)
    retime = int(repeats) > 1 and not (cache and _group_stands(store, eng, bases, run_levels, timeout, group,
                                                               int(repeats)))
    rows = _rows(_Run(run_levels, start, P, mach, eng, store, seed, initial, timeout, cache, reuse_failed,
                      int(repeats), show_traceback, retime), plans, bases, states, bar, group)
    HostArrays.of(eng).release()  # the run's host-shared arrays (the first level's owners, ...), its states gone
    if bar and bars is None:
        bar.close()
    return pd.DataFrame([row for row in rows if row["level"] in shown])


def _rows(run: "_Run", plans: list, bases: list, states: dict | None, bar, group: str) -> list:
    """Every method's rows through the run's levels (its states dropped on return)."""
    walks = [_Walk(run, pl, base, pversions, states, bar) for pl, (base, pversions) in zip(plans, bases)]
    if run.repeats > 1:  # a timed group, level by level: every method's cell, then their runs interleaved
        session = uuid.uuid4().hex[:12]
        session = run.eng.bcast(session) if run.eng.R > 1 else session
        for i in range(len(run.levels)):
            _interleave(run, [t for w in walks if (t := w.step(i)) is not None], group, session)
    else:  # one method through its levels, then the next
        for w in walks:
            for i in range(len(run.levels)):
                w.step(i)
    return [row for w in walks for row in w.rows]


def timing_group(methods) -> str:
    """A timed group's ``timing_group`` column: its methods, sorted, comma-separated."""
    return ",".join(sorted(set(map(str, methods))))


def timing_stands(rows: list, group: str, repeats: int) -> bool:
    """Whether stored ``rows`` (None: not stored) answer a group timed ``repeats`` times: every cell stored,
    and every ok one timed that often in one session (``timing_session``) whose group held all of
    ``group``'s methods (a cell failed keeps no timing)."""
    if any(row is None for row in rows):
        return False
    ok = [row for row in rows if row.get("status") == "ok"]
    if repeats <= 1:
        return True
    want = set(group.split(","))
    return all(repeats_of(row) >= repeats and isinstance(row.get("timing_group"), str)
               and want <= set(row["timing_group"].split(",")) for row in ok) \
        and len({row.get("timing_session") for row in ok}) <= 1


def _group_stands(store: Store, eng: Engine, bases: list, levels: list, timeout, group: str, repeats: int) -> bool:
    """:func:`timing_stands` on the stored rows of every cell of a timed ``compare`` (rank 0 reads, all agree)."""
    stands = None
    if eng.is_root:
        rows = [store.row(cell_key(base, levels[0].index, lv.index, pversions, timeout, eng.R),
                          {**base, "level": lv.index}) for base, pversions in bases for lv in levels]
        stands = timing_stands([r if r is None or r.get("ranks", 1) == eng.R else None for r in rows], group,
                               repeats)
    return eng.bcast(stands) if eng.R > 1 else stands


@dataclass
class _Timed:
    """A cell of a timed group waiting for its runs: its row, its store key and the run of its timed part."""

    key: str
    row: dict
    again: Callable[[], dict]
    layout: object  # the work the engine laid its vprocs out by for the cell (``Engine.balance_ranks``)
    runs: list = field(default_factory=list)


def _interleave(run: _Run, pending: list, group: str, session: str) -> None:
    """The timed part of a group's cells of one level, ``run.repeats`` times, interleaved (run k of every cell,
    then run k + 1: A1 B1 A2 B2 ...), so load drifting during the session enters every cell's spread alike; each
    row gets its runs (``repeat_timing``: median, spread; its own figures stay, the wall times of the run that
    computed it included), the group and the session, and is stored again (its state unchanged)."""
    for _ in range(run.repeats):
        for t in pending:
            run.eng.balance_ranks(t.layout)
            t.runs.append(t.again())
    for t in pending:
        cols = timed_columns(t.row)
        first = {c: float(t.runs[0].get(c, 0.0)) for c in cols} if t.runs[0].get("status") == "ok" else {}
        rest = iter(t.runs[1:])
        timing = repeat_timing(first, lambda: next(rest), run.repeats) if first else \
            {"timing_repeats": run.repeats, "timing_runs": "{}"}
        t.row.update({**timing, "timing_group": group, "timing_session": session})
        run.store.put_row(t.key, t.row)


class _Reload(Exception):
    """A stored state skipped on a first pass is needed after all and could not be read."""


@dataclass(frozen=True)
class _Run:
    """What every method of one ``compare`` call shares."""

    levels: list
    make_start: Callable[[], State]  # the first level's start (a METIS partition, say): made once, when needed
    P: int
    mach: Machine
    eng: Engine
    store: Store
    seed: int
    initial: str
    timeout: float | None
    cache: bool
    reuse_failed: bool
    repeats: int
    show_traceback: bool
    retime: bool  # a timed group (repeats > 1) not stored whole from one session: every cell's timed part again
    graphs: dict = field(default_factory=dict)  # level position -> its graph, built when a cell needs it
    changes: dict = field(default_factory=dict)  # level position -> its ``changed_weight`` column, once per level

    @cached_property
    def start(self) -> State:
        return self.make_start()

    def graph(self, i: int) -> Graph:
        if i not in self.graphs:
            self.graphs[i] = graph_of(self.levels[i])
        return self.graphs[i]

    def usable(self, row: dict) -> bool:
        """A stored row to take: ok (or failed, when failed cells are reused) and from this rank count."""
        return (row.get("status") == "ok" or self.reuse_failed) and row.get("ranks", 1) == self.eng.R

    def stands(self, row: dict) -> bool:
        """A usable stored row that needs nothing more: failed, or not to be timed again."""
        return self.usable(row) and (row.get("status") != "ok" or self.repeats == 1 or not self.retime)


class _Walk:
    """One method through the levels, stored cells first (:meth:`step`, level by level); its rows in ``rows``.

    A stored cell whose row stands and whose next level's does too is taken from its row alone (its state
    file is not read); if a state skipped so is needed after all and cannot be read, the walk starts again
    reading every state as it comes (the levels before done again from the store, none timed again).
    """

    def __init__(self, run: _Run, pl, base: dict, pversions: dict, states: dict | None, bar):
        self.run, self.pl, self.base, self.states, self.bar = run, pl, base, states, bar
        self.keys = [cell_key(base, run.levels[0].index, lv.index, pversions, run.timeout, run.eng.R)
                     for lv in run.levels]
        self._start(lazy=run.cache and states is None)

    def _start(self, lazy: bool) -> None:
        run, ready = self.run, [None] * len(self.keys)
        if lazy:
            if run.eng.is_root:
                ready = [row if row is not None and run.stands(row) and _fits(row, lv) else None
                         for row, lv in ((run.store.row(k, {**self.base, "level": lv.index}), lv)
                                         for k, lv in zip(self.keys, run.levels))]
            ready = run.eng.bcast(ready) if run.eng.R > 1 else ready
        self.lazy, self.ready, self.rows = lazy, ready, []
        self.state, self.memory, self.work = None, self.pl.new_memory(), None

    def step(self, i: int):
        """Level ``i``'s cell: its row appended to ``rows``; its :class:`_Timed` when it is to be timed."""
        try:
            return self._step(i)
        except _Reload:  # a stored state read only when needed was unusable: every state read as it comes
            self._start(lazy=False)
            for j in range(i):
                self._step(j, count=False)
            return self._step(i)

    def _step(self, i: int, count: bool = True):
        run, pl, lv, key = self.run, self.pl, self.run.levels[i], self.keys[i]
        if self.bar and count:
            self.bar.set_description(f"{pl.method} level {lv.index}")
        timed = None
        run.eng.last_work = self.work  # this method's previous level's (another's ran between, level by level)
        if self.ready[i] is not None and (i + 1 == len(self.keys) or self.ready[i + 1] is not None):
            row, self.state, run.eng.last_work = self.ready[i], None, None
        else:
            row, self.state, self.memory, timed = _level(run, pl, self.base, i, lv, run.graph(i), key,
                                                         run.start if i == 0 else self.state, self.memory,
                                                         self.rows[-1] if self.rows else None)
            if self.states is not None:
                self.states.setdefault(str(pl.method), {})[lv.index] = self.state.owner
        self.work = run.eng.last_work
        self.rows.append(row)
        if self.bar and count:
            self.bar.update()
        return timed if count else None


def _change(run: _Run, i: int) -> dict:
    """``changed_weight`` of the run's level ``i`` against the level before it (graph levels; none at the first),
    computed for the first method that needs it and shared by the others (it depends on the levels only)."""
    if i not in run.changes:
        lv, prev = run.levels[i], run.levels[i - 1] if i else None
        run.changes[i] = {} if prev is None or not isinstance(lv.data, Graph) or not isinstance(prev.data, Graph) \
            else {"changed_weight": changed_weight(prev.data, lv.data, lv.parent)}
    return run.changes[i]


def _level(run: _Run, pl, base: dict, i: int, lv, g, key: str, state, memory, previous) -> tuple:
    """One cell: from the store or computed and stored; (row, state after it, memory after it, the cell's
    :class:`_Timed` when its timed part is to run ``run.repeats`` times, else None). ``state`` None: the previous
    level was taken from its row alone."""
    first, eng, store = i == 0, run.eng, run.store
    found = store.get(key, RunMemory, expect={**base, "level": lv.index},
                      check=lambda row, st, mem, g=g: _check_cell(pl, row, st, mem, g)) \
        if run.cache and eng.is_root else None
    if found and not run.usable(found[0]):  # (a cell stored by an older version under another R)
        found = None
    found = eng.bcast(found) if eng.R > 1 else found
    if run.initial == "trace":  # every level starts where the application ran it
        before = run.start if first else initial_state(lv, run.P, run.seed, run.initial)
    elif first:  # the start is already on the first level: its parent map leads to a level not run
        before = run.start
    elif state is not None:
        before = carry(state, lv)
    elif found and run.stands(found[0]):
        return found[0], found[1], pl.unpack(found[2]), None
    else:
        raise _Reload()
    kept = snapshot(memory) if run.repeats > 1 else None
    # the timed part again from the same start (called once ``state`` is this cell's: its pieces are reused)
    again = lambda: run_cell(pl.roles(first), lv, g, before, run.mach, eng, run.seed, snapshot(kept),  # noqa: E731
                             run.timeout, previous, metrics=False, reference=state)[0]
    if found:
        row, state, memory = found[0], found[1], pl.unpack(found[2])
        eng.last_work = None
        # retimed with its group: every run of the timed part again, in this session (none mixed)
        return row, state, memory, None if run.stands(row) else _Timed(key, row, again, None)
    # vprocs over ranks by the work measured at this method's previous level (figures unchanged)
    layout = None if first else eng.last_work
    eng.balance_ranks(layout)
    figs, state = run_cell(pl.roles(first), lv, g, before, run.mach, eng, run.seed, memory, run.timeout, previous,
                           run.show_traceback)
    row = {**base, "level": lv.index, "ranks": eng.R, **figs, **_change(run, i), "git_commit": git_commit(),
           "versions": versions()}
    try:
        store.put(key, row, state, pl.pack(memory))
    except TypeError as exc:  # a memory that is not data: the cell cannot be stored or resumed
        row["status"] = f"failed: {exc}"
        store.put(key, row, state, RunMemory())
    timed = _Timed(key, row, again, layout) if run.repeats > 1 and row["status"] == "ok" else None
    return row, state, memory, timed
