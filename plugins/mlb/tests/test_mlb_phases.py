"""MLB's arithmetic (paper §3, §5): Gray numbering, Phases 1-2, the Phase 4 rounding, e-cube routing."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lbbench_mlb.hypercube import Cube, gray, gray_inverse, log2_exact
from lbbench_mlb.ndim import is_boxes, nd_destinations, one_box_each, parse_mesh, through_cuts
from lbbench_mlb.phases import accumulate, constant_flows, desired, destinations, route


def test_gray_table_of_section_3():
    assert [format(int(g), "02b") for g in gray(np.arange(4))] == ["00", "01", "11", "10"]
    r = np.arange(1 << 12)
    assert np.array_equal(gray_inverse(gray(r)), r)


@pytest.mark.parametrize("d", range(1, 8))
def test_hypercube_edges(d):
    c = Cube((1 << d,))
    r = np.arange(c.P)
    # consecutive ranks are neighbours; the (d-1)-edge mirrors r -> p-1-r; the k-edge stays in an aligned 2^(k+1) block
    diff = c.addr[:-1] ^ c.addr[1:]
    assert np.all(diff & (diff - 1) == 0)
    assert np.array_equal(c.partner(r, d - 1), c.P - 1 - r)
    for k in range(d):
        q = c.partner(r, k)
        assert np.array_equal(q >> (k + 1), r >> (k + 1)) and np.array_equal(c.partner(q, k), r)
        base = (r >> (k + 1)) << (k + 1)
        assert np.array_equal(q - base, (1 << (k + 1)) - 1 - (r - base))


def test_not_a_power_of_two():
    with pytest.raises(ValueError, match=r"mlb: P = 12 is not a power of two \(MLB §3\)"):
        log2_exact(12)


def test_phase1_tree():
    a = np.arange(8)
    A = accumulate(a, 3)
    assert [x.tolist() for x in A] == [[28], [6, 22], [1, 5, 9, 13], list(range(8))]


@settings(max_examples=200, deadline=None)
@given(T=st.integers(0, 10 ** 9), d=st.integers(0, 12), rem=st.sampled_from(["left", "right"]))
def test_desired_loads(T, d, rem):
    """M4: D_r in {floor(T/P), ceil(T/P)}, sums to T; spread <= 1 <= log2 P (the paper's bound)."""
    D = desired(T, d, rem)
    P = 1 << d
    assert D.sum() == T and D.size == P
    assert set(np.unique(D).tolist()) <= {T // P, -(-T // P)}
    assert D.max() - D.min() <= max(1, d) and D.max() - D.min() <= 1


def test_remainder_goes_to_the_lower_ranks():
    assert desired(7, 2).tolist() == [2, 2, 2, 1]
    assert desired(7, 2, "right").tolist() == [1, 2, 2, 2]


@settings(max_examples=300, deadline=None)
@given(loads=st.lists(st.integers(0, 50), min_size=1, max_size=80), d=st.integers(0, 5),
       rounding=st.sampled_from(["midpoint", "up"]))
def test_rounding_contiguous_and_bounded(loads, d, rounding):
    """M8 and the rounding bound: rank-ordered intervals, max |L - D| <= max element."""
    a = np.array(loads)
    D = desired(a.sum(), d)
    dest = destinations(a, D, rounding)
    assert np.all(np.diff(dest) >= 0) and dest.min() >= 0 and dest.max() < (1 << d)
    L = np.bincount(dest, a, 1 << d)
    assert np.abs(L - D).max() <= a.max()


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 300), d=st.integers(0, 6))
def test_unit_loads_are_exact(n, d):
    """M6: with a constant load function of ones the final loads equal D exactly."""
    a = np.ones(n, np.int64)
    D = desired(n, d)
    assert np.array_equal(np.bincount(destinations(a, D), a, 1 << d), D)


def test_batched_rows_equal_single_rows():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 9, (5, 40))
    D = desired(a.sum(axis=1), 3)
    both = destinations(a, D)
    for i in range(5):
        assert np.array_equal(both[i], destinations(a[i], D[i]))


def test_example_of_section_1_5():
    """p = 4, all 8 unit loads on rank 0: step 1 {0->3: 4}, step 2 {0->1: 2, 3->2: 2}; ends at 2, 2, 2, 2."""
    c = Cube((4,))
    D = desired(8, 2)
    sent, held = route(c, *constant_flows([8, 0, 0, 0], D))
    assert sent.tolist() == [[4, 0, 0, 0], [2, 0, 0, 2]]
    assert [int(c.partner(0, 1)), int(c.partner(0, 0)), int(c.partner(3, 0))] == [3, 1, 2]
    assert held[-1].tolist() == [2, 2, 2, 2]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), d=st.integers(1, 5))
def test_routing_one_partner_per_step_and_no_send_back(data, d):
    """M1/M7/M9: step s crosses edge d-1-s only; what arrives over an edge is never sent back over it."""
    c = Cube((1 << d,))
    a = np.array(data.draw(st.lists(st.integers(0, 30), min_size=c.P, max_size=c.P)))
    src, dst, w = constant_flows(a, desired(a.sum(), d))
    for s in range(d):
        k = d - 1 - s
        loc = c.route_location(src, dst, s)
        nxt = c.route_location(src, dst, s + 1)
        moved = loc != nxt
        assert np.array_equal(nxt[moved], c.partner(loc[moved], k))
        # an amount that arrived over edge k does not cross edge k again later
        later = c.route_location(src, dst, d)
        assert np.all((c.addr[nxt] ^ c.addr[later]) >> k == 0)
    assert np.array_equal(c.route_location(src, dst, d), dst)


def test_mesh_auto():
    assert parse_mesh("auto", 32, 2) == (8, 4)
    assert parse_mesh("auto", 8, 3) == (2, 2, 2)
    assert parse_mesh("auto", 1, 2) == (1, 1)
    assert parse_mesh("4x8", 32, 2) == (4, 8)
    for bad in ("4x4", "3x8", "4x8x1", "ax8"):
        with pytest.raises(ValueError, match="mlb: "):
            parse_mesh(bad, 32, 2)


@pytest.mark.parametrize("shape,mesh", [((16, 12), (4, 2)), ((9, 7, 10), (2, 2, 2)), ((33, 20), (8, 4))])
def test_nd_boxes_through_cuts(shape, mesh):
    """M11/M12: one box per processor, axis-0 cuts straight through; unit loads balanced per strip."""
    rng = np.random.default_rng(sum(shape))
    load = rng.integers(0, 9, shape)
    owner, D, biggest, cuts0 = nd_destinations(load, mesh)
    P = int(np.prod(mesh))
    assert is_boxes(owner, P, mesh[0]) and through_cuts(owner, P, mesh[0])
    L = np.bincount(owner.ravel(), load.ravel(), P)
    assert D.sum() == load.sum() and np.abs(L - D).max() <= biggest
    assert np.all(np.diff(cuts0) >= 0) and cuts0[-1] == shape[0]


def test_box_checks_reject():
    owner = np.array([[0, 1], [1, 0]])
    assert not one_box_each(owner, 2) and not through_cuts(owner, 2, 2)
    assert not is_boxes(np.array([[0, 0], [1, 0]]), 2, 2)
    assert one_box_each(np.array([0, 0, 2, 2, 1]), 3) and not one_box_each(np.array([0, 1, 0]), 2)
