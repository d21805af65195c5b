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
  step (n_{l-1}) and prolongation fills F's ghost faces that lie on its box's
  boundary over C, faces * g * B per fine step (n_l); a piece's faces inside its box
  are filled by its sibling pieces (intra-level);
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
from .pieces import BoxPieces, moved_cells, overlap_join


def face_pairs(lo: np.ndarray, hi: np.ndarray):
    """Pairs (i, j) of disjoint boxes on one level that touch across a face, with the cell faces they share
    (each pair once). Face slabs one cell thick are overlapped with a bucketed sort-join per axis."""
    I, J, F = [], [], []
    for k in range(lo.shape[1]):
        alo, ahi = lo.copy(), hi.copy()
        alo[:, k] = ahi[:, k] = hi[:, k] + 1  # the layer just past i's high face
        blo, bhi = lo.copy(), hi.copy()
        bhi[:, k] = lo[:, k]  # j's low layer
        i, j, f = overlap_join(alo, ahi, blo, bhi)
        I.append(i)
        J.append(j)
        F.append(f)
    return np.concatenate(I), np.concatenate(J), np.concatenate(F)


def _steps(meta: dict, ratio: int, level):
    """n_l = regrid_every * ratio**l: time steps of level l per regrid interval (AMR paper §5)."""
    return int(meta.get("regrid_every", 1)) * float(ratio) ** np.asarray(level, float)


def amr_figures(boxes: Boxes, before: BoxPieces | None, after: BoxPieces, P: int, meta: dict,
                bytes_per_cell: int = 8, ghost: int = 1) -> dict:
    """The ``amr_*`` columns of one step (module docstring); ``before`` None: nothing moved."""
    B, g, r = int(bytes_per_cell), int(ghost), int(boxes.ratio)
    if B < 0 or g < 0:
        raise ValueError("bytes_per_cell and ghost must be >= 0")
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
        # prolongation: the fine piece's cells on its box's boundary faces that lie over the coarse piece
        lo, hi, blo, bhi = pc.lo[fp], pc.hi[fp], boxes.lo[pc.box[fp]], boxes.hi[pc.box[fp]]
        olo, ohi = np.maximum(lo, clo[ci]), np.minimum(hi, chi[ci])
        span = ohi - olo + 1
        faces = np.zeros(fp.size)
        for k in range(d):
            across = np.prod(np.delete(span, k, axis=1), axis=1)
            faces += across * ((lo[:, k] == blo[:, k]) & (olo[:, k] == lo[:, k]))
            faces += across * ((hi[:, k] == bhi[:, k]) & (ohi[:, k] == hi[:, k]))
        prolong = faces * g * B * _steps(meta, r, lev)
        fo, co = pc.owner[fp], pc.owner[cp]
        same = fo == co
        inter += [(restrict + prolong)[~same].sum(), (restrict + prolong)[same].sum()]
        x = ~same
        sent += np.bincount(fo[x], restrict[x], minlength=P) + np.bincount(co[x], prolong[x], minlength=P)
        recv += np.bincount(co[x], restrict[x], minlength=P) + np.bincount(fo[x], prolong[x], minlength=P)
    W = np.bincount(pc.owner, pc.cells * float(r) ** pc.level, minlength=P)
    mean = W.sum() / P
    _, _, moved = moved_cells(before, after) if before is not None else (None, None, np.zeros(0, IDX))
    return {
        "amr_intra_comm_bytes": float(intra[0]),
        "amr_intra_copy_bytes": float(intra[1]),
        "amr_inter_comm_bytes": float(inter[0]),
        "amr_inter_copy_bytes": float(inter[1]),
        "amr_data_moved_bytes": float(moved.sum() * B),
        "amr_pieces": int(pc.n),
        "amr_imbalance_pct": float(100.0 * (W.max() / mean - 1.0)) if mean > 0 else 0.0,
        "amr_inter_max_proc_bytes": float((sent + recv).max()) if P else 0.0,
        "bytes_per_cell": B,
        "ghost": g,
    }
