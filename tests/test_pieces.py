"""Box pieces (harness.pieces) and the AMR figures (harness.amrmetrics): the pair-search and the per-cell
evaluations agree on random tilings, including boxes with several pieces on one processor."""
import gc
import weakref

import numpy as np
import pytest

from harness import Boxes
from harness.amrmetrics import amr_figures
from harness.pieces import BoxPieces, moved_cells


def hierarchy(rng) -> Boxes:
    """Two base boxes over 8^3 cells and up to 8 disjoint level-1 boxes inside 4^3 blocks of the 16^3 fine grid."""
    lo, hi, level, parent = [[0, 0, 0], [4, 0, 0]], [[3, 7, 7], [7, 7, 7]], [0, 0], [-1, -1]
    for blk in rng.choice(64, size=8, replace=False):
        corner = np.array(np.unravel_index(blk, (4, 4, 4))) * 4
        a = corner + rng.integers(0, 2, 3)
        lo.append(a.tolist())
        hi.append((a + rng.integers(1, 3, 3)).tolist())
        level.append(1)
        parent.append(int(a[0] // 2 >= 4))
    return Boxes(level, lo, hi, parent)


def tile(boxes: Boxes, P: int, rng, cuts: int) -> BoxPieces:
    """Each box cut at random planes (``cuts`` cuts, each splitting a random piece), random owners."""
    B, LO, HI = [], [], []
    for b in range(boxes.n):
        parts = [(boxes.lo[b].copy(), boxes.hi[b].copy())]
        for _ in range(cuts):
            k = int(rng.integers(len(parts)))
            lo, hi = parts[k]
            axes = np.nonzero(hi > lo)[0]
            if not axes.size:
                continue
            a = int(rng.choice(axes))
            c = int(rng.integers(lo[a], hi[a]))
            h1, l2 = hi.copy(), lo.copy()
            h1[a], l2[a] = c, c + 1
            parts[k:k + 1] = [(lo, h1), (l2, hi)]
        B += [b] * len(parts)
        LO += [p[0] for p in parts]
        HI += [p[1] for p in parts]
    B = np.array(B)
    return BoxPieces(B, LO, HI, rng.integers(0, P, B.size), boxes.level[B])


@pytest.mark.parametrize("seed", range(6))
def test_pair_search_and_per_cell_figures_agree(seed):
    rng = np.random.default_rng(seed)
    boxes = hierarchy(rng)
    P = 3  # few processors: many boxes hold two pieces on one processor (memory copies inside a box)
    before, after = tile(boxes, P, rng, cuts=40), tile(boxes, P, rng, cuts=200)
    for pc in (before, after):
        pc.check(boxes, P)
    a = amr_figures(boxes, before, after, P, {"regrid_every": 2}, raster=False)
    b = amr_figures(boxes, before, after, P, {"regrid_every": 2}, raster=True)
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-12), k
    assert a["amr_intra_copy_bytes"] > 0 and a["amr_intra_comm_bytes"] > 0
    for x, y in zip(moved_cells(before, after, raster=False), moved_cells(before, after, raster=True)):
        assert np.array_equal(x, y)


def test_many_small_pieces_overlapping_are_rejected():
    """The per-cell check (pieces averaging fewer than 16 cells): one cell covered twice, another not at all."""
    boxes = Boxes([0], [[0, 0, 0]], [[1, 1, 1]], [-1])
    cells = np.array(np.unravel_index(np.arange(8), (2, 2, 2))).T
    BoxPieces(np.zeros(8, int), cells, cells, np.arange(8) % 2, np.zeros(8, int)).check(boxes, 2)
    cells[7] = cells[6]
    with pytest.raises(ValueError, match="two pieces of box 0 overlap"):
        BoxPieces(np.zeros(8, int), cells, cells, np.arange(8) % 2, np.zeros(8, int)).check(boxes, 2)


def test_moved_cells_is_remembered_per_previous_pieces():
    rng = np.random.default_rng(0)
    boxes = hierarchy(rng)
    before, after = tile(boxes, 2, rng, cuts=5), tile(boxes, 2, rng, cuts=5)
    first = moved_cells(before, after)
    assert moved_cells(before, after) is first
    other = BoxPieces.whole(boxes, np.zeros(boxes.n, int))
    assert moved_cells(other, after) is not first
    gone = weakref.ref(other)
    del other, before
    gc.collect()
    assert gone() is None  # the memo does not keep the previous steps' pieces alive
