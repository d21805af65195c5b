"""The SBN pre-partitioner (SBN paper §3.7).

A diffusive P-way partitioner that starts from the current assignment and
reassigns vertices so that QWgt(p) (Wgt + Comm + Remap, §3.1) is about equal
on all processors and WSysLL is as small as possible. Data does not move: the
actual migration happens lazily while SBN processes the level.

* One iteration is a sequence of reassignments in which every vertex moves at
  most once. While some processor is above WSysLL, the processor q with the
  smallest QWgt takes load: a random subset of q's vertices adjacent to
  overloaded processors is drawn (when q borders no overloaded processor, its
  heavier neighbours, which keep at least the mean of their load and q's: the
  diffusion that lets load travel across processors; our reading), ΔCut (harness.metrics.delta_cut) is computed
  for their adjacent vertices on overloaded processors, the one with the
  smallest ΔCut (MinV) goes to q, then a breadth-first search from MinV over
  vertices of overloaded processors adds more, until q reaches WSysLL (a source
  is never drained below WSysLL). A processor that finds no candidate is skipped
  for the rest of the iteration.
* After an iteration, if QWgt(r) / WSysLL > 1.75 for the heaviest r, a
  Kernighan-Lin style refinement reduces WSysLL (kl_refine).
* ItNum = 4 iterations; each new minimum of WSysLL extends the run by ItNum.
  The assignment returned is the one with the smallest max QWgt seen.

Comm while partitioning is *projected*: it counts neighbours assigned to other
processors (their data will be there once processed), Remap counts vertices
whose data is not on their new processor. The paper is silent on this; the
alternative (Comm against current data locations) would ignore every move's
effect on its neighbours.

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
        """(projected, data) states of the current assignment, built once per move."""
        if self._states is None:
            proj = State.settled(self.owner, self.P)
            self._states = (proj, State(proj.owner, self.home, self.P))
        return self._states

    def on(self, verts, q) -> Costs:
        """Costs of ``verts`` on q with Comm projected on the current assignment and Remap on the data homes."""
        proj, data = self._state()
        c = costs_if_on(self.g, proj, self.m, verts, q)
        r = costs_if_on(self.g, data, self.m, verts, q).remap
        return Costs(c.wgt, c.comm, r)

    def move(self, verts, q):
        if verts.size == 0:
            return
        aff = np.unique(np.concatenate([verts, self.g.neighbours_of(verts)]))
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
    again in this iteration; a p with no pair left is done. Load that cannot
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
        cand = np.unique(g.neighbours_of(R))
        cand = cand[(own[cand] == p) & ~moved[cand]]
        minv = cand[int(np.argmin(delta_cut(C.on(cand, p), C.on(cand, q))))]
        # breadth-first search from MinV over p's free vertices
        take: list[np.ndarray] = []
        got = lost = 0.0
        inset = []
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
            nb = np.unique(g.neighbours_of(layer))
            layer = nb[(own[nb] == p) & ~moved[nb]]
        if not take:
            blocked[p, q] = True
            continue
        S = np.concatenate(take)
        C.move(S, q)
        total += S.size
    return total


def kl_refine(C: _Costs, passes: int = 8) -> int:
    """Kernighan-Lin style refinement (§3.7): boundary moves that lower the total cost, never a new maximum.

    Vectorized greedy passes: every boundary vertex proposes the neighbouring
    processor with the largest gain ``-(ΔRemap + 2 ΔComm)`` (Comm changes on both
    sides of each edge); positive-gain proposals that are not adjacent to a
    better proposal move, as long as the target stays at or below the current
    max QWgt. Returns the number of moves.
    """
    g, P = C.g, C.P
    total = 0
    for _ in range(passes):
        own = C.owner
        src, dst = g.src, g.adjncy
        e = own[src] != own[dst]
        if not e.any():
            break
        pair = np.unique(src[e] * P + own[dst[e]])
        v, t = pair // P, pair % P
        on_t = C.on(v, t)
        on_p = C.on(v, own[v])
        gain = -((on_t.remap - on_p.remap) + 2 * (on_t.comm - on_p.comm))
        # best target per vertex
        order = np.lexsort((t, -gain, v))
        v, t, gain, cq = v[order], t[order], gain[order], on_t.total[order]
        first = np.r_[True, v[1:] != v[:-1]]
        v, t, gain, cq = v[first], t[first], gain[first], cq[first]
        keep = gain > 0
        v, t, gain, cq = v[keep], t[keep], gain[keep], cq[keep]
        if v.size == 0:
            break
        # independent set: a vertex moves only if no adjacent proposer has a larger gain (ties: smaller id)
        g_of = np.full(g.n, -np.inf)
        g_of[v] = gain
        nb_best = np.full(g.n, -np.inf)
        np.maximum.at(nb_best, src, g_of[dst])
        win = gain > nb_best[v]
        v, t, gain, cq = v[win], t[win], gain[win], cq[win]
        # capacity: targets stay at or below the current maximum
        cap = C.qw.max() - C.qw
        order = np.argsort(-gain, kind="stable")
        v, t, cq = v[order], t[order], cq[order]
        o2 = np.argsort(t, kind="stable")
        cs = np.cumsum(cq[o2])
        starts = np.r_[0, np.flatnonzero(np.diff(t[o2])) + 1]
        base = np.repeat(cs[starts] - cq[o2][starts], np.diff(np.r_[starts, t.size]))
        cum = np.empty_like(cq)
        cum[o2] = cs - base
        ok = cum <= cap[t]
        v, t = v[ok], t[ok]
        if v.size == 0:
            break
        for q in np.unique(t):
            C.move(v[t == q], int(q))
        total += v.size
    return total


def prepartition(g, state: State, m, rng, itnum: int = 4, kl_threshold: float = 1.75, subset: int = 8):
    """Run the §3.7 pre-partitioner; returns (owner array, figures for ctx.record)."""
    P = m.P
    C = _Costs(g, m, state.owner, state.home, P)
    best_max, best_owner, best_w = C.qw.max(), C.owner.copy(), wsysll(C.qw)
    min_w = wsysll(C.qw)
    its, planned, moves, kl_moves = 0, itnum, 0, 0
    while its < planned:
        moves += _iteration(C, rng, subset)
        W = wsysll(C.qw)
        if W > 0 and C.qw.max() / W > kl_threshold:
            kl_moves += kl_refine(C)
            C.refresh()
            W = wsysll(C.qw)
        its += 1
        if W < min_w:
            min_w = W
            planned += itnum
        if C.qw.max() < best_max:
            best_max, best_owner, best_w = C.qw.max(), C.owner.copy(), wsysll(C.qw)
    figs = {"prepart_iterations": its, "prepart_moves": int(moves), "prepart_kl_moves": int(kl_moves),
            "prepart_loadimb": float(best_max / max(best_w, 1))}
    return best_owner, figs
