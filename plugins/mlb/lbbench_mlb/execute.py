"""Executing MLB on the engine's virtual processors (MLB paper §3.1-§3.4, §4).

:func:`run` takes the items of the level's array (their load, the redistribution
weight of their data, where their data is and where it must go) and runs:

* Phase 1 (§3.1): every vproc sums the load it holds, then exchanges partial
  sums with its partner along edge 0, 1, ..., d-1: d supersteps of one-integer
  ``balance`` messages. After the exchange along edge j a vproc knows the sum of
  its (j+1)-dimensional sub-cube and of the sibling one; after d, the total T.
* Phase 2 (§3.2): the desired loads D, local arithmetic, no message.
* Phase 3 (§3.3, emulated when ``emulate``): level l = 1..d communicates along
  the l edges d-1, ..., d-l of its sub-hypercube, sequentially: sum_l l =
  d(d+1)/2 supersteps. One vproc per level-l tree node sends the amount that
  node sends across the edge in the constant-load schedule; the finest level's
  messages give every vproc its own schedule.
* Phase 4 (§3.4): the e-cube routing of the items to their destinations,
  coarsest edge first: step s = 0..d-1 along edge d-1-s, each vproc posts at
  most one ``migration`` message, to its partner, holding every item it
  forwards (items passing through are sent again in a later step). Payload:
  int64 [m, item ids (m), one word per unit of redistribution weight] (8
  bytes per unit, as the engine's ``migrate`` sizes data, plus the header).

The figures that every rank needs are gathered once at the end; the step
counts are read from ``engine.step_stats`` by the caller.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .hypercube import Cube
from .phases import constant_flows, route


@dataclass
class Outcome:
    T: int                   # total load (Phase 1)
    a: np.ndarray            # load held by each vproc before (rank order)
    D: np.ndarray            # desired loads of the finest level
    L: np.ndarray            # load held after Phase 4
    sent: np.ndarray         # (d, P): load units each vproc sent in step s of Phase 4
    sent_rwgt: np.ndarray    # (d, P): redistribution weight sent
    scheduled: np.ndarray    # (d, P): the constant-load schedule (Phase 3) for the same steps
    loans: np.ndarray        # (d + 1, P): load held - load the constant-load schedule holds, per step


def phase1(engine, cube: Cube, a: np.ndarray) -> int:
    """§3.1 on the engine: d exchanges of partial sums along edges 0..d-1; returns the total every vproc found."""
    S = np.asarray(a, np.int64).copy()
    local = list(engine.local)
    for j in range(cube.d):
        partner = cube.partners[j].tolist()
        snap = S.copy()
        for p in local:
            engine.post(p, partner[p], snap[p:p + 1], kind="balance")
        for p, msgs in engine.exchange().items():
            (_, _, other), = msgs
            S[p] += other[0]
    totals = set(int(x) for x in engine.allgather({p: S[p] for p in local}))
    if len(totals) != 1:
        raise RuntimeError(f"mlb: Phase 1 ended with different totals {sorted(totals)}")
    return totals.pop()


def phase3(engine, cube: Cube, scheduled: np.ndarray) -> np.ndarray:
    """§3.3 emulated: level l sends, along edges d-1 .. d-l, what each level-l node sends across them.

    A level-l node (an aligned block of 2**(d-l) ranks, a sub-cube of addresses
    with fixed top l bits) is played by its vproc whose low d-l address bits are
    zero; its partners across the edges d-1 .. d-l play the neighbouring nodes.
    Returns what each local vproc learnt it receives in each step at the finest
    level ((d, P), zeros elsewhere).
    """
    d, P = cube.d, cube.P
    received = np.zeros((d, P), np.int64)
    for level in range(1, d + 1):
        block = 1 << (d - level)
        players = [p for p in engine.local if cube.addr[p] % block == 0]
        for k in range(d - 1, d - 1 - level, -1):
            s = d - 1 - k
            node_sends = scheduled[s].reshape(-1, block).sum(axis=1)
            partner = cube.partners[k].tolist()
            for p in players:
                engine.post(p, partner[p], node_sends[p // block:p // block + 1], kind="balance")
            for p, msgs in engine.exchange().items():
                if level == d:
                    (_, _, amount), = msgs
                    received[s, p] = int(amount[0])
    return received


def phase4(engine, cube: Cube, load, rwgt, home, dest):
    """§3.4: route every item from ``home`` to ``dest`` by e-cube, one message per vproc per step.

    Each vproc files the items it holds by the step at which they next cross an
    edge (the highest differing address bit still to fix), so a step touches
    only the items that move in it. Returns the load and redistribution weight
    each local vproc sent per step ((d, P) each, zeros elsewhere).
    """
    d, P = cube.d, cube.P
    sent = np.zeros((d, P), np.int64)
    sent_rwgt = np.zeros((d, P), np.int64)
    lo, hi = engine.local.start, engine.local.stop
    flip = cube.addr[home] ^ cube.addr[dest]          # the edges each item must cross
    where = np.array(home, np.int64, copy=True)      # current holder (of the items on this rank's vprocs)
    due: list = [[] for _ in range(d)]               # due[s]: items that cross edge d-1-s in step s

    # the step at which an item whose remaining flips are f moves next: d - 1 - floor(log2 f), d when f = 0
    when = np.full(P, d, np.int16)
    when[1:] = d - np.frexp(np.arange(1, P, dtype=np.float64))[1]

    def file(ids, below: int) -> None:
        """Put items in the bucket of the step at which they next move (edges below ``below`` remain)."""
        step = when[flip[ids] & ((1 << below) - 1)]
        order = np.argsort(step, kind="stable")  # int16 keys: a radix sort
        ids, step = ids[order], step[order]
        bounds = np.searchsorted(step, np.arange(d + 1))
        for t in range(d):
            if bounds[t + 1] > bounds[t]:
                due[t].append(ids[bounds[t]:bounds[t + 1]])
        arrived = ids[bounds[d]:]
        if np.any(where[arrived] != dest[arrived]):
            raise RuntimeError("mlb: an item ended at the wrong processor")

    file(np.flatnonzero((home >= lo) & (home < hi) & (flip != 0)), d)
    for s in range(d):
        k = d - 1 - s
        mv = np.concatenate(due[s]) if due[s] else np.zeros(0, np.int64)
        due[s] = []
        holder = where[mv]
        order = np.argsort(holder.astype(np.int16) if P <= 1 << 15 else holder, kind="stable")
        mv, mv_holder = mv[order], holder[order]
        cut = np.flatnonzero(np.diff(mv_holder)) + 1
        starts, ends = np.concatenate([[0], cut]), np.concatenate([cut, [mv.size]])
        cw = np.concatenate([[0], np.cumsum(rwgt[mv])])
        cl = np.concatenate([[0], np.cumsum(load[mv])])
        partner = cube.partners[k].tolist()
        for b, e in zip(starts.tolist(), ends.tolist()) if mv.size else ():
            p = int(mv_holder[b])
            units = int(cw[e] - cw[b])
            payload = np.zeros(1 + (e - b) + units, np.int64)
            payload[0] = e - b
            payload[1:1 + e - b] = mv[b:e]
            engine.post(p, partner[p], payload, kind="migration")
            sent[s, p] = cl[e] - cl[b]
            sent_rwgt[s, p] = units
        arrivals = []
        for q, msgs in engine.exchange().items():
            for _, _, payload in msgs:
                got = payload[1:1 + int(payload[0])]
                if np.any((flip[got] >> k) & 1 == 0):
                    raise RuntimeError(f"mlb: vproc {q} received items that do not cross edge {k}")
                where[got] = q
                arrivals.append(got)
        if arrivals:
            file(np.concatenate(arrivals), k)  # M7: what came over edge k only crosses finer edges
    if any(due):
        raise RuntimeError("mlb: items left undelivered after d steps")
    return sent, sent_rwgt


def run(engine, cube: Cube, load, rwgt, home, dest, D_of, emulate: bool = True):
    """Phases 1-4 on ``engine``. ``D_of(T)`` gives the desired loads of the finest level (Phase 2).

    Returns the :class:`Outcome` and the step figures read from ``engine.step_stats``
    after each phase: ``phase1``, ``phase3`` (supersteps with ``balance`` messages),
    ``phase4`` (exchanges of Phase 4), ``schedule`` (those carrying ``migration``
    messages), ``max_msgs`` / ``max_recv`` (per vproc per superstep, Phase 4).
    """
    load, rwgt, home, dest = (np.asarray(x, np.int64) for x in (load, rwgt, home, dest))
    P, d = cube.P, cube.d
    a = np.bincount(home, load, P).astype(np.int64)
    mark = engine.superstep
    T = phase1(engine, cube, a) if emulate else int(a.sum())
    steps = {"phase1": engine.step_stats("balance", since=mark)["supersteps"]}
    pending = engine.pending()
    D = np.asarray(D_of(T), np.int64)                  # Phase 2: no communication
    if engine.pending() != pending:
        raise RuntimeError("mlb: Phase 2 posted messages")
    src, dst, w = constant_flows(a, D)
    scheduled, held_const = route(cube, src, dst, w)
    mark = engine.superstep
    if emulate:
        got = phase3(engine, cube, scheduled)
        by_step = cube.partners[::-1]                      # row s: partners across edge d-1-s
        mine = slice(engine.local.start, engine.local.stop)
        expect = np.take_along_axis(scheduled, by_step, axis=1)
        if not np.array_equal(got[:, mine], expect[:, mine]):
            raise RuntimeError("mlb: Phase 3 messages disagree with the schedule")
    steps["phase3"] = engine.step_stats("balance", since=mark)["supersteps"]
    mark = engine.superstep
    sent, sent_rwgt = phase4(engine, cube, load, rwgt, home, dest)
    st = engine.step_stats("migration", since=mark)
    steps.update(phase4=engine.superstep - mark, schedule=st["supersteps"], max_msgs=st["max_msgs_per_vproc"],
                 max_recv=st["max_recv_per_vproc"])
    per_vp = engine.allgather({p: np.stack([sent[:, p], sent_rwgt[:, p]]) for p in engine.local})
    sent, sent_rwgt = np.stack(per_vp, axis=-1)
    held = np.zeros((d + 1, P), np.int64)
    held[0] = a
    for s in range(d):
        held[s + 1] = held[s] - sent[s] + sent[s][cube.partners[d - 1 - s]]
    L = np.bincount(dest, load, P).astype(np.int64)
    if not np.array_equal(held[-1], L):
        raise RuntimeError("mlb: Phase 4 left loads that differ from the destinations")
    out = Outcome(T=T, a=a, D=D, L=L, sent=sent, sent_rwgt=sent_rwgt, scheduled=scheduled, loans=held - held_const)
    return out, steps
