"""Box pieces (harness.contract.pieces) and the AMR figures (harness.measure.amrmetrics): the pair-search and the per-cell
evaluations agree on random tilings, including boxes with several pieces on one processor."""
import gc
import weakref

import numpy as np
import pytest

from harness import Boxes
from harness.measure.amrmetrics import amr_figures
from harness.contract.pieces import BoxPieces, moved_cells


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


def test_moved_cells_with_many_processors_agree():
    """Above 2^22 processor pairs the per-cell pass lists the changed cells' pairs instead of tallying every
    pair: the same cells moved as the pair search."""
    rng = np.random.default_rng(7)
    boxes = hierarchy(rng)
    P = 3000
    before, after = tile(boxes, P, rng, cuts=40), tile(boxes, P, rng, cuts=200)
    got = moved_cells(before, after, raster=True)
    assert got[0].size > 100
    for x, y in zip(moved_cells(before, after, raster=False), got):
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


def dense_figures(boxes: Boxes, before: BoxPieces, after: BoxPieces, P: int, n_step: int, B: int = 8, g: int = 1):
    """The amrmetrics formulas on dense per-level grids, cell face by cell face (no pair search, no box graph):
    the reference the fast paths are held to."""
    r, d = boxes.ratio, 3
    n0 = int((-(-(boxes.hi + 1) // r ** boxes.level[:, None])).max())
    levels = range(int(boxes.level.max()) + 1)

    def grid(pc, lev):
        pid = np.full((n0 * r ** lev,) * d, -1)
        for i in np.nonzero(pc.level == lev)[0]:
            pid[tuple(slice(a, b + 1) for a, b in zip(pc.lo[i], pc.hi[i]))] = i
        return pid

    out = dict.fromkeys(["intra_comm", "intra_colocated", "inter_comm", "inter_colocated", "moved"], 0.0)
    traffic = np.zeros(P)
    grids = {lev: grid(after, lev) for lev in levels}
    for lev in levels:
        pid, n_l = grids[lev], n_step * r ** lev
        for a in range(d):
            x, y = np.moveaxis(pid, a, 0)[:-1], np.moveaxis(pid, a, 0)[1:]
            face = (x >= 0) & (y >= 0) & (x != y)
            same = after.owner[x[face]] == after.owner[y[face]]
            out["intra_comm"] += 2 * g * B * n_l * np.sum(~same)
            out["intra_colocated"] += 2 * g * B * n_l * np.sum(same)
        prev = grid(before, lev)
        both = (prev >= 0) & (pid >= 0)
        out["moved"] += B * np.sum(before.owner[prev[both]] != after.owner[pid[both]])
        if lev == 0:
            continue
        cells = np.argwhere(pid >= 0)
        coarse = grids[lev - 1][tuple((cells // r).T)]
        cells, fp, cp = cells[coarse >= 0], pid[tuple(cells[coarse >= 0].T)], coarse[coarse >= 0]
        nface = ((cells == after.lo[fp]).sum(axis=1) + (cells == after.hi[fp]).sum(axis=1))
        rest, prol = B * n_step * r ** (lev - 1) / r ** d, g * B * n_l * nface
        fo, co = after.owner[fp], after.owner[cp]
        x = fo != co
        out["inter_comm"] += rest * np.sum(x) + prol[x].sum()
        out["inter_colocated"] += rest * np.sum(~x) + prol[~x].sum()
        both_ways = rest + prol[x]  # restriction fine -> coarse, prolongation coarse -> fine: sent + received
        traffic += np.bincount(fo[x], both_ways, minlength=P) + np.bincount(co[x], both_ways, minlength=P)
    out["inter_max_proc"] = traffic.max()
    return out


@pytest.mark.parametrize("seed", range(4))
def test_both_evaluations_match_the_dense_reference(seed):
    """The pair search (pieces paired through the box graph) and the per-cell passes (cell numbers accumulated
    row by row) against a dense grid per level."""
    rng = np.random.default_rng(100 + seed)
    boxes = hierarchy(rng)
    P = 3
    before, after = tile(boxes, P, rng, cuts=30), tile(boxes, P, rng, cuts=150)
    ref = dense_figures(boxes, before, after, P, 2)
    for raster in (False, True):
        got = amr_figures(boxes, before, after, P, {"regrid_every": 2}, raster=raster)
        for k, v in ref.items():
            col = "amr_data_moved_bytes" if k == "moved" else f"amr_{k}_bytes"
            assert got[col] == pytest.approx(v, rel=1e-12), (raster, k)
        for k in ("intra", "inter"):  # memory copies: pack + unpack of every exchange, local or remote
            assert got[f"amr_{k}_copy_bytes"] == pytest.approx(2 * (ref[f"{k}_comm"] + ref[f"{k}_colocated"]))


@pytest.mark.parametrize("seed", range(5))
def test_lex_order_is_lexsort(seed):
    """One stable argsort of the mixed-radix number, or lexsort itself when it would not fit in int64."""
    from harness.contract.pieces import lex_order

    rng = np.random.default_rng(seed)
    n = 2000
    cols = [rng.integers(-5, 5, n), rng.integers(0, 3, n), rng.integers(-(10 ** 6), 10 ** 6, n)]
    if seed == 4:
        cols.append(rng.integers(0, 2 ** 40, n))  # beyond int64 together: falls back to lexsort
    assert np.array_equal(lex_order(*cols), np.lexsort(cols[::-1]))


def test_a_timing_repeat_reuses_the_first_runs_pieces(tmp_path, monkeypatch):
    """Repeats of a cell's timed part (``repeats=3``) run the scheme again; pieces equal to the first run's
    are that run's object: checked once per cell, and the data they moved overlapped once."""
    from harness.run.api import compare
    from workloads import bl

    checks = []
    check = BoxPieces.check
    monkeypatch.setattr(BoxPieces, "check", lambda self, *a: checks.append(1) or check(self, *a))
    timed = compare("amr-igd", workload="bl", workload_params=bl.SMALL, P=8, levels=[1, 2, 3],
                    out=str(tmp_path / "a"), repeats=3)
    assert len(checks) == 3 and (timed["timing_repeats"] == 3).all()
    once = compare("amr-igd", workload="bl", workload_params=bl.SMALL, P=8, levels=[1, 2, 3],
                   out=str(tmp_path / "b"))
    cols = [c for c in once if c.startswith(("amr_", "migration_")) or c in ("owners_hash", "wire_migration_bytes")]
    assert timed[cols].equals(once[cols])


@pytest.mark.parametrize("seed", range(4))
def test_overlap_join_is_every_overlapping_pair_once_in_order(seed):
    """Against all pairs by brute force: random boxes in 2-D and 3-D, negative corners, a sparse domain (few
    boxes far apart: the grid's buckets grow) and many overlaps per box (the output buffer grows)."""
    from harness import overlap_join

    rng = np.random.default_rng(seed)
    d = 2 + seed % 2
    n, m = 40 + 30 * seed, 50
    spread = [8, 60, 1000, 20][seed]
    alo = rng.integers(-spread, spread, (n, d))
    blo = rng.integers(-spread, spread, (m, d))
    ahi = alo + rng.integers(0, 12, (n, d))
    bhi = blo + rng.integers(0, 12, (m, d))
    i, j, v = overlap_join(alo, ahi, blo, bhi)
    ov = np.minimum(ahi[:, None], bhi[None]) - np.maximum(alo[:, None], blo[None]) + 1
    vol = np.where(np.all(ov > 0, axis=2), np.prod(np.maximum(ov, 0), axis=2), 0)
    bi, bj = np.nonzero(vol)
    assert np.array_equal(i, bi) and np.array_equal(j, bj)  # each pair once, in (i, j) order
    assert np.array_equal(v, vol[bi, bj])
    same = overlap_join(alo, ahi, alo, ahi)  # every box with itself and its neighbours
    assert same[0].size >= n


def test_cell_passes_refuse_a_region_outside_their_raster():
    """The C passes check every cell number against the raster: a wrong box is an error, never a write."""
    from harness.kernels import _cells
    from harness.contract.pieces import Raster

    lo, hi = np.zeros((2, 3), np.int64), np.full((2, 3), 3, np.int64)
    R = Raster(lo, hi)
    pid = np.full(R.N, -1, np.int32)
    assert _cells.paint(lo, hi, np.array([0, 1]), 3, R.base, R.stride, pid) == 0
    assert np.array_equal(np.bincount(pid), [64, 64])
    with pytest.raises(ValueError, match="outside its raster"):
        _cells.paint(lo, hi, np.array([0, 2]), 3, R.base, R.stride, pid)
    with pytest.raises(ValueError, match="outside its raster"):
        _cells.paint(lo, hi + 1, np.array([0, 1]), 3, R.base, R.stride, pid)
