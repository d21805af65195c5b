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

from harness import Boxes, boxes_to_graph, overlap_join

I64 = np.int64


def _overlaps(alo, ahi, blo, bhi):
    """The overlapping pairs of boxes a[i], b[j] with their volumes, in (i, j) order (affinities sum in a
    fixed order)."""
    i, j, v = overlap_join(alo, ahi, blo, bhi)
    o = np.lexsort((j, i))
    return i[o], j[o], v[o]


def _sets(pairs_box, pairs_proc, pairs_val, n):
    """Per box: {processor: summed value} from (box, processor, value) triples."""
    out = [dict() for _ in range(n)]
    for b, q, v in zip(pairs_box.tolist(), pairs_proc.tolist(), pairs_val.tolist()):
        d = out[b]
        d[q] = d.get(q, 0.0) + v
    return out


def wd(boxes: Boxes, P: int, previous=None, w_inter: float = 1.0, w_intra: float = 1.0,
       w_move: float = 1.0, tol: float = 0.05, size_threshold: float = 0.25, affinity: str = "indicator"):
    """Pieces (box, lo, hi, owner); ``previous`` = the previous step's pieces (``BoxPieces``) or None."""
    if affinity not in ("indicator", "volume"):
        raise ValueError(f"amr-wd: affinity must be indicator or volume, got {affinity!r}")
    if min(w_inter, w_intra, w_move, tol, size_threshold) < 0:
        raise ValueError("amr-wd: weights, tol and size_threshold must be >= 0")
    vol = affinity == "volume"
    r = boxes.ratio
    cells = boxes.cells.astype(float)
    work = boxes.work.astype(float)
    T = work.sum() / P
    cap = (1 + tol) * T
    g = boxes_to_graph(boxes)
    same = boxes.level[g.src] == boxes.level[g.adjncy]
    nsrc, ndst, nw = g.src[same], g.adjncy[same], g.cwgt[same].astype(float)
    nstart = np.searchsorted(nsrc, np.arange(boxes.n + 1)).tolist()
    ndst, nw = ndst.tolist(), (nw / cells[nsrc] if vol else np.ones(nw.size)).tolist()
    # the original location: previous pieces of the same level overlapping each box
    moved_aff = [dict() for _ in range(boxes.n)]
    if previous is not None and previous.n:
        B, Q, V = [], [], []
        for lev in np.unique(boxes.level):
            a = np.nonzero(boxes.level == lev)[0]
            p = np.nonzero(previous.level == lev)[0]
            i, j, v = _overlaps(boxes.lo[a], boxes.hi[a], previous.lo[p], previous.hi[p])
            B.append(a[i])
            Q.append(previous.owner[p[j]])
            V.append(v / cells[a[i]] if vol else np.ones(i.size))
        moved_aff = _sets(np.concatenate(B), np.concatenate(Q), np.concatenate(V), boxes.n)
    load = [0.0] * P
    procs_of = [None] * boxes.n  # processors holding pieces of each placed box
    out_box, out_lo, out_hi, out_owner = [], [], [], []
    plo, phi, pown = np.zeros((0, boxes.lo.shape[1]), I64), np.zeros((0, boxes.lo.shape[1]), I64), np.zeros(0, I64)
    for lev in np.unique(boxes.level).tolist():
        idx = np.nonzero(boxes.level == lev)[0]
        # parents: the previous level's pieces over each box
        par = [dict() for _ in range(boxes.n)]
        if plo.shape[0]:
            i, j, v = _overlaps(boxes.lo[idx] // r, boxes.hi[idx] // r, plo, phi)
            par = _sets(idx[i], pown[j], (v * r ** boxes.lo.shape[1] / cells[idx[i]]) if vol
                        else np.ones(i.size), boxes.n)
        order = idx[np.lexsort((idx, -work[idx]))]
        lvl_lo, lvl_hi, lvl_own = [], [], []
        for b in order.tolist():
            aff = {}
            for q, v in par[b].items():
                aff[q] = aff.get(q, 0.0) + w_inter * min(v, 1.0) if vol else aff.get(q, 0.0) + w_inter
            seen = {}
            for k in range(nstart[b], nstart[b + 1]):
                u = ndst[k]
                if procs_of[u] is not None:
                    for q in procs_of[u]:
                        seen[q] = max(seen.get(q, 0.0), nw[k]) if not vol else seen.get(q, 0.0) + nw[k]
            for q, v in seen.items():
                aff[q] = aff.get(q, 0.0) + w_intra * v
            for q, v in moved_aff[b].items():
                aff[q] = aff.get(q, 0.0) + w_move * (min(v, 1.0) if vol else 1.0)
            avail = [(a, q) for q, a in aff.items() if load[q] < cap and a > 0]
            if avail:
                best = max(a for a, _ in avail)
                tied = sorted(q for a, q in avail if a == best)
            else:
                tied = [q for q in range(P) if load[q] < cap]
            if not tied:
                tied = [min(range(P), key=lambda q: (load[q], q))]
            tied.sort(key=lambda q: (load[q], q))
            ext = boxes.hi[b] - boxes.lo[b] + 1
            ax = int(np.argmax(ext))
            k = min(len(tied), int(ext[ax])) if work[b] > size_threshold * T else 1
            wpc = work[b] / cells[b]
            for jj in range(k):
                lo, hi = boxes.lo[b].copy(), boxes.hi[b].copy()
                lo[ax] = boxes.lo[b][ax] + (ext[ax] * jj) // k
                hi[ax] = boxes.lo[b][ax] + (ext[ax] * (jj + 1)) // k - 1
                q = tied[jj]
                load[q] += wpc * float(np.prod(hi - lo + 1))
                lvl_lo.append(lo)
                lvl_hi.append(hi)
                lvl_own.append(q)
                out_box.append(b)
            procs_of[b] = tied[:k]
        plo, phi, pown = np.array(lvl_lo, I64), np.array(lvl_hi, I64), np.array(lvl_own, I64)
        out_lo += lvl_lo
        out_hi += lvl_hi
        out_owner += lvl_own
    d = boxes.lo.shape[1]
    return (np.array(out_box, I64), np.array(out_lo, I64).reshape(-1, d), np.array(out_hi, I64).reshape(-1, d),
            np.array(out_owner, I64))
