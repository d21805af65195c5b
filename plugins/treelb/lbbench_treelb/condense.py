"""CBTLB Phase 2 (§3.3): group processors into hypercube metaprocessors; the condensed graph G_c.

Round k pairs cubes of order k into cubes of order k+1: the ungrouped cube of
smallest degree (in the current condensed graph; ties smallest member id)
pairs with its smallest-degree ungrouped neighbour of the same order that it
can merge with; a cube with no such neighbour stays. Two k-cubes A, B merge
iff for some mask m (tried 0 .. 2^k - 1) every member of A with label l is
adjacent in G to the member of B with label l xor m; A's labels get bit k = 0,
B's bit k = 1. Rounds repeat until no cube merges (spec §1.3).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .procgraph import ProcGraph


@dataclass(frozen=True)
class Condensed:
    """``cube[p]`` = metaprocessor of processor p (numbered by smallest member); ``label[p]``;
    ``dim[c]``; ``members[c]`` ordered by label; G_c as a ProcGraph over the metaprocessors."""

    cube: np.ndarray
    label: np.ndarray
    dim: np.ndarray
    members: tuple
    gc: ProcGraph

    @property
    def K(self) -> int:
        return len(self.members)

    def dem_dims(self) -> list[list[tuple[int, int]]]:
        """Processor pairs per dimension (bit 0 first = the first pairing), over all cubes."""
        out = []
        for bit in range(int(self.dim.max()) if self.dim.size else 0):
            pairs = []
            for c, mem in enumerate(self.members):
                if self.dim[c] > bit:
                    pairs += [(mem[l], mem[l | (1 << bit)]) for l in range(len(mem)) if not l >> bit & 1]
            out.append(pairs)
        return out


def _mask(A: list, B: list, adj: np.ndarray) -> int | None:
    """The smallest mask m with A[l] ~ B[l ^ m] for every label l (A, B indexed by label)."""
    n = len(A)
    for m in range(n):
        if all(adj[A[l], B[l ^ m]] for l in range(n)):
            return m
    return None


def condense(pg: ProcGraph) -> Condensed:
    P = pg.P
    adj = pg.weight_matrix() > 0
    cubes = [[p] for p in range(P)]  # members indexed by label
    order_of = [0] * P
    k = 0
    while True:
        owner = np.empty(P, np.int64)
        for i, mem in enumerate(cubes):
            owner[mem] = i
        # degree of each cube in the current condensed graph
        cadj = np.zeros((len(cubes), len(cubes)), bool)
        cadj[owner[pg.a], owner[pg.b]] = True
        cadj |= cadj.T
        np.fill_diagonal(cadj, False)
        deg = cadj.sum(1)
        first = [min(mem) for mem in cubes]
        cand = [i for i in range(len(cubes)) if order_of[i] == k]
        grouped = set()
        merged = []
        for i in sorted(cand, key=lambda i: (deg[i], first[i])):
            if i in grouped:
                continue
            grouped.add(i)
            options = []
            for j in np.flatnonzero(cadj[i]).tolist():
                if j in grouped or order_of[j] != k:
                    continue
                m = _mask(cubes[i], cubes[j], adj)
                if m is not None:
                    options.append((deg[j], first[j], j, m))
            if not options:
                continue
            _, _, j, m = min(options)
            grouped.add(j)
            merged.append((i, j, m))
        if not merged:
            break
        done = {x for i, j, _ in merged for x in (i, j)}
        new, new_order = [], []
        for i, j, m in merged:
            A, B = cubes[i], cubes[j]
            new.append(A + [B[l ^ m] for l in range(len(A))])
            new_order.append(k + 1)
        for i in range(len(cubes)):
            if i not in done:
                new.append(cubes[i])
                new_order.append(order_of[i])
        cubes, order_of = new, new_order
        k += 1
    idx = sorted(range(len(cubes)), key=lambda i: min(cubes[i]))
    members = tuple(tuple(cubes[i]) for i in idx)
    dim = np.array([order_of[i] for i in idx], np.int64)
    cube = np.empty(P, np.int64)
    label = np.empty(P, np.int64)
    for c, mem in enumerate(members):
        cube[list(mem)] = c
        label[list(mem)] = np.arange(len(mem))
    K = len(members)
    ca, cb = cube[pg.a], cube[pg.b]
    keep = ca != cb
    lo, hi = np.minimum(ca, cb)[keep], np.maximum(ca, cb)[keep]
    keys, inv = np.unique(lo * K + hi, return_inverse=True)
    w = np.bincount(inv, weights=pg.w[keep], minlength=keys.size).astype(np.int64)
    load = np.bincount(cube, weights=pg.load, minlength=K).astype(np.int64)
    return Condensed(cube, label, dim, members, ProcGraph(K, keys // K, keys % K, w, load))
