"""truss workload: the tree-LB paper's Table 1 counts within 2%, conforming bisection, FE node graph."""
import numpy as np
import pytest

from workloads import truss


@pytest.fixture(scope="module")
def levels():
    return truss.generate(seed=0)


def test_table1_counts_within_2_percent(levels):
    assert [lv.meta["refinement"] for lv in levels] == [0, 1, 2, 3, 4, 5]
    for lv, (nodes, elements) in zip(levels, truss.TABLE1):
        assert abs(lv.data.n / nodes - 1) < 0.02, (lv.index, lv.data.n, nodes)
        assert abs(lv.meta["elements"] / elements - 1) < 0.02, (lv.index, lv.meta["elements"], elements)


def test_meshes_are_conforming_with_the_truss_holes(levels):
    for lv in levels:
        tri = lv.meta["triangles"]
        e = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
        _, count = np.unique(e, axis=0, return_counts=True)
        assert count.max() == 2  # no edge is shared by three triangles: no hanging node splits an edge
        V, E, T = lv.data.n, count.size, len(tri)
        assert V - E + T == 1 - len(truss.holes())  # Euler: the domain keeps its 13 openings
        P = lv.data.coords[tri]
        area = 0.5 * np.abs(truss.cross2(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]))
        assert area.min() > 0


def test_node_graph_and_parents(levels):
    for prev, lv in zip(levels[:-1], levels[1:]):
        g = lv.data
        tri = lv.meta["triangles"]
        e = np.unique(np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1), axis=0)
        assert g.nedges == len(e)
        assert np.all(g.pwgt == 1) and np.all(g.cwgt == 1)
        old = prev.data.n
        assert np.array_equal(lv.parent[:old], np.arange(old))  # old nodes keep their place
        assert lv.parent[old:].max() < old
        assert np.allclose(g.coords[:old], prev.data.coords)


def test_refinement_follows_the_laplace_error():
    pts, tri = truss.calibrated_mesh(4000, seed=0)
    tri = truss.orient_longest(pts, tri)
    edges, E = truss.edges_of(tri)
    u = truss.laplace(pts, tri)
    assert u.min() >= -1e-9 and u.max() <= 1 + 1e-9  # maximum principle
    eta = truss.indicator(pts, tri, u, E, edges)
    top = np.argsort(-eta)[:40]
    # the largest errors sit at the re-entrant corners of the openings
    corners = np.vstack(truss.holes())
    cent = pts[tri[top]].mean(axis=1)
    d = np.min(np.linalg.norm(cent[:, None] - corners[None], axis=2), axis=1)
    assert np.median(d) < 0.25


def test_bisection_closure_is_conforming():
    pts, tri = truss.calibrated_mesh(2000, seed=1)
    tri = truss.orient_longest(pts, tri)
    edges, E = truss.edges_of(tri)
    m = truss.closure(E, np.array([0, 5, 17]), len(edges))
    assert m[E].any(axis=1).sum() >= 3 and np.all(~m[E].any(axis=1) | m[E[:, 0]])
    p2, t2, par = truss.bisect(pts, tri, E, edges, m)
    assert len(p2) == len(pts) + m.sum() and len(par) == m.sum()
    e2 = np.sort(np.concatenate([t2[:, [0, 1]], t2[:, [1, 2]], t2[:, [2, 0]]]), axis=1)
    assert np.unique(e2, axis=0, return_counts=True)[1].max() == 2
    a0 = 0.5 * np.abs(truss.cross2(pts[tri[:, 1]] - pts[tri[:, 0]], pts[tri[:, 2]] - pts[tri[:, 0]])).sum()
    a1 = 0.5 * np.abs(truss.cross2(p2[t2[:, 1]] - p2[t2[:, 0]], p2[t2[:, 2]] - p2[t2[:, 0]])).sum()
    assert a1 == pytest.approx(a0)


def test_deterministic_by_hash():
    import hashlib

    def digest(levels):
        h = hashlib.sha256()
        for lv in levels:
            for a in (lv.data.xadj, lv.data.adjncy, lv.data.coords, lv.meta["triangles"]):
                h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    assert digest(truss.generate(seed=2, refinements=1)) == digest(truss.generate(seed=2, refinements=1))
    with pytest.raises(ValueError):
        truss.generate(refinements=6)
