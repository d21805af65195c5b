"""Phase 2 of MCSTLB (§3.1) and BTLB (§3.2): spanning trees of the processor graph, rooting and shape.

* MCSTLB: Kruskal with edges in descending weight (maximum cost spanning tree).
* BTLB: the same greedy with every degree limited to ``max_degree`` (3 = a
  binary tree once rooted at a vertex of degree <= 2; spec §1.2, ambiguity 5).
* Shape (§3.1): root = the processor of largest degree in T; children in
  ascending degree; if depth > log2 M, re-root at the middle of the longest
  path and keep that if shallower. BTLB roots at the centre of the longest
  path (or the degree <= 2 vertex on it nearest the centre).
Ties are broken by the lowest processor id throughout.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from .procgraph import ProcGraph


@dataclass(frozen=True)
class Tree:
    """A rooted tree over K nodes: ``parent[v]`` (-1 at the root), ordered ``children[v]``, BFS ``order``."""

    root: int
    parent: np.ndarray
    children: tuple
    order: np.ndarray
    depth_of: np.ndarray
    virtual_edges: int = 0

    @property
    def K(self) -> int:
        return self.parent.size

    @property
    def depth(self) -> int:
        return int(self.depth_of.max())

    @property
    def max_children(self) -> int:
        return max(len(c) for c in self.children)

    def edges(self) -> set:
        return {(min(int(p), v), max(int(p), v)) for v, p in enumerate(self.parent) if p >= 0}

    @classmethod
    def from_children(cls, root: int, children: dict, K: int) -> "Tree":
        """A fixture: ``children[v]`` = ordered child list (e.g. the paper's trees of Examples 1-2)."""
        kids = tuple(tuple(children.get(v, ())) for v in range(K))
        return _build(root, kids, K)


def _build(root: int, kids: tuple, K: int, virtual: int = 0) -> Tree:
    parent = np.full(K, -1, np.int64)
    depth = np.zeros(K, np.int64)
    order = [root]
    for u in order:
        for c in kids[u]:
            parent[c] = u
            depth[c] = depth[u] + 1
            order.append(c)
    if len(order) != K:
        raise ValueError("tree does not span every processor")
    return Tree(root, parent, kids, np.asarray(order, np.int64), depth, virtual)


class _DSU:
    def __init__(self, n):
        self.p = list(range(n))

    def find(self, x):
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, x, y) -> bool:
        rx, ry = self.find(x), self.find(y)
        if rx == ry:
            return False
        self.p[max(rx, ry)] = min(rx, ry)
        return True


def spanning_tree(pg: ProcGraph, max_degree: int | None = None) -> tuple[list, int]:
    """Kruskal in descending weight (ties: lowest (p, q)), optionally degree-limited.

    Returns the tree edges and the number of virtual (zero-weight) edges that
    joined components of a disconnected G. A degree-limited greedy that leaves
    a forest is completed with the heaviest remaining G edges allowing one
    endpoint degree ``max_degree + 1`` (spec §1.2).
    """
    K = pg.P
    dsu = _DSU(K)
    deg = np.zeros(K, np.int64)
    order = np.lexsort((pg.b, pg.a, -pg.w))
    a, b = pg.a[order].tolist(), pg.b[order].tolist()
    taken, edges = set(), []

    def take(i):
        edges.append((a[i], b[i]))
        taken.add(i)
        deg[a[i]] += 1
        deg[b[i]] += 1

    for i in range(len(a)):
        if max_degree is not None and (deg[a[i]] >= max_degree or deg[b[i]] >= max_degree):
            continue
        if dsu.union(a[i], b[i]):
            take(i)
        if len(edges) == K - 1:
            break
    if max_degree is not None and len(edges) < K - 1:
        for i in range(len(a)):
            if i in taken or min(deg[a[i]], deg[b[i]]) >= max_degree or max(deg[a[i]], deg[b[i]]) > max_degree:
                continue
            if dsu.union(a[i], b[i]):
                take(i)
    virtual = 0
    if len(edges) < K - 1:
        comps: dict = {}
        for v in range(K):
            comps.setdefault(dsu.find(v), []).append(v)
        load = np.asarray(pg.load)

        def lightest(members):
            ok = [v for v in members if max_degree is None or deg[v] < max_degree] or members
            return min(ok, key=lambda v: (load[v], v))

        groups = [comps[r] for r in sorted(comps)]
        for g0, g1 in zip(groups, groups[1:]):
            u, v = lightest(g0), lightest(g1)
            edges.append((min(u, v), max(u, v)))
            deg[u] += 1
            deg[v] += 1
            virtual += 1
    return edges, virtual


def _adjacency(K: int, edges) -> list:
    adj = [[] for _ in range(K)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    return adj


def _bfs(adj, s) -> np.ndarray:
    dist = np.full(len(adj), -1, np.int64)
    dist[s] = 0
    q = deque([s])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def rooted(K: int, edges, root: int, virtual: int = 0) -> Tree:
    """Root the tree ``edges`` at ``root``; children in ascending degree in T (ties lowest id)."""
    adj = _adjacency(K, edges)
    deg = [len(x) for x in adj]
    kids = [[] for _ in range(K)]
    seen = np.zeros(K, bool)
    seen[root] = True
    q = deque([root])
    while q:
        u = q.popleft()
        cs = sorted((v for v in adj[u] if not seen[v]), key=lambda v: (deg[v], v))
        for v in cs:
            seen[v] = True
            q.append(v)
        kids[u] = cs
    return _build(root, tuple(tuple(c) for c in kids), K, virtual)


def longest_path(K: int, edges) -> list:
    """A longest terminal-to-terminal path by double BFS (farthest vertex, ties lowest id)."""
    adj = _adjacency(K, edges)
    d0 = _bfs(adj, 0)
    a = int(np.argmax(d0))
    da = _bfs(adj, a)
    b = int(np.argmax(da))
    path = [b]
    while path[-1] != a:
        u = path[-1]
        path.append(min(v for v in adj[u] if da[v] == da[u] - 1))
    return path[::-1]


def mcst_shape(K: int, edges, virtual: int = 0) -> Tree:
    """§3.1 shape: root of largest degree, depth adjustment by the middle of the longest path."""
    if K == 1:
        return rooted(1, [], 0)
    deg = np.bincount(np.asarray(edges, np.int64).reshape(-1), minlength=K)
    t = rooted(K, edges, int(np.argmax(deg)), virtual)
    if t.depth > math.log2(K):
        path = longest_path(K, edges)
        t2 = rooted(K, edges, path[(len(path) - 1) // 2], virtual)
        if t2.depth < t.depth:
            return t2
    return t


def binary_shape(K: int, edges, max_children: int = 2, virtual: int = 0) -> Tree:
    """BTLB shape: root at the centre of the longest path, or the vertex of degree <= ``max_children``
    on that path nearest the centre (ties toward the first endpoint)."""
    if K == 1:
        return rooted(1, [], 0)
    deg = np.bincount(np.asarray(edges, np.int64).reshape(-1), minlength=K)
    path = longest_path(K, edges)
    mid = (len(path) - 1) // 2
    ok = [i for i, v in enumerate(path) if deg[v] <= max_children]
    i = min(ok, key=lambda i: (abs(i - mid), i))
    return rooted(K, edges, path[i], virtual)


def mcst(pg: ProcGraph) -> Tree:
    """MCSTLB Phase 2."""
    edges, virtual = spanning_tree(pg)
    return mcst_shape(pg.P, edges, virtual)


def binary_tree(pg: ProcGraph, max_degree: int = 3) -> Tree:
    """BTLB Phase 2 (also CBTLB Phase 3 on the condensed graph)."""
    edges, virtual = spanning_tree(pg, max_degree=max_degree)
    return binary_shape(pg.P, edges, max_degree - 1, virtual)
