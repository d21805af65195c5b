"""ITB — iterative tree balancing (AMR paper §4.5), a labelled reconstruction.

The paper's whole description: a table of the grids with pointers to their
neighbouring and parent grids, "a breadth first search is made on this graph
i.e. for every grid, immediate neighbors and children are also considered along
with load distribution". Our reading (spec §1.5, README):

1. the box graph (``boxes_to_graph``, cached: same-level face neighbours weighted by
   shared faces, coarse-fine overlap edges);
2. BFS from the lowest-numbered level-0 box; a visited box enqueues its
   unvisited same-level neighbours (most shared faces first, then index), then
   its children (finer boxes it overlaps, largest overlap first, then index);
   restart from the lowest unvisited box when the graph is disconnected;
3. the BFS order cut into P chunks of W/P (midpoint rule); a box is split at
   cell planes only if its work exceeds W/P;
4. at most ``itb_iters`` sweeps: every processor above (1 + tol) W/P hands to an
   adjacent processor below W/P its boundary box of largest gain (edge weight
   to the receiver minus edge weight kept) whose work is at most half the load
   difference; stop when nothing moves or every load is within (1 + tol) W/P.
"""
from __future__ import annotations

import numpy as np

from harness import Boxes, as_form, breadth_first, lex_order, row_prod

from .split import linear_pieces

I64 = np.int64


def _overlap_cells(boxes: Boxes, coarse, fine):
    """Fine cells of box ``fine`` lying over box ``coarse`` (one level coarser)."""
    r = boxes.ratio
    lo = np.maximum(boxes.lo[fine], boxes.lo[coarse] * r)
    hi = np.minimum(boxes.hi[fine], (boxes.hi[coarse] + 1) * r - 1)
    return row_prod(np.clip(hi - lo + 1, 0, None))


def bfs_order(boxes: Boxes, g) -> np.ndarray:
    """Step 2: the breadth-first order of the boxes over neighbours, then children."""
    src, dst, w = g.src, g.adjncy, g.cwgt
    lev = boxes.level
    same = lev[src] == lev[dst]
    child = lev[dst] == lev[src] + 1
    keep = same | child
    src, dst, w, child = src[keep], dst[keep], w[keep], child[keep]
    key = w.copy()
    key[child] = _overlap_cells(boxes, src[child], dst[child])
    order = lex_order(src, child, -key, dst)
    start = np.searchsorted(src[order], np.arange(boxes.n + 1))
    level0 = np.flatnonzero(lev == lev.min()) if boxes.n else np.zeros(0, I64)
    return breadth_first(start, dst[order], np.concatenate([level0, np.arange(boxes.n)]))


def itb(boxes: Boxes, P: int, itb_iters: int = 10, tol: float = 0.01):
    """Pieces (box, lo, hi, owner) of the ITB distribution (module docstring)."""
    if itb_iters < 0 or tol < 0:
        raise ValueError("amr-itb: itb_iters and tol must be >= 0")
    g = as_form(boxes, "graph")  # the level's box graph (cached: the runner's metrics use it too)
    order = bfs_order(boxes, g)
    work = boxes.work.astype(float)
    T = work.sum() / P
    wpc = float(boxes.ratio) ** boxes.level[order]
    item, lo, hi, chunk = linear_pieces(boxes.lo[order], boxes.hi[order], wpc, P, work[order] > T)
    box = order[item]
    split = np.bincount(box, minlength=boxes.n) > 1
    owner = np.full(boxes.n, -1, I64)
    owner[box] = chunk  # whole boxes; split boxes keep their pieces
    load = np.bincount(chunk, row_prod(hi - lo + 1) * wpc[item], minlength=P)
    # main owner of a split box (most cells) for the edge weights of step 4
    cells = row_prod(hi - lo + 1)
    o = np.lexsort((chunk, -cells, box))
    first = np.r_[True, box[o][1:] != box[o][:-1]]
    owner[box[o][first]] = chunk[o][first]
    src, dst, w = g.src, g.adjncy, g.cwgt.astype(float)
    cap = (1 + tol) * T
    for _ in range(int(itb_iters)):
        over = np.nonzero(load > cap)[0]
        if not over.size:
            break
        os_, od = owner[src], owner[dst]
        # edge weight from every movable box to every processor it touches
        movable = ~split[src] & (load[os_] > cap) & (od != os_)
        kept = np.bincount(src[os_ == od], w[os_ == od], minlength=boxes.n)
        key = src[movable] * P + od[movable]
        if not key.size:
            break
        u, inv = np.unique(key, return_inverse=True)
        to = np.bincount(inv, w[movable])
        cb, cq = u // P, u % P
        gain = to - kept[cb]
        rank = np.lexsort((cq, cb, -gain))  # best gain first, ties lowest box then processor
        cb, cq = cb[rank], cq[rank]
        moved = False
        for p in over.tolist():
            mine = owner[cb] == p
            for b, q in zip(cb[mine].tolist(), cq[mine].tolist()):
                if owner[b] != p or load[q] >= T or work[b] > (load[p] - load[q]) / 2:
                    continue
                owner[b] = q
                load[p] -= work[b]
                load[q] += work[b]
                moved = True
                break
        if not moved:
            break
    whole = ~split[box]
    chunk = np.where(whole, owner[box], chunk)
    return box, lo, hi, chunk
