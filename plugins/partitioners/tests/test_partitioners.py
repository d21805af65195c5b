"""kahip, mtkahypar, rcb, rib, hsfc: real libraries, deterministic under a seed, identical on every rank."""
import numpy as np
import pytest

from harness import Graph, curve_parts, hilbert_order, recursive_bisection
from lbbench_partitioners import libraries

NAMES = ("kahip", "mtkahypar", "rcb", "rib", "hsfc")


def grid(n=24, stretch=1.0):
    idx = np.arange(n * n).reshape(n, n)
    u = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    v = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    xy = np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="ij"), -1).reshape(-1, 2).astype(float)
    return Graph.from_edges(n * n, u, v, coords=xy * [stretch, 1.0])


def cut(g, parts):
    return int((parts[g.src] != parts[g.adjncy]).sum() // 2)


@pytest.mark.parametrize("preset", list(libraries.KAHIP_PRESETS))
def test_kaffpa_balanced_and_repeatable(preset):
    g = grid()
    a, b = (libraries.kaffpa(g, 8, seed=3, preset=preset, imbalance=0.03) for _ in range(2))
    assert np.array_equal(a, b)
    assert np.bincount(a, minlength=8).max() <= 1.03 * g.n / 8 + 1
    assert cut(g, a) <= 1.5 * 7 * 24  # a 24 x 24 grid in 8 parts: strips cut 7 * 24 edges, blocks less


@pytest.mark.parametrize("preset", list(libraries.MTK_PRESETS))
def test_mtkahypar_repeatable_with_fixed_vertices(preset):
    g = grid()
    fixed = np.full(g.n, -1)
    fixed[:5] = 7
    a, b = (libraries.mtkahypar(g, 8, seed=3, preset=preset, fixed=fixed) for _ in range(2))
    assert np.array_equal(a, b)
    assert (a[:5] == 7).all()
    assert np.bincount(a, minlength=8).max() <= 1.03 * g.n / 8 + 1


def test_rcb_cuts_the_longer_extent_and_rib_the_principal_axis():
    g = grid(16, stretch=4.0)  # four times wider in x: the first cut is perpendicular to x
    rcb = recursive_bisection(g, 2)
    assert set(rcb[g.coords[:, 0] < 30]) == {0} and set(rcb[g.coords[:, 0] > 31]) == {1}
    theta = np.pi / 6  # a rotated strip: RIB finds its long axis, RCB only the bounding box's
    rot = g.coords @ np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    gr = Graph(g.xadj, g.adjncy, coords=rot)
    rib = recursive_bisection(gr, 2, direction="inertial")
    assert np.array_equal(rib, rcb) or np.array_equal(rib, 1 - rcb)
    assert np.bincount(recursive_bisection(g, 5, direction="inertial")).tolist() == [51, 51, 51, 51, 52]


def test_rcb_lock_directions_keeps_each_cut_on_its_first_coordinate():
    """RCB_LOCK_DIRECTIONS: the first call chooses each cut's coordinate (the longer extent); a later call on a
    mesh now longer in y cuts along x again, where the unlocked RCB turns."""
    axes = {}
    wide, tall = grid(16, stretch=4.0), Graph(grid(16).xadj, grid(16).adjncy, coords=grid(16).coords * [1.0, 4.0])
    assert np.array_equal(recursive_bisection(wide, 2, axes=axes), recursive_bisection(wide, 2))
    assert axes == {"0:2": 0}
    locked, free = recursive_bisection(tall, 2, axes=axes), recursive_bisection(tall, 2)
    assert set(locked[tall.coords[:, 0] < 7.5]) == {0} and set(free[tall.coords[:, 1] < 30]) == {0}
    assert not np.array_equal(locked, free)


def test_hsfc_equal_weight_pieces_along_the_curve():
    g = grid(16)
    order = hilbert_order(g.coords)
    parts = curve_parts(order, np.ones(g.n), 4)
    assert np.bincount(parts).tolist() == [64] * 4
    assert (np.diff(parts[order]) >= 0).all()  # consecutive along the curve
    assert cut(g, parts) == 32  # the Hilbert curve's quarters of a square are its quadrants


@pytest.mark.mpi
@pytest.mark.parametrize("name", NAMES)
def test_conformance(conformance, name):
    conformance(name)
