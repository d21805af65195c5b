"""MLB's arithmetic (paper §3, §5): Gray numbering, Phases 1-2, the Phase 4 rounding, e-cube routing.

``constant_flows`` + ``route`` below are the central test oracle of Phase 3 (the
constant-load schedule as e-cube routing of unit positions); the
plugin computes the same amounts on the vprocs (``execute.phase3``) and the
tests compare them.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lbbench_mlb.hypercube import Cube, gray, gray_inverse, log2_exact
from lbbench_mlb.ndim import is_boxes, nd_destinations, one_box_each, parse_mesh, through_cuts
from harness import Engine

from lbbench_mlb.execute import run
from lbbench_mlb.phases import accumulate, bounds, bounds_from, desired, destinations, take


def constant_flows(a, D):
    """Oracle: Phase 3's pieces: (source rank, destination rank, amount) of the constant-load schedule."""
    a, D = np.asarray(a, np.int64), np.asarray(D, np.int64)
    Pp = np.concatenate([[0], np.cumsum(a)])
    Qp = np.concatenate([[0], np.cumsum(D)])
    b = np.unique(np.concatenate([Pp, Qp]))
    start, w = b[:-1], np.diff(b)
    src = np.searchsorted(Pp, start, side="right") - 1
    dst = np.minimum(np.searchsorted(Qp, start, side="right") - 1, D.size - 1)
    return src, dst, w


def route(cube: Cube, src, dst, w):
    """Oracle: E-cube routing of amounts ``w`` from ``src`` to ``dst`` (coarsest edge first).

    Returns ``sent`` (d, P): what each processor sends in step s, across its
    (d-1-s)-edge, and ``held`` (d+1, P): what it holds before step 0 and after each step.
    """
    src, dst, w = (np.asarray(x, np.int64) for x in (src, dst, w))
    d, P = cube.d, cube.P
    sent = np.zeros((d, P), np.int64)
    held = np.zeros((d + 1, P), np.int64)
    held[0] = np.bincount(src, w, P)
    for s in range(d):
        k = d - 1 - s
        loc = cube.route_location(src, dst, s)
        mv = ((cube.addr[loc] ^ cube.addr[dst]) >> k) & 1 == 1
        sent[s] = np.bincount(loc[mv], w[mv], P)
        held[s + 1] = held[s] - sent[s] + sent[s][cube.partner(np.arange(P), k)]
    return sent, held


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


@settings(max_examples=200, deadline=None)
@given(T=st.integers(0, 10 ** 6), d=st.integers(0, 8), rem=st.sampled_from(["left", "right"]), data=st.data())
def test_phase2_on_one_processor(T, d, rem, data):
    """Phase 2 on the path to the root (O(d) per processor) gives desired()'s loads and cuts."""
    D = desired(T, d, rem)
    r = data.draw(st.integers(0, (1 << d) - 1))
    b, Dr = bounds(T, r, d, rem)
    assert Dr == D[r]
    b2, Dr2 = bounds_from(D, r, d)
    assert np.array_equal(b, b2) and Dr2 == Dr


def test_take_closest_piece():
    assert take([3, 3, 3], 4, from_right=True) == 1 and take([3, 3, 3], 5, from_right=True) == 2
    assert take([3, 3, 3], 4, from_right=False) == 1 and take([3, 3, 3], 5, from_right=False) == 2
    assert take([2, 2], 1, from_right=False) == 0 and take([2, 2], 1, from_right=True) == 1  # half: higher rank
    assert take([3, 3, 3], 0, from_right=True) == 0 and take([0, 0, 2], 2, from_right=True) == 1
    assert take([4, 4], 1, from_right=False, rounding="up") == 1 and take([4, 4], 3, from_right=True, rounding="up") == 0


def _contiguous_case(data, d, n):
    P = 1 << d
    load = np.array(data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    cuts = np.sort(np.array(data.draw(st.lists(st.integers(0, n), min_size=P - 1, max_size=P - 1)), np.int64))
    home = np.searchsorted(cuts, np.arange(n), side="right")
    return load, home


@settings(max_examples=150, deadline=None)
@given(data=st.data(), d=st.integers(0, 5), n=st.integers(1, 90), rounding=st.sampled_from(["midpoint", "up"]),
       remainder=st.sampled_from(["left", "right"]))
def test_vprocs_reach_the_oracle(data, d, n, rounding, remainder):
    """From a rank-ordered start: Phase 3's amounts, computed on the vprocs, are the oracle's constant-load
    schedule, and Phase 4's loan procedure puts every element where the rounding rule does."""
    load, home = _contiguous_case(data, d, n)
    P = 1 << d
    cube = Cube((P,))
    D = desired(load.sum(), d, remainder)
    pred = destinations(load, D, rounding)
    out, steps = run(Engine(P, comm=None), cube, load, load, home, lambda T, p: bounds(T, p, d, remainder),
                     np.arange(n), pred, rounding)
    assert out.loan_procedure
    sent, _ = route(cube, *constant_flows(np.bincount(home, load, P), D))
    assert np.array_equal(out.scheduled, sent)
    assert np.array_equal(out.dest, pred)
    assert np.array_equal(out.loans[-1], out.L - out.D)


def test_illustration_all_load_on_rank_0():
    """p = 4, 8 unit loads on rank 0 (a hand-worked pass-through case, not the paper's missing figure):
    step 1 {0->3: 4}, step 2 {0->1: 2, 3->2: 2}, by the oracle and on the vprocs."""
    c = Cube((4,))
    sent, held = route(c, *constant_flows([8, 0, 0, 0], desired(8, 2)))
    assert sent.tolist() == [[4, 0, 0, 0], [2, 0, 0, 2]] and held[-1].tolist() == [2, 2, 2, 2]
    load = np.ones(8, np.int64)
    out, _ = run(Engine(4, comm=None), c, load, load, np.zeros(8, np.int64), lambda T, p: bounds(T, p, 2),
                 np.arange(8), destinations(load, desired(8, 2)))
    assert out.scheduled.tolist() == sent.tolist() and out.sent.tolist() == sent.tolist()
    assert out.loans.min() == 0 == out.loans.max()
