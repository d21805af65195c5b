"""Phase 1 of MCSTLB/BTLB/CBTLB (paper §3, Fig. 1): the processor graph G.

One vertex per processor, weighted by its computational load (sum of pwgt =
number of nodes, Eq. 2); an edge between two processors iff an FE edge joins
their nodes, weighted by the number of cut FE edges (sum of cwgt, each
undirected edge once; spec §1.0, the paper gives no formula), or with
``edge_weight="boundary_nodes"`` by the number of nodes of either processor
adjacent to the other.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ProcGraph:
    """G = (processors, edges): ``a[k] < b[k]`` joined with weight ``w[k]``; ``load[p]``."""

    P: int
    a: np.ndarray
    b: np.ndarray
    w: np.ndarray
    load: np.ndarray

    @classmethod
    def from_edges(cls, P: int, edges, load) -> "ProcGraph":
        """A fixture: ``edges`` as (p, q, weight) triples."""
        e = np.asarray(edges, np.int64).reshape(-1, 3)
        lo, hi = np.minimum(e[:, 0], e[:, 1]), np.maximum(e[:, 0], e[:, 1])
        order = np.lexsort((hi, lo))
        return cls(P, lo[order], hi[order], e[order, 2], np.asarray(load, np.int64))

    def degree(self) -> np.ndarray:
        return np.bincount(np.concatenate([self.a, self.b]), minlength=self.P)

    def neighbours(self, p: int) -> np.ndarray:
        return np.sort(np.concatenate([self.b[self.a == p], self.a[self.b == p]]))

    def weight_matrix(self) -> np.ndarray:
        m = np.zeros((self.P, self.P), np.int64)
        m[self.a, self.b] = self.w
        m[self.b, self.a] = self.w
        return m


EDGE_WEIGHTS = ("cut_edges", "boundary_nodes")


def processor_graph(g, owner: np.ndarray, P: int, edge_weight: str = "cut_edges") -> ProcGraph:
    """G of the FE graph ``g`` under ``owner`` (vectorised over the adjacency entries)."""
    src, dst = g.src, g.adjncy
    po, qo = owner[src], owner[dst]
    if edge_weight == "cut_edges":
        cut = po < qo  # each undirected cut edge once
        key = po[cut].astype(np.int64) * P + qo[cut]
        wt = g.cwgt[cut]
    elif edge_weight == "boundary_nodes":
        cut = po != qo
        vq = np.unique(src[cut].astype(np.int64) * P + qo[cut])  # (node, other processor) pairs
        p, q = owner[vq // P], vq % P
        key = np.minimum(p, q).astype(np.int64) * P + np.maximum(p, q)
        wt = np.ones(key.size)
    else:
        raise ValueError(f"edge_weight must be one of {', '.join(EDGE_WEIGHTS)}, got {edge_weight!r}")
    keys, inv = np.unique(key, return_inverse=True)
    w = np.bincount(inv, weights=wt, minlength=keys.size).astype(np.int64)
    load = np.bincount(owner, weights=g.pwgt, minlength=P).astype(np.int64)
    return ProcGraph(P, keys // P, keys % P, w, load)
