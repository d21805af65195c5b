"""Vertex selection for migration (SBN paper §3.4).

Processor p that has to hand load to q picks a random subset of the vertices
queued locally, computes the differential edge cut ΔCut of each (normalized by
Wgt when positive; :func:`harness.measure.metrics.delta_cut`) and takes MinV, the one
with the smallest ΔCut. It then searches breadth-first over the vertices
adjacent to MinV that are still queued at p, adding them until enough load has
been found or no adjacent queued vertex remains; if more load is still needed
a new random subset is drawn and the procedure repeats.

The random subset is drawn from the queued vertices adjacent to data held by q
when there are any (``near_q``, our reading: the paper draws from all queued
vertices, but a subset of |R| = 8 out of thousands almost never contains one of
the vertices with the negative ΔCut that §3.4 wants to favour, and every
transfer then lands as an island inside q's neighbour's region), otherwise
from all of them.

The search is vectorized by BFS layer: a layer is every still-available
neighbour of the previous layer, in vertex order; the prefix of the layer that
fits is taken. A vertex is only added while (i) q has not yet received
``amount`` (priced on q: Wgt + Comm_q + Remap_q), (ii) p has not yet shed
``cap_p`` (priced on p) and (iii) q would not end heavier than p (the move
never worsens the pair's balance, §4.5).
"""
from __future__ import annotations

import numpy as np

from harness import Costs, costs_if_on, delta_cut

from . import _queue


def select(g, machine, view, queue: np.ndarray, avail: np.ndarray, cost: Costs, q: int, amount: float,
           load_p: float, base_q: float, rng: np.random.Generator, subset: int = 8, max_rounds: int = 64,
           cap_p: float = np.inf, near_q: bool = True):
    """Choose vertices of ``queue`` (those with ``avail``) to move from p to q.

    ``cost`` holds Wgt/Comm/Remap on p for every vertex (indexed by vertex);
    ``view`` is the State whose ``home`` is p's view of data locations.
    ``load_p`` is QWgt(p) now, ``base_q`` what q is believed to hold.
    Returns (vertices in selection order, their total cost on p, their total cost on q).
    ``avail`` is updated in place (selected vertices become unavailable).
    """
    chosen: list[np.ndarray] = []
    sent_p = sent_q = 0.0

    def total_p(verts):
        return cost.wgt[verts] + cost.comm[verts] + cost.remap[verts]

    near = None  # per queued vertex: has a neighbour whose data q holds (p's view does not change here)
    for _ in range(max_rounds):
        if sent_q >= amount or sent_p >= cap_p:
            break
        free = avail[queue]
        pool = queue[free]
        if pool.size == 0:
            break
        if near_q:
            # prefer vertices next to data held by q (our reading of §3.4, see module doc)
            if near is None:
                deg = g.xadj[queue + 1] - g.xadj[queue]
                hit = view.home[g.neighbours_of(queue)] == q
                near = np.bincount(np.repeat(np.arange(queue.size), deg), weights=hit, minlength=queue.size) > 0
            touch = near[free]
            if touch.any():
                pool = pool[touch]
        R = pool if pool.size <= subset else rng.choice(pool, size=subset, replace=False)
        on_q = costs_if_on(g, view, machine, R, q)
        on_p = Costs(cost.wgt[R], cost.comm[R], cost.remap[R])
        dc = delta_cut(on_p, on_q)
        i = int(np.argmin(dc))
        layer = R[i:i + 1]
        cq = on_q.total[i:i + 1]
        while layer.size:
            k, sent_p, sent_q = _fits(total_p(layer).tolist(), cq.tolist(), sent_p, sent_q, amount, cap_p,
                                      load_p, base_q)
            if k:
                take = layer[:k]
                avail[take] = False
                chosen.append(take)
            if k < layer.size:
                # enough load found, or q would become heavier than p: stop
                return _finish(chosen, sent_p, sent_q)
            nb = g.neighbours_of(take, distinct=True)
            layer = nb[avail[nb]]
            if layer.size:
                cq = costs_if_on(g, view, machine, layer, q).total
        # the search ran out of adjacent queued vertices: draw a new subset
    return _finish(chosen, sent_p, sent_q)


def _fits(cp: list, cq: list, sent_p: float, sent_q: float, amount: float, cap_p: float, load_p: float,
          base_q: float) -> tuple[int, float, float]:
    """How many vertices of a layer (costs cp on p, cq on q, in order) can move, and the sums after them.

    A vertex moves while q has received less than ``amount`` before it, p has shed less than ``cap_p``
    before it, and q would not end heavier than p. Running sums in layer order (a layer is a few vertices:
    scalars, not numpy calls).
    """
    k, run_p, run_q, now_p, now_q = 0, 0.0, 0.0, sent_p, sent_q
    for a, b in zip(cp, cq):
        before_p = sent_p + run_p
        run_p += a
        run_q += b
        after_p, after_q = sent_p + run_p, sent_q + run_q
        if not (after_q - b < amount and before_p < cap_p and base_q + after_q <= load_p - after_p):
            break
        k, now_p, now_q = k + 1, after_p, after_q
    return k, now_p, now_q


def _finish(chosen, sent_p, sent_q):
    verts = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    return verts, sent_p, sent_q


def carve(g, ids: np.ndarray, cost: np.ndarray, amount: float, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split ``ids`` (distinct) into a connected-as-possible piece of about ``amount`` load and the rest.

    Breadth-first region growing inside the set, from its first vertex (and from the
    next remaining one whenever a component is used up); a vertex is taken while the
    load taken before it is below ``amount``. Used to split the jobs of a distribution
    message among a node and its successors without scattering them. In C
    (``_queue.carve``, numpy's arithmetic in numpy's order); ``slot`` is an int64 scratch
    array of one zero per vertex, left as it was.

    Returns the positions in ``ids`` of the piece (in the order taken) and of the rest
    (in ``ids`` order).
    """
    buf = _queue.carve(g.xadj, g.adjncy, np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(cost, np.float64),
                       float(amount), slot)
    k = int(np.frombuffer(buf, np.int64, 1)[0])
    pos = np.frombuffer(buf, np.int64, ids.size, 8)
    return pos[:k], pos[k:]


def spread(g, ids: np.ndarray, cost: np.ndarray, deficit: float, tree: tuple, p: int, slot: np.ndarray
           ) -> tuple[list, list]:
    """GetDistribute's split of a distribution message's jobs at p (SBN §3), by :func:`carve` in turn.

    p keeps ``carve(ids, cost, deficit)`` (everything, as a node of the last stage); of the
    rest, each successor of p in the tree (``tree``: ``Trees.csr`` of the message's origin)
    but the last carves its share in turn, the shares in proportion to the successors'
    subtree sizes, and the last takes what is left. In C (``_queue.spread``).

    Returns (the successors in processor order, [positions in ``ids`` that p keeps, then
    each successor's]).
    """
    kstart, kid, size, xor = tree
    buf = _queue.spread(g.xadj, g.adjncy, np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(cost, np.float64),
                        float(deficit), kstart, kid, size, xor, p, slot)
    s = int(np.frombuffer(buf, np.int64, 1)[0])
    head = np.frombuffer(buf, np.int64, 2 * s + 2).tolist()
    cuts = np.cumsum(head[1 + s:])
    pos = np.frombuffer(buf, np.int64, ids.size, 8 * (2 * s + 2))
    return head[1:1 + s], np.split(pos, cuts[:-1])
