"""SBN(d) topology (SBN paper §2): Definition 1, Lemmas 1-3, P not a power of two."""
import numpy as np
import pytest

from lbbench_sbn.topology import (Trees, dimension, lemma2_pred, lemma2_succ, lemma3_pred, lemma3_succ,
                                  lemma3_to_lemma2, network, tree)


@pytest.mark.parametrize("d", range(7))
def test_every_tree_reaches_each_node_once_at_height_d(d):
    P = 1 << d
    for x in range(P):
        t = tree(d, x)
        assert len(t) == d + 1  # stages 0..d: height d
        nodes = [n for stage in t for n, _ in stage]
        assert sorted(nodes) == list(range(P))
        assert [len(stage) for stage in t] == [1] + [1 << max(s - 1, 0) for s in range(1, d + 1)]


@pytest.mark.parametrize("d", range(7))
def test_definition1_degrees(d):
    """Stage-0 nodes have one successor, stages 1..d-1 two, stage d none."""
    net = network(d)
    P = 1 << d
    for s, succ in enumerate(net):
        assert sorted(succ) == list(range(P))
        assert all(len(v) == (1 if s == 0 else 2) for v in succ.values())


@pytest.mark.parametrize("d", range(7))
def test_lemma1_trees_are_xor_of_t0(d):
    t0 = tree(d, 0)
    for x in range(1 << d):
        tx = tree(d, x)
        want = [{(n ^ x, p ^ x if p >= 0 else -1) for n, p in st} for st in t0]
        assert [set(st) for st in tx] == want


@pytest.mark.parametrize("d", range(1, 7))
def test_lemma2_agrees_with_construction(d):
    t0 = tree(d, 0)
    for s, stage in enumerate(t0):
        for n, p in stage:
            if s:
                assert lemma2_pred(d, s, n) == p
            kids = sorted(m for m, q in (t0[s + 1] if s < d else []) if q == n)
            assert kids == sorted(lemma2_succ(d, s, n))


@pytest.mark.parametrize("d", range(1, 7))
def test_lemma3_is_the_same_tree_relabelled(d):
    P = 1 << d
    phi = lemma3_to_lemma2(d)
    assert sorted(phi.tolist()) == list(range(P))  # a bijection onto the nodes of T_0
    t0 = tree(d, 0)
    pred = {n: p for st in t0 for n, p in st}
    stage_of = {n: s for s, st in enumerate(t0) for n, _ in st}
    for h in range(1, P):
        s = int(np.floor(np.log2(h))) + 1  # array index h sits at stage floor(log2 h) + 1
        assert stage_of[int(phi[h])] == s
        assert pred[int(phi[h])] == int(phi[lemma3_pred(s, h)])
        assert all(lemma3_pred(s + 1, k) == h for k in lemma3_succ(d, s, h))


def test_sbn2_example_pattern():
    """§3.6: with SBN(2), P1 sends its balancing request to P3 (Fig. 1(a))."""
    assert tree(2, 1) == [[(1, -1)], [(3, 1)], [(0, 3), (2, 3)]]


@pytest.mark.parametrize("P", [1, 2, 3, 5, 6, 7, 12, 32, 33])
def test_trees_any_P(P):
    T = Trees(P)
    assert T.d == dimension(P)
    for x in range(P):
        assert T.pred[x, x] == -1
        seen = {x}
        frontier = [x]
        while frontier:
            nxt = [c for n in frontier for c in T.children(x, n)]
            assert all(T.pred[x, c] in frontier for c in nxt)
            seen.update(nxt)
            frontier = nxt
        assert seen == set(range(P))  # every present node exactly once
        assert T.stage[x].max() <= T.d
        assert T.subtree_size(x, x) == P
        kstart, kid, size, xor = T.csr(x)  # the same trees as arrays, for the C kernels
        for n in range(P):
            k = kid[kstart[n ^ xor]:kstart[(n ^ xor) + 1]]
            assert sorted((k ^ xor).tolist()) == list(T.children(x, n))
            assert [int(size[c]) for c in k] == [T.subtree_size(x, c ^ xor) for c in k]


@pytest.mark.parametrize("P", [8, 32])
def test_power_of_two_trees_by_lemma1_equal_the_built_ones(P):
    """For P = 2^d, Trees derives T_x from T_0 by Lemma 1 (XOR x); it matches T_x built from the network."""
    T = Trees(P)
    assert T.pow2
    for x in range(P):
        pred, depth, kids, sizes, _ = T._build(x)
        kstart, kid, size, xor = T.csr(x)  # what the C kernels read
        for n in range(P):
            assert T.children(x, n) == kids[n]
            t = n ^ xor
            assert sorted(kid[kstart[t]:kstart[t + 1]] ^ xor) == list(kids[n])
            assert sorted(size[kid[kstart[t]:kstart[t + 1]]]) == sorted(sizes[list(kids[n])])
            assert T.parent(x, n) == pred[n]
            assert T.depth(x, n) == depth[n]
            assert T.subtree_size(x, n) == sizes[n]


def _definition1(P: int, x: int) -> tuple:
    """T_x of P processors from Definition 1's network (:func:`tree`), each absent node's successors attached to
    its nearest present ancestor: (pred, depth, children, subtree sizes)."""
    parent_of, depth = {}, np.zeros(P, np.int64)
    for level in tree(dimension(P), x):
        for n, p in level:
            if p >= 0:
                q = p
                while q >= P:
                    q = parent_of[q]
                parent_of[n] = q
                if n < P:
                    depth[n] = depth[q] + 1
    pred = np.array([parent_of.get(n, -1) for n in range(P)], np.int64)
    kids = [tuple(n for n in range(P) if pred[n] == p) for p in range(P)]
    sizes = np.ones(P, np.int64)
    for n in np.argsort(-depth, kind="stable").tolist():
        if pred[n] >= 0:
            sizes[pred[n]] += sizes[n]
    return pred, depth, kids, sizes


@pytest.mark.parametrize("P", [*range(1, 18), 31, 33, 48, 64, 100, 129])
def test_trees_by_lemmas_equal_definition1(P):
    """Trees builds T_x arithmetically (Lemmas 1-2, arrays of 2^d); every root's tree equals the one of
    Definition 1's network, children in node order, and the arrays the C kernels read agree."""
    T = Trees(P)
    for x in range(P):
        pred, depth, kids, sizes, (kstart, kid) = T._build(x)
        want = _definition1(P, x)
        assert np.array_equal(pred, want[0]) and np.array_equal(depth, want[1])
        assert kids == want[2] and np.array_equal(sizes, want[3])
        assert kid.tolist() == [c for k in kids for c in k]
        assert np.diff(kstart).tolist() == [len(k) for k in kids]
