"""WD — weighted distribution (AMR paper §4.6), a labelled reconstruction.

Paper: weights for intra-level communication, inter-level communication and
data movement; "for each grid, the affinity of the processor(s) housing its
parents is now increased by the inter-level communication weight. Similarly the
affinities of processors housing the neighbors of the grid are increased by the
intra-level communication weight, and affinity of the original location of the
grid is increased by the data-movement overhead weight. The grid is now
assigned to the available processors (i.e. total assigned load is below
threshold for load balancing) to which the grid has maximum affinity. If the
grid has equal affinity to more than one processor, the grid is either split
among the processor (if its size is greater than the size threshold) or
assigned to the processor with least load."

Missing values and order follow the spec (§1.6, README): boxes level by level
(coarse first, so parents are placed), within a level by descending work then
index; A_q = w_inter [q holds a level-(l-1) piece over the box] + w_intra [q
holds a piece of a face-adjacent level-l box already placed] + w_move [q held
level-l data over the box at the previous step] (``affinity=indicator``; with
``volume`` each term is weighted by overlap or shared-face cells / box cells);
available = load < (1 + tol) W/P; ties are split into equal slabs along the
longest axis among the least loaded tied processors if the box's work exceeds
``size_threshold`` W/P, else go to the least loaded; nobody available -> least
loaded overall.
"""
from __future__ import annotations

import numpy as np

from harness import Boxes, as_form, overlap_join

from . import _place

I64 = np.int64


def _csr(n: int, box, proc, val):
    """Per box (0..n-1) its (processor, value) pairs, in the given order (overlap_join's (i, j) order: the
    affinities sum in a fixed order): (start, processors, values)."""
    o = np.argsort(box, kind="stable")
    start = np.searchsorted(box[o], np.arange(n + 1))
    return start.astype(I64), np.ascontiguousarray(proc[o], I64), np.ascontiguousarray(val[o], float)


def wd(boxes: Boxes, P: int, previous=None, w_inter: float = 1.0, w_intra: float = 1.0,
       w_move: float = 1.0, tol: float = 0.05, size_threshold: float = 0.25, affinity: str = "indicator"):
    """Pieces (box, lo, hi, owner); ``previous`` = the previous step's pieces (``BoxPieces``) or None.

    The boxes are placed one at a time (the loads and the neighbours' processors change as they are), by
    ``_place.wd`` level after level; the overlaps and the slabs are computed for all boxes at once."""
    if affinity not in ("indicator", "volume"):
        raise ValueError(f"amr-wd: affinity must be indicator or volume, got {affinity!r}")
    if min(w_inter, w_intra, w_move, tol, size_threshold) < 0:
        raise ValueError("amr-wd: weights, tol and size_threshold must be >= 0")
    vol = affinity == "volume"
    r, d, n = boxes.ratio, boxes.lo.shape[1], boxes.n
    cells = boxes.cells.astype(float)
    work = boxes.work.astype(float)
    T = work.sum() / P
    cap = (1 + tol) * T
    g = as_form(boxes, "graph")  # the level's box graph (cached: the runner's metrics use it too)
    same = boxes.level[g.src] == boxes.level[g.adjncy]
    nsrc, ndst, nw = g.src[same], g.adjncy[same], g.cwgt[same].astype(float)
    nbr = (np.searchsorted(nsrc, np.arange(n + 1)).astype(I64), np.ascontiguousarray(ndst, I64),
           nw / cells[nsrc] if vol else np.ones(nw.size))
    ext = boxes.hi - boxes.lo + 1
    ax = np.argmax(ext, axis=1)
    n_ax = ext[np.arange(n), ax]
    # split among the tied processors only above the size threshold (at most one slab per cell plane)
    kmax = np.where(work > size_threshold * T, n_ax, 1).astype(I64)
    slabs = (kmax, np.ascontiguousarray(n_ax, I64), np.ascontiguousarray(boxes.cells // n_ax, I64), work / cells)
    pstart = np.concatenate([[0], np.cumsum(np.minimum(kmax, P))]).astype(I64)
    # the original location: previous pieces of the same level overlapping each box
    e = np.zeros(0, I64)
    moved = _csr(n, e, e, np.zeros(0))
    if previous is not None and previous.n:
        B, Q, V = [], [], []
        for lev in np.unique(boxes.level):
            a = np.nonzero(boxes.level == lev)[0]
            p = np.nonzero(previous.level == lev)[0]
            i, j, v = overlap_join(boxes.lo[a], boxes.hi[a], previous.lo[p], previous.hi[p])
            B.append(a[i])
            Q.append(previous.owner[p[j]])
            V.append(v / cells[a[i]] if vol else np.ones(i.size))
        moved = _csr(n, np.concatenate(B), np.concatenate(Q), np.concatenate(V))
    load = np.zeros(P)
    procs, nprocs = np.zeros(int(pstart[-1]), I64), np.zeros(n, I64)
    out_box, out_owner, out_lo, out_hi = [], [], [], []
    plo = phi = pown = None
    for lev in np.unique(boxes.level).tolist():
        idx = np.nonzero(boxes.level == lev)[0]
        # parents: the previous level's pieces over each box
        par = _csr(n, e, e, np.zeros(0))
        if plo is not None and plo.shape[0]:
            i, j, v = overlap_join(boxes.lo[idx] // r, boxes.hi[idx] // r, plo, phi)
            par = _csr(n, idx[i], pown[j], (v * r ** d / cells[idx[i]]) if vol else np.ones(i.size))
        order = np.ascontiguousarray(idx[np.lexsort((idx, -work[idx]))], I64)
        ks = np.zeros(order.size, I64)
        owner = np.zeros(int(np.minimum(kmax[order], P).sum()), I64)
        m = _place.wd(order, *par, *moved, *nbr, *slabs, pstart, P, cap, w_inter, w_intra, w_move, vol, load,
                      procs, nprocs, ks, owner)
        # slab jj of k along the longest axis: planes [n jj / k, n (jj + 1) / k)
        bx, kk = np.repeat(order, ks), np.repeat(ks, ks)
        jj = np.arange(bx.size, dtype=I64) - np.repeat(np.cumsum(ks) - ks, ks)
        plo, phi = boxes.lo[bx].copy(), boxes.hi[bx].copy()
        rows, a = np.arange(bx.size), ax[bx]
        plo[rows, a] = boxes.lo[bx, a] + (n_ax[bx] * jj) // kk
        phi[rows, a] = boxes.lo[bx, a] + (n_ax[bx] * (jj + 1)) // kk - 1
        pown = owner[:m]
        out_box.append(bx)
        out_owner.append(pown)
        out_lo.append(plo)
        out_hi.append(phi)
    if not out_box:
        return e, np.zeros((0, d), I64), np.zeros((0, d), I64), e
    return np.concatenate(out_box), np.vstack(out_lo), np.vstack(out_hi), np.concatenate(out_owner)
