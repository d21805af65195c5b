"""Phase 3: the tree walking algorithm (TWA, Wu 1997) and the single-port transfer schedule.

quota(u) = (processors in u's subtree) x N/M, load(u) = the subtree's load;
the flow on edge (parent(u), u) is round(quota(u) - load(u)) with the
real-valued average N/M (positive: parent -> u). The schedule (spec §1.5,
reproduces the paper's Examples 1-3): single-port steps; each node takes its
tree edges in the order children left to right, then its parent edge; its
current edge is the first whose sender holds at least the flow (Case 1:
otherwise postponed); an edge moves in a step iff it is the current edge of
both ends, nodes scanned in id order. The schedule completes whenever no
node's planned final load is negative (``target_flows`` guarantees that).
"""
from __future__ import annotations

import numpy as np

from .trees import Tree

ROUNDINGS = ("nearest", "floor")


def round_flow(x: np.ndarray, rounding: str = "nearest") -> np.ndarray:
    if rounding == "nearest":  # half away from zero
        return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)
    if rounding == "floor":
        return np.floor(x).astype(np.int64)
    raise ValueError(f"rounding must be one of {', '.join(ROUNDINGS)}, got {rounding!r}")


def subtree_sums(tree: Tree, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each node's subtree (leaves first, in reverse BFS order)."""
    acc = np.asarray(values, float).copy()
    for v in tree.order[::-1][:-1]:
        acc[tree.parent[v]] += acc[v]
    return acc


def flows(tree: Tree, load, size=None, rounding: str = "nearest") -> np.ndarray:
    """``flow[v]`` on the edge (parent(v), v) for every non-root v (0 at the root)."""
    load = np.asarray(load, float)
    size = np.ones(tree.K) if size is None else np.asarray(size, float)
    avg = load.sum() / size.sum()
    f = round_flow(subtree_sums(tree, size) * avg - subtree_sums(tree, load), rounding)
    f[tree.root] = 0
    return f


def planned_final(tree: Tree, flow: np.ndarray, load) -> np.ndarray:
    """Each node's load once every flow has moved: own + from parent - to children."""
    out = np.asarray(load, np.int64) + np.where(np.arange(tree.K) == tree.root, 0, flow)
    np.subtract.at(out, tree.parent[tree.parent >= 0], flow[tree.parent >= 0])
    return out


def target_flows(tree: Tree, proc_load, node_of=None) -> np.ndarray:
    """Flows from integer targets: every processor gets floor(N/M), the N mod M heaviest (ties lowest id)
    one more; a tree node's target is its processors' sum (``node_of[p]``: the node of processor p).

    The fallback when rounded flows would leave a node a negative planned load
    (N/M below about half a tree degree): the flows are then exact and every
    final load is floor(N/M) or ceil(N/M).
    """
    proc_load = np.asarray(proc_load, np.int64)
    M, N = proc_load.size, int(proc_load.sum())
    target = np.full(M, N // M, np.int64)
    target[np.lexsort((np.arange(M), -proc_load))[:N % M]] += 1
    node_of = np.arange(M) if node_of is None else np.asarray(node_of)
    t = np.bincount(node_of, weights=target, minlength=tree.K)
    l = np.bincount(node_of, weights=proc_load, minlength=tree.K)
    f = np.rint(subtree_sums(tree, t) - subtree_sums(tree, l)).astype(np.int64)
    f[tree.root] = 0
    return f


def schedule(tree: Tree, flow: np.ndarray, load) -> list[list[tuple[int, int, int]]]:
    """The §1.5 steps: each a list of (sender, receiver, amount), ordered by sender."""
    K = tree.K
    w = np.asarray(load, np.int64).copy()
    todo = []
    for u in range(K):
        es = [c for c in tree.children[u] if flow[c] != 0]  # an edge is named by its child end
        if tree.parent[u] >= 0 and flow[u] != 0:
            es.append(u)
        todo.append(es)

    def ends(c):
        p = int(tree.parent[c])
        return (p, c, int(flow[c])) if flow[c] > 0 else (c, p, int(-flow[c]))

    steps = []
    while any(todo):
        cur = []
        for u in range(K):
            cur.append(next((c for c in todo[u] if w[ends(c)[0]] >= ends(c)[2]), None))
        busy = np.zeros(K, bool)
        step = []
        for u in range(K):
            c = cur[u]
            if c is None or busy[u]:
                continue
            other = int(tree.parent[c]) if u == c else c
            if busy[other] or cur[other] != c:
                continue
            s, r, m = ends(c)
            w[s] -= m
            w[r] += m
            step.append((s, r, m))
            todo[u].remove(c)
            todo[other].remove(c)
            busy[u] = busy[other] = True
        if not step:  # cannot happen when every planned final load is >= 0: a node with no incoming
            # edge left can send on each of its edges, and following current edges ends in a matched pair
            raise RuntimeError("TWA schedule deadlock: a planned final load is negative")
        steps.append(sorted(step))
    return steps
