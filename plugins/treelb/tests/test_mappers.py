import numpy as np
import pytest

from lbbench_treelb.mappers import min_cut, orb


def _cut(g, p):
    return int((p[g.src] != p[g.adjncy]).sum() // 2)


@pytest.mark.parametrize("P", [1, 3, 7, 16])
def test_orb_balances_within_one(P, make_grid):
    g = make_grid(40, 25)
    p = orb(g, P)
    load = np.bincount(p, minlength=P)
    assert load.sum() == g.n and load.max() - load.min() <= 1  # Fig. 2a: 8 or 9 nodes each


def test_min_cut_improves_orb_and_keeps_balance(make_grid):
    g = make_grid(40, 25)
    # a skewed point cloud makes ORB cuts ragged
    rng = np.random.default_rng(0)
    from harness import Graph
    g = Graph(g.xadj, g.adjncy, coords=g.coords + rng.normal(0, 0.8, g.coords.shape))
    for P, window in ((2, 64), (7, 64), (7, 0)):
        a, b = orb(g, P), min_cut(g, P, window=window)
        assert _cut(g, b) < _cut(g, a)
        la, lb = np.bincount(a, minlength=P), np.bincount(b, minlength=P)
        assert np.abs(lb - la).max() <= 3  # each bisection within one node of its target


def test_mappers_need_coordinates():
    from harness import Graph
    g = Graph.from_edges(3, [0, 1], [1, 2])
    with pytest.raises(ValueError, match="coordinates"):
        orb(g, 2)
