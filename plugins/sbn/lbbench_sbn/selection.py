"""Vertex selection for migration (SBN paper §3.4).

Processor p that has to hand load to q picks a random subset of the vertices
queued locally, computes the differential edge cut ΔCut of each (normalized by
Wgt when positive; :func:`harness.measure.metrics.delta_cut`) and takes MinV, the one
with the smallest ΔCut. It then searches breadth-first over the vertices
adjacent to MinV that are still queued at p, adding them until enough load has
been found or no adjacent queued vertex remains; if more load is still needed
a new random subset is drawn and the procedure repeats.

The random subset R is drawn, as §3.4 says, from all the vertices queued at
p that are still available (``rng.choice`` without replacement, its draws made
in C: ``_queue.choice``). ``near_q`` is our variant, not the paper's
(``sbn[subset_from=receiver]``): R is drawn from the queued vertices adjacent
to data held by q when there are any, otherwise from all of them.

The search goes by BFS layer (in C, ``_queue.search``): a layer is every
still-available neighbour of the previous layer, in vertex order; the prefix of
the layer that fits is taken, by running sums in layer order. A vertex is only
added while (i) q has not yet received
``amount`` (priced on q: Wgt + Comm_q + Remap_q), (ii) p has not yet shed
``cap_p`` (priced on p) and (iii) q would not end heavier than p (the move
never worsens the pair's balance, §4.5).
"""
from __future__ import annotations

import numpy as np

from harness import Costs, LocationView, costs_if_on

from . import _queue

_NONE = np.zeros(0, np.int64)
ROUNDS = 64  # the most subsets R one selection draws (select's max_rounds)


def select(g, machine, view, queue: np.ndarray, avail: np.ndarray, cost: Costs, q: int, amount: float,
           load_p: float, base_q: float, rng: np.random.Generator, subset: int = 8, max_rounds: int = ROUNDS,
           cap_p: float = np.inf, near_q: bool = False, slot: np.ndarray | None = None,
           evaluated: list | None = None, native: bool = True, locked: tuple | None = None):
    """Choose vertices of ``queue`` (those with ``avail``; only queued vertices have it) to move from p to q.

    ``cost`` holds Wgt/Comm/Remap on p for every vertex (indexed by vertex, float64);
    ``view`` is the State whose ``home`` is p's view of data locations.
    ``load_p`` is QWgt(p) now, ``base_q`` what q is believed to hold.
    ``slot``: an int32 scratch array of one zero per vertex (left as it was; None: one is made).
    ``evaluated``: a list to which each round appends Σ δ_r over its subset R (§5.4's cost of the ΔCuts).
    ``near_q``: draw R from the queued vertices next to data q holds, when there are any (our variant; False:
    from the whole local queue, §3.4).
    Returns (vertices in selection order, their total cost on p, their total cost on q).
    ``avail`` is updated in place (selected vertices become unavailable). ``locked`` (native only): (pinned,
    fixed), bool by vertex: ``avail`` is marked on the queued vertices in neither and cleared on them after, in C.
    The rounds are one C call (``_queue.select``: the degrees, ``near_q``'s test, each round's pool, R, MinV and
    the search, ΔCut as :func:`harness.delta_cut` computes it); ``native`` False: the reference path, numpy's
    pool and test, R (``_queue.choice``) and the search (``_queue.search``) one round at a time.
    """
    slot = np.zeros(g.n, np.int32) if slot is None else slot
    queue = np.ascontiguousarray(queue, np.int64)
    if native:
        verts, sent_p, sent_q, ev, _ = rounds(g, machine, view, queue, avail, cost, q, amount, load_p, base_q, rng,
                                              subset, max_rounds, cap_p, near_q, slot, locked or ())
        if evaluated is not None and ev:
            evaluated.append(ev)
        return verts, sent_p, sent_q
    chosen: list[np.ndarray] = []
    sent_p = sent_q = 0.0
    at = np.arange(queue.size)
    on_q = None  # every queued vertex priced on q, each on its own (p's view does not change here)
    near = None  # per queued vertex: has a neighbour whose data q holds
    for _ in range(max_rounds):
        if sent_q >= amount or sent_p >= cap_p:
            break
        if on_q is None:  # the first round (none when nothing is available)
            if not avail[queue].any():
                break
            on_q = costs_if_on(g, view, machine, queue, q)
            cq = on_q.total
            deg = g.xadj[queue + 1] - g.xadj[queue]
        free = avail[queue]
        pool = at[free]  # positions in queue
        if near_q and pool.size:
            # our variant (module doc): vertices next to data held by q, when there are any
            if near is None:
                hit = np.zeros(int(deg.sum()) + 1, np.int64)  # hits among the neighbours so far, by CSR order
                np.cumsum(view.home[g.neighbours_of(queue)] == q, out=hit[1:])
                end = np.cumsum(deg)
                near = hit[end] > hit[end - deg]
            touch = pool[near[free]]
            if touch.size:
                pool = touch
        if pool.size == 0:
            break
        # rng.choice(pool, size=subset, replace=False): the same draws, in C
        R = pool if pool.size <= subset else np.frombuffer(_queue.choice(rng.bit_generator.capsule, pool, subset),
                                                           np.int64)
        if evaluated is not None:
            evaluated.append(int(np.add.reduce(deg[R])))
        # MinV (the smallest delta_cut in R) and the search from it, in C
        buf = _queue.search(g.xadj, g.adjncy, queue, cq, on_q.comm, on_q.remap, R, avail, cost.wgt, cost.comm,
                            cost.remap, slot, sent_p, sent_q, float(amount), float(cap_p), float(load_p),
                            float(base_q))
        stopped, k = np.frombuffer(buf, np.int64, 2).tolist()
        sent_p, sent_q = np.frombuffer(buf, np.float64, 2, 16).tolist()
        if k:
            chosen.append(np.frombuffer(buf, np.int64, k, 32))
        if stopped:  # enough load found, or q would become heavier than p
            break
        # the search ran out of adjacent queued vertices: draw a new subset
    return _finish(chosen, sent_p, sent_q)


def rounds(g, machine, view, queue: np.ndarray, avail: np.ndarray, cost: Costs, q: int, amount: float, load_p: float,
           base_q: float, rng: np.random.Generator, subset: int, max_rounds: int, cap_p: float, near_q: bool,
           slot: np.ndarray, locked: tuple = ()) -> tuple:
    """select's rounds in one C call (``_queue.select``), its arguments as select's (``queue``: int64,
    contiguous): the queue's prices on q (``costs_if_on``'s, through ``LocationView.C_API``: only those the search
    reads, R's and the layers', each as it is first read), the degrees, near_q's test in p's view, each round's
    pool, R, MinV and the search in C. Returns (vertices, their cost on p, their cost on q, Σ δ_r over the rounds'
    R (§5.4), Σ δ_v over the vertices)."""
    if queue.size == 0:
        return _NONE, 0.0, 0.0, 0, 0
    h = view.home if isinstance(view.home, LocationView) else LocationView(view.home, machine.P)
    priced = (g.cwgt, g.pwgt, g.rwgt, machine.proc_of, machine.cluster, machine.conn, LocationView.C_API)
    buf = _queue.select(g.xadj, g.adjncy, queue, priced, avail, cost.wgt, cost.comm, cost.remap, slot, h.base, h.keys,
                        h.values, rng.bit_generator.capsule, int(q), near_q, int(subset), int(max_rounds),
                        float(amount), float(cap_p), float(load_p), float(base_q), *locked)
    k, ev, deg = np.frombuffer(buf, np.int64, 3).tolist()
    sent_p, sent_q = np.frombuffer(buf, np.float64, 2, 24).tolist()
    return np.frombuffer(buf, np.int64, k, 40), sent_p, sent_q, ev, deg


def _finish(chosen, sent_p, sent_q):
    verts = np.concatenate(chosen) if chosen else _NONE
    return verts, sent_p, sent_q


def spread(g, ids: np.ndarray, cost: np.ndarray, deficit: float, tree: tuple, p: int, slot: np.ndarray
           ) -> tuple[list, list]:
    """GetDistribute's split of a distribution message's jobs at p (SBN §3), by carves in turn.

    A carve splits jobs into a connected-as-possible piece of about a given load and the
    rest: breadth-first region growing inside the set, from its first vertex (and from the
    next remaining one whenever a component is used up); a vertex is taken while the load
    taken before it is below the amount. It keeps the jobs handed on together instead of
    scattered. p keeps the carve of its ``deficit`` (everything, as a node of the last
    stage); of the rest, each successor of p in the tree (``tree``: ``Trees.csr`` of the
    message's origin) but the last carves its share in turn, the shares in proportion to
    the successors' subtree sizes, and the last takes what is left. In C
    (``_queue.spread``; ``slot``: an int32 scratch array of one zero per vertex, left as it
    was).

    Returns (the successors in processor order, [positions in ``ids`` that p keeps, then
    each successor's]).
    """
    kstart, kid, size, xor = tree
    buf = _queue.spread(g.xadj, g.adjncy, np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(cost, np.float64),
                        float(deficit), kstart, kid, size, xor, p, slot)
    s = int.from_bytes(buf[:8], "little", signed=True)
    head = np.frombuffer(buf, np.int64, 2 * s + 2).tolist()
    pos = np.frombuffer(buf, np.int64, ids.size, 8 * (2 * s + 2))
    parts, at = [], 0
    for k in head[1 + s:2 + 2 * s]:
        parts.append(pos[at:at + k])
        at += k
    return head[1:1 + s], parts
