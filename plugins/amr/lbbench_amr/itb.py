"""ITB — iterative tree balancing (AMR paper §4.5), a labelled reconstruction.

The paper's whole description: "A table is created from the grids at each time
step, which keeps pointers to neighboring and parent grids. A breadth first
search is made on this graph i.e. for every grid, immediate neighbors and
children are also considered along with load distribution. Thus load
balancing, inter level communication and intra level communication are
addressed together. This scheme is used for distributing fine-element meshes
and is promising as it deals with all the constraints to some extent."
Our reading (README "ITB"):

1. the table: every box's parent pointer (``Boxes.parent``) and its same-level
   neighbours (the box graph of ``boxes_to_graph``, cached, weighted by shared faces);
2. the tree order: the grids of one level in breadth-first order over their
   neighbour pointers (most shared faces first; a new search from the lowest
   unvisited box), and every grid followed at once by its children, in that
   order, each followed by its own ("for every grid, immediate neighbors and
   children are also considered"): a pre-order of the parent tree, siblings
   in breadth-first order, so a grid's subtree stays contiguous (inter-level
   communication) and neighbouring subtrees follow each other (intra-level);
3. the order cut into P chunks of W/P (midpoint rule; a box is split at cell
   planes only if its work exceeds W/P);
4. at most ``itb_iters`` balancing sweeps: every processor above (1 + tol) W/P
   hands an adjacent processor below W/P its boundary box of largest gain
   (edge weight to the receiver minus edge weight kept) whose work is at most
   half the load difference; stop when nothing moves or every load is within
   (1 + tol) W/P;
5. the previous distribution: chunk k goes to the processor that held most of
   its cells at the previous step (largest overlaps first, one chunk a
   processor), so unchanged subtrees stay where they were: "all the
   constraints" include §2's "(4) enable dynamic load redistribution with
   minimum overheads".
"""
from __future__ import annotations

import numpy as np

from harness import Boxes, as_form, breadth_first, lex_order, overlap_join, row_prod

from .split import linear_pieces

I64 = np.int64


def tree_order(boxes: Boxes, g) -> np.ndarray:
    """Step 2: the pre-order of the parent tree, siblings (and the roots) in breadth-first order over their
    same-level neighbours."""
    src, dst, w = g.src, g.adjncy, g.cwgt
    same = boxes.level[src] == boxes.level[dst]
    src, dst, w = src[same], dst[same], w[same]
    o = lex_order(src, -w, dst)
    start = np.searchsorted(src[o], np.arange(boxes.n + 1))
    rank = np.empty(boxes.n, I64)
    rank[breadth_first(start, dst[o], np.arange(boxes.n))] = np.arange(boxes.n)
    # row k: the breadth-first rank of the box's level-k ancestor (-1 below the box's level: a parent
    # sorts before its children)
    lev = boxes.level
    depth = int(lev.max()) + 1 if boxes.n else 0
    cols = np.full((depth, boxes.n), -1, I64)
    anc = np.arange(boxes.n, dtype=I64)  # the ancestor ``up`` levels above each box
    for up in range(depth):
        ok = lev >= up
        cols[lev[ok] - up, np.nonzero(ok)[0]] = rank[anc[ok]]
        anc = np.where(ok & (boxes.parent[anc] >= 0), boxes.parent[anc], anc)
    return np.lexsort(cols[::-1]) if depth else np.zeros(0, I64)


def keep_places(boxes: Boxes, box, lo, hi, chunk, P: int, previous) -> np.ndarray:
    """Step 5: each chunk's processor, the previous step's owner of most of its cells (greedy on the
    overlaps, largest first, ties lowest chunk then processor; chunks without one to the processors left,
    in order)."""
    m = np.zeros((P, P))
    if previous is not None and previous.n:
        lev = boxes.level[box]
        for l in np.unique(lev):
            a, p = np.nonzero(lev == l)[0], np.nonzero(previous.level == l)[0]
            i, j, v = overlap_join(lo[a], hi[a], previous.lo[p], previous.hi[p])
            np.add.at(m, (chunk[a[i]], previous.owner[p[j]]), v)
    to = np.full(P, -1, I64)
    taken = np.zeros(P, bool)
    c, q = np.nonzero(m)
    for k in np.lexsort((q, c, -m[c, q])).tolist():
        if to[c[k]] < 0 and not taken[q[k]]:
            to[c[k]], taken[q[k]] = q[k], True
    to[to < 0] = np.nonzero(~taken)[0]
    return to[chunk]


def itb(boxes: Boxes, P: int, itb_iters: int = 10, tol: float = 0.01, previous=None):
    """Pieces (box, lo, hi, owner) of the ITB distribution (module docstring); ``previous``: the previous
    step's pieces (``BoxPieces``) or None."""
    if itb_iters < 0 or tol < 0:
        raise ValueError("amr-itb: itb_iters and tol must be >= 0")
    g = as_form(boxes, "graph")  # the level's box graph (cached: the runner's metrics use it too)
    order = tree_order(boxes, g)
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
    chunk = np.where(~split[box], owner[box], chunk)
    return box, lo, hi, keep_places(boxes, box, lo, hi, chunk, P, previous)
