"""Symmetric broadcast networks (SBN paper §2).

``network(d)`` builds SBN(d) by the recursive construction of Definition 1:
(d + 1) stages of P = 2**d nodes; SBN(d) is two SBN(d - 1)s (nodes 0..P/2-1 and
P/2..P-1) moved to stages 1..d, plus a new stage 0 in which node i is joined to
node j = (i + P/2) mod P of stage 1, and node j of stage 1 is joined to the
stage-2 node that was the stage-0 successor of node i in its SBN(d - 1).

``tree(d, x)`` is the broadcast tree T_x: everything reachable from node x of
stage 0. Lemma 1 says T_x = T_0 XOR x; Lemma 2 gives predecessor and
successors in T_0 arithmetically; Lemma 3 gives the same tree shape in the
one-dimensional array (heap) numbering of a full binary tree.

Lemma 2 as printed reads ``Predecessor = (n - 2**(d-s)) OR 2**(d-s-1)``; that
exponent is negative at s = d and does not match the construction. The
construction gives ``(n - 2**(d-s)) OR 2**(d-s+1)`` for s >= 2 and 0 for
s = 1 (:func:`lemma2_pred`); the successors are as printed.

P not a power of two (the paper's future work, §6): we use SBN(ceil(log2 P))
and skip the absent nodes x >= P. In the tree T_x (x < P, so the root is
present) every absent node is removed and its successors are attached to its
nearest present ancestor (:class:`Trees`). Every present node is then reached
exactly once, and a message never waits on a node that does not exist.

``network`` and ``tree`` follow Definition 1 literally (dicts of nodes: about
36 MiB at P = 8,192, kept for the tests); :class:`Trees` builds the same trees
arithmetically from Lemmas 1 and 2 in arrays of 2**d (about 1.5 MiB at
P = 8,192, per rank: issue 52 item 3).
"""
from __future__ import annotations

import math
from functools import cached_property, lru_cache

import numpy as np


def dimension(P: int) -> int:
    """d = ceil(log2 P): the SBN that hosts P processors."""
    if P < 1:
        raise ValueError(f"P must be >= 1, got {P}")
    return int(math.ceil(math.log2(P))) if P > 1 else 0


@lru_cache(maxsize=None)
def network(d: int) -> tuple:
    """SBN(d) by Definition 1: a tuple over stages s = 0..d-1 of dicts node -> tuple of stage-(s+1) successors."""
    if d < 0:
        raise ValueError("d must be >= 0")
    if d == 0:
        return ()
    half = 1 << (d - 1)
    P = 2 * half
    sub = network(d - 1)
    stages = [dict() for _ in range(d)]
    for off in (0, half):  # the two copies, shifted one stage right
        for s, succ in enumerate(sub):
            for n, nxt in succ.items():
                stages[s + 1].setdefault(n + off, []).extend(m + off for m in nxt)
    for i in range(P):
        j = (i + half) % P
        stages[0][i] = [j]
        if d >= 2:  # j (stage 1) adopts the old stage-0 successor of i (stage 2)
            stages[1].setdefault(j, []).extend(m + (i // half) * half for m in sub[0][i % half])
    return tuple({n: tuple(sorted(v)) for n, v in st.items()} for st in stages)


def tree(d: int, x: int) -> list[list[tuple[int, int]]]:
    """T_x of SBN(d) as a list of stages, each a list of (node, predecessor) (root: predecessor -1)."""
    net = network(d)
    P = 1 << d
    if not 0 <= x < P:
        raise ValueError(f"root {x} outside SBN({d})")
    levels = [[(x, -1)]]
    for s in range(d):
        levels.append([(m, n) for n, _ in levels[-1] for m in net[s].get(n, ())])
    return levels


def lemma2_pred(d: int, s: int, n: int) -> int:
    """Predecessor of node n at stage s >= 1 of T_0 (Lemma 2, exponent corrected, see module doc)."""
    if s == 1:
        return 0
    return (n - (1 << (d - s))) | (1 << (d - s + 1))


def lemma2_succ(d: int, s: int, n: int) -> tuple[int, ...]:
    """Successors of node n at stage s of T_0 (Lemma 2)."""
    if s >= d:
        return ()
    step = 1 << (d - s - 1)
    return (n + step,) if s == 0 else (n + step, n - step)


def lemma3_pred(s: int, h: int) -> int:
    """Lemma 3 (array numbering): predecessor floor(h / 2) for s > 0."""
    return h // 2


def lemma3_succ(d: int, s: int, h: int) -> tuple[int, ...]:
    """Lemma 3: successor 1 of the root, 2h and 2h + 1 for 1 <= s < d."""
    if s >= d:
        return ()
    if s == 0:
        return (1,)
    return (2 * h, 2 * h + 1)


def lemma3_to_lemma2(d: int) -> np.ndarray:
    """The relabelling phi: array index h -> node of T_0, following successor 1 / successor 2 in both lemmas."""
    P = 1 << d
    phi = np.full(P, -1, np.int64)
    phi[0] = 0
    frontier = [(0, 0)]  # (h, stage)
    while frontier:
        nxt = []
        for h, s in frontier:
            for hc, nc in zip(lemma3_succ(d, s, h), lemma2_succ(d, s, int(phi[h]))):
                phi[hc] = nc
                nxt.append((hc, s + 1))
        frontier = nxt
    return phi


class Trees:
    """The broadcast trees of P processors (P any positive integer), built on demand.

    ``parent(x, n)``: n's predecessor in T_x (-1 at the root); ``children(x, n)``: its
    successors (in processor order); ``depth(x, n)``: its stage; ``subtree_size(x, n)``;
    ``csr(x)``: T_x's successor lists as arrays, for the C kernels.
    For P a power of two every tree is T_0 relabelled (Lemma 1: T_x = T_0 XOR x), so only
    T_0 is stored; otherwise a tree is built the first time its root is used, with the
    absent nodes of SBN(ceil log2 P) skipped (module doc). ``pred`` and ``stage`` give the
    full P x P tables (for tests and small P).
    """

    def __init__(self, P: int):
        self.P = P
        self.d = dimension(P)
        self.pow2 = P == 1 << self.d
        self._roots: dict = {}
        self._csr: dict = {}  # x -> csr(x), built once (GetDistribute reads it per message)
        self._t0 = self._build(0)

    def _build(self, x: int) -> tuple:
        """(pred, depth, children, subtree sizes, (kstart, kid): the children as arrays) of T_x.

        Arithmetic, in arrays of 2**d (no SBN(d) as dicts: about 0.5 MiB at P = 8,192, not 49 MiB): T_0 stage by
        stage by Lemma 2's successors, T_x = T_0 XOR x (Lemma 1), each absent node's successors attached to its
        nearest present ancestor (module doc). Equal to the trees of Definition 1 (:func:`tree`; a test)."""
        P, d = self.P, self.d
        full = np.full(1 << d, -1, np.int64)  # T_x's predecessors in SBN(d), absent nodes too
        stage = np.zeros(1 << d, np.int64)  # their stages
        front = np.zeros(1, np.int64)  # T_0's nodes at stage s
        for s in range(d):  # Lemma 2: successor n + 2^(d-1) of the root; n +- 2^(d-s-1) at stages 1..d-1
            step = 1 << (d - s - 1)
            nxt = front + step if s == 0 else np.concatenate((front + step, front - step))
            full[nxt], stage[nxt] = np.tile(front, nxt.size // front.size), s + 1
            front = nxt
        node = np.arange(1 << d, dtype=np.int64) ^ x  # Lemma 1: node m of T_x is node m ^ x of T_0
        full[node], stage[node] = np.where(full >= 0, full ^ x, -1), stage.copy()
        pred = full[:P].copy()  # nearest present ancestor
        up = np.flatnonzero(pred >= P)
        while up.size:
            pred[up] = full[pred[up]]
            up = up[pred[up] >= P]
        depth = np.zeros(P, np.int64)
        by_stage = np.argsort(stage[:P], kind="stable")
        bounds = np.searchsorted(stage[by_stage], np.arange(d + 2))
        for s in range(1, d + 1):  # present ancestors first: depth is the count of present ancestors
            n = by_stage[bounds[s]:bounds[s + 1]]
            depth[n] = depth[pred[n]] + 1
        sizes = np.ones(P, np.int64)
        for s in range(d, 0, -1):  # deepest stage first
            n = by_stage[bounds[s]:bounds[s + 1]]
            np.add.at(sizes, pred[n], sizes[n])
        others = np.flatnonzero(pred >= 0)  # every node but x, ascending: each node's children in node order
        kid = others[np.argsort(pred[others], kind="stable")]
        kstart = np.zeros(P + 1, np.int64)
        kstart[1:] = np.cumsum(np.bincount(pred[others], minlength=P))
        flat = kid.tolist()
        kids = [tuple(flat[a:b]) for a, b in zip(kstart[:-1].tolist(), kstart[1:].tolist())]
        return pred, depth, kids, sizes, (kstart, kid)

    def _tree(self, x: int) -> tuple:
        if self.pow2 or x == 0:
            return self._t0
        t = self._roots.get(x)
        if t is None:
            t = self._roots[x] = self._build(x)
        return t

    def children(self, x: int, n: int) -> tuple:
        if self.pow2:
            return tuple(sorted([c ^ x for c in self._t0[2][n ^ x]]))
        return self._tree(x)[2][n]

    def parent(self, x: int, n: int) -> int:
        if self.pow2:
            q = int(self._t0[0][n ^ x])
            return -1 if q < 0 else q ^ x
        return int(self._tree(x)[0][n])

    def depth(self, x: int, n: int) -> int:
        return int(self._t0[1][n ^ x]) if self.pow2 else int(self._tree(x)[1][n])

    def branch(self, x: int, n: int, below: np.ndarray) -> np.ndarray:
        """For nodes ``below`` n in T_x: the successor of n whose subtree holds each (walks up, all at once)."""
        if self.pow2:
            pred, depth = self._t0[0], self._t0[1]
            u, top = np.asarray(below, np.int64) ^ x, int(depth[n ^ x]) + 1
        else:
            pred, depth = self._tree(x)[:2]
            u, top = np.array(below, np.int64), int(depth[n]) + 1
        up = np.flatnonzero(depth[u] > top)
        while up.size:
            u[up] = pred[u[up]]
            up = up[depth[u[up]] > top]
        return u ^ x if self.pow2 else u

    def subtree_size(self, x: int, n: int) -> int:
        return int(self._t0[3][n ^ x]) if self.pow2 else int(self._tree(x)[3][n])

    def csr(self, x: int) -> tuple:
        """(kstart, kid, size, xor): the successors of node n in T_x are ``kid[kstart[t]:kstart[t + 1]] ^ xor``
        and their subtree sizes ``size[kid[...]]``, at t = n ^ xor (xor = x for P a power of two, whose trees
        are T_0 relabelled, else 0)."""
        c = self._csr.get(x)
        if c is None:
            t = self._tree(x)
            c = self._csr[x] = (*t[4], t[3], x if self.pow2 else 0)
        return c

    def arrays(self, x: int) -> tuple:
        """(pred, depth, kstart, kid, xor): T_x as arrays for the C state of the balancing operations (node n's
        predecessor ``pred[t] ^ xor``, stage ``depth[t]`` and successors as in :meth:`csr`, at t = n ^ xor)."""
        t = self._tree(x)
        return (t[0], t[1], *t[4], x if self.pow2 else 0)

    @cached_property
    def pred(self) -> np.ndarray:
        """pred[x, n] for every root x (P x P)."""
        return np.array([[self.parent(x, n) for n in range(self.P)] for x in range(self.P)], np.int64)

    @cached_property
    def stage(self) -> np.ndarray:
        """stage[x, n] for every root x (P x P)."""
        return np.array([[self.depth(x, n) for n in range(self.P)] for x in range(self.P)], np.int64)
