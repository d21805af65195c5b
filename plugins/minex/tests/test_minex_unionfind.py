"""MinEX §3.4-3.5 data structures: the Union/Find of Fig. 2 against brute force, the Stack, VMap, EList, Heap."""
import random

import numpy as np
import pytest

from harness import Graph
from lbbench_minex.heap import GainHeap
from lbbench_minex.mesh import Mesh


def random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    keep = u != v
    pairs = {(min(a, b), max(a, b)) for a, b in zip(u[keep], v[keep])}
    a, b = np.array(sorted(pairs)).T
    w = rng.integers(1, 9, a.size)
    return Graph.from_edges(n, a, b, w, pwgt=rng.integers(1, 5, n), rwgt=rng.integers(5, 9, n))


def brute_root(mesh, u):
    """Follow the merge chain only, ignoring lookup: the reference Find."""
    while mesh.merge[u] != -1:
        u = mesh.merge[u]
    return u


def brute_adjacency(g, mesh):
    """Cwgt between active vertices from the original edges and brute-force roots."""
    roots = [brute_root(mesh, u) for u in range(g.n)]
    out = {}
    for v in range(g.n):
        for e in range(g.xadj[v], g.xadj[v + 1]):
            a, b = roots[v], roots[int(g.adjncy[e])]
            if a != b:
                out[(a, b)] = out.get((a, b), 0) + int(g.cwgt[e])
    return out


def elist_adjacency(mesh):
    out = {}
    for a in mesh.vmap:
        for x, c in zip(mesh.nbr[a], mesh.cw[a]):
            b = mesh.find(x)
            assert b != a, "an active vertex's EList resolves to itself"
            out[(a, b)] = out.get((a, b), 0) + c
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_find_matches_brute_force_through_contraction_and_expansion(seed):
    g = random_graph(60, 150, seed)
    owner = np.zeros(g.n, np.int64)
    mesh = Mesh(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, owner, owner)
    rnd = random.Random(seed)
    snapshots = []
    while mesh.nactive > 3:
        a = rnd.choice(mesh.vmap)
        nbrs = sorted({mesh.find(x) for x in mesh.nbr[a]})
        if not nbrs:
            continue
        b = rnd.choice(nbrs)
        # query some Finds in between, so that lookups get cached and later go stale
        for u in rnd.sample(range(g.n), 10):
            assert mesh.find(u) == brute_root(mesh, u)
        snapshots.append((list(mesh.vmap), mesh.nedges))
        M = mesh.merge_pair(a, b)
        assert M == mesh.vtot - 1 and mesh.stack[-1] == (a, b)
        assert mesh.pwgt[M] == mesh.pwgt[a] + mesh.pwgt[b]
        assert sorted(mesh.vmap) == sorted(set(snapshots[-1][0]) - {a, b} | {M})
        assert all(mesh.vmap[mesh.vpos[x]] == x for x in mesh.vmap)
        assert [mesh.find(u) for u in range(g.n)] == [brute_root(mesh, u) for u in range(g.n)]
        assert elist_adjacency(mesh) == brute_adjacency(g, mesh)
    # expansion in reverse Stack order restores every earlier VMap and |E|
    mesh2 = mesh
    first = True
    while mesh2.stack:
        vm, ne = snapshots.pop()
        v, w, M = mesh2.split_top()
        for u in rnd.sample(range(g.n), 10):
            assert mesh2.find(u) == brute_root(mesh2, u)
        assert sorted(mesh2.vmap) == sorted(vm) and mesh2.nedges == ne
        assert [mesh2.find(u) for u in range(g.n)] == [brute_root(mesh2, u) for u in range(g.n)]
        assert elist_adjacency(mesh2) == brute_adjacency(g, mesh2)
        if first:  # MinEX contracts before it expands: a merge after a split would reuse a stale id
            with pytest.raises(RuntimeError):
                mesh2.merge_pair(*mesh2.vmap[:2])
            first = False
    assert mesh2.vtot == g.n and all(m == -1 for m in mesh2.merge)


def test_fig2_recursive_find_agrees():
    """The iterative Find equals Fig. 2's recursive pseudo-code, lookups included."""
    g = random_graph(40, 100, 7)
    owner = np.zeros(g.n, np.int64)
    a = Mesh(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, owner, owner)
    rnd = random.Random(3)
    for _ in range(30):
        x = rnd.choice(a.vmap)
        nb = sorted({a.find(y) for y in a.nbr[x]})
        if nb:
            a.merge_pair(x, rnd.choice(nb))
    for _ in range(12):
        a.split_top()

    def fig2(mesh, v):
        if mesh.merge[v] == -1:
            return v
        if mesh.lookup[v] != -1 and mesh.lookup[v] < mesh.vtot:
            mesh.lookup[v] = fig2(mesh, mesh.lookup[v])
        else:
            mesh.lookup[v] = fig2(mesh, mesh.merge[v])
        return mesh.lookup[v]

    import copy
    b = copy.deepcopy(a)
    for u in range(g.n):
        assert a.find(u) == fig2(b, u) == brute_root(a, u)
    assert a.lookup == b.lookup


def test_heap_order_pointers_and_removal():
    rnd = random.Random(5)
    h = GainHeap()
    ref = {}
    for step in range(2000):
        op = rnd.random()
        v = rnd.randrange(200)
        if op < 0.5:
            g = rnd.choice([rnd.uniform(-5, 5), 0.0, 1.0])
            h.put(v, g, ("rec", v))
            ref[v] = g
        elif op < 0.75:
            h.remove(v)
            ref.pop(v, None)
        elif ref:
            g, u, rec = h.pop()
            want = min(ref.items(), key=lambda kv: (kv[1], kv[0]))
            assert (u, g) == want and rec == ("rec", u)
            del ref[u]
        assert len(h) == len(ref)
        assert all(h.vert[i] == v for v, i in h.pos.items())
        if ref:
            assert h.top_gain() == min(ref.values())
