"""The AMR paper's overheads of a distribution of a grid hierarchy (Shee, Bhavsar & Parashar §3, §5).

The paper's "AMR simulator" is not published; these are the spec's formulas
(docs in ``plugins/amr/README.md``). Per regrid step, with B = ``bytes_per_cell``,
g = ``ghost``, R = ``meta["regrid_every"]`` coarse steps per regrid interval and
n_l = R * ratio**l time steps of level l per interval:

- intra-level (ghost exchange, §2 "near-neighbor exchanges"): every unordered pair
  of face-adjacent pieces of one level (pieces of one box included) exchanges
  2 * F * g * B bytes per step of their level, F = shared cell faces;
- inter-level (§2 "prolongation coarse->fine, restriction fine->coarse"): for every
  coarse piece C (level l-1) and fine piece F (level l) that overlap, prolongation
  fills F's boundary cell faces that lie over C, faces * g * B per fine step (n_l)
  (spec §1.8: every piece's ghost region is interpolated from the coarse level, so
  IGD's pieces spread over all processors all talk to the coarse grid's processors,
  §4.2), and restriction sends, by ``restrict`` (``RESTRICT``): ``step`` the overlap
  in coarse cells (fine cells / ratio**d) * B once per coarse step (n_{l-1}, Berger-Oliger's
  averaging of the covered coarse cells), ``regrid`` the same volume once per regrid
  interval, ``surface`` the coarse faces of the fine piece's boundary over C
  (faces / ratio**(d-1)) * B per coarse step (a flux correction at the interface);
  every mode's communication is a column (``amr_inter_comm_<mode>_bytes``);
- "communication" when the two pieces' owners differ, "co-located traffic" when
  equal (§2: "on the same processor, these communications translate to memory copies");
- memory copies (Fig. 10, §3.2: "Large number of small grids also increases the
  number of memory copies required for inter-level and intra-level communications"):
  every exchange, local or remote, packs the ghost region into a buffer on the sending
  piece and unpacks it on the receiving piece, so each piece copies its side of each of
  its exchanges twice: copies = 2 x (communication + co-located traffic), growing with
  the number of pieces and their surface;
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
from ..contract.pieces import BoxPieces, _c, moved_cells
from ..kernels import _cells

RESTRICT = ("step", "regrid", "surface")  # the restriction's weighting (module docstring)
# the per-cell passes cost about 1/20 of a candidate piece pair (measured on bl: ~0.1 us per cell, ~2 us per pair)
CELLS_PER_PAIR = 20


def _surface(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cell faces on the surface of each box lo..hi."""
    ext = hi - lo + 1
    cells = row_prod(ext)
    return 2 * sum(cells // ext[:, a] for a in range(ext.shape[1]))


def _steps(meta: dict, ratio: int, level):
    """n_l = regrid_every * ratio**l: time steps of level l per regrid interval (AMR paper §5)."""
    return int(meta.get("regrid_every", 1)) * float(ratio) ** np.asarray(level, float)


def _restriction(cells, faces, n_coarse, r: int, d: int, B: int) -> dict:
    """Restriction bytes of fine ``cells`` with ``faces`` boundary faces over a coarse piece, per mode of
    ``RESTRICT`` (``n_coarse``: steps of the coarse level per regrid interval)."""
    vol = np.asarray(cells, float) / r ** d * B
    return {"step": vol * n_coarse, "regrid": vol, "surface": np.asarray(faces, float) / r ** (d - 1) * B * n_coarse}


def amr_figures(boxes: Boxes, before: BoxPieces | None, after: BoxPieces, P: int, meta: dict,
                bytes_per_cell: int = 8, ghost: int = 1, raster: bool | None = None, graph: Graph | None = None,
                restrict: str | None = None) -> dict:
    """The ``amr_*`` columns of one step (module docstring); ``before`` None: nothing moved.

    Two evaluations of the same formulas: pair searches among pieces or per-cell passes over the boxes' cells
    (``raster``; None chooses the cheaper: the passes when the candidate piece pairs, the pairs of pieces of
    one box or of two boxes joined in the box graph, exceed the cells / ``CELLS_PER_PAIR``: IGD's boxes split
    over P processors). ``graph``: the boxes' graph (``ctx.graph``, which the runner keeps in the workload
    cache); None builds it (:func:`harness.boxes_to_graph`).
    ``restrict``: the restriction's weighting (``RESTRICT``; None: ``meta["restrict"]``, else ``step``)."""
    B, g, r = int(bytes_per_cell), int(ghost), int(boxes.ratio)
    if B < 0 or g < 0:
        raise ValueError("bytes_per_cell and ghost must be >= 0")
    restrict = restrict or meta.get("restrict", "step")
    if restrict not in RESTRICT:
        raise ValueError(f"restrict must be one of {', '.join(RESTRICT)}, got {restrict!r}")
    moved = float(moved_cells(before, after, raster)[2].sum()) * B if before is not None else 0.0
    graph = graph if graph is not None else boxes_to_graph(boxes)
    if raster is None:  # many pieces per box (IGD): per-cell passes beat pair searches among pieces
        cnt = np.bincount(after.box, minlength=boxes.n).astype(float)
        pairs = float((cnt * (cnt - 1)).sum() + (cnt[graph.src] * cnt[graph.adjncy]).sum()) / 2  # no BLAS call
        raster = pairs * CELLS_PER_PAIR > float(boxes.cells.sum())
    if raster:
        return _raster_figures(boxes, after, P, meta, B, g, moved, graph, restrict)
    pc = after
    d = pc.lo.shape[1]
    if pc.n and (pc.box.max() >= boxes.n or not np.array_equal(pc.level, boxes.level[pc.box])):
        raise ValueError("pieces: they are not pieces of these boxes")
    n_l = _steps(meta, r, np.arange(int(pc.level.max()) + 2 if pc.n else 1))
    intra = np.zeros(2)  # [communication, copy]
    inter = np.zeros(2)
    sent = np.zeros(P)
    recv = np.zeros(P)
    same_level, coarse_fine = _box_pairs(boxes, graph)
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
    # prolongation: the fine piece's boundary cell faces that lie over the coarse piece
    faces = np.zeros(fp.size)
    for k in range(d):
        across = row_prod(np.delete(span, k, axis=1))
        faces += across * (olo[:, k] == lo[:, k])
        faces += across * (ohi[:, k] == hi[:, k])
    prolong = faces * g * B * n_l[lev]
    rest = _restriction(row_prod(span), faces, n_l[lev - 1], r, d, B)
    x = pc.owner[fp] != pc.owner[cp]
    modes = {m: float((v + prolong)[x].sum()) for m, v in rest.items()}
    restrict_b = rest[restrict]
    inter += [modes[restrict], float((restrict_b + prolong)[~x].sum())]
    fo, co = pc.owner[fp][x], pc.owner[cp][x]
    sent += np.bincount(fo, restrict_b[x], minlength=P) + np.bincount(co, prolong[x], minlength=P)
    recv += np.bincount(co, restrict_b[x], minlength=P) + np.bincount(fo, prolong[x], minlength=P)
    return _row(pc, P, r, intra, inter, moved, sent + recv, B, g, modes)


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


def _row(pc: BoxPieces, P: int, r: int, intra, inter, moved_bytes: float, traffic, B: int, g: int,
         modes: dict) -> dict:
    """The columns; ``intra``/``inter``: [communication, co-located traffic]; ``modes``: the inter-level
    communication under each restriction weighting. Copies: pack + unpack of every exchange (docstring)."""
    W = np.bincount(pc.owner, pc.cells * float(r) ** pc.level, minlength=P)
    mean = W.sum() / P
    return {
        "amr_intra_comm_bytes": float(intra[0]),
        "amr_intra_colocated_bytes": float(intra[1]),
        "amr_intra_copy_bytes": 2.0 * float(intra[0] + intra[1]),
        "amr_inter_comm_bytes": float(inter[0]),
        "amr_inter_colocated_bytes": float(inter[1]),
        "amr_inter_copy_bytes": 2.0 * float(inter[0] + inter[1]),
        **{f"amr_inter_comm_{m}_bytes": float(v) for m, v in modes.items()},
        "amr_data_moved_bytes": float(moved_bytes),
        "amr_pieces": int(pc.n),
        "amr_imbalance_pct": float(100.0 * (W.max() / mean - 1.0)) if mean > 0 else 0.0,
        "amr_inter_max_proc_bytes": float(np.max(traffic)) if P else 0.0,
        "bytes_per_cell": B,
        "ghost": g,
    }


# ---------------------------------------------------------------- per-cell evaluation (many small pieces)

def _raster_figures(boxes: Boxes, pc: BoxPieces, P: int, meta: dict, B: int, g: int, moved: float,
                    graph: Graph, restrict: str) -> dict:
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
    modes = dict.fromkeys(RESTRICT, 0.0)
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
    inside = 2.0 * g * B * float((shared * n_l[boxes.level]).sum())
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
    same_level, coarse_fine = _box_pairs(boxes, graph)
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
        cnt[np.arange(P), np.arange(P)] = 0  # co-located: fine and coarse cell on one processor
        prol = g * B * n_l[lev]  # bytes per face
        cells, faces_ = cnt.sum(axis=2), cnt @ np.arange(F)
        n_comm, f_comm = int(cells.sum()), int(faces_.sum())
        comm = _restriction(n_comm, f_comm, n_l[lev - 1], r, d, B)
        for m, v in comm.items():
            modes[m] += float(v) + prol * f_comm
        local = _restriction(n_all - n_comm, f_all - f_comm, n_l[lev - 1], r, d, B)[restrict]
        inter += [float(comm[restrict]) + prol * f_comm, float(local) + prol * (f_all - f_comm)]
        rest = _restriction(cells, faces_, n_l[lev - 1], r, d, B)[restrict]  # per (fine owner, coarse owner)
        sent += rest.sum(axis=1) + prol * faces_.sum(axis=0)
        recv += rest.sum(axis=0) + prol * faces_.sum(axis=1)
    return _row(pc, P, r, intra, inter, moved, sent + recv, B, g, modes)
