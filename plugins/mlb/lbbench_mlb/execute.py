"""MLB on the engine's virtual processors (MLB paper §3.1-§3.4, §4).

:func:`run` takes the items of the level's array (their load, the redistribution
weight of their data, where their data is) and runs the four phases; every
amount is computed on the vproc that uses it, from what it holds and what it
received:

* Phase 1 (§3.1): every vproc sums the load it holds, then exchanges partial
  sums with its partner along edge 0, 1, ..., d-1 (d supersteps of one-integer
  ``balance`` messages). It keeps the sibling sums: the loads of all its tree
  ancestors and their siblings ("each processor keeps the data that is on all
  its parent nodes and siblings", §3.2), hence its offset on the line.
* Phase 2 (§3.2): on each vproc, the desired loads on its path to the root
  (:func:`phases.bounds`); checked to post nothing.
* Phase 3 (§3.3): level l = 1 .. d, sequentially. A level-l tree node (an
  aligned block of 2**(d-l) ranks) is played by its vproc whose low d-l address
  bits are zero; it holds the constant-load units of its block, as position
  intervals of the line, and communicates along its l edges d-1 .. d-l, coarsest
  first: in each step it sends the intervals on the far side of the desired cut
  between the two halves of its sub-cube (taking "off the available load from
  the left" when the partner is to the left, §3.3) and adds what it receives.
  d(d-1)/2 supersteps in all (§4; §3.3 prints d(d+1)/2). At the last step of level l the siblings also
  swap their earlier amounts, and the vproc that played their parent on level
  l-1 checks that they add up to the parent's ("the communication schedule
  determined on the next coarser level tells us how much load the two leftmost
  nodes have to send"). Level d gives every vproc its own schedule: the amount
  sigma it sends and rho it receives in each step.
* Phase 4 (§3.4), the loan-variable procedure, when the data is laid out along
  the line in rank order (the paper's distributed array): step s along edge
  d-1-s, each vproc sends to its partner the piece of load function at the end
  facing the partner whose load is closest to sigma + its loan on that end
  (:func:`phases.take`); the difference goes into the loan; on receipt, the
  difference between the piece and rho goes into the loan. The loan variable
  is kept per end of the vproc's range (low, high): what the vproc holds beyond
  the constant-load schedule at that end; the part of it that travels with a
  piece is written in the message so that the receiver books it on the right
  end (§3.4's hand-through). At most one ``migration`` message per vproc per
  step. Payload int64 [m, handed loan, m line indices, m loads, m line
  positions, one word per unit of the items' redistribution weight].
* Otherwise (a start that is not rank-ordered along the line, or the §5 n-D
  extension) Phase 4 routes the items to the given destinations by e-cube
  (:func:`route_items`), still one message per vproc per step.

The figures every rank needs are gathered once at the end; the step counts are
read from ``engine.step_stats`` after each phase.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .hypercube import Cube
from .phases import take


@dataclass
class Outcome:
    T: int                   # total load (Phase 1)
    a: np.ndarray            # load held by each vproc before (rank order)
    D: np.ndarray            # desired loads of the finest level
    L: np.ndarray            # load held after Phase 4
    dest: np.ndarray         # where each item ended
    loan_procedure: bool     # Phase 4 ran the loan procedure (else: e-cube routing of given destinations)
    sent: np.ndarray         # (d, P): load units each vproc sent in step s of Phase 4
    sent_rwgt: np.ndarray    # (d, P): redistribution weight sent
    scheduled: np.ndarray    # (d, P): Phase 3's amounts sigma for the same steps
    loans: np.ndarray        # (d + 1, P): load held - load the constant-load schedule holds, per step


# ----------------------------------------------------------------------------------------------- Phase 1
def phase1(engine, cube: Cube, a: np.ndarray) -> np.ndarray:
    """§3.1: d exchanges of partial sums along edges 0..d-1. Returns O (P, d): O[p, j] = the load of the
    sibling block (2**j ranks) that vproc p learnt across edge j (local rows only)."""
    S = np.asarray(a, np.int64).copy()
    O = np.zeros((cube.P, cube.d), np.int64)
    mine = np.arange(engine.local.start, engine.local.stop)
    for j in range(cube.d):
        engine.send("sum", mine, cube.partners[j][mine], S[mine])  # one integer each
        engine.exchange()
        got = engine.received("sum")  # one message for each local vproc
        O[got.dst, j] = got.values
        S[got.dst] += got.values
    return O


def _offset(O_p: np.ndarray, rank: int, low: int) -> int:
    """Line position where the block of 2**low ranks holding ``rank`` starts: the sibling sums on its left."""
    return int(sum(O_p[j] for j in range(low, O_p.size) if (rank >> j) & 1))


# ----------------------------------------------------------------------------------------------- Phase 3
def _split(held: list, m: int, left: bool):
    """Cut position intervals at m: (kept, sent), sending the part left of m if ``left`` else right of it."""
    below = [(s, min(e, m)) for s, e in held if s < m]
    above = [(max(s, m), e) for s, e in held if e > m]
    return (above, below) if left else (below, above)


def phase3(engine, cube: Cube, a: np.ndarray, O: np.ndarray, bnds: dict):
    """§3.3 level by level on the vprocs: level l talks along its l - 1 coarsest edges (§4's count); the
    amounts along its finest edge (the siblings') follow from the desired loads without a message.

    Returns sigma, rho (d, P): what each local vproc sends and receives in step s (along edge d-1-s), and
    {level: {vproc: amounts}} of the local vprocs that played a node on each level.
    """
    d, P = cube.d, cube.P
    sigma, rho = np.zeros((d, P), np.int64), np.zeros((d, P), np.int64)
    levels: dict = {}
    for level in range(1, d + 1):
        low = d - level                                  # a node is a block of 2**low ranks
        players = [p for p in engine.local if cube.addr[p] % (1 << low) == 0]
        held, amounts = {}, {p: [] for p in players}
        for p in players:
            start, size = _offset(O[p], p, low), int(a[p] + O[p, :low].sum())
            held[p] = [(start, start + size)] if size else []
        for s in range(level):
            k = d - 1 - s
            partner = cube.partners[k].tolist()
            out = []
            for p in players:
                keep, send = _split(held[p], int(bnds[p][k, 1]), left=bool((p >> k) & 1))
                held[p] = keep
                amounts[p].append(sum(e - b for b, e in send))
                out.append(send)
            if s == level - 1:
                break                                    # the siblings' edge: "easily computed" (§3.3)
            # one message per player: its intervals, as [start, end] rows
            engine.send("intervals", players, np.asarray(partner, np.int64)[players],
                        np.array([iv for send in out for iv in send], np.int64).reshape(-1, 2),
                        counts=[len(send) for send in out])
            engine.exchange()
            got_all = engine.received("intervals").by_dst()  # one message to each player
            for p in players:
                got = got_all[p][0][1].tolist()
                held[p] = sorted(held[p] + [tuple(iv) for iv in got])
                if level == d:
                    sigma[s, p], rho[s, p] = amounts[p][s], sum(e - b for b, e in got)
        if level == d:
            s = d - 1
            for p in players:                            # after the last step p holds exactly its D
                lo, m, hi = (int(x) for x in bnds[p][0])
                mine = hi - m if p & 1 else m - lo
                sigma[s, p] = amounts[p][s]
                rho[s, p] = mine - sum(e - b for b, e in held[p])
        levels[level] = amounts
    return sigma, rho, levels


def check_levels(cube: Cube, levels: dict) -> None:
    """The schedule of level l splits level l - 1's: the two children of a node send, in each of the
    node's steps, what the node sends (§3.3: "the communication schedule determined on the next coarser
    level tells us how much load the two leftmost nodes have to send")."""
    for level in range(2, cube.d + 1):
        low = cube.d - level
        for x, amounts in levels[level - 1].items():
            y = int(cube.partners[low][x])               # x plays one child, y the other
            both = np.add(levels[level][x][:-1], levels[level][y][:-1])
            if not np.array_equal(both, amounts):
                raise RuntimeError(f"mlb: Phase 3 level {level}: the children of vproc {x}'s node send "
                                   f"{both.tolist()}, the node {amounts}")


# ----------------------------------------------------------------------------------------------- Phase 4
def loan_procedure(engine, cube: Cube, line_load, line_rwgt, held: dict, offset: dict, bnds: dict, sigma, rho,
                   rounding: str):
    """§3.4 on the vprocs: ``held[p]`` = line indices p holds (sorted, p's segment of the line in rank order),
    ``offset[p]`` the line position where it starts (Phase 1), ``bnds`` Phase 2's cuts.

    The pieces are chosen by amount (:func:`phases.take`). An element of load 0 lying exactly where the
    amount runs out cannot be placed by an amount; it goes by its line position (carried with it) against
    the cut, to the higher rank at the cut, as the other elements.

    Returns the line indices each local vproc holds after d steps, the load and redistribution weight
    it sent per step ((d, P) each) and the loan (held - constant-load schedule) after each step ((d+1, P)).
    """
    d, P = cube.d, cube.P
    sent, sent_rwgt = np.zeros((d, P), np.int64), np.zeros((d, P), np.int64)
    loans = np.zeros((d + 1, P), np.int64)
    lo_loan, hi_loan = dict.fromkeys(engine.local, 0), dict.fromkeys(engine.local, 0)
    pos = np.zeros(line_load.size, np.int64)     # line positions of the elements this rank's vprocs hold
    for p in engine.local:
        pos[held[p]] = offset[p] + np.cumsum(line_load[held[p]]) - line_load[held[p]]
    for s in range(d):
        k = d - 1 - s
        partner = cube.partners[k].tolist()
        for p in engine.local:
            ids, left = held[p], bool((p >> k) & 1)     # left: the partner holds the lower half of the line
            loan = lo_loan[p] if left else hi_loan[p]
            t = int(sigma[s, p]) + loan
            n = take(line_load[ids], t, from_right=not left, rounding=rounding)
            seq = ids if left else ids[::-1]
            w = int(line_load[seq[:n]].sum())
            m = int(bnds[p][k, 1])
            while n < seq.size and w == t and line_load[seq[n]] == 0 and (pos[seq[n]] < m) == left:
                n += 1
            piece, held[p] = (ids[:n], ids[n:]) if left else (ids[ids.size - n:], ids[:ids.size - n])
            if left:
                lo_loan[p] = t - w                        # now the low end of p's range is the cut
            else:
                hi_loan[p] = t - w
            if piece.size or loan:
                units = int(line_rwgt[piece].sum())
                # the data declared, one word per unit of redistribution weight, after the header and the rows
                engine.send("piece", p, partner[p], np.concatenate([[piece.size, loan], piece, line_load[piece],
                                                                     pos[piece]]),
                            counts=2 + 3 * piece.size, nbytes=8 * (2 + 3 * piece.size + units), kind="migration")
                sent[s, p], sent_rwgt[s, p] = w, units
        engine.exchange()
        pieces = engine.received("piece").by_dst()
        for q in engine.local:
            got, w, handed = [], 0, 0
            for _, pay in pieces.get(q, ()):
                m = int(pay[0])
                handed += int(pay[1])
                got.append(pay[2:2 + m])
                w += int(pay[2 + m:2 + 2 * m].sum())
                pos[pay[2:2 + m]] = pay[2 + 2 * m:2 + 3 * m]
            deviation = w - int(rho[s, q]) - handed       # the piece's rounding, at the cut
            if (q >> k) & 1:                              # q holds the upper half: the cut is its low end
                lo_loan[q] += deviation
                hi_loan[q] += handed
            else:
                hi_loan[q] += deviation
                lo_loan[q] += handed
            if got:
                held[q] = np.sort(np.concatenate([held[q], *got]))
            loans[s + 1, q] = lo_loan[q] + hi_loan[q]
    return held, sent, sent_rwgt, loans


def route_items(engine, cube: Cube, load, rwgt, home, dest):
    """E-cube routing of every item from ``home`` to ``dest``, one message per vproc per step.

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
        if mv.size:  # one message per holder: its items' ids, then one word per unit of their weight (declared)
            p = mv_holder[starts]
            units = cw[ends] - cw[starts]
            engine.send("route", p, cube.partners[k][p], mv, counts=ends - starts,
                        nbytes=8 * (1 + (ends - starts) + units), kind="migration")
            sent[s, p] = cl[ends] - cl[starts]
            sent_rwgt[s, p] = units
        engine.exchange()
        got = engine.received("route")
        if got.values is not None and got.values.size:
            at = np.repeat(got.dst, got.counts)
            wrong = (flip[got.values] >> k) & 1 == 0
            if wrong.any():
                raise RuntimeError(f"mlb: vproc {int(at[wrong][0])} received items that do not cross edge {k}")
            where[got.values] = at
            file(got.values, k)  # M7: what came over edge k only crosses finer edges
    if any(due):
        raise RuntimeError("mlb: items left undelivered after d steps")
    return sent, sent_rwgt


# ------------------------------------------------------------------------------------------------ driver
def run(engine, cube: Cube, load, rwgt, home, phase2, order=None, dest=None, rounding: str = "midpoint"):
    """Phases 1-4 on ``engine``.

    ``phase2(T, p)`` -> (bounds (d, 3), D_p): Phase 2 on vproc p (:func:`phases.bounds`). ``order``: the
    items along the line (1-D mode); when the data lies along it in rank order, Phase 4 is the loan
    procedure. Otherwise ``dest`` (each item's destination) is routed. Returns the :class:`Outcome` and
    the figures read from ``engine.step_stats`` after each phase: ``phase1``/``phase3`` (supersteps and
    messages of ``balance`` kind), ``phase4`` (exchanges of Phase 4), ``schedule`` (those carrying
    ``migration`` messages), ``max_msgs`` / ``max_recv`` (per vproc per superstep, Phase 4),
    ``phase4_messages``.
    """
    load, rwgt, home = (np.asarray(x, np.int64) for x in (load, rwgt, home))
    P, d = cube.P, cube.d
    a = np.bincount(home, load, P).astype(np.int64)
    steps = {}

    mark = engine.superstep
    O = phase1(engine, cube, a)
    st = engine.step_stats("balance", since=mark)
    steps.update(phase1=st["supersteps"], phase1_messages=st["messages"])
    totals = {p: int(a[p] + O[p].sum()) for p in engine.local}
    pending = engine.pending()
    mine = {p: phase2(totals[p], p) for p in engine.local}      # Phase 2: no communication
    if engine.pending() != pending:
        raise RuntimeError("mlb: Phase 2 posted messages")
    bnds = {p: b for p, (b, _) in mine.items()}

    mark = engine.superstep
    sigma, rho, levels = phase3(engine, cube, a, O, bnds)
    st = engine.step_stats("balance", since=mark)
    steps.update(phase3=st["supersteps"], phase3_messages=st["messages"])
    merged: dict = {}
    for part in engine.gather_ranks(levels):
        for level, amounts in part.items():
            merged.setdefault(level, {}).update(amounts)
    check_levels(cube, merged)

    mark = engine.superstep
    line = None
    if order is not None:
        line = np.asarray(order, np.int64)
        loan = bool(np.all(np.diff(home[line]) >= 0))        # the paper's start: rank-ordered segments
    else:
        loan = False
    if loan:
        holder = home[line]
        cut = np.searchsorted(holder, np.arange(P + 1))
        segments = {p: np.arange(cut[p], cut[p + 1], dtype=np.int64) for p in engine.local}
        offset = {p: _offset(O[p], p, 0) for p in engine.local}
        segments, sent, sent_rwgt, loans = loan_procedure(engine, cube, load[line], rwgt[line], segments, offset,
                                                          bnds, sigma, rho, rounding)
        parts = engine.allgather(segments)
        dest = np.empty(load.size, np.int64)
        dest[line[np.concatenate(parts)]] = np.repeat(np.arange(P), [x.size for x in parts])
    else:
        dest = np.asarray(dest, np.int64)
        sent, sent_rwgt = route_items(engine, cube, load, rwgt, home, dest)
        loans = None
    st = engine.step_stats("migration", since=mark)
    steps.update(phase4=engine.superstep - mark, schedule=st["supersteps"], max_msgs=st["max_msgs_per_vproc"],
                 max_recv=st["max_recv_per_vproc"], phase4_messages=st["messages"])

    per_vp = engine.allgather({p: (totals[p], mine[p][1], sent[:, p], sent_rwgt[:, p], sigma[:, p], rho[:, p],
                                   None if loans is None else loans[:, p]) for p in engine.local})
    T = {t for t, *_ in per_vp}
    if len(T) != 1:
        raise RuntimeError(f"mlb: Phase 1 ended with different totals {sorted(T)}")
    D = np.array([x[1] for x in per_vp], np.int64)
    sent, sent_rwgt, sigma, rho = (np.stack([x[i] for x in per_vp], axis=-1).reshape(d, P) for i in (2, 3, 4, 5))
    held_const = np.zeros((d + 1, P), np.int64)
    held_const[0] = a
    for s in range(d):
        held_const[s + 1] = held_const[s] - sigma[s] + rho[s]
    across = np.array([rho[s][cube.partners[d - 1 - s]] for s in range(d)]).reshape(d, P)
    if not np.array_equal(across, sigma) or not np.array_equal(held_const[-1], D) or (held_const < 0).any():
        raise RuntimeError("mlb: Phase 3's amounts do not match across edges or do not deliver the desired loads")
    L = np.bincount(dest, load, P).astype(np.int64)
    held = np.zeros((d + 1, P), np.int64)
    held[0] = a
    for s in range(d):
        held[s + 1] = held[s] - sent[s] + sent[s][cube.partners[d - 1 - s]]
    if not np.array_equal(held[-1], L):
        raise RuntimeError("mlb: Phase 4's messages do not add up to the final loads")
    if loan:
        loans = np.stack([x[6] for x in per_vp], axis=-1).reshape(d + 1, P)
        if not np.array_equal(loans, held - held_const):
            raise RuntimeError("mlb: the loan variables disagree with the loads held")
    else:
        loans = held - held_const
    out = Outcome(T=T.pop(), a=a, D=D, L=L, dest=dest, loan_procedure=loan, sent=sent, sent_rwgt=sent_rwgt,
                  scheduled=sigma, loans=loans)
    return out, steps
