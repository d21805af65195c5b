"""GrapevineLB as Charm++ builds it: ``DistributedLB`` (src/ck-ldb/DistributedLB.C, H. Menon), on the engine.

One load-balancing step, per processor (PE), as ``DistributedLB::Strategy`` on:

* **load reduction** (``LoadReduction``): sum and max of the PEs' object
  loads give avg and max; max / avg <= ``target_ratio`` (kTargetRatio) ends
  it with no move;
* **gossip** (``GossipLoadInfo`` / ``SendLoadInfo``): a PE with load below
  ``target_ratio`` x avg is underloaded and starts by sending its (pe, load)
  list; every receipt merges the received list into the known one (a
  received entry replaces a known one) and sends the whole list to ``fanout``
  (2) distinct random PEs other than itself, as long as the PE has sent no
  more than ``rounds`` (kMaxGossipMsgCount = 2 log2 P) times; the gossip ends
  when no message is in flight (the file's quiescence detection);
* **setup** (``Setup``, ``CalculateCumulateDistribution``): a min-heap of the
  migratable objects above 0.0001 s (smallest first; ``objs_count``, which
  must stay >= 2, counts those above 0.000001 s); the CMF over the known
  underloaded PEs of (T - L_x) / T with the first phase's threshold T, never
  recomputed (the sender's view L_x grows only by its own offers);
* **phases** (``StartNextLBPhase`` ... ``AfterLBReduction``): T starts at
  max(kTargetRatio avg, (max + avg) / 2). A PE that is not underloaded, has
  load above T and knows an underloaded PE takes the smallest object and
  draws receivers from the CMF until one's known load plus the object's stays
  below T (``kMaxTrials`` = P draws per PE for the whole step; once spent,
  each object still gets the do-while's one draw), then sends the receiver an
  offer (``InformMigration``); a failed search puts the object back and ends
  the PE's phase. The receiver accepts when its own
  load plus the object's stays within T, else refuses (``RecvAck``); after a
  refusal the sender takes the load back and tries that object once more (a
  new draw) while it has had at most 1% of its known PEs' count refusals,
  else it keeps it. A phase ends when no offer or answer is in flight; a
  reduction gives the new max of the loads each PE had when it finished its
  phase (``DoneWithLBPhase``: a sender after its last answer, every other PE
  at the phase's start, before offers reach it), and while max / avg > kTargetRatio, T >
  kTargetRatio avg and fewer than ``max_phases`` (kMaxPhases) phases ran, T
  becomes max(kTargetRatio avg, (T + avg) / 2) if max / avg moved by less than
  0.01, else max(kTargetRatio avg, (max + avg) / 2).

Asynchronous entry methods become supersteps: every message a PE receives in
one superstep is handled in (sender, post) order, as if it had arrived in that
order. Random draws come from one generator per (PE, stage), so the result is
the same for any number of MPI ranks. The message functions (``_gossip_send``,
``_offer``, ``_answer``) are the only places that make messages; each stage sends a
superstep's messages as one engine batch (``gossip``: rows (pe, load); ``phase``: rows (what, object, load)).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

LOAD_FLOOR = 1e-4  # Setup(): objects with load above 0.0001 s go into the heap ...
COUNT_FLOOR = 1e-6  # ... and objs_count counts those above 0.000001 s
NACK_SHARE = 0.01  # RecvAck(): retry while refusals <= 1% of the known underloaded PEs
OFFER, ACCEPT, REFUSE = 0, 1, 2


def default_rounds(P: int) -> int:
    """kMaxGossipMsgCount = 2 * CmiLog2(P), truncated to an int, at least 1."""
    return max(1, int(2 * math.log2(max(P, 2))))


@dataclass
class Outcome:
    owner: np.ndarray
    phases: int = 0
    gossip_supersteps: int = 0
    gossip_max_sends: int = 0   # most SendLoadInfo calls of one PE (each one message per target)
    informed: int = -1          # fewest PEs that knew an underloaded PE in one step (-1: no gossip)
    transfers: int = 0          # accepted offers
    refusals: int = 0
    thresholds: list = field(default_factory=list)  # T / avg per phase


@dataclass
class _PE:
    """One PE's DistributedLB members (DistributedLB.h)."""
    load: float
    underloaded: bool
    rng: np.random.Generator
    pe_no: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    loads: np.ndarray = field(default_factory=lambda: np.empty(0))
    sent: int = 0
    heap: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # object ids, smallest load first
    top: int = 0
    objs_count: int = 0
    reported: float = 0.0  # my_load when it called DoneWithLBPhase (the phase's max reduction)
    trials: int = 0
    negacks: int = 0
    cdf: np.ndarray = field(default_factory=lambda: np.empty(0))
    moves: dict = field(default_factory=dict)  # object -> receiver, accepted


# ------------------------------------------------------------------ messages (engine batches only)
class _Out:
    """One superstep's messages of a stream, sent as one batch (``flush``) in the order they were made: each
    message's rows an array (``add``) or one row as a tuple (``one``), not both in a stream."""

    def __init__(self, tag: str, row_bytes: int | None = None):
        self.tag, self.src, self.dst, self.rows, self.counts = tag, [], [], [], []
        self.row_bytes = row_bytes  # the bytes a row declares (None: its own size)

    def add(self, p: int, q, rows: np.ndarray) -> None:
        for d in np.atleast_1d(q).tolist():
            self.src.append(p)
            self.dst.append(d)
            self.rows.append(rows)
            self.counts.append(len(rows))

    def one(self, p: int, q: int, row: tuple) -> None:
        self.src.append(p)
        self.dst.append(q)
        self.rows.append(row)

    def flush(self, eng) -> None:
        if self.src:
            rows = np.concatenate(self.rows) if self.counts else np.array(self.rows, float)
            counts = np.array(self.counts, np.int64) if self.counts else np.ones(len(self.src), np.int64)
            eng.send(self.tag, np.array(self.src, np.int64), np.array(self.dst, np.int64), rows, counts=counts,
                     nbytes=None if self.row_bytes is None else counts * self.row_bytes)
        self.src, self.dst, self.rows, self.counts = [], [], [], []


def _gossip_send(out: _Out, P: int, p: int, pe: _PE, fanout: int, rounds: int) -> None:
    """SendLoadInfo: the whole known list, (pe, load) entries, to ``fanout`` distinct random PEs other than p.
    The rows are the PEs' ids (int32), each declaring the 16 bytes of its (pe, load) pair: a listed PE's load is
    the one it had when the step began (:func:`gossip`), which every rank knows."""
    if pe.sent > rounds:
        return
    k = min(fanout, P - 1)
    to = pe.rng.choice(P - 1, size=k, replace=False)
    out.add(p, to + (to >= p), pe.pe_no.astype(np.int32))
    pe.sent += 1


def _offer(out: _Out, p: int, q: int, v: int, w: float) -> None:
    """InformMigration(obj, from_pe, load)."""
    out.one(p, q, (OFFER, v, w))


def _answer(out: _Out, q: int, p: int, v: int, accept: bool) -> None:
    """RecvAck(obj, assigned_pe, can_accept)."""
    out.one(q, p, (ACCEPT if accept else REFUSE, v, 0.0))


def _supersteps(eng, out: _Out):
    """Send ``out``'s messages and exchange until none is in flight (quiescence detection); yields each
    superstep's deliveries (a batch: by PE, then sender, then post order)."""
    while True:
        out.flush(eng)
        eng.exchange(tally=eng.pending())
        if not eng.tally:
            return
        yield eng.received(out.tag)


# ------------------------------------------------------------------ stages
def gossip(eng, pes: dict, fanout: int, rounds: int, loads: np.ndarray) -> int:
    """GossipLoadInfo until quiescence; returns the supersteps it took. ``loads``: every PE's load at the step's
    start, the load its (pe, load) entry carries in every list (no PE's entry changes while the gossip runs)."""
    out = _Out("gossip", row_bytes=16)
    for p, pe in pes.items():
        if pe.underloaded:
            pe.pe_no = np.array([p])
            _gossip_send(out, eng.P, p, pe, fanout, rounds)
    steps = 0
    seen = np.zeros(eng.P, bool)
    for got in _supersteps(eng, out):
        steps += 1
        _receipts(got, pes, out, eng.P, fanout, rounds, seen)
        del got  # before the next superstep's batch is made: a superstep's lists reach hundreds of MB
    for pe in pes.values():
        pe.loads = loads[pe.pe_no]
    return steps


def _receipts(got, pes: dict, out: _Out, P: int, fanout: int, rounds: int, seen) -> None:
    """One superstep's gossip at each PE: a receipt merges and sends while the PE may still send, the rest
    are merged."""
    for p, msgs in got.by_dst().items():
        pe = pes[p]
        left = max(0, rounds + 1 - pe.sent)  # receipts that still make this PE send
        for _, m in msgs[:left]:
            _merge(pe, [m], seen)
            _gossip_send(out, P, p, pe, fanout, rounds)
        if len(msgs) > left:  # the rest only update what it knows: one merge
            _merge(pe, [m for _, m in msgs[left:]], seen)


def _merge(pe: _PE, msgs: list, seen: np.ndarray) -> None:
    """GossipLoadInfo's merge of received (pe, load) lists: the PEs known, in id order (a received entry
    replaces a known one with the same load). ``seen``: a scratch array of P False."""
    seen[pe.pe_no] = True
    for m in msgs:
        seen[m] = True
    pe.pe_no = np.flatnonzero(seen)
    seen[pe.pe_no] = False


def map_objs_to_pe(out: _Out, p: int, pe: _PE, load: np.ndarray, T: float, heap: np.ndarray, top: int) -> int:
    """MapObjsToPe over heap[top:]: smallest objects first, CMF draws, offers; returns the new top."""
    while pe.load > T and pe.objs_count >= 2 and top < heap.size:
        v = int(heap[top])
        w = float(load[v])
        top += 1
        k, success = -1, False
        while True:  # do { ... } while (!success && kMaxTrials > 0)
            k = int(np.searchsorted(pe.cdf, pe.rng.random(), side="left"))
            if k >= pe.cdf.size:
                break
            success = pe.loads[k] + w < T
            pe.trials -= 1
            if success or pe.trials <= 0:
                break
        if not success:
            return top - 1  # back into the heap
        pe.objs_count -= 1
        pe.loads[k] += w
        pe.load -= w
        _offer(out, p, int(pe.pe_no[k]), v, w)
    return top


def phase(eng, pes: dict, load: np.ndarray, T: float) -> int:
    """One LB phase: offers, answers and retries until none is in flight; returns its supersteps."""
    out = _Out("phase")  # offers and answers: one stream, so a PE handles them in (sender, post) order
    senders = []
    for p, pe in pes.items():
        pe.reported = pe.load  # StartNextLBPhase -> DoneWithLBPhase at once: before any offer reaches it
        if pe.pe_no.size and pe.load > T and not pe.underloaded:
            pe.top = map_objs_to_pe(out, p, pe, load, T, pe.heap, pe.top)
            senders.append(pe)
    steps = 0
    for got in _supersteps(eng, out):
        steps += 1
        if not len(got):  # under MPI a rank may receive none of a superstep's messages
            continue
        for p, src, (what, v, w) in zip(got.dst.tolist(), got.src.tolist(), got.values.tolist()):  # one row each
            pe = pes[p]
            v = int(v)
            if what == OFFER:  # InformMigration, no forced acceptance
                ok = pe.load + w <= T
                pe.load += w if ok else 0.0
                _answer(out, p, src, v, ok)
            elif what == ACCEPT:
                pe.moves[v] = src
            else:  # RecvAck, negative: take the load back, retry once or keep the object
                retry = pe.negacks <= NACK_SHARE * pe.pe_no.size
                pe.negacks += 1
                pe.objs_count += 1
                pe.load += float(load[v])
                if retry:
                    map_objs_to_pe(out, p, pe, load, T, np.array([v]), 0)
    for pe in senders:  # DoneWithLBPhase after its last answer
        pe.reported = pe.load
    return steps


def step(eng, load: np.ndarray, owner: np.ndarray, movable: np.ndarray, res: "Outcome", *, rounds: int,
         fanout: int, target_ratio: float, max_phases: int, rng_of, second: float = 1.0) -> dict:
    """One DistributedLB::Strategy call; returns each local PE's accepted moves, rows (object, new PE)."""
    P = eng.P
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(P + 1))
    mine = {p: order[starts[p]:starts[p + 1]] for p in eng.local}
    loads = np.array([float(load[order[starts[p]:starts[p + 1]]].sum()) for p in range(P)])  # each PE's, as its own
    my_load = {p: float(loads[p]) for p in eng.local}
    avg = float(eng.reduce(my_load, "sum")) / P
    ratio = float(eng.reduce(my_load, "max")) / avg if avg > 0 else 1.0
    if ratio <= target_ratio:
        return {p: np.empty((0, 2), np.int64) for p in eng.local}
    floor = target_ratio * avg
    pes = {p: _PE(my_load[p], my_load[p] < floor, rng_of(f"gossip/{p}")) for p in eng.local}
    res.gossip_supersteps += gossip(eng, pes, fanout, rounds, loads)
    res.gossip_max_sends = max(res.gossip_max_sends, int(eng.reduce({p: pe.sent for p, pe in pes.items()}, "max")))
    informed = int(eng.reduce({p: int(pe.pe_no.size > 0) for p, pe in pes.items()}, "sum"))
    res.informed = informed if res.informed < 0 else min(res.informed, informed)
    T = max(floor, (ratio + 1) * avg / 2)  # DoneGossip: (max + avg) / 2
    for p, pe in pes.items():  # Setup
        mov = mine[p][movable[mine[p]]]
        objs = mov[load[mov] > LOAD_FLOOR * second]
        pe.heap = objs[np.lexsort((objs, load[objs]))]
        pe.objs_count, pe.trials = int((load[mov] > COUNT_FLOOR * second).sum()), P
        pe.rng = rng_of(f"transfer/{p}")
        cum = np.cumsum((T - pe.loads) / T)
        pe.cdf = cum / cum[-1] if cum.size else cum
    phases = 0
    while True:
        res.thresholds.append(T / avg)
        phase(eng, pes, load, T)
        phases += 1
        old = ratio
        ratio = float(eng.reduce({p: pe.reported for p, pe in pes.items()}, "max")) / avg
        if not (ratio > target_ratio and T > floor and phases < max_phases):
            break
        T = max(floor, (T + avg) / 2) if abs(ratio - old) < 0.01 else max(floor, (ratio + 1) * avg / 2)
    res.phases += phases
    counts = eng.reduce({p: (len(pe.moves), pe.negacks) for p, pe in pes.items()}, "sum")
    res.transfers += int(counts[0])
    res.refusals += int(counts[1])
    return {p: np.array(sorted(pe.moves.items()), np.int64).reshape(-1, 2) for p, pe in pes.items()}


def balance(eng, load: np.ndarray, owner: np.ndarray, movable: np.ndarray, *, rounds: int, fanout: int,
            target_ratio: float, max_phases: int, iterations: int, rng_of, second: float = 1.0) -> Outcome:
    """``iterations`` DistributedLB steps, each on the placement the previous one left (an application that
    balances that often on the same loads); ``rng_of(stream)`` gives a generator every rank draws identically;
    ``second``: the load units in one second (the load floors are seconds)."""
    res = Outcome(owner.copy())
    if eng.P == 1:
        return res
    for it in range(iterations):
        moves = step(eng, load, res.owner, movable, res, rounds=rounds, fanout=fanout, target_ratio=target_ratio,
                     max_phases=max_phases, rng_of=lambda s: rng_of(f"{it}/{s}"), second=second)
        # every rank learns the new owners (PackAndSendMigrateMsgs: the accepted moves)
        for part in eng.allgather(moves):
            res.owner[part[:, 0]] = part[:, 1]
    return res
