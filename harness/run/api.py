"""The Python entry point: ``compare(...) -> DataFrame`` (one row per method and level)."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Callable

import pandas as pd

from ..contract import pins, plugins
from ..contract.forms import vertices
from ..contract.model import Boxes, Graph, Machine, State
from ..contract.spec import Method, parse_methods
from ..engine.timing import repeat_timing, repeats_of, snapshot, timed_columns
from ..engine.vprocs import Engine, world
from ..store.results import (CORE, Store, core_code, git_commit, plugin_code,
                             versions)
from ..store.validate import check_level
from . import workloads
from .runner import (INITIAL, RunMemory, carry, graph_of, initial_state, plan,
                     run_cell)


def _methods(methods) -> list[Method]:
    if isinstance(methods, str):
        return parse_methods(methods)
    return [m if isinstance(m, Method) else parse_methods(m)[0] for m in methods]


def load_levels(engine: Engine | None, name: str, params: dict | None, seed: int):
    """The workload's levels; rank 0 generates (and caches) them first, the other ranks then load.

    ``engine`` None: the ranks of MPI.COMM_WORLD when launched by mpiexec (before any Engine exists).
    """
    comm = world() if engine is None else engine.comm
    root = comm is None or comm.Get_rank() == 0
    if root:
        out = workloads.load(name, params, seed)
    if comm is not None and comm.Get_size() > 1:
        comm.Barrier()
    if not root:
        out = workloads.load(name, params, seed)
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
    not the timing repeats: a stored cell timed fewer times than asked is topped up, ``harness.engine.vprocs.timing``)."""
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
            states: dict | None = None) -> pd.DataFrame:
    """Run every method through the workload's levels at P processors; resume from ``out`` when possible.

    Every method starts its first level from the same ``initial`` distribution
    (``metis``, ``block``, ``root``, ``trace`` or a partitioning algorithm's
    name; None: the workload's default). With ``trace`` every level starts
    where the application ran it. ``P`` None: the workload's own (a trace's
    ranks) or 32. Stored
    cells are reused; failed ones are recomputed unless ``reuse_failed``.
    ``repeats`` > 1 runs each cell's timed part that many times and adds the
    runs, median and spread of its timed columns (``harness.engine.vprocs.timing``; a stored
    cell timed fewer times gets the missing runs, the cell's figures unchanged).
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
    if initial not in INITIAL:
        plan(parse_methods(initial)[0], known)  # an unknown or broken algorithm is a one-line error now
    # the workload first: P is checked against its size before anything of size P is allocated
    wl, wparams, all_levels = load_levels(engine, workload, workload_params, seed)
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
    mach = Machine.parse(machine, P)
    eng = engine or Engine(P, mach)
    store = Store(out, writer=eng.is_root)
    start = partial(initial_state, run_levels[0], P, seed, initial, eng, known)  # made when a cell needs it

    bar = progress_bar(len(plans) * len(run_levels), bars) if progress and eng.is_root else None
    run = _Run(run_levels, start, P, mach, eng, store, seed, initial, timeout, cache, reuse_failed,
               int(repeats), show_traceback)
    rows = []
    for pl in plans:
        base, pversions = run_base(pl, wl, wparams, P, mach, initial, seed)
        try:
            got = _run_method(run, pl, base, pversions, states, bar, lazy=True)
        except _Reload:  # a stored state read only when needed was unusable: every state read as it comes
            got = _run_method(run, pl, base, pversions, states, bar, lazy=False)
        rows.extend(row for row in got if row["level"] in shown)
    if bar and bars is None:
        bar.close()
    return pd.DataFrame(rows)


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
    graphs: dict = field(default_factory=dict)  # level position -> its graph, built when a cell needs it

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
        """A usable stored row that needs nothing more: failed, or timed ``repeats`` times."""
        return self.usable(row) and (row.get("status") != "ok" or repeats_of(row) >= self.repeats)


def _run_method(run: _Run, pl, base: dict, pversions: dict, states: dict | None, bar, lazy: bool) -> list[dict]:
    """One method through the levels, stored cells first; its rows. ``lazy``: a stored cell whose row stands
    and whose next level's does too is taken from its row alone (its state file is not read)."""
    keys = [cell_key(base, run.levels[0].index, lv.index, pversions, run.timeout, run.eng.R) for lv in run.levels]
    ready = [None] * len(keys)
    if lazy and run.cache and states is None:
        if run.eng.is_root:
            ready = [row if row is not None and run.stands(row) and _fits(row, lv) else None
                     for row, lv in ((run.store.row(k, {**base, "level": lv.index}), lv)
                                     for k, lv in zip(keys, run.levels))]
        ready = run.eng.bcast(ready) if run.eng.R > 1 else ready
    state, memory, previous, out = None, pl.new_memory(), None, []
    for i, (lv, key) in enumerate(zip(run.levels, keys)):
        if bar:
            bar.set_description(f"{pl.method} level {lv.index}")
        if ready[i] is not None and (i + 1 == len(keys) or ready[i + 1] is not None):
            row, state, run.eng.last_work = ready[i], None, None
        else:
            row, state, memory = _level(run, pl, base, i, lv, run.graph(i), key, run.start if i == 0 else state, memory,
                                        previous)
            if states is not None:
                states.setdefault(str(pl.method), {})[lv.index] = state.owner
        previous = row
        out.append(row)
        if bar:
            bar.update()
    return out


def _level(run: _Run, pl, base: dict, i: int, lv, g, key: str, state, memory, previous) -> tuple[dict, object, object]:
    """One cell: from the store (retimed, every timing run in this session, if more are asked) or computed and
    stored; (row, state after it, memory after it). ``state`` None: the previous level was taken from its row alone."""
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
        return found[0], found[1], pl.unpack(found[2])
    else:
        raise _Reload()
    kept = snapshot(memory) if run.repeats > 1 else None
    # the timed part again from the same start (called once ``state`` is this cell's: its pieces are reused)
    again = lambda: run_cell(pl.roles(first), lv, g, before, run.mach, eng, run.seed, snapshot(kept),  # noqa: E731
                             run.timeout, previous, metrics=False, reference=state)[0]
    if found:
        row, state, memory = found[0], found[1], pl.unpack(found[2])
        eng.last_work = None
        if not run.stands(row):  # topped up: every run of the timed part again, in this session (none mixed)
            redo = again()
            if redo.get("status") == "ok":
                first = {k: v for k, v in row.items() if k not in ("timing_runs", "timing_repeats")}
                first.update({c: float(redo.get(c, 0.0)) for c in timed_columns(row)})
                row = {**row, **repeat_timing(first, again, run.repeats)}
            else:
                row = {**row, "timing_repeats": run.repeats, "timing_runs": "{}"}
            store.put(key, row, state, found[2])
        return row, state, memory
    # vprocs over ranks by the work measured at this method's previous level (figures unchanged)
    eng.balance_ranks(None if first else eng.last_work)
    figs, state = run_cell(pl.roles(first), lv, g, before, run.mach, eng, run.seed, memory, run.timeout, previous,
                           run.show_traceback)
    if run.repeats > 1 and figs["status"] == "ok":
        figs.update(repeat_timing(figs, again, run.repeats))
    row = {**base, "level": lv.index, "ranks": eng.R, **figs, "git_commit": git_commit(), "versions": versions()}
    try:
        store.put(key, row, state, pl.pack(memory))
    except TypeError as exc:  # a memory that is not data: the cell cannot be stored or resumed
        row["status"] = f"failed: {exc}"
        store.put(key, row, state, RunMemory())
    return row, state, memory
