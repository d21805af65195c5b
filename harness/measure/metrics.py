"""Load-balancing metrics as pure, vectorized functions (SBN paper §3.1-3.4, §5.2;
MinEX paper §2.3 for the cluster factors Proc and Conn).

Per-vertex costs for a State ``s`` on a Machine ``m`` (p = s.owner[v]):

* ``Wgt[v]   = pwgt[v] * Proc[p]``
* ``Comm[v]  = sum over neighbours w with home[w] != p of cwgt(v, w) * Conn[p, home[w]]``
* ``Remap[v] = rwgt[v] * Conn[home[v], p]`` when ``home[v] != p``, else 0

``QWgt[p]`` sums ``Wgt + Comm + Remap`` of the vertices owned by p (§3.1);
``WSysLL = ceil(sum QWgt / P)`` (§3.2) and ``LoadImb = max QWgt / WSysLL``
(§5.2), always against the target P. ``work_loadimb`` is the computation-only
imbalance ``max_p sum pwgt / (sum pwgt / P)`` that the tree, MLB and AMR
papers balance.

Cut% (§5.2) counts each cut edge once: ``100 * (sum_v Comm_v / 2) / sum_e
cwgt_e``. For a settled state on a uniform machine that is the cwgt of the
cut edges over the cwgt of all edges; an edge whose data is away from its
computation in one direction only counts half. The papers' printed values
imply this convention (METIS with level-5 weights on shock gives 7.95% and
11.13% at P = 16 and 32 against PMeTiS's 7.81% and 10.94% in Table 6).

Every figure is defined here once; latency models, reports and plugins call
these functions (the column schema is :mod:`harness.measure.columns`).
"""
from __future__ import annotations

import numpy as np

from ..contract.model import Costs, Graph, Machine, State
from ..contract.view import LocationView
from ..kernels import _graph, _metrics


def vertex_costs(g: Graph, s: State, m: Machine, verts: np.ndarray | None = None) -> Costs:
    """Wgt, Comm and Remap of every vertex under state s (SBN §3.1); work only on cut entries.

    Args:
        g: the level's graph (``ctx.graph``).
        s: the state (owners and homes).
        m: the machine (``ctx.machine``: Proc and Conn slowdowns).
        verts: only these vertices (work proportional to their edges; the same floats as for all: costs_if_on's
            C kernel, each vertex priced on its owner).

    Returns:
        A :class:`Costs` with one float per vertex (of ``verts``, in their order) in each field.

    Example:
        >>> c = vertex_costs(ctx.graph, ctx.state, ctx.machine)
        >>> heaviest = int(np.argmax(c.total))
    """
    owner = s.owner
    if verts is not None:  # each on its owner, from the state's homes (the kernel's sums are bincount's)
        verts = np.ascontiguousarray(verts, np.int64).reshape(-1)
        return costs_if_on(g, s, m, verts, np.asarray(owner)[verts])
    src = g.src
    wgt = g.pwgt * m.proc_of[owner]
    hw = s.home[g.adjncy]
    own = owner[src]
    cut = np.flatnonzero(hw != own)
    comm = np.bincount(src[cut], weights=g.cwgt[cut] * m.slowdown(own[cut], hw[cut]),
                       minlength=g.n).astype(float, copy=False)  # (bincount of nothing is int64)
    return Costs(wgt.astype(float), comm, remap_costs(g, m, s.home, owner))


def scan(g: Graph, m: Machine, before_owner, before_home, owner, home) -> tuple:
    """``harness.kernels._metrics.scan`` of the level's graph and machine from the owners and homes before and
    after the level (int64, any integer array-like): the per-vertex and per-processor sums of every core figure
    in one pass (:func:`harness.measure.figures.cell_metrics`)."""
    c = np.ascontiguousarray
    return _metrics.scan(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, c(m.proc_of, np.float64), c(m.cluster, np.int64),
                         c(m.conn, np.float64), *(c(a, np.int64) for a in (before_owner, before_home, owner, home)))


def remap_costs(g: Graph, m: Machine, home: np.ndarray, owner: np.ndarray, verts: np.ndarray | None = None
                ) -> np.ndarray:
    """Remap of every vertex (of ``verts``) (SBN §3.1): ``rwgt * Conn[home, owner]`` where its data is not where
    it is computed."""
    at = slice(None) if verts is None else verts
    remap = np.zeros(g.n if verts is None else len(verts))
    moved = np.flatnonzero(home[at] != owner[at])
    mv = moved if verts is None else verts[moved]
    remap[moved] = g.rwgt[mv] * m.slowdown(home[mv], owner[mv])
    return remap


def costs_if_on(g: Graph, s: State, m: Machine, verts: np.ndarray, q) -> Costs:
    """Wgt, Comm and Remap of ``verts`` if each were computed on ``q``, homes as in ``s`` (SBN §3.1).

    Args:
        g: the level's graph.
        s: the state the move is considered from (its homes count for Comm and Remap).
        m: the machine.
        verts: vertex indices (any integer array).
        q: the processor each vertex would be computed on: one for all, or one per vertex.

    Returns:
        A :class:`Costs` with one entry per vertex of ``verts``, in that order.

    Example:
        >>> here = costs_if_on(g, state, m, border, p)   # the border vertices as they are (on p)
        >>> there = costs_if_on(g, state, m, border, q)  # ... if computed on q
        >>> best_first = border[np.argsort(delta_cut(here, there))]
    """
    if type(verts) is not np.ndarray or verts.dtype != np.int64 or verts.ndim != 1 or not verts.flags.c_contiguous:
        verts = np.ascontiguousarray(verts, np.int64).reshape(-1)
    q = np.array((q,), np.int64) if type(q) is int else np.ascontiguousarray(q, np.int64).reshape(-1)
    h = s.home if isinstance(s.home, LocationView) else LocationView(s.home, m.P)
    c = np.frombuffer(_graph.costs(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, m.proc_of, m.cluster, m.conn, verts, q,
                                   h.base, h.keys, h.values), np.float64)
    k = verts.size  # (called per message in the balancers: no steps that a contiguous int64 input does not need)
    return Costs(c[:k], c[k:2 * k], c[2 * k:])


def delta_cut(from_p: Costs, to_q: Costs, normalize: bool = True) -> np.ndarray:
    """Differential edge cut ΔCut of moving vertices from p to q (SBN §3.4).

    ``ΔCut = Remap_q - Remap_p + (Comm_q - Comm_p)``; a positive value is
    divided by the vertex's Wgt when ``normalize``.

    Args:
        from_p: the vertices' costs where they are (``costs_if_on(..., verts, p)``).
        to_q: their costs on the destination (``costs_if_on(..., verts, q)``), same vertices, same order.
        normalize: divide a positive ΔCut by Wgt (the SBN paper's selection order).

    Returns:
        One float per vertex: lower is a better vertex to move (negative: the move reduces the cut).

    Example:
        >>> dc = delta_cut(costs_if_on(g, s, m, border, p), costs_if_on(g, s, m, border, q), normalize=False)
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
    return wsysll_of(float(q.sum()), q.size)


def wsysll_of(total: float, P: int) -> int:
    """WSysLL from the total load and P."""
    return int(np.ceil(total / P - 1e-9))


def loadimb(q: np.ndarray) -> float:
    """LoadImb = max QWgt / WSysLL (SBN §5.2); 1 when there is no load."""
    return loadimb_of(float(q.max()), float(q.sum()), q.size)


def loadimb_of(maxq: float, total: float, P: int) -> float:
    """LoadImb from the maximum and the total load (e.g. accumulated over levels, MinEX Table 3)."""
    w = wsysll_of(total, P)
    return float(maxq / w) if w > 0 else 1.0


def load_figures(q: np.ndarray, prefix: str = "") -> dict:
    """QWgt-based figures: WSysLL, LoadImb (against the target P), MaxQwgt, MinQwgt, QwgtTot, empty parts."""
    q = np.asarray(q, float)
    figs = {
        "wsysll": wsysll(q),
        "loadimb": loadimb(q),
        "maxqwgt": float(q.max()),
        "minqwgt": float(q.min()),
        "qwgttot": float(q.sum()),
        "empty_parts": int(np.count_nonzero(q == 0)),
    }
    return {prefix + k: v for k, v in figs.items()}


def work_loadimb(pwgt: np.ndarray, owner: np.ndarray, P: int) -> float:
    """Computation-only imbalance max_p sum pwgt / (sum pwgt / P) (tree, MLB and AMR papers)."""
    return work_loadimb_of(np.bincount(owner, weights=pwgt, minlength=P))


def work_loadimb_of(w: np.ndarray) -> float:
    """:func:`work_loadimb` from the work (sum of pwgt) of each of the P processors."""
    tot = w.sum()
    return float(w.size * w.max() / tot) if tot > 0 else 1.0


def cut_pct(g: Graph, costs: Costs) -> float:
    """Cut% of SBN §5.2 with each cut edge counted once: 100 * (sum Comm / 2) / sum of edge cwgt."""
    return cut_pct_of(g.cwgt.sum() / 2, costs.comm)


def cut_pct_of(total, comm: np.ndarray) -> float:
    """:func:`cut_pct` from the vertices' Comm and the cwgt of all edges (``g.cwgt.sum() / 2``)."""
    return float(100.0 * comm.sum() / 2 / total) if total else 0.0


def maxsr(g: Graph, before: State, after: State, m: Machine) -> dict:
    """MaxSR = max sent + max received redistribution cost (SBN §5.2), with moved weight and count."""
    moved = before.home != after.home
    src, dst = before.home[moved], after.home[moved]
    cost = g.rwgt[moved] * m.slowdown(src, dst)
    sent = np.bincount(src, weights=cost, minlength=before.P)
    recv = np.bincount(dst, weights=cost, minlength=after.P)
    return maxsr_of(sent, recv, g.rwgt[moved].sum(), moved.sum())


def qwgt_maxsr(g: Graph, before: State, after: State, m: Machine) -> tuple[np.ndarray, dict]:
    """QWgt of every processor under ``after`` (SBN §3.1) and :func:`maxsr`'s columns of the move from ``before``
    (§5.2), from one pass over the graph in C (:func:`scan`): the same floats as ``qwgt(vertex_costs(g, after, m),
    after.owner, P)`` and ``maxsr(g, before, after, m)``, bit for bit.

    Args:
        g: the level's graph.
        before: the state the level starts from (its homes are where the data was).
        after: the state whose loads are wanted (``before`` itself for the loads before a move).
        m: the machine.

    Returns:
        ``(qwgt, maxsr)``: one float per processor, and ``maxsr``, ``moved_weight``, ``moved_vertices``.

    Example:
        >>> q_before, _ = qwgt_maxsr(ctx.graph, ctx.state, ctx.state, ctx.machine)
        >>> q_after, moved = qwgt_maxsr(ctx.graph, ctx.state, proposed.migrated(), ctx.machine)
    """
    _, _, sums, _, _, _, moved_w, moved = scan(g, m, before.owner, before.home, after.owner, after.home)
    settled, _, _, _, sent, recv, _ = np.frombuffer(sums, np.float64).reshape(7, after.P)
    return settled, maxsr_of(sent, recv, moved_w, moved)


def maxsr_of(sent: np.ndarray, recv: np.ndarray, moved_weight, moved_vertices) -> dict:
    """:func:`maxsr` from the redistribution cost each processor sent and received and the moved totals."""
    return {
        "maxsr": float(sent.max() + recv.max()) if moved_vertices else 0.0,
        "moved_weight": int(moved_weight),
        "moved_vertices": int(moved_vertices),
    }


def partition_figures(g: Graph, owner: np.ndarray, P: int) -> dict:
    """Zoltan/ParMETIS staples: boundary vertices and neighbour parts."""
    src = g.src
    cut = owner[src] != owner[g.adjncy]
    boundary = np.zeros(g.n, bool)
    boundary[src[cut]] = True
    adjacent = np.zeros(P * P, bool)
    adjacent[owner[src[cut]] * P + owner[g.adjncy[cut]]] = True
    return partition_of(boundary.sum(), adjacent.reshape(P, P).sum(axis=1), g.cwgt[cut].sum())


def partition_of(boundary, nbr: np.ndarray, cut_cwgt) -> dict:
    """:func:`partition_figures` from the boundary vertices, each part's neighbour parts and the cwgt of the cut
    adjacency entries (each edge twice)."""
    return {
        "boundary_vertices": int(boundary),
        "max_neighbour_parts": int(nbr.max()) if nbr.size else 0,
        "avg_neighbour_parts": float(nbr.mean()) if nbr.size else 0.0,
        "edge_cut": int(cut_cwgt // 2),
    }


def core_metrics(g: Graph, before: State, after: State, m: Machine, executed=None) -> dict:
    """Every core figure of one level.

    ``executed`` = (on, costs): the processor each vertex ran on and its costs
    when it ran, declared by a balancer that processes work during the level
    (``ctx.executed``). ``loadimb``/``maxqwgt``/... then describe what ran;
    ``settled_*`` always describe the end state ``after``.
    """
    pre = cut_pct(g, vertex_costs(g, before, m))
    c = vertex_costs(g, after, m)
    return core_figures(pre, cut_pct(g, c), qwgt(c, after.owner, after.P), executed,
                        work_loadimb(g.pwgt, after.owner, after.P), maxsr(g, before, after, m),
                        partition_figures(g, after.owner, after.P))


def core_figures(pre_cut: float, post_cut: float, settled: np.ndarray, executed, work: float, moved: dict,
                 parts: dict) -> dict:
    """:func:`core_metrics` from its parts: the Cut% before and after, QWgt of the end state, ``executed``,
    work_loadimb, :func:`maxsr`'s and :func:`partition_figures`' columns."""
    figs = {"pre_exec_cut_pct": pre_cut, "post_exec_cut_pct": post_cut}
    ran = settled if executed is None else qwgt(executed[1], executed[0], settled.size)
    figs.update(load_figures(ran))
    figs.update({k: v for k, v in load_figures(settled, "settled_").items()
                 if k in ("settled_loadimb", "settled_maxqwgt")})
    figs["work_loadimb"] = work
    figs.update(moved)
    figs.update(parts)
    return figs


def changed_weight(prev: Graph, g: Graph, parent: np.ndarray | None) -> int:
    """How much of the mesh an adaptation changed: sum rwgt of the level's vertices it created or changed
    (no parent, a parent split among several vertices, or pwgt or rwgt not the parent's; ``parent`` None: the
    same vertices). Comparable with ``moved_weight``: a partition that moved only what the adaptation changed
    moves at most this much (the Zoltan guide's "incremental partitions")."""
    parent = np.arange(g.n) if parent is None else np.asarray(parent)
    new = parent < 0
    p = np.where(new, 0, parent)
    children = np.bincount(parent[~new], minlength=prev.n)
    changed = new | (children[p] != 1) | (prev.pwgt[p] != g.pwgt) | (prev.rwgt[p] != g.rwgt)
    return int(g.rwgt[changed].sum())
