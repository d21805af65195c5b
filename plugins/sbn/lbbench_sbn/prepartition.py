"""The SBN pre-partitioner (SBN paper §3.7).

A diffusive P-way partitioner that starts from the current assignment and
reassigns vertices so that QWgt(p) (Wgt + Comm + Remap, §3.1) is about equal
on all processors and WSysLL is as small as possible. Data does not move: the
actual migration happens lazily while SBN processes the level.

* One iteration (:func:`_iteration`) is a sequence of reassignments in which
  every vertex moves at most once: while some processor p is above WSysLL,
  the most loaded one gives to the processor q with the minimum QWgt among
  those it borders: a random subset of q's vertices adjacent to p is drawn,
  ΔCut (harness.measure.metrics.delta_cut) is computed for their neighbours on p, the
  one with the smallest ΔCut (MinV) goes to q, then a breadth-first search
  from MinV over p's vertices adds more, while q stays below p and p at or
  above WSysLL. A processor that fills up passes load on to its own lighter
  neighbours (diffusion): our reading of "assigned to the processor q with
  the minimum QWgt(q)" for a q that does not border p.
* After an iteration, if QWgt(r) / WSysLL > 1.75 for the heaviest r, a
  Kernighan-Lin refinement (:func:`kl_refine`) lowers WSysLL, within the
  balance bound (1 + kl_tol) WSysLL, and brings processors above the bound
  down to it.
* ItNum = 4 iterations; after each, if WSysLL is a new minimum (below every
  earlier iteration's), ItNum more are added. The assignment returned is the
  one with the smallest max QWgt seen.

Comm while partitioning is *projected*: it counts neighbours assigned to other
processors (their data will be there once processed), Remap counts vertices
whose data is not on their new processor. §5.3 says what is traded: "The
pre-partitioner will allow an increase in the redistribution cost if it is
compensated by a larger improvement in the communication cost", an improvement
the projected Comm shows on both ends of an edge (against the data where it is,
a move lowers only the moved vertex's own Comm, never a neighbour's). Against
the data homes (§3.1's Comm at the level start, the other fair reading), Table
4's MaxSR was below Table 5's at P = 8 and 16 on shock version 5 (34,043 vs
36,619; 27,772 vs 30,470) and is 1.13-1.20x it at P = 8-32 on version 6, where
the projected reading gives 0.88-1.07x (README "Table 4 on version 6: what
SBN's execution moves"): neither reading is chosen by that figure.

The partitioner is sequential, as the paper's was (§5.4); it runs identically
on every MPI rank from ``ctx.rng("prepartition")``.
"""
from __future__ import annotations

import numpy as np

from harness import Costs, State, costs_if_on, delta_cut, wsysll


class _Costs:
    """Per-vertex projected costs and QWgt, updated incrementally as vertices move."""

    def __init__(self, g, m, owner, home, P):
        self.g, self.m, self.home, self.P = g, m, np.asarray(home), P
        self.owner = np.array(owner, dtype=np.int64)
        self._states = None
        self.refresh()

    def refresh(self):
        c = self.on(np.arange(self.g.n), self.owner)
        self.t = c.total.copy()
        self.qw = np.bincount(self.owner, weights=self.t, minlength=self.P)

    def _state(self):
        """The projected state of the current assignment (data where it is assigned), built once per move."""
        if self._states is None:
            self._states = State.settled(self.owner, self.P)
        return self._states

    def on(self, verts, q) -> Costs:
        """Costs of ``verts`` on q with Comm projected on the current assignment and Remap on the data homes."""
        c = costs_if_on(self.g, self._state(), self.m, verts, q)
        home = self.home[verts]  # Remap as costs_if_on gives it for the data homes (§3.1)
        return Costs(c.wgt, c.comm, np.where(home != q, self.g.rwgt[verts] * self.m.slowdown(home, q), 0.0))

    def move(self, verts, q):
        if verts.size == 0:
            return
        aff = self.g.neighbourhood(verts)
        self.qw -= np.bincount(self.owner[aff], weights=self.t[aff], minlength=self.P)
        self.owner[verts] = q
        self._states = None
        self.t[aff] = self.on(aff, self.owner[aff]).total
        self.qw += np.bincount(self.owner[aff], weights=self.t[aff], minlength=self.P)


def _edges_of(g, verts):
    """(u, w) for every adjacency entry of the vertices ``verts``: u in verts, w its neighbour."""
    deg = g.xadj[verts + 1] - g.xadj[verts]
    return np.repeat(verts, deg), g.neighbours_of(verts)


def _iteration(C: _Costs, rng, subset: int) -> int:
    """One iteration of reassignments (§3.7); returns the number of vertices moved.

    While some processor p has QWgt(p) > WSysLL, the most loaded such p gives
    vertices to the processor q with the minimum QWgt among those it borders
    (through vertices not yet reassigned in this iteration) and below it: a
    random subset of q's vertices adjacent to p is drawn, ΔCut is computed for
    their neighbours on p, MinV (the smallest ΔCut) goes to q, then a
    breadth-first search from MinV over p's vertices adds more, as long as q
    stays below p (q receives Wgt + Comm + Remap, p loses Wgt + Comm) and p does
    not drop below WSysLL. A pair (p, q) that yields nothing is not tried
    again in this iteration; a p with no pair left waits until some move
    changes the loads. Load that cannot
    reach a light processor directly passes through p's neighbours, which
    become overloaded in turn (diffusion).
    """
    g, n, P = C.g, C.g.n, C.P
    moved = np.zeros(n, bool)
    done = np.zeros(P, bool)
    blocked = np.zeros((P, P), bool)
    total = 0
    while True:
        W = wsysll(C.qw)
        over = (C.qw > W) & ~done
        if not over.any():
            break
        p = int(np.flatnonzero(over)[np.argmax(C.qw[over])])
        own = C.owner
        # processors q bordering p through vertices still free to move, lighter than p
        u, w = _edges_of(g, np.flatnonzero((own == p) & ~moved))
        qs = np.unique(own[w])
        qs = qs[(qs != p) & ~blocked[p, qs] & (C.qw[qs] < C.qw[p])]
        if qs.size == 0:
            done[p] = True
            continue
        q = int(qs[np.argmin(C.qw[qs])])
        border = np.unique(w[own[w] == q])
        R = border if border.size <= subset else rng.choice(border, size=subset, replace=False)
        cand = g.neighbours_of(R, distinct=True)
        cand = cand[(own[cand] == p) & ~moved[cand]]
        minv = cand[int(np.argmin(delta_cut(C.on(cand, p), C.on(cand, q))))]
        # breadth-first search from MinV over p's free vertices
        take: list[np.ndarray] = []
        got = lost = 0.0
        layer = np.array([minv])
        while layer.size:
            cq = C.on(layer, q).total
            cp = C.t[layer]
            # q stays at or below p, p stays at or above WSysLL
            ok = (C.qw[q] + got + np.cumsum(cq) <= C.qw[p] - lost - np.cumsum(cp)) & \
                 (C.qw[p] - lost - np.cumsum(cp) >= W)
            k = int(np.argmin(ok)) if not ok.all() else ok.size
            if k:
                pick = layer[:k]
                take.append(pick)
                moved[pick] = True  # reassigned at most once per iteration (and not revisited by this search)
                got += float(cq[:k].sum())
                lost += float(cp[:k].sum())
            if k < layer.size:
                break
            nb = g.neighbours_of(layer, distinct=True)
            layer = nb[(own[nb] == p) & ~moved[nb]]
        if not take:
            blocked[p, q] = True
            continue
        S = np.concatenate(take)
        C.move(S, q)
        total += S.size
        done[:] = False  # loads changed: a processor with no lighter neighbour may have one now
    return total


def _cum_by(key, w):
    """Running sum of ``w`` within each run of equal ``key`` (``key`` sorted)."""
    cs = np.cumsum(w)
    starts = np.r_[0, np.flatnonzero(np.diff(key)) + 1]
    return cs - np.repeat(cs[starts] - w[starts], np.diff(np.r_[starts, key.size]))


def kl_refine(C: _Costs, tol: float = 0.03, passes: int = 50) -> int:
    """Kernighan-Lin refinement (§3.7, [17]) that lowers WSysLL and respects balance.

    k-way boundary passes in the manner of the greedy KL variants of
    multilevel partitioners (§4.2): every boundary vertex v on p proposes the
    neighbouring processor t with the largest gain, the drop in total
    Comm + Remap (``-(ΔRemap + 2 ΔComm)``: Comm changes on both sides of each
    edge), which is P times the drop in WSysLL. The balance bound is
    B = (1 + tol) WSysLL: a positive-gain move is made only if t stays at or
    below B; a processor above B also sends its best-gain boundary vertices
    (even at a loss) to neighbours that stay at or below B, until it is at or
    below B. Moves of one pass are independent (no two adjacent vertices move
    in a pass). Passes repeat until none moves anything. Returns the number of moves.
    """
    g, P = C.g, C.P
    total = 0
    for _ in range(passes):
        own = C.owner
        W = wsysll(C.qw)
        B = (1.0 + tol) * W
        src, dst = g.src, g.adjncy
        e = own[src] != own[dst]
        if not e.any():
            break
        pair = np.unique(src[e] * P + own[dst[e]])
        v, t = pair // P, pair % P
        on_t = C.on(v, t)
        on_p = C.on(v, own[v])
        gain = -((on_t.remap - on_p.remap) + 2 * (on_t.comm - on_p.comm))
        p = own[v]
        heavy = C.qw[p] > B
        # a balancing move must leave the target lighter than the source was
        fits = C.qw[t] + on_t.total <= B
        ok = fits & ((gain > 0) | heavy)
        v, t, p, gain, cq, cp = v[ok], t[ok], p[ok], gain[ok], on_t.total[ok], on_p.total[ok]
        if v.size == 0:
            break
        # best target per vertex (largest gain; ties: lighter target)
        order = np.lexsort((C.qw[t], -gain, v))
        v, t, p, gain, cq, cp = (x[order] for x in (v, t, p, gain, cq, cp))
        first = np.r_[True, v[1:] != v[:-1]]
        v, t, p, gain, cq, cp = (x[first] for x in (v, t, p, gain, cq, cp))
        # independent set: a vertex moves only if no adjacent proposer has a larger gain (ties: smaller id)
        g_of = np.full(g.n, -np.inf)
        g_of[v] = gain
        nb_best = np.full(g.n, -np.inf)
        np.maximum.at(nb_best, src, np.where(g_of[dst] == g_of[src], -np.inf, g_of[dst]))
        tie = np.zeros(g.n, bool)
        np.logical_or.at(tie, src, (g_of[dst] == g_of[src]) & (dst < src) & np.isfinite(g_of[dst]))
        win = (gain > nb_best[v]) & ~tie[v]
        v, t, p, gain, cq, cp = (x[win] for x in (v, t, p, gain, cq, cp))
        # best gain first: targets stay at or below B; sources above B send until at or below B,
        # sources at or below B send only gainful moves
        order = np.argsort(-gain, kind="stable")
        v, t, p, gain, cq, cp = (x[order] for x in (v, t, p, gain, cq, cp))
        ot = np.argsort(t, kind="stable")
        into = np.empty_like(cq)
        into[ot] = _cum_by(t[ot], cq[ot])
        op = np.argsort(p, kind="stable")
        out = np.empty_like(cp)
        out[op] = _cum_by(p[op], cp[op])
        excess = C.qw[p] - B
        ok = (C.qw[t] + into <= B) & ((gain > 0) | (out - cp < excess))
        v, t = v[ok], t[ok]
        if v.size == 0:
            break
        for q in np.unique(t):
            C.move(v[t == q], int(q))
        total += v.size
    return total


def prepartition(g, state: State, m, rng, itnum: int = 4, kl_threshold: float = 1.75, subset: int = 8,
                 kl_tol: float = 0.03):
    """Run the §3.7 pre-partitioner; returns (owner array, figures for ctx.record).

    ItNum iterations; after each, the KL refinement runs if QWgt(r) / WSysLL >
    ``kl_threshold`` for the heaviest r, and the run is extended by ItNum
    iterations whenever WSysLL reaches a new minimum (the first iteration's
    WSysLL is the first reference). The assignment returned is the one with
    the smallest max QWgt seen.
    """
    P = m.P
    C = _Costs(g, m, state.owner, state.home, P)
    best_max, best_owner, best_w = C.qw.max(), C.owner.copy(), wsysll(C.qw)
    min_w = None
    its, planned, moves, kl_moves, kl_runs = 0, itnum, 0, 0, 0
    while its < planned:
        moves += _iteration(C, rng, subset)
        W = wsysll(C.qw)
        if W > 0 and C.qw.max() / W > kl_threshold:
            kl_moves += kl_refine(C, tol=kl_tol)
            kl_runs += 1
            C.refresh()
            W = wsysll(C.qw)
        its += 1
        if min_w is not None and W < min_w:
            planned += itnum
        min_w = W if min_w is None else min(min_w, W)
        if C.qw.max() < best_max:
            best_max, best_owner, best_w = C.qw.max(), C.owner.copy(), wsysll(C.qw)
    figs = {"prepart_iterations": its, "prepart_moves": int(moves), "prepart_kl_moves": int(kl_moves),
            "prepart_kl_runs": kl_runs, "prepart_loadimb": float(best_max / max(best_w, 1))}
    return best_owner, figs
