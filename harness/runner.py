"""The per-level protocol (DESIGN.md "Hooks"): one method through the levels of one workload.

For each level: ``home`` and ``owner`` carry over (new vertices inherit their
parent's) -> pre-execution metrics -> partition -> remap -> accept -> balance
-> (eager migration when the method has no balancer) -> metrics hook -> one
row. A plugin that raises, runs past the timeout or returns an invalid
assignment fails its cell: the row says why, the state stays as it was, and
the run goes on with the next level.
"""
from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from . import adapters, plugins
from .context import Context
from .engine import Engine, Timer
from .model import Graph, Level, Machine, State
from .partitioners import metis_kway
from .spec import Method, resolve

ROLES = ("partition", "remap", "accept", "balance")


class CellFailed(Exception):
    """A plugin misbehaved in one cell."""


@dataclass(frozen=True)
class Step:
    """Who plays one role: the algorithm's name, its resolved parameters, its declaration."""

    name: str
    params: dict
    algorithm: plugins.Algorithm


def plan(method: Method, known: dict) -> dict[str, Step]:
    """Map each role to the algorithm that plays it (``mapper/balancer`` splits the roles)."""
    steps = []
    for call in method.calls:
        if call.name not in known:
            raise LookupError(f"unknown algorithm {call.name!r} (available: {', '.join(known) or 'none'})")
        alg = known[call.name]
        steps.append(Step(call.name, resolve(call, alg.params), alg))
    if len(steps) == 1:
        return {role: steps[0] for role in ROLES if role in steps[0].algorithm.roles}
    mapper, balancer = steps
    if "balance" not in balancer.algorithm.roles:
        raise ValueError(f"{method}: {balancer.name} has no balance role and cannot follow '/'")
    roles = {role: mapper for role in ROLES[:3] if role in mapper.algorithm.roles}
    if "partition" not in roles:
        raise ValueError(f"{method}: {mapper.name} has no partition role and cannot precede '/'")
    roles["balance"] = balancer
    return roles


def graph_of(level: Level) -> Graph:
    return adapters.as_form(level.data, "graph")


def initial_state(g: Graph, P: int, seed: int) -> State:
    """The distribution every method starts from: METIS on the first level's graph with unit weights."""
    ones = np.ones(g.n, np.int64)
    return State.settled(metis_kway(g, P, seed=seed, vweights=ones, eweights=np.ones_like(g.cwgt)), P)


def carry(state: State, level: Level) -> State:
    """The previous level's state on this level's vertices (a new vertex inherits its parent's)."""
    if level.parent is None:
        return state
    parent = np.asarray(level.parent)
    return State(state.owner[parent], state.home[parent], state.P)


@contextmanager
def deadline(seconds: float | None):
    if not seconds:
        yield
        return

    def expire(signum, frame):
        raise CellFailed(f"timed out after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _check_parts(parts, n: int, nparts: int, who: str) -> np.ndarray:
    if parts is None:
        raise CellFailed(f"{who}: no plugin returned a partition")
    a = np.asarray(parts)
    if a.shape != (n,):
        raise CellFailed(f"{who}: partition has shape {a.shape}, expected ({n},)")
    if a.size and (not np.issubdtype(a.dtype, np.integer) or a.min() < 0 or a.max() >= nparts):
        raise CellFailed(f"{who}: partition has parts outside [0, {nparts})")
    return a.astype(np.int64)


def _check_state(state, n: int, P: int, who: str) -> State:
    if not isinstance(state, State):
        raise CellFailed(f"{who}: balance returned {type(state).__name__}, not a State")
    if state.owner.size != n or state.P != P:
        raise CellFailed(f"{who}: balance returned a State for {state.owner.size} vertices and P = {state.P}, "
                         f"expected {n} and {P}")
    return state


def run_level(roles: dict[str, Step], ctx: Context, before: State) -> State:
    """One level through the hooks; returns the state after balancing."""
    hook, g, P, timer = plugins.hook(), ctx.graph, ctx.P, ctx.timer
    state, original = before, ctx.level.data

    def enter(step: Step):
        ctx.algorithm, ctx.params = step.name, dict(step.params)
        ctx.level = Level(ctx.level.index, adapters.as_form(ctx.level.data, _form(step, ctx.level)),
                          ctx.level.parent, ctx.level.meta)
        return step.name

    if "partition" in roles:
        name = enter(roles["partition"])
        with timer("partition"):
            parts = hook.partition(algorithm=name, ctx=ctx)
        if parts is not None and ctx.level.form != adapters.form_of(original):
            # an array-form algorithm partitions cells in Hilbert order: back to graph vertices
            order = adapters.cell_vertices(original, ctx.level.form)
            cells = _check_parts(parts, order.size, P, name)
            parts = np.empty(g.n, np.int64)
            parts[order] = cells
        proc = np.arange(P)
        if "remap" in roles:
            with timer("remap"):
                mapped = hook.remap(algorithm=name, ctx=ctx, parts=parts)
            if mapped is not None:
                proc = np.asarray(mapped)
                if proc.ndim != 1 or (proc.size and (proc.min() < 0 or proc.max() >= P)):
                    raise CellFailed(f"{name}: remap returned processors outside [0, {P})")
        parts = _check_parts(parts, g.n, proc.size, name)
        state = State(proc[parts], before.home, P)
        if "accept" in roles:
            with timer("accept"):
                if hook.accept(algorithm=name, ctx=ctx, proposed=state) is False:
                    state = before
    if "balance" in roles:
        name = enter(roles["balance"])
        with timer("balance"):
            state = _check_state(hook.balance(algorithm=name, ctx=ctx, state=state), g.n, P, name)
    elif not np.array_equal(state.owner, before.home):
        with timer("migration"):
            ctx.engine.migrate(before.home, state.owner, g.rwgt)
        state = state.migrated()
    return state


def _form(step: Step, level: Level) -> str:
    form = level.form
    accepts = step.algorithm.accepts
    return form if form in accepts else accepts[0]


def metrics_row(ctx: Context, before: State, after: State) -> dict:
    figs: dict = {}
    with ctx.timer("metrics"):
        for part in reversed(plugins.hook().metrics(ctx=ctx, before=before, after=after)):
            figs.update(part or {})
    return figs


def engine_row(engine: Engine) -> dict:
    out = {}
    for kind, t in engine.totals().items():
        out[f"{kind}_messages"] = t["messages"]
        out[f"{kind}_bytes"] = t["bytes"]
        out[f"modelled_{kind}_s"] = t["modelled_s"]
    return out


def timing_row(engine: Engine, timer: Timer, total: float) -> dict:
    """Wall time per category, max over ranks."""
    per_rank = engine.gather_ranks({**timer.seconds, "total": total})
    cats = sorted({k for d in per_rank for k in d})
    return {f"time_{c}_s": max(d.get(c, 0.0) for d in per_rank) for c in cats}


def run_cell(roles, level: Level, g: Graph, before: State, machine: Machine, engine: Engine,
             seed: int, memory: dict, timeout: float | None) -> tuple[dict, State]:
    """One (method, level) cell: the row's figures and the state after it. Never raises for a plugin's fault."""
    engine.reset_counters()
    ctx = Context(level=level, graph=g, state=before, machine=machine, engine=engine, params={},
                  seed=seed, memory=memory)
    t0 = time.perf_counter()
    status = "ok"
    try:
        with deadline(timeout):
            after = run_level(roles, ctx, before)
            row = metrics_row(ctx, before, after)
    except Exception as exc:  # the plugin's fault: record it, keep the old state, go on
        msg = str(exc) if isinstance(exc, CellFailed) else f"{type(exc).__name__}: {exc}"
        status = "failed: " + " ".join(msg.split())[:300]
        engine.reset_counters()
        after = before
        ctx.record.clear()
        row = metrics_row(ctx, before, before)
    row.update(ctx.record)
    row.update(engine_row(engine))
    row.update(timing_row(engine, ctx.timer, time.perf_counter() - t0))
    row["status"] = status
    return row, after


def params_json(roles: dict[str, Step]) -> str:
    seen = {}
    for step in roles.values():
        seen.setdefault(step.name, step.params)
    return json.dumps(seen, sort_keys=True, default=str)
