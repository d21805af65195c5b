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

I64 = np.int64


def _overlaps(alo, ahi, blo, bhi):
    """The overlapping pairs of boxes a[i], b[j] with their volumes, in (i, j) order (affinities sum in a
    fixed order)."""
    i, j, v = overlap_join(alo, ahi, blo, bhi)
    o = np.lexsort((j, i))
    return i[o], j[o], v[o]


def _sets(pairs_box, pairs_proc, pairs_val) -> dict:
    """{box: {processor: summed value}} from (box, processor, value) triples (summed in the given order)."""
    out: dict = {}
    for b, q, v in zip(pairs_box.tolist(), pairs_proc.tolist(), pairs_val.tolist()):
        d = out.setdefault(b, {})
        d[q] = d.get(q, 0.0) + v
    return out


def wd(boxes: Boxes, P: int, previous=None, w_inter: float = 1.0, w_intra: float = 1.0,
       w_move: float = 1.0, tol: float = 0.05, size_threshold: float = 0.25, affinity: str = "indicator"):
    """Pieces (box, lo, hi, owner); ``previous`` = the previous step's pieces (``BoxPieces``) or None.

    The boxes are placed one at a time (the loads and the neighbours' processors change as they are): the
    loop works on Python numbers, the overlaps and the slabs are computed for all boxes at once."""
    if affinity not in ("indicator", "volume"):
        raise ValueError(f"amr-wd: affinity must be indicator or volume, got {affinity!r}")
    if min(w_inter, w_intra, w_move, tol, size_threshold) < 0:
        raise ValueError("amr-wd: weights, tol and size_threshold must be >= 0")
    vol = affinity == "volume"
    r, d = boxes.ratio, boxes.lo.shape[1]
    cells = boxes.cells.astype(float)
    work = boxes.work.astype(float)
    T = work.sum() / P
    cap = (1 + tol) * T
    g = as_form(boxes, "graph")  # the level's box graph (cached: the runner's metrics use it too)
    same = boxes.level[g.src] == boxes.level[g.adjncy]
    nsrc, ndst, nw = g.src[same], g.adjncy[same], g.cwgt[same].astype(float)
    nstart = np.searchsorted(nsrc, np.arange(boxes.n + 1)).tolist()
    ndst, nw = ndst.tolist(), (nw / cells[nsrc] if vol else np.ones(nw.size)).tolist()
    ext = boxes.hi - boxes.lo + 1
    ax = np.argmax(ext, axis=1)
    n_ax = ext[np.arange(boxes.n), ax]
    # split among the tied processors only above the size threshold (at most one slab per cell plane)
    kmax = np.where(work > size_threshold * T, n_ax, 1).tolist()
    n_ax_l, plane = n_ax.tolist(), (boxes.cells // n_ax).tolist()
    wpc = (work / cells).tolist()
    # the original location: previous pieces of the same level overlapping each box
    moved_aff: dict = {}
    if previous is not None and previous.n:
        B, Q, V = [], [], []
        for lev in np.unique(boxes.level):
            a = np.nonzero(boxes.level == lev)[0]
            p = np.nonzero(previous.level == lev)[0]
            i, j, v = _overlaps(boxes.lo[a], boxes.hi[a], previous.lo[p], previous.hi[p])
            B.append(a[i])
            Q.append(previous.owner[p[j]])
            V.append(v / cells[a[i]] if vol else np.ones(i.size))
        moved_aff = _sets(np.concatenate(B), np.concatenate(Q), np.concatenate(V))
    load = [0.0] * P
    procs_of = [None] * boxes.n  # processors holding pieces of each placed box
    out_box, out_j, out_k, out_owner, out_lo, out_hi = [], [], [], [], [], []
    plo = phi = pown = None
    empty: dict = {}
    for lev in np.unique(boxes.level).tolist():
        idx = np.nonzero(boxes.level == lev)[0]
        # parents: the previous level's pieces over each box
        par = {}
        if plo is not None and plo.shape[0]:
            i, j, v = _overlaps(boxes.lo[idx] // r, boxes.hi[idx] // r, plo, phi)
            par = _sets(idx[i], pown[j], (v * r ** d / cells[idx[i]]) if vol else np.ones(i.size))
        order = idx[np.lexsort((idx, -work[idx]))]
        first = len(out_box)
        for b in order.tolist():
            aff = {}
            for q, v in par.get(b, empty).items():
                aff[q] = aff.get(q, 0.0) + w_inter * min(v, 1.0) if vol else aff.get(q, 0.0) + w_inter
            seen = {}
            for k in range(nstart[b], nstart[b + 1]):
                pu = procs_of[ndst[k]]
                if pu is not None:
                    for q in pu:
                        seen[q] = max(seen.get(q, 0.0), nw[k]) if not vol else seen.get(q, 0.0) + nw[k]
            for q, v in seen.items():
                aff[q] = aff.get(q, 0.0) + w_intra * v
            for q, v in moved_aff.get(b, empty).items():
                aff[q] = aff.get(q, 0.0) + w_move * (min(v, 1.0) if vol else 1.0)
            avail = [(a, q) for q, a in aff.items() if load[q] < cap and a > 0]
            if avail:
                best = max(a for a, _ in avail)
                tied = [q for a, q in avail if a == best]
            else:
                tied = [q for q in range(P) if load[q] < cap]
            if not tied:
                tied = [min(range(P), key=lambda q: (load[q], q))]
            tied.sort(key=lambda q: (load[q], q))
            k = min(len(tied), kmax[b])
            n, w, c = n_ax_l[b], wpc[b], plane[b]
            for jj in range(k):
                q = tied[jj]
                load[q] += w * float(c * ((n * (jj + 1)) // k - (n * jj) // k))
                out_owner.append(q)
            out_box += [b] * k
            out_j += range(k)
            out_k += [k] * k
            procs_of[b] = tied[:k]
        # slab jj of k along the longest axis: planes [n jj / k, n (jj + 1) / k)
        bx, jj, kk = (np.array(x[first:], I64) for x in (out_box, out_j, out_k))
        plo, phi = boxes.lo[bx].copy(), boxes.hi[bx].copy()
        rows, a = np.arange(bx.size), ax[bx]
        plo[rows, a] = boxes.lo[bx, a] + (n_ax[bx] * jj) // kk
        phi[rows, a] = boxes.lo[bx, a] + (n_ax[bx] * (jj + 1)) // kk - 1
        pown = np.array(out_owner[first:], I64)
        out_lo.append(plo)
        out_hi.append(phi)
    return (np.array(out_box, I64), np.vstack(out_lo) if out_lo else np.zeros((0, d), I64),
            np.vstack(out_hi) if out_hi else np.zeros((0, d), I64), np.array(out_owner, I64))
