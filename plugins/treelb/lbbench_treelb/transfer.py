"""Phase 4 (§3.1): which nodes a transfer of m units from P_i to P_j moves.

"Let N denote the set of nodes in P_i that are adjacent to those of P_j ...
nodes in N are transferred first. If |N| is less than m, then nodes adjacent
to those in N are transferred. This process is continued until the number of
nodes transferred to P_j is equal to m." = BFS layers inside P_i (its current
nodes) from its boundary with P_j. Within a layer: most FE edges into
P_j or the nodes selected in earlier layers first, then lowest node id. When
the layers run out (P_i's part reachable from the boundary is too small, or
P_i and P_j are not adjacent), a multi-source BFS over the whole FE graph from
P_j's nodes and the selected ones takes P_i's nodes by distance, then id.
Weights: nodes are taken while moved + pwgt(next)/2 < m (exact count for unit
weights). Pinned nodes (``Level.pinned``) never move: ``movable`` leaves them out.
"""
from __future__ import annotations

import numpy as np


def _take(order: np.ndarray, w: np.ndarray, need: float) -> np.ndarray:
    """The prefix of ``order`` a transfer of ``need`` units takes."""
    if need <= 0 or order.size == 0:
        return order[:0]
    before = np.cumsum(w[order]) - w[order]
    ok = before + w[order] / 2.0 < need
    k = order.size if ok.all() else int(np.argmin(ok))
    return order[:k]


def _edge_counts(g, verts: np.ndarray, target: np.ndarray) -> np.ndarray:
    """For each vertex in ``verts``, the cwgt of its edges into the boolean mask ``target``."""
    deg = g.xadj[verts + 1] - g.xadj[verts]
    nb = g.neighbours_of(verts)
    idx = np.repeat(np.arange(verts.size), deg)
    starts = g.xadj[verts]
    ent = np.repeat(starts - np.cumsum(deg) + deg, deg) + np.arange(deg.sum())
    return np.bincount(idx, weights=g.cwgt[ent] * target[nb], minlength=verts.size)


def _distances_from(g, sources: np.ndarray, limit_mask: np.ndarray) -> np.ndarray:
    """Unweighted BFS distance from ``sources`` over the whole graph; stops once every
    vertex of ``limit_mask`` is reached (-1 = unreached)."""
    dist = np.full(g.n, -1, np.int64)
    dist[sources] = 0
    frontier = sources
    left = int(limit_mask.sum() - limit_mask[sources].sum())
    d = 0
    while frontier.size and left > 0:
        d += 1
        nb = g.neighbours_of(frontier, distinct=True)
        nb = nb[dist[nb] < 0]
        dist[nb] = d
        left -= int(limit_mask[nb].sum())
        frontier = nb
    return dist


def select(g, owner: np.ndarray, i: int, j: int, m: float, movable: np.ndarray | None = None) -> np.ndarray:
    """Node ids P_i sends to P_j for a transfer of ``m`` units of pwgt (sorted by selection order);
    only nodes with ``movable`` set (all when None) are candidates."""
    w = g.pwgt
    mine = owner == i if movable is None else (owner == i) & movable
    mine_ids = np.flatnonzero(mine)
    if m <= 0 or mine_ids.size == 0:
        return mine_ids[:0]
    if w[mine_ids].sum() <= m:
        return mine_ids
    target = owner == j
    nb = g.neighbours_of(mine_ids)
    deg = g.xadj[mine_ids + 1] - g.xadj[mine_ids]
    layer = np.unique(np.repeat(mine_ids, deg)[target[nb]])
    chosen, moved, done = [], 0.0, False
    seen = np.zeros(g.n, bool)
    seen[layer] = True
    while layer.size:
        score = _edge_counts(g, layer, target)
        order = layer[np.lexsort((layer, -score))]
        took = _take(order, w, m - moved)
        chosen.append(took)
        moved += float(w[took].sum())
        if took.size < order.size:
            done = True
            break
        target[took] = True  # selected nodes join the target side for the next layer's scores
        nxt = g.neighbours_of(layer, distinct=True)
        nxt = nxt[mine[nxt] & ~seen[nxt]]
        seen[nxt] = True
        layer = nxt
    sel = np.concatenate(chosen) if chosen else mine_ids[:0]
    if not done and moved < m:
        left = mine.copy()
        left[sel] = False
        rest = np.flatnonzero(left)
        if rest.size:
            sources = np.concatenate([np.flatnonzero(owner == j), sel])
            if sources.size == 0:
                sources = rest[:1]
            dist = _distances_from(g, sources, left)
            dist = np.where(dist[rest] < 0, np.iinfo(np.int64).max, dist[rest])
            order = rest[np.lexsort((rest, dist))]
            sel = np.concatenate([sel, _take(order, w, m - moved)])
    return sel
