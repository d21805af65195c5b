"""Structure of the six AMR schemes' pieces (spec §5): tiling, owners, IGD piece count, zero movement on
identical steps, and the splitting helpers against brute force."""
import numpy as np
import pytest

from harness import BoxPieces, Boxes, amr_figures
from lbbench_amr.direct import run_steps, split_method
from lbbench_amr.plugin import SCHEMES, distribute
from lbbench_amr.split import bisect_pieces, coalesce, cut_box, linear_pieces
from workloads import bl

ALL = list(SCHEMES) + ["amr-ild[ild_split=planes]", "amr-sfc[block=3]", "amr-cgd[split=none]", "amr-igd[igd_split=slabs]",
                       "amr-wd[affinity=volume]", "amr-sfc[coalesce=false,block=2]"]


@pytest.fixture(scope="module")
def small():
    """The small bl variant (the conformance default for boxes) plus a deeper 4-level one."""
    return bl.generate(**bl.SMALL), bl.generate(base=12, levels=4, steps=5, min_size=2)


def raster(boxes: Boxes, pieces: BoxPieces):
    """Brute force: per box, a cell array of the pieces covering it (counts) and their owners."""
    cover, own = [], []
    for b in range(boxes.n):
        ext = boxes.hi[b] - boxes.lo[b] + 1
        c = np.zeros(ext, int)
        o = np.full(ext, -1)
        for i in np.nonzero(pieces.box == b)[0]:
            s = tuple(slice(a, z + 1) for a, z in zip(pieces.lo[i] - boxes.lo[b], pieces.hi[i] - boxes.lo[b]))
            c[s] += 1
            o[s] = pieces.owner[i]
        cover.append(c)
        own.append(o)
    return cover, own


@pytest.mark.parametrize("P", [16, 32, 64])
@pytest.mark.parametrize("method", ALL)
def test_pieces_tile_every_box(small, method, P):
    for levels in small:
        name, params = split_method(method)
        prev = None
        for lv in levels:
            pc = distribute(name, lv.data, P, params, prev)
            pc.check(lv.data, P)  # inside, disjoint, cells sum, owners in range
            assert pc.owner.min() >= 0 and pc.owner.max() < P
            assert np.array_equal(pc.level, lv.data.level[pc.box])
            cover, _ = raster(lv.data, pc)
            assert all(np.all(c == 1) for c in cover)
            W = np.bincount(pc.owner, pc.cells * 2 ** pc.level, minlength=P)
            assert W.sum() == lv.data.work.sum()
            assert pc.n >= lv.data.n
            if name == "amr-igd" and not params:
                assert pc.n == np.minimum(P, lv.data.cells).sum()
                assert np.array_equal(np.bincount(pc.box, minlength=lv.data.n), np.minimum(P, lv.data.cells))
            prev = pc


@pytest.mark.parametrize("method", ALL)
def test_identical_steps_move_nothing(small, method):
    """Two identical consecutive steps: 0 data moved for every scheme except WD (deterministic functions of
    the step's boxes)."""
    levels = small[1]
    lv = levels[2]
    twice = [lv, type(lv)(lv.index + 1, lv.data, parent=np.arange(lv.data.n), meta=lv.meta)]
    rows = run_steps(twice, method, 16)
    if not method.startswith("amr-wd"):
        assert rows[1]["amr_data_moved_bytes"] == 0
    assert rows[0]["amr_pieces"] == rows[1]["amr_pieces"] or method.startswith("amr-wd")


def test_bad_parameters_are_one_line_errors():
    boxes = bl.generate(**bl.SMALL)[0].data
    for name, params in [("amr-igd", {"igd_split": "cubes"}), ("amr-sfc", {"block": 0}),
                         ("amr-ild", {"ild_split": "x"}), ("amr-wd", {"affinity": "x"}), ("amr-itb", {"tol": -1})]:
        with pytest.raises(ValueError, match=name):
            distribute(name, boxes, 4, params)


def test_pieces_check_rejects_bad_tilings():
    boxes = Boxes([0], [[0, 0, 0]], [[3, 3, 3]], [-1])
    good = BoxPieces([0, 0], [[0, 0, 0], [2, 0, 0]], [[1, 3, 3], [3, 3, 3]], [0, 1], [0, 0])
    good.check(boxes, 2)
    assert good.box_owner(1).tolist() == [0]  # equal cells: the lowest processor
    bad = [
        (BoxPieces([0, 0], [[0, 0, 0], [1, 0, 0]], [[1, 3, 3], [2, 3, 3]], [0, 1], [0, 0]), "overlap"),
        (BoxPieces([0], [[0, 0, 0]], [[4, 3, 3]], [0], [0]), "inside"),
        (BoxPieces([0], [[0, 0, 0]], [[3, 3, 3]], [2], [0]), "owner"),
        (BoxPieces([0], [[0, 0, 0]], [[2, 3, 3]], [0], [0]), "cells"),
        # right cell total (32 + 16 + 16 = 64), but the first two overlap and a layer is missing
        (BoxPieces([0, 0, 0], [[0, 0, 0], [0, 0, 0], [2, 0, 0]], [[1, 3, 3], [1, 1, 3], [2, 3, 3]], [0, 0, 0],
                   [0, 0, 0]), "overlap"),
    ]
    for pc, msg in bad:
        with pytest.raises(ValueError, match=msg):
            pc.check(boxes, 2)


def test_cut_box_rounds_to_planes_then_rows():
    # 6 x 2 x 2 box (24 cells): a cut at 10 cells rounds to 2 planes of 4 cells (8)
    parts = cut_box([0, 0, 0], [5, 1, 1], [10])
    assert [(p, lo.tolist(), hi.tolist()) for p, lo, hi in parts] == [
        (0, [0, 0, 0], [1, 1, 1]), (1, [2, 0, 0], [5, 1, 1])]
    # 2 x 2 x 2 box, 3 cuts: the longest side (2) is too short -> rows of 2 cells
    parts = cut_box([0, 0, 0], [1, 1, 1], [2, 4, 6])
    sizes = np.bincount([p for p, lo, hi in parts], [np.prod(hi - lo + 1) for _, lo, hi in parts])
    assert sizes.tolist() == [2, 2, 2, 2]


def test_linear_pieces_cut_at_targets():
    lo = np.zeros((3, 3), int)
    hi = np.array([[9, 0, 0], [9, 0, 0], [9, 0, 0]])  # three 10-cell rows, total 30
    item, plo, phi, chunk = linear_pieces(lo, hi, 1.0, 4, np.ones(3, bool))
    load = np.bincount(chunk, np.prod(phi - plo + 1, axis=1))
    assert load.tolist() == [8, 7, 8, 7] or load.max() - load.min() <= 1
    item, plo, phi, chunk = linear_pieces(lo, hi, 1.0, 2, np.zeros(3, bool))  # whole boxes, midpoint rule
    assert chunk.tolist() == [0, 1, 1] or chunk.tolist() == [0, 0, 1]


def test_bisection_pieces_are_nearly_equal():
    lo, hi = np.array([[0, 0, 0], [0, 0, 0]]), np.array([[5, 5, 5], [2, 2, 2]])
    item, j, plo, phi = bisect_pieces(lo, hi, np.array([64, 27]))
    cells = np.prod(phi - plo + 1, axis=1)
    assert np.bincount(item).tolist() == [64, 27]
    assert cells[item == 0].sum() == 216 and cells[item == 1].sum() == 27 and cells.min() >= 1
    assert np.all(cells[item == 1] == 1)
    assert cells[item == 0].max() <= 2 * cells[item == 0].min() + 1
    # by hand: a 4-plane row in 3 (cut at round(4 * 1/3) = 1 plane, then the 3 planes at round(3/2) = 2) and a
    # 2 x 2 square in 4 (the longest axis, ties the lowest: x, then y); (item, j) order, bisection order
    item, j, plo, phi = bisect_pieces(np.array([[0, 0, 0], [2, 0, 0]]), np.array([[3, 0, 0], [3, 1, 0]]),
                                      np.array([3, 4]))
    assert item.tolist() == [0, 0, 0, 1, 1, 1, 1] and j.tolist() == [0, 1, 2, 0, 1, 2, 3]
    assert plo[:, :2].tolist() == [[0, 0], [1, 0], [3, 0], [2, 0], [2, 1], [3, 0], [3, 1]]
    assert phi[:, :2].tolist() == [[0, 0], [2, 0], [3, 0], [2, 0], [2, 1], [3, 0], [3, 1]]


def _bisect_numpy(lo, hi, k):
    """bisect_pieces as numpy computed it, one generation of bisections at a time, before the C recursion."""
    d = lo.shape[1]
    start = np.cumsum(k) - k
    plo, phi = np.empty((d, k.sum()), np.int64), np.empty((d, k.sum()), np.int64)
    pos, lo, hi = start, lo.T.copy(), hi.T.copy()
    while pos.size:
        one, more = np.flatnonzero(k == 1), np.flatnonzero(k > 1)
        for a in range(d):
            plo[a][pos[one]], phi[a][pos[one]] = lo[a][one], hi[a][one]
        pos, lo, hi, k = pos[more], lo.take(more, axis=1), hi.take(more, axis=1), k[more]
        ext = hi - lo + 1
        ax, rows = np.argmax(ext, axis=0), np.arange(pos.size)
        n = ext[ax, rows]
        plane = np.prod(ext, axis=0) // n
        c = np.clip(np.rint(n * (k // 2) / k), 1, n - 1).astype(np.int64)
        k1 = np.clip(np.rint(k * c / n).astype(np.int64), np.maximum(1, k - (n - c) * plane),
                     np.minimum(k - 1, c * plane))
        lhi, rlo = hi.copy(), lo.copy()
        lhi[ax, rows] = lo[ax, rows] + c - 1
        rlo[ax, rows] += c
        pos, lo, hi, k = (np.concatenate([pos, pos + k1]), np.concatenate([lo, rlo], axis=1),
                          np.concatenate([lhi, hi], axis=1), np.concatenate([k1, k - k1]))
    return plo.T, phi.T


@pytest.mark.parametrize("d", [2, 3])
def test_bisection_is_the_numpy_generations(d):
    rng = np.random.default_rng(d)
    lo = rng.integers(-50, 50, (400, d))
    hi = lo + rng.integers(0, 40, (400, d)) * (rng.random((400, d)) < 0.8)  # some flat boxes
    k = np.minimum(rng.integers(1, 300, 400), np.prod(hi - lo + 1, axis=1))
    item, j, plo, phi = bisect_pieces(lo, hi, k)
    want_lo, want_hi = _bisect_numpy(lo, hi, k)
    assert np.array_equal(plo, want_lo) and np.array_equal(phi, want_hi)
    with pytest.raises(ValueError, match="cells"):
        bisect_pieces(lo[:1], lo[:1], np.array([2]))  # one cell, two pieces


@pytest.mark.parametrize("split", ["bisect", "slabs"])
def test_largest_first_is_the_lexsort_of_the_deal(split):
    """IGD's deal order (each box's pieces, largest first, ties in split order) in C against lex_order; boxes
    with up to 300 pieces (the C sorts more than 64 with qsort)."""
    from harness import lex_order, row_prod
    from lbbench_amr.split import largest_first, slab_pieces

    rng = np.random.default_rng(11)
    lo = rng.integers(-50, 50, (400, 3))
    hi = lo + rng.integers(0, 40, (400, 3)) * (rng.random((400, 3)) < 0.8)
    cells = np.prod(hi - lo + 1, axis=1)
    if split == "bisect":
        k = np.minimum(rng.integers(1, 300, 400), cells)
        item, j, plo, phi = bisect_pieces(lo, hi, k)
    else:
        k = np.minimum(rng.integers(1, 300, 400), (hi - lo + 1).max(axis=1))
        item, j, plo, phi = slab_pieces(lo, hi, k)
    size = row_prod(phi - plo + 1)
    order = lex_order(item, -size, j)
    want = plo[order], phi[order], size[order]
    got_cells = largest_first(k, plo, phi)
    assert np.array_equal(plo, want[0]) and np.array_equal(phi, want[1]) and np.array_equal(got_cells, want[2])


def test_coalesce_merges_abutting_pieces_of_one_owner():
    box = [0, 0, 0, 0]
    lo = np.array([[0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0]])
    hi = np.array([[1, 1, 0], [3, 1, 0], [1, 3, 0], [3, 3, 0]])
    b, o, l, h = coalesce(box, [0, 0, 0, 0], lo, hi)
    assert len(b) == 1 and l.tolist() == [[0, 0, 0]] and h.tolist() == [[3, 3, 0]]
    b, o, l, h = coalesce(box, [0, 0, 1, 0], lo, hi)
    assert sorted(np.prod(h - l + 1, axis=1).tolist()) == [4, 4, 8]


def test_metrics_of_a_hand_made_distribution():
    """Two 4x4x4 halves of an 8x4x4 level-0 box on processors 0 and 1, a 4x4x4 fine box over the first half on
    processor 1: every figure by hand (B = 8, g = 1, regrid_every = 1)."""
    boxes = Boxes([0, 1], [[0, 0, 0], [0, 0, 0]], [[7, 3, 3], [3, 3, 3]], [-1, 0])
    pc = BoxPieces([0, 0, 1], [[0, 0, 0], [4, 0, 0], [0, 0, 0]], [[3, 3, 3], [7, 3, 3], [3, 3, 3]],
                   [0, 1, 1], [0, 0, 1])
    f = amr_figures(boxes, None, pc, 2, {"regrid_every": 1})
    # intra: the two level-0 halves share 16 faces: 2 * 16 * 8 bytes, 1 step
    assert f["amr_intra_comm_bytes"] == 2 * 16 * 8 and f["amr_intra_colocated_bytes"] == 0
    # inter: the fine box (64 fine cells = 8 coarse) over piece 0 (other owner): restriction 8 cells * 8 B
    # * 1 coarse step; prolongation: its boundary faces, 6 faces x 16 = 96, x 8 B x 2 fine steps
    assert f["amr_inter_comm_bytes"] == 8 * 8 + 96 * 8 * 2 and f["amr_inter_colocated_bytes"] == 0
    # restriction once per regrid (8 cells x 8 B) or over the surface (96 fine faces = 24 coarse faces x 8 B)
    assert f["amr_inter_comm_regrid_bytes"] == 8 * 8 + 96 * 8 * 2
    assert f["amr_inter_comm_surface_bytes"] == 24 * 8 + 96 * 8 * 2
    # memory copies (§3.2): every exchange packed by its sender and unpacked by its receiver, remote or not
    assert f["amr_intra_copy_bytes"] == 2 * f["amr_intra_comm_bytes"]
    assert f["amr_inter_copy_bytes"] == 2 * f["amr_inter_comm_bytes"]
    local = amr_figures(boxes, None, BoxPieces(pc.box, pc.lo, pc.hi, [0, 0, 0], pc.level), 2, {"regrid_every": 1})
    assert local["amr_intra_comm_bytes"] == 0 and local["amr_intra_copy_bytes"] == f["amr_intra_copy_bytes"]
    # loads: proc 0: 64 cells, proc 1: 64 + 64 fine cells x 2 = 192 -> mean 128
    assert f["amr_imbalance_pct"] == pytest.approx(100 * (192 / 128 - 1))
    assert f["amr_pieces"] == 3 and f["amr_data_moved_bytes"] == 0
    moved = amr_figures(boxes, pc, BoxPieces.whole(boxes, [0, 0]), 2, {"regrid_every": 1})
    assert moved["amr_data_moved_bytes"] == (64 + 64) * 8  # half the base box and the fine box change owner


@pytest.mark.parametrize("method", ["amr-igd", "amr-cgd", "amr-sfc", "amr-wd", "amr-itb"])
def test_pair_search_and_per_cell_metrics_agree(small, method):
    """amr_figures has two evaluations (pair searches among pieces, per-cell passes, each with its own
    moved-cells search): same figures."""
    levels = small[1]
    name, params = split_method(method)
    for P in (4, 16):
        prev = distribute(name, levels[0].data, P, params)
        pc = distribute(name, levels[1].data, P, params, prev)
        a = amr_figures(levels[1].data, prev, pc, P, levels[1].meta, raster=False)
        b = amr_figures(levels[1].data, prev, pc, P, levels[1].meta, raster=True)
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == pytest.approx(b[k], rel=1e-12), k
        assert a["amr_intra_comm_bytes"] + a["amr_inter_comm_bytes"] > 0


def test_claims_are_registered_and_judge_direct_rows(small):
    """A1-A11 as harness Claims (lbbench claims --paper amr); their predicates read runner-shaped rows."""
    import pandas as pd

    from lbbench_amr.plugin import register_claims
    from lbbench_amr.reports import SCHEMES, summarize

    got = []
    register_claims(got.append)
    assert [c.name for c in got] == [f"amr-a{i}" for i in range(1, 12)] and {c.paper for c in got} == {"amr"}
    df = pd.DataFrame([r for m in SCHEMES for r in run_steps(small[1][:3], m, 4)])
    verdicts = {c.name: c.check(df) for c in got if c.name != "amr-a8"}
    assert verdicts["amr-a7"][0] is True  # IGD splits every box 4 ways: the most pieces
    s = summarize(df).set_index("algorithm")
    copies = (s["intra_copy_mb"] + s["inter_copy_mb"]).reindex(SCHEMES)
    assert verdicts["amr-a3"][0] is (copies.idxmax() == "amr-igd")  # Fig. 10: the copies alone
    assert verdicts["amr-a10"][0] is (s["imb_mean"].reindex(SCHEMES).idxmax() == "amr-ild")  # the default ILD
    assert all(v[0] in (True, False) for v in verdicts.values())
    # the other readings are shown beside, on the same rows
    assert all(c.other[1](df)[0] in (True, False) for c in got if c.other and c.name != "amr-a8")


def test_a6_is_judged_on_operation_counts_not_wall_seconds(small):
    """A6 (Fig. 12, "the maximum time") is decided by ``amr_ops`` (the §4 operation counts): any wall time
    leaves the verdict as it is, and making ILD's counts the largest makes it hold."""
    import pandas as pd

    from lbbench_amr.claims import CLAIMS
    from lbbench_amr.reports import SCHEMES

    a6 = next(c for c in CLAIMS if c.name == "amr-a6")
    df = pd.DataFrame([r for m in SCHEMES for r in run_steps(small[1][:3], m, 4)])
    assert (df["amr_ops"] == df[["amr_ops_boxes", "amr_ops_pieces", "amr_ops_cut_faces"]].sum(axis=1)).all()
    first = a6.check(df)[0]
    for t in (1e-6, 1e6):
        slow = df.assign(time_partition_s=df["time_partition_s"].where(df["algorithm"] != "amr-ild", t))
        assert a6.check(slow)[0] is first
    most = df.assign(amr_ops=df["amr_ops"].where(df["algorithm"] != "amr-ild", df["amr_ops"].max() * 10))
    assert a6.check(most)[0] is True
    assert a6.check(most.assign(amr_ops=most["amr_ops"].where(most["algorithm"] != "amr-igd", 1e12)))[0] is False


def test_operation_counts_follow_the_redistribution_scopes(small):
    """§4's regrid scopes: IGD distributes only the boxes created at the step; CGD every box; ILD every box of
    the levels that changed; an unchanged step costs IGD nothing and ILD nothing."""
    from lbbench_amr.ops import operations

    lv = small[1][1].data
    for name in ("amr-igd", "amr-cgd", "amr-ild"):
        pc = distribute(name, lv, 4, {})
        same = operations(name, lv, pc, pc, np.zeros(lv.n, np.int64))
        fresh = operations(name, lv, None, pc, np.zeros(lv.n, np.int64))
        assert fresh["amr_ops_boxes"] == lv.n and fresh["amr_ops_pieces"] == pc.n
        assert same["amr_ops"] == (fresh["amr_ops"] if name == "amr-cgd" else 0)


# the pieces (box, lo, hi, owner) of every step of the deeper small trace, hashed: the values the Python
# loops of IGD's greedy deal and of WD's placement gave before they moved to C (_place.c), at 34327dd
PYTHON_LOOPS = {
    ("amr-igd", 3): "3613536be098e99f", ("amr-igd", 16): "b049fce4ee684ea9", ("amr-igd", 100): "1a50c2357402482c",
    ("amr-igd[igd_deal=rotate]", 100): "3effca2fd46e137d",
    ("amr-wd", 3): "50609cba46e2a82e", ("amr-wd", 16): "282ee547c45925d0", ("amr-wd", 100): "50fc4e3ea6ae8e2c",
    ("amr-wd[affinity=volume]", 3): "00750a14d64e97d0", ("amr-wd[affinity=volume]", 16): "0a6fce0a8493ce49",
    ("amr-wd[affinity=volume]", 100): "d71a1023edef7a8f",
    ("amr-wd[tol=0,size_threshold=0]", 3): "ac5e6922377fa1c6",  # nobody below the cap; every box split
    ("amr-wd[tol=0,size_threshold=0]", 16): "ac14137c23a5c4a0",
    ("amr-wd[tol=0,size_threshold=0]", 100): "8d74c5c153f10153",
}


@pytest.mark.parametrize("method,P", list(PYTHON_LOOPS))
def test_placement_loops_give_the_python_loops_pieces(small, method, P):
    """IGD's deal and WD's placement in C: the same pieces, step after step, as the Python loops they replaced
    (P = 100: more processors than the insertion sort handles, so the qsort path too)."""
    import hashlib

    name, params = split_method(method)
    h, prev = hashlib.sha256(), None
    for lv in small[1]:
        pc = distribute(name, lv.data, P, params, prev)
        for a in (pc.box, pc.lo, pc.hi, pc.owner):
            h.update(np.ascontiguousarray(a, np.int64).tobytes())
        prev = pc
    assert h.hexdigest()[:16] == PYTHON_LOOPS[(method, P)]


def test_itb_tree_order_keeps_every_subtree_contiguous(small):
    """§4.5 "for every grid, immediate neighbors and children are also considered": in ITB's order every grid
    is followed at once by its whole subtree (its descendants through the parent pointers), parents first."""
    from harness import as_form
    from lbbench_amr.itb import tree_order

    for levels in small:
        for lv in levels:
            b = lv.data
            order = tree_order(b, as_form(b, "graph"))
            assert np.array_equal(np.sort(order), np.arange(b.n))
            pos = np.empty(b.n, int)
            pos[order] = np.arange(b.n)
            size = np.ones(b.n, int)  # subtree sizes, finest level first
            for lev in range(int(b.level.max()), 0, -1):
                at = np.nonzero(b.level == lev)[0]
                np.add.at(size, b.parent[at], size[at])
            kids = b.level > 0
            assert np.all(pos[kids] > pos[b.parent[kids]])
            assert np.all(pos[kids] + size[kids] <= pos[b.parent[kids]] + size[b.parent[kids]])


def test_itb_keeps_the_previous_places(small):
    """ITB's chunks go to the processors that held their cells (§2's "(4) enable dynamic load redistribution
    with minimum overheads"): the same boxes after any relabelling of the processors come back on the
    relabelled owners, so nothing moves."""
    b = small[1][2].data
    first = distribute("amr-itb", b, 16, {})
    perm = np.random.default_rng(5).permutation(16)
    relabelled = BoxPieces(first.box, first.lo, first.hi, perm[first.owner], first.level)
    again = distribute("amr-itb", b, 16, {}, relabelled)
    assert np.array_equal(again.owner, perm[first.owner])
