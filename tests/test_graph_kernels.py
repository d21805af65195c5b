"""The C graph kernels (harness/kernels/_graph.c) against the numpy code they replace: the same values, bit for bit."""
import numpy as np
import pytest

from harness import Graph, LocationView, Machine, State, costs_if_on
from harness import Costs


def _graph(n=400, seed=1):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, 3 * n)
    v = rng.integers(0, n, 3 * n)
    keep = u != v
    key = np.unique(np.minimum(u, v)[keep] * n + np.maximum(u, v)[keep])
    return Graph.from_edges(n, key // n, key % n, w=rng.integers(1, 9, key.size), pwgt=rng.integers(1, 5, n),
                            rwgt=rng.integers(1, 20, n))


def _rows_numpy(g, verts):
    starts = g.xadj[verts]
    deg = g.xadj[verts + 1] - starts
    return g.adjncy[np.repeat(starts - np.cumsum(deg) + deg, deg) + np.arange(deg.sum())]


def _costs_numpy(g, home, m, verts, q):
    """costs_if_on as numpy computed it before the C kernel."""
    q = np.asarray(q, np.int64)
    if q.ndim:
        q = np.broadcast_to(q, verts.shape)
    starts = g.xadj[verts]
    deg = g.xadj[verts + 1] - starts
    row = np.repeat(np.arange(verts.size), deg)
    entries = np.arange(row.size) + np.repeat(starts - (np.cumsum(deg) - deg), deg)
    hw = home[g.adjncy[entries]]
    qe = q[row] if q.ndim else q
    per = np.where(hw != qe, g.cwgt[entries] * m.slowdown(qe, hw), 0.0)
    comm = np.bincount(row, weights=per, minlength=verts.size)
    h = home[verts]
    remap = np.where(h != q, g.rwgt[verts] * m.slowdown(h, q), 0.0)
    return Costs((g.pwgt[verts] * m.proc_of[q]).astype(float), comm, remap)


def test_rows_match_numpy():
    g = _graph()
    rng = np.random.default_rng(2)
    for size in (1, 5, 60, 399, 2000):  # 2000: repeats, and the marking path of distinct
        verts = rng.integers(0, g.n, size)
        nb = g.neighbours_of(verts)
        assert np.array_equal(nb, _rows_numpy(g, verts))
        assert np.array_equal(g.neighbours_of(verts, distinct=True), np.unique(nb))
        assert np.array_equal(g.neighbourhood(verts), np.unique(np.concatenate([verts, nb])))
    assert g.neighbours_of([]).size == 0 and g.neighbourhood(np.zeros(0, np.int64)).size == 0
    with pytest.raises(ValueError, match="out of range"):
        g.neighbours_of([0, g.n])


@pytest.mark.parametrize("machine", ["uniform", "grid:3:7.5"])
def test_costs_if_on_matches_numpy(machine):
    g, P = _graph(), 12
    m = Machine.parse(machine, P)
    rng = np.random.default_rng(3)
    owner = rng.integers(0, P, g.n)
    home = rng.integers(0, P, g.n)
    s = State(owner, home, P)
    view = LocationView(home, P)
    learned = rng.choice(g.n, 150, replace=False)
    view.learn(learned, rng.integers(0, P, learned.size))
    seen = home.copy()
    seen[learned] = view.home[learned]
    for verts in (rng.integers(0, g.n, 70), np.arange(g.n), np.zeros(0, np.int64)):
        for q in (5, rng.integers(0, P, verts.size)):
            for state, h in ((s, home), (view, seen)):
                got, want = costs_if_on(g, state, m, verts, q), _costs_numpy(g, h, m, verts, q)
                for f in ("wgt", "comm", "remap"):
                    assert np.array_equal(getattr(got, f), getattr(want, f)), f
    with pytest.raises(ValueError, match="out of range"):
        costs_if_on(g, s, m, [g.n], 0)
    with pytest.raises(ValueError, match="out of range"):
        costs_if_on(g, s, m, [0], P)


@pytest.mark.parametrize("machine", ["uniform", "grid:3:7.5"])
def test_vertex_costs_of_some_vertices_are_those_of_all(machine):
    """``vertex_costs`` of chosen vertices (costs_if_on's kernel, each on its owner) gives the floats of the numpy
    path over every vertex, bit for bit, whatever the homes."""
    from harness import vertex_costs

    g, P = _graph(), 12
    m = Machine.parse(machine, P)
    rng = np.random.default_rng(6)
    for moved in (0.0, 0.3, 1.0):
        owner = rng.integers(0, P, g.n)
        home = np.where(rng.random(g.n) < moved, rng.integers(0, P, g.n), owner)
        s = State(owner, home, P)
        full = vertex_costs(g, s, m)
        for verts in (rng.integers(0, g.n, 70), np.arange(g.n), np.zeros(0, np.int64), [3, 3, 1]):
            got = vertex_costs(g, s, m, verts)
            for f in ("wgt", "comm", "remap"):
                assert np.array_equal(getattr(got, f), getattr(full, f)[verts]), f


def test_location_view_against_a_dict():
    rng = np.random.default_rng(4)
    n, P = 300, 9
    home = rng.integers(0, P, n)
    view, ref = LocationView(home, P), {}
    for _ in range(200):
        ids = rng.choice(n, rng.integers(1, 12), replace=False)
        where = int(rng.integers(0, P)) if rng.random() < 0.5 else rng.integers(0, P, ids.size)
        view.learn(ids, where)
        ref.update(zip(ids.tolist(), np.broadcast_to(where, ids.shape).tolist()))
        probe = rng.integers(0, n, 40)
        want = np.array([ref.get(x, home[x]) for x in probe.tolist()])
        assert np.array_equal(view[probe], want)
        assert np.array_equal(view.holders(probe), np.unique(want))
    assert len(view) == len(ref) and np.all(np.diff(view.keys) > 0)
    view.learn(np.array([1, 7, 1]), np.array([2, 3, 4]))  # of a vertex listed twice, the later entry wins
    assert view[[1, 7]].tolist() == [4, 3]
    with pytest.raises(ValueError, match="out of range"):
        view[[n]]
    with pytest.raises(ValueError, match="inconsistent sizes"):  # one processor, or one per vertex
        view.learn(np.array([1, 2, 3]), np.array([0, 1]))
    assert type(LocationView.C_API).__name__ == "PyCapsule"  # the merge and the pricing for a plugin's C code


def test_breadth_first_is_the_deque_search():
    from collections import deque

    from harness import breadth_first

    rng = np.random.default_rng(4)
    for n in (0, 1, 7, 300):
        deg = rng.integers(0, 4, n)
        xadj = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
        adjncy = rng.integers(0, max(n, 1), int(deg.sum())).astype(np.int64)  # directed, repeats and loops
        roots = rng.integers(0, max(n, 1), min(n, 5)).astype(np.int64)
        seen, want = set(), []
        for r in roots.tolist():
            if r in seen:
                continue
            seen.add(r)
            q = deque([r])
            while q:
                v = q.popleft()
                want.append(v)
                for u in adjncy[xadj[v]:xadj[v + 1]].tolist():
                    if u not in seen:
                        seen.add(u)
                        q.append(u)
        assert breadth_first(xadj, adjncy, roots).tolist() == want
    with pytest.raises(ValueError, match="out of range"):
        breadth_first(np.array([0, 1]), np.array([3]), np.array([0]))
