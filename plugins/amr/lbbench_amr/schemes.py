"""SFC, IGD, CGD and ILD (AMR paper §4.1-4.4): each maps a step's Boxes to pieces with owners."""
from __future__ import annotations

import numpy as np

from harness import BoxPieces, Boxes, hilbert_index, row_prod

from . import _place
from .split import bisect_pieces, coalesce, largest_first, linear_pieces, slab_pieces

I64 = np.int64


def pieces_of(boxes: Boxes, box, lo, hi, owner) -> BoxPieces:
    box = np.asarray(box, I64)
    return BoxPieces(box, lo, hi, owner, boxes.level[box])


def domain(boxes: Boxes) -> np.ndarray:
    """Base-level cells per axis covered by the hierarchy."""
    scale = boxes.ratio ** boxes.level[:, None]
    return (-(-(boxes.hi + 1) // scale)).max(axis=0)


# ------------------------------------------------------------------ SFC (§4.1)

def sfc(boxes: Boxes, P: int, block: int = 1, coalesce_pieces: bool = True) -> BoxPieces:
    """Composite distribution along a Peano-Hilbert curve (§4.1, Figs. 2-3).

    Composite block b = ``block`` base cells per side and every finer level above
    it ([b block r^l, (b+1) block r^l) on level l), so each block keeps its whole
    hierarchy ("inter-level locality is maintained within each composite block").
    Blocks are ordered by the 3-D Hilbert index of their block coordinates, the
    ordered list is cut into P contiguous chunks of equal work at the block
    boundaries nearest the targets k W / P (no block is split), and pieces are
    box ∩ block with the block's processor, coalesced per (box, owner).
    """
    if block < 1:
        raise ValueError("amr-sfc: block must be >= 1")
    d = boxes.lo.shape[1]
    nb = -(-domain(boxes) // block)  # ceil
    side = block * boxes.ratio ** boxes.level  # block side on each box's level
    b0, b1 = boxes.lo // side[:, None], boxes.hi // side[:, None]
    span = b1 - b0 + 1
    cnt = row_prod(span)
    item = np.repeat(np.arange(boxes.n, dtype=I64), cnt)
    k = np.arange(item.size, dtype=I64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    bc = np.empty((item.size, d), I64)
    for a in range(d - 1, -1, -1):
        bc[:, a] = b0[item, a] + k % span[item, a]
        k //= span[item, a]
    s = side[item][:, None]
    lo = np.maximum(boxes.lo[item], bc * s)
    hi = np.minimum(boxes.hi[item], (bc + 1) * s - 1)
    bid = np.ravel_multi_index(tuple(bc.T), tuple(nb))
    work = np.bincount(bid, row_prod(hi - lo + 1) * float(boxes.ratio) ** boxes.level[item],
                       minlength=int(np.prod(nb)))
    allb = np.stack(np.unravel_index(np.arange(work.size), tuple(nb)), axis=1)
    bits = max(1, int(np.ceil(np.log2(max(int(nb.max()), 2)))))
    order = np.lexsort((np.arange(work.size), hilbert_index(allb, bits)))
    _, _, _, chunk = linear_pieces(np.zeros((work.size, 1), I64), np.zeros((work.size, 1), I64),
                                   work[order], P, np.zeros(work.size, bool))
    proc = np.empty(work.size, I64)
    proc[order] = chunk
    owner = proc[bid]
    if coalesce_pieces:
        item, owner, lo, hi = coalesce(item, owner, lo, hi)
    return pieces_of(boxes, item, lo, hi, owner)


# ------------------------------------------------------------------ IGD (§4.2)

def igd(boxes: Boxes, P: int, igd_split: str = "full", igd_deal: str = "greedy") -> BoxPieces:
    """Independent grid distribution (§4.2, Fig. 4): every grid over all processors.

    Box b is split into k_b = min(P, cells_b) pieces of nearly equal cells
    (``full``: recursive bisection; ``slabs``: k_b = min(P, longest side) slabs
    along the longest axis). ``igd_deal=greedy``: the boxes in turn, each box's
    pieces, largest first, go to the k_b currently least loaded processors
    (ties: lowest id), so every grid still covers min(P, cells) processors
    and the loads stay balanced (§4.2 "leads to balanced loads");
    ``rotate``: to processors o_b, o_b + 1, ... (mod P), o_b = the cells of the
    boxes before it (no load information).
    """
    if igd_split == "full":
        k = np.minimum(P, boxes.cells)
        item, _, lo, hi = bisect_pieces(boxes.lo, boxes.hi, k)
    elif igd_split == "slabs":
        k = np.minimum(P, (boxes.hi - boxes.lo + 1).max(axis=1))
        item, _, lo, hi = slab_pieces(boxes.lo, boxes.hi, k)
    else:
        raise ValueError(f"amr-igd: igd_split must be full or slabs, got {igd_split!r}")
    # deal: the pieces of a box, largest first (ties: bisection order), to processors o_b, o_b + 1, ...;
    # o_b = cells of the boxes before b (mod P): = sum of k for boxes smaller than P, and for larger ones it
    # rotates by cells mod P, the number of pieces with one cell more than the rest
    cells = largest_first(k, lo, hi)
    rank = np.arange(item.size, dtype=np.int64) - np.repeat(np.cumsum(k) - k, k)
    if igd_deal == "rotate":
        o = (np.cumsum(boxes.cells) - boxes.cells) % P
        return pieces_of(boxes, item, lo, hi, (o[item] + rank) % P)
    if igd_deal != "greedy":
        raise ValueError(f"amr-igd: igd_deal must be rotate or greedy, got {igd_deal!r}")
    work = cells * float(boxes.ratio) ** boxes.level[item]
    owner = np.empty(item.size, I64)
    _place.deal(np.ascontiguousarray(k, I64), np.ascontiguousarray(work, float), P, owner)  # box after box
    return pieces_of(boxes, item, lo, hi, owner)


# ------------------------------------------------------------------ CGD (§4.3), ILD (§4.4)

def _level_order(boxes: Boxes, idx=None) -> np.ndarray:
    """Boxes by level, then in the workload's order within a level (bl: lexicographic lo)."""
    idx = np.arange(boxes.n, dtype=I64) if idx is None else np.asarray(idx, I64)
    return idx[np.argsort(boxes.level[idx], kind="stable")]


def _linear(boxes: Boxes, order, P: int, split: bool):
    wpc = float(boxes.ratio) ** boxes.level[order]
    item, lo, hi, chunk = linear_pieces(boxes.lo[order], boxes.hi[order], wpc, P,
                                        np.full(order.size, bool(split)))
    return order[item], lo, hi, chunk


def cgd(boxes: Boxes, P: int, split: str = "planes") -> BoxPieces:
    """Combined grid distribution (§4.3, Fig. 5): the grids abutted level by level into one linear structure,
    cut into P pieces of equal load; a box straddling a target is cut at the nearest cell plane
    (``split=planes``) or goes whole to the chunk of its midpoint (``none``)."""
    if split not in ("planes", "none"):
        raise ValueError(f"amr-cgd: split must be planes or none, got {split!r}")
    box, lo, hi, owner = _linear(boxes, _level_order(boxes), P, split == "planes")
    return pieces_of(boxes, box, lo, hi, owner)


def ild(boxes: Boxes, P: int, ild_split: str = "none") -> BoxPieces:
    """Independent level distribution (§4.4, Fig. 6): each level's combined load cut into P equal parts
    separately (chunk k -> processor k), boxes cut at planes (``planes``) or kept whole (``none``)."""
    if ild_split not in ("planes", "none"):
        raise ValueError(f"amr-ild: ild_split must be planes or none, got {ild_split!r}")
    parts = [_linear(boxes, _level_order(boxes, np.nonzero(boxes.level == lev)[0]), P, ild_split == "planes")
             for lev in np.unique(boxes.level)]
    box, lo, hi, owner = (np.concatenate([p[i] for p in parts]) for i in range(4))
    return pieces_of(boxes, box, lo, hi, owner)
