"""The AMR paper's overheads of a distribution of a grid hierarchy (Shee, Bhavsar & Parashar §3, §5).

The paper's "AMR simulator" is not published; these are the spec's formulas
(docs in ``plugins/amr/README.md``). Per regrid step, with B = ``bytes_per_cell``,
g = ``ghost``, R = ``meta["regrid_every"]`` coarse steps per regrid interval and
n_l = R * ratio**l time steps of level l per interval:

- intra-level (ghost exchange, §2 "near-neighbor exchanges"): every unordered pair
  of face-adjacent pieces of one level (pieces of one box included) exchanges
  2 * F * g * B bytes per step of their level, F = shared cell faces;
- inter-level (§2 "prolongation coarse->fine, restriction fine->coarse"): for every
  coarse piece C (level l-1) and fine piece F (level l) that overlap, restriction
  sends the overlap (in coarse cells, fine cells / ratio**d) * B once per coarse
  step (n_{l-1}) and prolongation fills F's boundary cell faces that lie over C,
  faces * g * B per fine step (n_l) (spec §1.8: every piece's ghost region is
  interpolated from the coarse level, so IGD's pieces spread over all processors
  all talk to the coarse grid's processors, §4.2);
- "communication" when the two pieces' owners differ, "memory copy" when equal
  (§2: "On the same processor, these communications translate to memory copies");
- data moved: cells of one level held by another processor than at the previous
  step (:func:`harness.pieces.moved_cells`) x B;
- load imbalance % = 100 (max_q W_q / mean_q W_q - 1), W_q = sum of piece cells x
  ratio**level on q; pieces = number of pieces (the paper's "number of boxes").

Every pair search is a sort-join (:func:`harness.pieces.overlap_join`), no all-pairs loop.
"""
from __future__ import annotations

import numpy as np

from .model import IDX, Boxes
from .pieces import BoxPieces, Raster, enumerate_cells, moved_cells, overlap_join


def face_pairs(lo: np.ndarray, hi: np.ndarray, with_axis: bool = False):
    """Pairs (i, j) of disjoint boxes on one level where i's high face touches j's low face, with the cell
    faces they share (each pair once; ``with_axis``: also the axis). Face slabs one cell thick are overlapped
    with a bucketed sort-join per axis."""
    I, J, F, K = [], [], [], []
    for k in range(lo.shape[1]):
        alo, ahi = lo.copy(), hi.copy()
        alo[:, k] = ahi[:, k] = hi[:, k] + 1  # the layer just past i's high face
        blo, bhi = lo.copy(), hi.copy()
        bhi[:, k] = lo[:, k]  # j's low layer
        i, j, f = overlap_join(alo, ahi, blo, bhi)
        I.append(i)
        J.append(j)
        F.append(f)
        K.append(np.full(i.size, k, IDX))
    out = np.concatenate(I), np.concatenate(J), np.concatenate(F)
    return out + (np.concatenate(K),) if with_axis else out


def _steps(meta: dict, ratio: int, level):
    """n_l = regrid_every * ratio**l: time steps of level l per regrid interval (AMR paper §5)."""
    return int(meta.get("regrid_every", 1)) * float(ratio) ** np.asarray(level, float)


RASTER_CELLS_PER_PIECE = 16


def amr_figures(boxes: Boxes, before: BoxPieces | None, after: BoxPieces, P: int, meta: dict,
                bytes_per_cell: int = 8, ghost: int = 1, raster: bool | None = None) -> dict:
    """The ``amr_*`` columns of one step (module docstring); ``before`` None: nothing moved.

    Two evaluations of the same formulas: pair searches among pieces (few, large pieces) or, when pieces
    average fewer than ``RASTER_CELLS_PER_PIECE`` cells (IGD), per-cell passes over the boxes' cells
    (``raster``; None chooses)."""
    B, g, r = int(bytes_per_cell), int(ghost), int(boxes.ratio)
    if B < 0 or g < 0:
        raise ValueError("bytes_per_cell and ghost must be >= 0")
    if raster is None:  # many small pieces (IGD): per-cell passes beat pair searches among pieces
        raster = after.n * RASTER_CELLS_PER_PIECE > int(boxes.cells.sum())
    if raster:
        return _raster_figures(boxes, before, after, P, meta, B, g)
    pc = after
    d = pc.lo.shape[1]
    intra = np.zeros(2)  # [communication, copy]
    inter = np.zeros(2)
    sent = np.zeros(P)
    recv = np.zeros(P)
    levels = np.unique(pc.level)
    idx_of = {int(l): np.nonzero(pc.level == l)[0] for l in levels}
    for lev, idx in idx_of.items():
        i, j, f = face_pairs(pc.lo[idx], pc.hi[idx])
        vol = 2.0 * f * g * B * _steps(meta, r, lev)
        same = pc.owner[idx[i]] == pc.owner[idx[j]]
        intra += [vol[~same].sum(), vol[same].sum()]
        coarse = idx_of.get(lev - 1)
        if coarse is None:
            continue
        # coarse pieces in the fine index space
        clo, chi = pc.lo[coarse] * r, (pc.hi[coarse] + 1) * r - 1
        fi, ci, ov = overlap_join(pc.lo[idx], pc.hi[idx], clo, chi)
        fp, cp = idx[fi], coarse[ci]
        restrict = ov / r ** d * B * _steps(meta, r, lev - 1)
        # prolongation: the fine piece's boundary cell faces that lie over the coarse piece
        lo, hi = pc.lo[fp], pc.hi[fp]
        olo, ohi = np.maximum(lo, clo[ci]), np.minimum(hi, chi[ci])
        span = ohi - olo + 1
        faces = np.zeros(fp.size)
        for k in range(d):
            across = np.prod(np.delete(span, k, axis=1), axis=1)
            faces += across * (olo[:, k] == lo[:, k])
            faces += across * (ohi[:, k] == hi[:, k])
        prolong = faces * g * B * _steps(meta, r, lev)
        fo, co = pc.owner[fp], pc.owner[cp]
        same = fo == co
        inter += [(restrict + prolong)[~same].sum(), (restrict + prolong)[same].sum()]
        x = ~same
        sent += np.bincount(fo[x], restrict[x], minlength=P) + np.bincount(co[x], prolong[x], minlength=P)
        recv += np.bincount(co[x], restrict[x], minlength=P) + np.bincount(fo[x], prolong[x], minlength=P)
    _, _, moved = moved_cells(before, after, raster=False) if before is not None else (None, None, np.zeros(0, IDX))
    return _row(pc, P, r, intra, inter, float(moved.sum()) * B, sent + recv, B, g)


def _row(pc: BoxPieces, P: int, r: int, intra, inter, moved_bytes: float, traffic, B: int, g: int) -> dict:
    W = np.bincount(pc.owner, pc.cells * float(r) ** pc.level, minlength=P)
    mean = W.sum() / P
    return {
        "amr_intra_comm_bytes": float(intra[0]),
        "amr_intra_copy_bytes": float(intra[1]),
        "amr_inter_comm_bytes": float(inter[0]),
        "amr_inter_copy_bytes": float(inter[1]),
        "amr_data_moved_bytes": float(moved_bytes),
        "amr_pieces": int(pc.n),
        "amr_imbalance_pct": float(100.0 * (W.max() / mean - 1.0)) if mean > 0 else 0.0,
        "amr_inter_max_proc_bytes": float(np.max(traffic)) if P else 0.0,
        "bytes_per_cell": B,
        "ghost": g,
    }


# ---------------------------------------------------------------- per-cell evaluation (many small pieces)

def _raster_figures(boxes: Boxes, before, pc: BoxPieces, P: int, meta: dict, B: int, g: int) -> dict:
    """:func:`amr_figures` by per-cell passes: the same sums, cell face by cell face."""
    r, d = int(boxes.ratio), boxes.lo.shape[1]
    R = Raster(boxes.lo, boxes.hi)
    pid = R.paint(pc)
    own = pc.owner[pid]
    bsid, bxyz = enumerate_cells(boxes.lo, boxes.hi)  # cell i of the raster is bsid[i], bxyz[i]
    n_l = _steps(meta, r, np.arange(int(boxes.level.max()) + 2 if boxes.n else 1))
    intra = np.zeros(2)
    inter = np.zeros(2)
    sent = np.zeros(P)
    recv = np.zeros(P)

    def faces(i, j, w):
        """Cell faces between cells i and j (weights w): communication / copy when pieces differ."""
        diff = pid[i] != pid[j]
        same = own[i] == own[j]
        return np.array([w[diff & ~same].sum(), w[diff & same].sum()])

    # intra-level, inside a box
    for a in range(d):
        i = np.nonzero(bxyz[a] < boxes.hi[:, a][bsid])[0]
        j = i + R.stride[a][bsid[i]]
        intra += faces(i, j, 2.0 * g * B * n_l[boxes.level[bsid[i]]])
    # intra-level, across the faces of two boxes
    for lev in np.unique(boxes.level):
        idx = np.nonzero(boxes.level == lev)[0]
        bi, bj, _, ax = face_pairs(boxes.lo[idx], boxes.hi[idx], with_axis=True)
        bi, bj = idx[bi], idx[bj]
        rows = np.arange(bi.size)
        lo = np.maximum(boxes.lo[bi], boxes.lo[bj])
        hi = np.minimum(boxes.hi[bi], boxes.hi[bj])
        lo[rows, ax] = hi[rows, ax] = boxes.hi[bi, ax]
        sid, xyz = enumerate_cells(lo, hi)
        ci = R.index(bi[sid], xyz)
        axs = ax[sid]
        for a in range(d):  # the same cells one step further along the axis, in box j
            xyz[a] = xyz[a] + (axs == a)
        cj = R.index(bj[sid], xyz)
        intra += faces(ci, cj, np.full(sid.size, 2.0 * g * B * n_l[lev]))
    # inter-level: every fine cell over a coarse cell (restriction), box-boundary faces (prolongation)
    for lev in np.unique(boxes.level):
        if lev == 0 or not np.any(boxes.level == lev - 1):
            continue
        fine = np.nonzero(boxes.level == lev)[0]
        coarse = np.nonzero(boxes.level == lev - 1)[0]
        fi, ci, _ = overlap_join(boxes.lo[fine], boxes.hi[fine], boxes.lo[coarse] * r,
                                 (boxes.hi[coarse] + 1) * r - 1)
        fb, cb = fine[fi], coarse[ci]
        lo = np.maximum(boxes.lo[fb], boxes.lo[cb] * r)
        hi = np.minimum(boxes.hi[fb], (boxes.hi[cb] + 1) * r - 1)
        sid, xyz = enumerate_cells(lo, hi)
        fp = pid[R.index(fb[sid], xyz)]
        fo = pc.owner[fp]
        co = own[R.index(cb[sid], [x // r for x in xyz])]
        nface = np.zeros(sid.size)
        for a in range(d):
            nface += (xyz[a] == pc.lo[:, a][fp])
            nface += (xyz[a] == pc.hi[:, a][fp])
        restrict = np.full(sid.size, B * n_l[lev - 1] / r ** d)
        prolong = nface * g * B * n_l[lev]
        x = fo != co
        tot = restrict + prolong
        inter += [tot[x].sum(), tot[~x].sum()]
        sent += np.bincount(fo[x], restrict[x], minlength=P) + np.bincount(co[x], prolong[x], minlength=P)
        recv += np.bincount(co[x], restrict[x], minlength=P) + np.bincount(fo[x], prolong[x], minlength=P)
    del bsid, bxyz
    moved = int(moved_cells(before, pc, raster=True)[2].sum()) if before is not None else 0
    return _row(pc, P, r, intra, inter, float(moved) * B, sent + recv, B, g)
