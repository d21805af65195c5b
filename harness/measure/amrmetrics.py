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
  step (:func:`harness.contract.pieces.moved_cells`) x B;
- load imbalance % = 100 (max_q W_q / mean_q W_q - 1), W_q = sum of piece cells x
  ratio**level on q; pieces = number of pieces (the paper's "number of boxes").

Every pair search is a grid join (:func:`harness.contract.pieces.overlap_join`), no all-pairs loop; the per-cell
passes are C (``harness.kernels._cells``).
"""
from __future__ import annotations

import numpy as np

from ..contract.forms import boxes_to_graph
from ..contract.model import IDX, Boxes, Graph, row_prod
from ..contract.pieces import (RASTER_CELLS_PER_PIECE, BoxPieces, _c,
                               moved_cells)
from ..kernels import _cells


def _surface(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cell faces on the surface of each box lo..hi."""
    ext = hi - lo + 1
    cells = row_prod(ext)
    return 2 * sum(cells // ext[:, a] for a in range(ext.shape[1]))


def _steps(meta: dict, ratio: int, level):
    """n_l = regrid_every * ratio**l: time steps of level l per regrid interval (AMR paper §5)."""
    return int(meta.get("regrid_every", 1)) * float(ratio) ** np.asarray(level, float)


def amr_figures(boxes: Boxes, before: BoxPieces | None, after: BoxPieces, P: int, meta: dict,
                bytes_per_cell: int = 8, ghost: int = 1, raster: bool | None = None, graph: Graph | None = None) -> dict:
    """The ``amr_*`` columns of one step (module docstring); ``before`` None: nothing moved.

    Two evaluations of the same formulas: pair searches among pieces (few, large pieces) or, when pieces
    average fewer than ``RASTER_CELLS_PER_PIECE`` cells (IGD), per-cell passes over the boxes' cells
    (``raster``; None chooses). ``graph``: the boxes' graph (``ctx.graph``, which the runner keeps in the
    workload cache); None builds it (:func:`harness.boxes_to_graph`) when the pair searches need it."""
    B, g, r = int(bytes_per_cell), int(ghost), int(boxes.ratio)
    if B < 0 or g < 0:
        raise ValueError("bytes_per_cell and ghost must be >= 0")
    moved = float(moved_cells(before, after, raster)[2].sum()) * B if before is not None else 0.0
    if raster is None:  # many small pieces (IGD): per-cell passes beat pair searches among pieces
        raster = after.n * RASTER_CELLS_PER_PIECE > int(boxes.cells.sum())
    if raster:
        return _raster_figures(boxes, after, P, meta, B, g, moved, graph)
    pc = after
    d = pc.lo.shape[1]
    if pc.n and (pc.box.max() >= boxes.n or not np.array_equal(pc.level, boxes.level[pc.box])):
        raise ValueError("pieces: they are not pieces of these boxes")
    n_l = _steps(meta, r, np.arange(int(pc.level.max()) + 2 if pc.n else 1))
    intra = np.zeros(2)  # [communication, copy]
    inter = np.zeros(2)
    sent = np.zeros(P)
    recv = np.zeros(P)
    same_level, coarse_fine = _box_pairs(boxes, graph if graph is not None else boxes_to_graph(boxes))
    i, j = _piece_pairs(pc, boxes.n, *same_level, within=True)
    f = _shared_faces(pc.lo[i], pc.hi[i], pc.lo[j], pc.hi[j])
    vol = 2.0 * f * g * B * n_l[pc.level[i]]
    same = pc.owner[i] == pc.owner[j]
    intra += [vol[~same].sum(), vol[same].sum()]
    # fine piece fp over coarse piece cp (coarse corners in the fine index space)
    fp, cp = _piece_pairs(pc, boxes.n, *coarse_fine)
    clo, chi = pc.lo[cp] * r, (pc.hi[cp] + 1) * r - 1
    lo, hi = pc.lo[fp], pc.hi[fp]
    olo, ohi = np.maximum(lo, clo), np.minimum(hi, chi)
    span = ohi - olo + 1
    keep = np.all(span > 0, axis=1)
    fp, cp, lo, hi, olo, ohi, span = fp[keep], cp[keep], lo[keep], hi[keep], olo[keep], ohi[keep], span[keep]
    lev = pc.level[fp]
    restrict = row_prod(span) / r ** d * B * n_l[lev - 1]
    # prolongation: the fine piece's boundary cell faces that lie over the coarse piece
    faces = np.zeros(fp.size)
    for k in range(d):
        across = row_prod(np.delete(span, k, axis=1))
        faces += across * (olo[:, k] == lo[:, k])
        faces += across * (ohi[:, k] == hi[:, k])
    prolong = faces * g * B * n_l[lev]
    fo, co = pc.owner[fp], pc.owner[cp]
    same = fo == co
    inter += [(restrict + prolong)[~same].sum(), (restrict + prolong)[same].sum()]
    x = ~same
    sent += np.bincount(fo[x], restrict[x], minlength=P) + np.bincount(co[x], prolong[x], minlength=P)
    recv += np.bincount(co[x], restrict[x], minlength=P) + np.bincount(fo[x], prolong[x], minlength=P)
    return _row(pc, P, r, intra, inter, moved, sent + recv, B, g)


def _box_pairs(boxes: Boxes, gr: Graph):
    """The box graph's pairs: face-adjacent boxes of one level (u < v) and (fine box, coarse box) of
    consecutive levels that overlap. Two pieces can touch or overlap only if their boxes do."""
    u, v = gr.src, gr.adjncy
    lu, lv = boxes.level[u], boxes.level[v]
    s = (lu == lv) & (u < v)
    c = lv == lu - 1  # u fine, v coarse
    return (u[s], v[s]), (u[c], v[c])


def _piece_pairs(pc: BoxPieces, nboxes: int, bu: np.ndarray, bv: np.ndarray, within: bool = False):
    """Every pair (piece of box bu[k], piece of box bv[k]) and, ``within``, every pair i < j of pieces of one
    box."""
    o = np.argsort(pc.box, kind="stable")
    cnt = np.bincount(pc.box, minlength=nboxes)
    start = np.cumsum(cnt) - cnt
    if within:
        multi = np.nonzero(cnt > 1)[0]
        bu, bv = np.concatenate([bu, multi]), np.concatenate([bv, multi])
    n = cnt[bu] * cnt[bv]
    rep = np.repeat(np.arange(bu.size, dtype=IDX), n)
    k = np.arange(rep.size, dtype=IDX) - np.repeat(np.cumsum(n) - n, n)
    nv = cnt[bv][rep]
    a, b = start[bu][rep] + k // nv, start[bv][rep] + k % nv
    if within:
        keep = (bu[rep] != bv[rep]) | (a < b)
        a, b = a[keep], b[keep]
    return o[a], o[b]


def _shared_faces(alo, ahi, blo, bhi) -> np.ndarray:
    """Cell faces shared by the disjoint boxes a[i] and b[i] (0 unless they touch across a face)."""
    ov = np.minimum(ahi, bhi) - np.maximum(alo, blo) + 1
    f = np.zeros(len(alo), IDX)
    for k in range(alo.shape[1]):
        other = np.delete(ov, k, axis=1)
        touch = ((ahi[:, k] + 1 == blo[:, k]) | (bhi[:, k] + 1 == alo[:, k])) & np.all(other > 0, axis=1)
        f += touch * row_prod(other)
    return f


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

def _raster_figures(boxes: Boxes, pc: BoxPieces, P: int, meta: dict, B: int, g: int, moved: float,
                    graph: Graph | None) -> dict:
    """:func:`amr_figures` by per-cell passes (``harness.kernels._cells``): the same sums, cell face by cell face
    (counted per level and weighted once: every face of a level carries the same bytes)."""
    r, d = int(boxes.ratio), boxes.lo.shape[1]
    cm = pc.cell_map()
    if cm.ids.size != boxes.n:
        raise ValueError(f"pieces: they tile {cm.ids.size} of the {boxes.n} boxes")
    R, pid, owner = cm.raster, cm.pid, cm.owner
    L = int(boxes.level.max()) + 2 if boxes.n else 1
    n_l = _steps(meta, r, np.arange(L))
    intra = np.zeros(2)
    inter = np.zeros(2)
    sent = np.zeros(P)
    recv = np.zeros(P)

    def faces(lo, hi, bi, bj, ax, lev):
        """Bytes of the cell faces between each cell of lo..hi (box bi) and its neighbour one step along
        axis ax (box bj), where the pieces differ: [communication, copy] by whether their owners do."""
        out = np.zeros(2 * L, IDX)
        _cells.faces(_c(lo), _c(hi), _c(bi), _c(bj), _c(ax), _c(lev), d, R.base, R.stride, pid, owner, L, out)
        return 2.0 * g * B * np.array([out[:L] @ n_l, out[L:] @ n_l])

    # intra-level, inside a box: the pieces tile it, so the faces they share are (their surfaces - the
    # box's) / 2; cell by cell only in the boxes holding two pieces on one processor (memory copies)
    shared = (np.bincount(pc.box, _surface(pc.lo, pc.hi), minlength=boxes.n) - _surface(boxes.lo, boxes.hi)) / 2
    inside = 2.0 * g * B * float(shared @ n_l[boxes.level])
    if boxes.n * P <= 8 * pc.n + (1 << 20):  # (box, owner) pairs held by two pieces or more
        rep = np.unique(np.nonzero(np.bincount(pc.box * P + pc.owner) > 1)[0] // P)
    else:
        key = np.sort(pc.box * P + pc.owner)
        rep = np.unique(key[1:][key[1:] == key[:-1]] // P)
    copy = 0.0
    for a in range(d):  # each cell and the next one along axis a
        hi = boxes.hi[rep].copy()
        hi[:, a] -= 1
        copy += faces(boxes.lo[rep], hi, rep, rep, np.full(rep.size, a), boxes.level[rep])[1]
    intra += [inside - copy, copy]
    same_level, coarse_fine = _box_pairs(boxes, graph if graph is not None else boxes_to_graph(boxes))
    # intra-level, across the faces of two boxes: bi's high face on axis ax touches bj's low face
    u, v = same_level
    below = boxes.hi[u] + 1 == boxes.lo[v]  # u below v on the axis they touch across
    touch = below | (boxes.hi[v] + 1 == boxes.lo[u])
    ax = np.argmax(touch, axis=1)
    rows = np.arange(u.size)
    up = below[rows, ax]
    bi, bj = np.where(up, u, v), np.where(up, v, u)
    lo = np.maximum(boxes.lo[bi], boxes.lo[bj])
    hi = np.minimum(boxes.hi[bi], boxes.hi[bj])
    lo[rows, ax] = hi[rows, ax] = boxes.hi[bi, ax]  # bi's last layer; its neighbour is bj's first
    intra += faces(lo, hi, bi, bj, ax, boxes.level[bi])
    # inter-level: every fine cell over a coarse cell (restriction), its piece's boundary faces (prolongation)
    fine_of, coarse_of = coarse_fine
    F = 2 * d + 1
    plo, phi = _c(pc.lo), _c(pc.hi)
    for lev in np.unique(boxes.level[fine_of]):
        sel = boxes.level[fine_of] == lev
        fb, cb = fine_of[sel], coarse_of[sel]
        lo = np.maximum(boxes.lo[fb], boxes.lo[cb] * r)
        hi = np.minimum(boxes.hi[fb], (boxes.hi[cb] + 1) * r - 1)
        # one count per (fine owner, coarse owner, boundary faces): every sum below is read off it
        cnt = np.zeros(P * P * F, IDX)
        _cells.inter(_c(lo), _c(hi), _c(fb), _c(cb), r, d, R.base, R.stride, pid, owner, plo, phi, P, cnt)
        cnt = cnt.reshape(P, P, F)
        n_all, f_all = int(cnt.sum()), int((cnt @ np.arange(F)).sum())
        cnt[np.arange(P), np.arange(P)] = 0  # the copies: fine and coarse cell on one processor
        rest, prol = B * n_l[lev - 1] / r ** d, g * B * n_l[lev]  # bytes per fine cell, per face
        cells, faces_ = cnt.sum(axis=2), cnt @ np.arange(F)
        n_comm, f_comm = int(cells.sum()), int(faces_.sum())
        inter += [rest * n_comm + prol * f_comm, rest * (n_all - n_comm) + prol * (f_all - f_comm)]
        fcnt, ccnt = cells.sum(axis=1), cells.sum(axis=0)
        fface, cface = faces_.sum(axis=1), faces_.sum(axis=0)
        sent += rest * fcnt + prol * cface
        recv += rest * ccnt + prol * fface
    return _row(pc, P, r, intra, inter, moved, sent + recv, B, g)
