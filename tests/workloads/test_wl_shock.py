"""shock workload: SBN paper §5.1 / MinEX §2.1-2.2 counts, PLUM weights (SBN §4.1), determinism."""
import hashlib
from types import SimpleNamespace

import numpy as np
import pytest

from workloads import shock

PAPER_FINAL = 1_833_730  # SBN paper §5.1, MinEX paper §2.1
PAPER_ELEMENTS_INITIAL = 50_000


@pytest.fixture(scope="module")
def mesh():
    return shock.initial_mesh(1.0, 0)


@pytest.fixture(scope="module")
def levels():
    return shock.generate(seed=0)


def digest(levels):
    h = hashlib.sha256()
    for lv in levels:
        g = lv.data
        for a in (g.xadj, g.adjncy, g.pwgt, g.rwgt, g.cwgt, g.coords):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def test_initial_mesh_has_about_50000_elements(mesh):
    pts, tets = mesh
    assert abs(len(tets) / 50_000 - 1) < 0.02
    P = pts[tets]
    vol = np.abs(np.einsum("ij,ij->i", np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), P[:, 3] - P[:, 0])) / 6
    assert vol.min() > 0
    assert vol.sum() == pytest.approx(2.0)  # the box [0,2]x[0,1]x[0,1] is filled exactly


def test_nine_levels_on_the_fixed_dual_graph(levels, mesh):
    assert [lv.index for lv in levels] == list(range(1, 10))
    n = len(mesh[1])
    g1 = levels[0].data
    for lv in levels:
        assert lv.parent is None
        assert lv.data.n == n
        assert np.array_equal(lv.data.xadj, g1.xadj) and np.array_equal(lv.data.adjncy, g1.adjncy)
        assert lv.meta["initial_elements"] == n
    assert np.allclose(g1.coords, mesh[0][mesh[1]].mean(axis=1))  # coordinates = centroids


def test_weighted_sum_reaches_the_papers_1833730(levels):
    sums = [int(lv.data.pwgt.sum()) for lv in levels]
    assert abs(sums[-1] / PAPER_FINAL - 1) < 0.05
    assert sums[0] > levels[0].data.n  # level 1 is already adapted once
    assert max(sums) == sums[-1]


def test_growth_the_texts_statement_and_its_readings(levels):
    """SBN §5.1: the sum "increased from 50,000 to 1,833,730 over the nine levels". Version 6 meets it as "no level
    more than 2% above level 9" (workloads.shock.meets); the strict reading, level over level, is not met (the
    refined volume is full from level 3, then only moves: +-1%), and the nine levels' sum MinEX's Tables 3/4 imply
    (about 7.5 M, a reading of a result table, not a statement) is +74% (workloads/README.md)."""
    sums = np.array([int(lv.data.pwgt.sum()) for lv in levels])
    assert sums.max() <= 1.02 * sums[-1]
    assert sums[0] < 0.1 * sums[-1] and sums[2] > 0.9 * sums[-1]  # full depth from level 3
    assert not np.all(np.diff(sums) > 0)  # the strict reading: level 6 is 0.25% below level 5
    assert np.abs(np.diff(sums[3:]) / sums[3:-1]).max() < 0.015
    assert sums.sum() / shock.PAPER_LEVEL_SUM - 1 == pytest.approx(0.74, abs=0.01)


def test_cwgt_is_symmetric_and_counts_leaf_faces(levels):
    for lv in levels[::4]:
        g = lv.data
        src = g.src
        fwd = {(int(a), int(b)): int(w) for a, b, w in zip(src, g.adjncy, g.cwgt)}
        assert all(fwd[(b, a)] == w for (a, b), w in fwd.items())
        split = (g.pwgt[src] >= 8) | (g.pwgt[g.adjncy] >= 8)
        assert np.all(g.cwgt[split] >= 4)  # a split tetrahedron splits its faces 1:4
        assert np.all((g.cwgt[split] - 1) % 3 == 0) and g.cwgt.max() <= 4 ** 3


def test_tree_weights_are_consistent(levels):
    for lv in levels:
        g = lv.data
        closed = (g.pwgt == 2) | (g.pwgt == 4)  # 1:2 and 1:4 closure: the root and its 2 or 4 children
        assert np.array_equal(g.rwgt[closed], g.pwgt[closed] + 1)
        tree = ~closed
        R = (g.rwgt[tree] - 1) // 8  # split nodes of the 1:8 tree
        assert np.all((g.rwgt[tree] - 1) % 8 == 0)
        assert np.array_equal(g.pwgt[tree], 1 + 7 * R)
        assert np.all(g.rwgt >= g.pwgt) and g.rwgt.sum() >= g.pwgt.sum()
        assert g.pwgt.max() <= 8 ** 3
    kinds = set(np.unique(levels[4].data.pwgt).tolist())
    assert {1, 2, 4, 8, 64, 512} <= kinds


def test_closure_makes_the_original_elements_conform(levels):
    for lv in levels[::3]:
        g = lv.data
        src, dst = g.src, g.adjncy
        split = g.pwgt >= 8
        # an unsplit element next to a split one has that face's edges bisected: 1:4 (or upgraded)
        assert np.all(g.pwgt[dst[split[src]]] >= 4)
        unsplit = ~split[src] & ~split[dst]
        assert set(np.unique(g.cwgt[unsplit]).tolist()) <= {1, 2, 4}  # 0, 1 or 3 bisected edges
        both_plain = (g.pwgt[src] == 1) & (g.pwgt[dst] == 1)
        assert np.all(g.cwgt[both_plain] == 1)


def test_closure_rules_on_small_meshes():
    none = np.zeros(0, int)
    # two tetrahedra sharing the face (1, 2, 3): splitting one closes the other 1:4
    tets = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    etet, face_edges, ne = shock._edge_context(tets, np.array([0]), np.array([1]))
    split, kind, marked = shock.closure(np.array([True, False]), etet, ne)
    assert split.tolist() == [True, False] and kind.tolist() == [0, 4] and marked[face_edges[0]].all()
    # a tetrahedron sharing only the edge (0, 1) with a split one is split 1:2
    etet, _, ne = shock._edge_context(np.array([[0, 1, 2, 3], [0, 1, 4, 5]]), none, none)
    split, kind, _ = shock.closure(np.array([True, False]), etet, ne)
    assert kind.tolist() == [0, 2]
    # two bisected opposite edges (0, 1) and (2, 3): upgraded to 1:8
    etet, _, ne = shock._edge_context(np.array([[0, 1, 2, 3], [0, 1, 6, 7], [2, 3, 8, 9]]), none, none)
    split, kind, _ = shock.closure(np.array([False, True, True]), etet, ne)
    assert split.tolist() == [True, True, True]
    # two bisected edges (0, 1) and (0, 2) on one face: 1:4, and the face's third edge (1, 2) is bisected,
    # which closes a fourth tetrahedron sharing only that edge 1:2
    tets = np.array([[0, 1, 2, 3], [0, 1, 6, 7], [0, 2, 8, 9], [1, 2, 10, 11]])
    etet, _, ne = shock._edge_context(tets, none, none)
    split, kind, _ = shock.closure(np.array([False, True, True, False]), etet, ne)
    assert kind.tolist() == [4, 0, 0, 2]


def test_coarsening_lowers_weights_behind_the_cylinder(levels, mesh):
    pts, tets = mesh
    P = pts[tets]
    cent = P.mean(axis=1)
    reach = np.sqrt(((P[:, :, :2] - cent[:, None, :2]) ** 2).sum(-1)).max(axis=1)
    R = shock.DEFAULTS["radius"]
    checked = 0
    for prev, cur in zip(levels[:-1], levels[1:]):
        x = cur.meta["cylinder_x"]
        outside = np.hypot(cent[:, 0] - x, cent[:, 1] - shock.AXIS_Y) > R + reach
        left_behind = outside & (cent[:, 0] < x) & (prev.data.pwgt >= 8)
        before, after = prev.data.pwgt[left_behind], cur.data.pwgt[left_behind]
        assert np.all(after <= before)
        # strictly lower unless 3D_TAG's closure upgrade keeps a 1:8 split beside refined neighbours
        assert np.all((after < before) | (after == 8))
        deep = before > 8  # a deeper tree: the field drops one level everywhere in it
        assert np.all(after[deep] < before[deep])
        checked += deep.sum()
    assert checked > 100
    # the wake (SBN §5.1: "coarsening previously-refined elements in its wake"): from level 2 on, every level
    # loses weight behind the cylinder's trailing edge, which is inside the domain from level 1 to level 9
    lost = [int(np.maximum(p.data.pwgt - c.data.pwgt, 0).sum()) for p, c in zip(levels[:-1], levels[1:])]
    assert all(x > 0.01 * levels[-1].data.pwgt.sum() for x in lost)
    assert all(x > 0.4 * levels[-1].data.pwgt.sum() for x in lost[2:])  # from level 4: the full-depth core moves on
    x1, x9 = levels[0].meta["cylinder_x"], levels[-1].meta["cylinder_x"]
    assert 0 < x1 - R and x9 + R < shock.BOX[0]


def test_deterministic_by_hash():
    a = shock.generate(seed=3, scale=0.05, levels=3)
    b = shock.generate(seed=3, scale=0.05, levels=3)
    c = shock.generate(seed=4, scale=0.05, levels=3)
    assert digest(a) == digest(b)
    assert digest(a) != digest(c)


def test_red_refinement_tables():
    # Bey's eight children have equal volume and fill the parent
    def vol(B):  # barycentric rows -> reference tetrahedron (0, e1, e2, e3)
        x = B[:, 1:]
        return abs(np.linalg.det(x[1:] - x[0])) / 6
    parent = vol(np.eye(4))
    for B in shock.tet_nodes(1):
        assert vol(B) == pytest.approx(parent / 8)
    assert shock.sample_weights(2).sum(axis=0) == pytest.approx(np.full(4, 16.0))
    FT = shock.face_tables(2)
    for a, b, c in [(0, 1, 2), (3, 1, 0), (2, 3, 1)]:
        owners = FT[a, b, c]
        assert len(set(owners.tolist())) == 16  # every sub-triangle has its own owner node


def test_uniform_refinement_gives_the_textbook_counts(mesh):
    pts, tets = shock.initial_mesh(0.02, 0)
    # a huge cylinder that stays over the domain: every element reaches full depth after 3 adaptations
    lv = shock.build_levels(pts, tets, [1.0] * 4, radius=5.0, max_depth=3)
    for t, d in ((0, 1), (1, 2), (3, 3)):
        g = lv[t].data
        assert np.all(g.pwgt == 8 ** d)
        assert np.all(g.rwgt == (8 ** (d + 1) - 1) // 7)
        assert np.all(g.cwgt == 4 ** d)


def test_initial_level_and_bad_parameters():
    lv = shock.generate(seed=0, scale=0.02, levels=2, initial=True)
    assert [x.index for x in lv] == [0, 1, 2]
    assert lv[0].data.pwgt.sum() == lv[0].data.n and np.all(lv[0].data.cwgt == 1)
    with pytest.raises(ValueError):
        shock.generate(scale=-1)


def test_scale_targets_a_million_elements():
    nx, ny, nz = shock.lattice_dims(1_000_000)
    assert abs(nx * ny * nz * shock.TETS_PER_CELL / 1_000_000 - 1) < 0.01


def canonical(tets):
    t = np.sort(np.asarray(tets, np.int64), axis=1)
    return t[np.lexsort(t.T[::-1])]


@pytest.mark.parametrize("scale,seed", [(0.3, 1), (1.0, 0), (1.0, 7)])
def test_fast_delaunay_gives_scipys_default_tetrahedra(scale, seed):
    from scipy.spatial import Delaunay

    pts, tets = shock.initial_mesh(scale, seed)
    assert np.array_equal(tets, canonical(Delaunay(pts).simplices))  # qhull's Q5 Q8 skip post-passes only


def test_fast_delaunay_falls_back_when_a_point_is_no_vertex(monkeypatch):
    from scipy.spatial import Delaunay

    used = []
    monkeypatch.setattr(shock, "spatial", SimpleNamespace(Delaunay=lambda p, qhull_options: used.append(
        qhull_options) or Delaunay(p, qhull_options=qhull_options)))
    pts = np.random.default_rng(3).uniform(size=(200, 3))
    shock.delaunay(pts)
    assert used == [shock.QHULL_FAST]
    pts = np.vstack([pts, pts[:1]])  # a duplicate: one of the two copies is no vertex
    tets = shock.delaunay(pts)
    assert used[1:] == [shock.QHULL_FAST, shock.QHULL_DEFAULT]
    assert np.array_equal(canonical(tets), canonical(Delaunay(pts).simplices))
