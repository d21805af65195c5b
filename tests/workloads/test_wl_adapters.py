"""harness.contract.forms (through harness.as_form): every workload form to every form an algorithm accepts."""
import numpy as np
import pytest

from harness import Boxes, Graph, LoadArray
from harness import as_form, boxes_to_graph, cell_vertices, hilbert_index, hilbert_order
from harness.contract.pieces import face_pairs


def grid_graph(nx=6, ny=5):
    a = LoadArray(np.arange(nx * ny).reshape(nx, ny) + 1)
    return a, as_form(a, "graph")


def test_identity_for_the_same_form():
    a, g = grid_graph()
    assert as_form(g, "graph") is g
    assert as_form(a, "array") is a
    b = Boxes([0], [[0, 0]], [[3, 3]], [-1])
    assert as_form(b, "boxes") is b


def test_array_to_graph_is_the_grid_graph():
    a, g = grid_graph(6, 5)
    assert g.n == 30 and g.nedges == 5 * 5 + 6 * 4
    assert np.array_equal(g.pwgt, a.load.ravel()) and np.array_equal(g.rwgt, a.load.ravel())
    assert np.array_equal(g.coords[7], [1, 2])
    g3 = as_form(LoadArray(np.ones((3, 3, 3), np.int64)), "graph")
    assert g3.nedges == 3 * 3 * 2 * 3 and np.bincount(np.diff(g3.xadj)).tolist() == [0, 0, 0, 8, 12, 6, 1]


@pytest.mark.parametrize("d,bits", [(2, 5), (3, 3)])
def test_hilbert_curve_visits_grid_neighbours_in_turn(d, bits):
    q = np.stack(np.meshgrid(*[np.arange(2 ** bits)] * d, indexing="ij"), -1).reshape(-1, d)
    h = hilbert_index(q, bits)
    assert np.array_equal(np.sort(h), np.arange(q.shape[0]))
    step = np.abs(np.diff(q[np.argsort(h)], axis=0)).sum(axis=1)
    assert np.all(step == 1)


def test_graph_to_array_follows_the_hilbert_order():
    a, g = grid_graph(8, 8)
    arr = as_form(g, "array")
    order = cell_vertices(g, "array")
    assert np.array_equal(arr.load, g.pwgt[order])
    assert np.array_equal(order, hilbert_order(g.coords))
    assert sorted(order.tolist()) == list(range(g.n))
    parts_cells = np.arange(g.n) * 4 // g.n  # 4 contiguous pieces of the curve
    parts = np.empty(g.n, np.int64)
    parts[order] = parts_cells
    # the four pieces of a Hilbert curve on an 8x8 grid are its four 4x4 quadrants
    ids = np.arange(64).reshape(8, 8)
    quads = [ids[:4, :4], ids[:4, 4:], ids[4:, :4], ids[4:, 4:]]
    assert sorted(len(set(parts[q.ravel()].tolist())) for q in quads) == [1, 1, 1, 1]
    assert len({int(parts[q[0, 0]]) for q in quads}) == 4


def test_boxes_to_graph_weights_shared_faces():
    # two base boxes side by side, two fine boxes: box 3 straddles both coarse boxes
    b = Boxes(level=[0, 0, 1, 1], lo=[[0, 0], [4, 0], [2, 2], [6, 2]], hi=[[3, 7], [7, 7], [5, 5], [9, 5]],
              parent=[-1, -1, 0, 1])
    g = as_form(b, "graph")
    w = {(int(u), int(v)): int(c) for u, v, c in zip(g.src, g.adjncy, g.cwgt)}
    assert w[(0, 1)] == 8  # 8 shared cell faces on level 0
    assert w[(2, 3)] == 4  # fine boxes touch along 4 faces
    assert w[(0, 2)] == 16  # all 16 boundary faces of box 2 lie over box 0
    assert w[(0, 3)] == 8 and w[(1, 3)] == 8  # box 3's 16 faces split between the coarse boxes
    assert np.array_equal(g.pwgt, b.work) and np.array_equal(g.rwgt, b.cells)
    assert np.allclose(g.coords[2], [2.0, 2.0])


def test_face_pairs_match_brute_force():
    """The face-slab join boxes_to_graph and the AMR metrics use."""
    rng = np.random.default_rng(1)
    # disjoint boxes: a random split of a 3-D grid into blocks
    lo, hi = [], []
    for x in range(0, 24, 4):
        for y in range(0, 24, 3):
            z = 0
            while z < 24:
                dz = int(rng.integers(1, 6))
                lo.append([x, y, z])
                hi.append([x + 3, y + 2, min(z + dz, 24) - 1])
                z += dz
    lo, hi = np.array(lo), np.array(hi)
    i, j, w = face_pairs(lo, hi)
    got = {(int(min(a, b)), int(max(a, b))): int(c) for a, b, c in zip(i, j, w)}
    assert len(got) == i.size  # each pair once
    want = {}
    for a in range(len(lo)):
        for c in range(len(lo)):
            for k in range(3):
                if hi[a, k] + 1 == lo[c, k]:
                    o = [x for x in range(3) if x != k]
                    ov = np.minimum(hi[a, o], hi[c, o]) - np.maximum(lo[a, o], lo[c, o]) + 1
                    if np.all(ov > 0):
                        want[(min(a, c), max(a, c))] = int(np.prod(ov))
    assert got == want


def test_impossible_conversions_raise():
    g = Graph.from_edges(3, [0, 1], [1, 2])
    with pytest.raises(ValueError, match="coordinates"):
        as_form(g, "array")
    with pytest.raises(ValueError, match="boxes"):
        as_form(g, "boxes")
    with pytest.raises(ValueError, match="boxes"):
        as_form(LoadArray(np.ones(4, np.int64)), "boxes")
    with pytest.raises(ValueError, match="unknown form"):
        as_form(g, "mesh")
    with pytest.raises(ValueError, match="not a workload level"):
        as_form([1, 2], "graph")


def test_boxes_to_array_goes_through_the_graph():
    b = Boxes(level=[0, 1], lo=[[0, 0, 0], [2, 2, 2]], hi=[[3, 3, 3], [5, 5, 5]], parent=[-1, 0])
    arr = as_form(b, "array")
    assert arr.n == 2 and sorted(arr.load.tolist()) == sorted(b.work.tolist())
    assert boxes_to_graph(b).nedges == 1


def test_a_box_levels_cells_follow_its_graphs_coordinates():
    rng = np.random.default_rng(3)
    lo = rng.integers(0, 40, (30, 2))
    b = Boxes(level=np.repeat([0, 1], 15), lo=lo, hi=lo + rng.integers(0, 4, (30, 2)), parent=[-1] * 15 + [0] * 15)
    order = cell_vertices(b, "array")
    assert np.array_equal(order, hilbert_order(boxes_to_graph(b).coords))  # without building the graph
    arr = as_form(b, "array")
    assert np.array_equal(arr.load, b.work[order])
    assert np.array_equal(cell_vertices(b, "graph"), np.arange(b.n))
    with pytest.raises(ValueError, match="boxes"):
        cell_vertices(LoadArray(np.ones(4, np.int64)), "boxes")
