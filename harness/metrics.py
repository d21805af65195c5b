"""Load-balancing metrics as pure, vectorized functions (SBN paper §3.1-3.4, §5.2;
MinEX paper §2.3 for the cluster factors Proc and Conn).

Per-vertex costs for a State ``s`` on a Machine ``m`` (p = s.owner[v]):

* ``Wgt[v]   = pwgt[v] * Proc[p]``
* ``Comm[v]  = sum over neighbours w with home[w] != p of cwgt(v, w) * Conn[p, home[w]]``
* ``Remap[v] = rwgt[v] * Conn[home[v], p]`` when ``home[v] != p``, else 0

``QWgt[p]`` sums ``Wgt + Comm + Remap`` of the vertices owned by p (§3.1).

Cut% follows §5.2 literally: the numerator sums ``Comm`` over all vertices, so
a cut edge is counted from both of its sides, while the denominator counts every
edge once. A fully cut graph therefore reads 200%. Every report uses this one
convention.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Graph, Machine, State


@dataclass(frozen=True)
class Costs:
    """Per-vertex Wgt, Comm and Remap of a state (SBN paper Table 1's rows)."""

    wgt: np.ndarray
    comm: np.ndarray
    remap: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.wgt + self.comm + self.remap


def vertex_costs(g: Graph, s: State, m: Machine) -> Costs:
    """Wgt, Comm and Remap of every vertex under state s (SBN §3.1); work only on cut entries."""
    owner = s.owner
    wgt = g.pwgt * m.proc_of[owner]
    src = g.src
    hw = s.home[g.adjncy]
    cut = np.flatnonzero(hw != owner[src])
    p, q = owner[src[cut]], hw[cut]
    comm = np.bincount(src[cut], weights=g.cwgt[cut] * m.slowdown(p, q), minlength=g.n)
    remap = np.zeros(g.n)
    moved = np.flatnonzero(s.home != owner)
    remap[moved] = g.rwgt[moved] * m.slowdown(s.home[moved], owner[moved])
    return Costs(wgt.astype(float), comm, remap)


def costs_if_on(g: Graph, s: State, m: Machine, verts: np.ndarray, q) -> Costs:
    """Wgt, Comm and Remap of ``verts`` if each were computed on ``q`` (scalar or per vertex)."""
    verts = np.asarray(verts, dtype=np.int64)
    q = np.broadcast_to(np.asarray(q, dtype=np.int64), verts.shape)
    deg = np.diff(g.xadj)[verts]
    starts = g.xadj[verts]
    # adjacency entries of verts, flattened, with the row they belong to
    row = np.repeat(np.arange(verts.size), deg)
    offs = np.arange(row.size) - np.repeat(np.cumsum(deg) - deg, deg)
    entries = starts[row] + offs
    hw = s.home[g.adjncy[entries]]
    qe = q[row]
    per = np.where(hw != qe, g.cwgt[entries] * m.slowdown(qe, hw), 0.0)
    comm = np.bincount(row, weights=per, minlength=verts.size)
    home = s.home[verts]
    remap = np.where(home != q, g.rwgt[verts] * m.slowdown(home, q), 0.0)
    wgt = (g.pwgt[verts] * m.proc_of[q]).astype(float)
    return Costs(wgt, comm, remap)


def delta_cut(from_p: Costs, to_q: Costs, normalize: bool = True) -> np.ndarray:
    """Differential edge cut ΔCut of moving vertices from p to q (SBN §3.4).

    ``ΔCut = Remap_q - Remap_p + (Comm_q - Comm_p)``; a positive value is
    divided by the vertex's Wgt when ``normalize``.
    """
    d = (to_q.remap - from_p.remap) + (to_q.comm - from_p.comm)
    if normalize:
        d = np.where(d > 0, d / np.maximum(from_p.wgt, 1e-300), d)
    return d


def qwgt(costs: Costs, owner: np.ndarray, P: int) -> np.ndarray:
    """Weighted queue length QWgt(p) of every processor (SBN §3.1)."""
    return np.bincount(owner, weights=costs.total, minlength=P)


def wsysll(q: np.ndarray) -> int:
    """Weighted system load level WSysLL = ceil(sum QWgt / P) (SBN §3.2)."""
    return int(np.ceil(q.sum() / q.size - 1e-9))


def load_figures(q: np.ndarray) -> dict:
    """QWgt-based figures: WSysLL, LoadImb (against the target P), MaxQwgt, MinQwgt, QwgtTot, empty parts."""
    w = wsysll(q)
    return {
        "wsysll": w,
        "loadimb": float(q.max() / w) if w > 0 else 1.0,
        "maxqwgt": float(q.max()),
        "minqwgt": float(q.min()),
        "qwgttot": float(q.sum()),
        "empty_parts": int(np.count_nonzero(q == 0)),
    }


def cut_pct(g: Graph, costs: Costs) -> float:
    """Cut% of SBN §5.2 (cut edges counted from both sides, edges once below)."""
    total = g.cwgt.sum() / 2
    return float(100.0 * costs.comm.sum() / total) if total else 0.0


def maxsr(g: Graph, before: State, after: State, m: Machine) -> dict:
    """MaxSR = max sent + max received redistribution cost (SBN §5.2), with moved weight and count."""
    moved = before.home != after.home
    src, dst = before.home[moved], after.home[moved]
    cost = g.rwgt[moved] * m.slowdown(src, dst)
    sent = np.bincount(src, weights=cost, minlength=before.P)
    recv = np.bincount(dst, weights=cost, minlength=after.P)
    return {
        "maxsr": float(sent.max() + recv.max()) if moved.any() else 0.0,
        "moved_weight": int(g.rwgt[moved].sum()),
        "moved_vertices": int(moved.sum()),
    }


def partition_figures(g: Graph, owner: np.ndarray, P: int) -> dict:
    """Zoltan/ParMETIS staples: boundary vertices and neighbour parts."""
    src = g.src
    cut = owner[src] != owner[g.adjncy]
    boundary = np.zeros(g.n, bool)
    boundary[src[cut]] = True
    adjacent = np.zeros(P * P, bool)
    adjacent[owner[src[cut]] * P + owner[g.adjncy[cut]]] = True
    nbr = adjacent.reshape(P, P).sum(axis=1)
    return {
        "boundary_vertices": int(boundary.sum()),
        "max_neighbour_parts": int(nbr.max()) if P else 0,
        "avg_neighbour_parts": float(nbr.mean()) if P else 0.0,
        "edge_cut": int(g.cwgt[cut].sum() // 2),
    }


def state_figures(g: Graph, s: State, m: Machine, prefix: str = "") -> dict:
    """Cut% and the QWgt figures of one state."""
    c = vertex_costs(g, s, m)
    figs = load_figures(qwgt(c, s.owner, s.P))
    figs["cut_pct"] = cut_pct(g, c)
    return {prefix + k: v for k, v in figs.items()}


def core_metrics(g: Graph, before: State, after: State, m: Machine) -> dict:
    """Every core figure of one level: pre/post Cut%, load figures after, MaxSR, partition staples."""
    figs = {"pre_exec_cut_pct": state_figures(g, before, m)["cut_pct"]}
    post = state_figures(g, after, m)
    figs["post_exec_cut_pct"] = post.pop("cut_pct")
    figs.update(post)
    figs.update(maxsr(g, before, after, m))
    figs.update(partition_figures(g, after.owner, after.P))
    return figs
