import numpy as np
import pytest

from harness import Boxes, Graph, LoadArray, Machine, State

PATH = dict(xadj=[0, 1, 3, 4], adjncy=[1, 0, 2, 1])  # 0-1-2


def test_valid_graph():
    g = Graph(**PATH, pwgt=[1, 2, 3], cwgt=[5, 5, 7, 7])
    assert g.n == 3 and g.nedges == 2
    assert list(g.rwgt) == [1, 2, 3]  # rwgt defaults to pwgt
    assert list(g.neighbours(1)) == [0, 2]


@pytest.mark.parametrize("kw, problem", [
    (dict(xadj=[0, 1, 2, 3], adjncy=[1, 2, 1]), "not symmetric"),
    (dict(**PATH, cwgt=[1, 2, 3, 4]), "cwgt is not symmetric"),
    (dict(xadj=[0, 1, 2], adjncy=[0, 0]), "self loop"),
    (dict(**PATH, pwgt=[1, -1, 1]), "pwgt has negative"),
    (dict(**PATH, pwgt=[1, 1]), "pwgt has length 2, expected 3"),
    (dict(**PATH, rwgt=[1, 1, 1, 1]), "rwgt has length 4"),
    (dict(xadj=[0, 1, 3, 4], adjncy=[1, 0, 5, 1]), "refers to vertex 5"),
    (dict(xadj=[1, 2], adjncy=[0]), "xadj must start at 0"),
    (dict(**PATH, coords=np.zeros((2, 3))), "coords must have shape"),
])
def test_graph_validation(kw, problem):
    with pytest.raises(ValueError, match=problem):
        Graph(**kw)


def test_state_validation():
    State([0, 1], [1, 1], P=2)
    with pytest.raises(ValueError, match="owner has processor 2 out of range for P = 2"):
        State([0, 2], [0, 0], P=2)
    with pytest.raises(ValueError, match="home has length 1, expected 2"):
        State([0, 1], [0], P=2)
    with pytest.raises(ValueError, match="negative"):
        State([0, -1], [0, 0], P=2)


def test_machine_presets_and_validation():
    m = Machine.parse("grid:4:10", 32)
    assert m.C == 4 and list(np.bincount(m.cluster)) == [8, 8, 8, 8]
    assert m.slowdown(0, 31) == 10 and m.slowdown(0, 7) == 1
    sp2 = Machine.parse("sp2", 8)
    assert sp2.latency == 40e-6 and sp2.bandwidth == 36e6
    assert list(np.bincount(Machine.grid(10, 3, 2).cluster)) == [4, 3, 3] or \
        sorted(np.bincount(Machine.grid(10, 3, 2).cluster)) == [3, 3, 4]
    for bad, msg in [("grid:x:1", "integer C"), ("cray", "unknown machine"), ("grid:9:2", "C must be in \\[1, P = 8\\]"), ("grid:2:1e308", "I in \\[1, 1e\\+06\\]")]:
        with pytest.raises(ValueError, match=msg):
            Machine.parse(bad, 8)
    with pytest.raises(ValueError, match="slowdowns"):
        Machine(4, proc=[0.5])
    with pytest.raises(ValueError, match="P must be a positive integer"):
        Machine(0)


def test_boxes_and_arrays():
    b = Boxes(level=[0, 1], lo=[[0, 0], [2, 2]], hi=[[3, 3], [5, 5]], parent=[-1, 0])
    assert list(b.cells) == [16, 16] and list(b.work) == [16, 32]
    with pytest.raises(ValueError, match="need a parent"):
        Boxes(level=[0, 1], lo=[[0], [0]], hi=[[1], [1]], parent=[-1, -1])
    with pytest.raises(ValueError, match="hi < lo"):
        Boxes(level=[0], lo=[[3]], hi=[[1]], parent=[-1])
    assert LoadArray(np.ones((2, 3), int)).n == 6
    with pytest.raises(ValueError, match="negative"):
        LoadArray([1, -2])
