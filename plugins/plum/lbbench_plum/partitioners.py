"""PLUM's repartitioners (SBN paper §4.2).

* PMeTiS: a global multilevel k-way partition from scratch (real METIS through
  pymetis, ``harness.metis_kway``), vertex weights Wgt (pwgt) and
  edge weights Comm (cwgt); it ignores the current distribution.
* DMeTiS: multilevel diffusion as §4.2 describes it and as Schloegel, Karypis
  and Kumar built it (the paper's [23]): (i) coarsen by heavy-edge matching of
  vertices *in the same partition* only, (ii) on the coarsest graph, directed
  diffusion: the 2-norm minimal flow between adjacent partitions (Hu and
  Blake's ``L x = b``, ``flow(p, q) = x_p - x_q``), then vertices of overloaded
  partitions that border lighter ones are visited in random order and moved
  along the flow when the remaining flow is high relative to their weight,
  until balanced or no progress; if still unbalanced, project one level and
  diffuse again, (iii) project to the original graph with a greedy
  Kernighan-Lin style refinement that respects the balance and, on ties,
  keeps vertices on their processors (:func:`dmetis`).
* Scotch: ``SCOTCH_graphRepart`` through pyscotch, a multilevel
  repartitioner with migration cost (``partitioner=scotch``, :func:`scotch`).
  Its migration ratio ``emrat`` is the cost of migrating one unit of vertex
  migration load (vmlotab = rwgt, the Remap weight) relative to cutting one
  unit of edge weight: measured on the ``mini`` workload, ``emrat = 0``
  rebuilds from scratch (thousands of vertices move), larger ``emrat`` moves
  *less* and cuts more. (pyscotch's docstring, "higher = more migration
  allowed", has the direction backwards.)

Scotch draws random numbers from a process-wide generator and, on a threaded
build, is only reproducible with ``SCOTCH_DETERMINISTIC=1`` in the environment
(read at call time); we set it and reseed before every call, so every rank and
every run computes the same partition. DMeTiS draws from a numpy generator
seeded by the caller.
"""
from __future__ import annotations

import contextlib
import io
import os

import numpy as np

from harness import Graph, lazy_module, metis_kway

# imported when first called, not when the plugin registers
sp = lazy_module("scipy.sparse")
sparse_linalg = lazy_module("scipy.sparse.linalg")


def pmetis(g: Graph, nparts: int, seed: int, ufactor: int = 30) -> np.ndarray:
    """Global k-way partition from scratch (pwgt, cwgt)."""
    return metis_kway(g, nparts, seed=seed, ufactor=ufactor)


def _pyscotch():
    os.environ["SCOTCH_DETERMINISTIC"] = "1"
    with contextlib.redirect_stderr(io.StringIO()):  # pyscotch announces the library it loaded on stderr
        import pyscotch
    return pyscotch


def scotch(g: Graph, old: np.ndarray, nparts: int, seed: int, emrat: float = 1.0) -> np.ndarray:
    """Diffusive repartitioning from ``old`` (labels in [0, nparts)) with migration cost rwgt * emrat.

    Scotch's own default repartitioning strategy is used (its default load
    imbalance tolerance for mapping, 1%).
    """
    old = np.asarray(old, np.int64)
    if old.shape != (g.n,) or (old.size and (old.min() < 0 or old.max() >= nparts)):
        raise ValueError(f"scotch: old partition must have {g.n} labels in [0, {nparts})")
    if emrat < 0:
        raise ValueError(f"scotch: emrat must be >= 0, got {emrat}")
    if nparts == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    ps = _pyscotch()
    graph = ps.Graph()
    graph.build(np.asarray(g.xadj, np.int64), np.asarray(g.adjncy, np.int64),
                velotab=np.maximum(np.asarray(g.pwgt, np.int64), 1),
                edlotab=np.maximum(np.asarray(g.cwgt, np.int64), 1))
    ps.random_seed(int(seed) % (2**31 - 1))
    ps.random_reset()
    new = graph.repart(int(nparts), old, emrat=float(emrat),
                       vmlotab=np.maximum(np.asarray(g.rwgt, np.int64), 1))
    graph.close()
    return np.asarray(new, np.int64)


# ---------------------------------------------------------------- DMeTiS
COARSEST = 20    # coarsen until at most COARSEST * nparts vertices, or until matching stalls
UBFACTOR = 1.05  # balance tolerance of diffusion and refinement: ParMETIS' default (ubvec = 1.05)
ROUNDS = 4       # rounds of mutual heavy-edge proposals per matching
DIFFUSE = 16     # diffusion rounds per graph level (flow recomputed each round)
PASSES = 2       # refinement passes per graph level


def _sources(xadj: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(xadj) - 1), np.diff(xadj))


def _segment_best(s, d, w, n) -> np.ndarray:
    """For edges sorted by source ``s``: each source's heaviest target (-1 where none)."""
    best = np.full(n, -1, np.int64)
    if len(s) == 0:
        return best
    first = np.r_[True, s[1:] != s[:-1]]
    seg = np.cumsum(first) - 1
    top = np.maximum.reduceat(w, np.flatnonzero(first))
    pick = w == top[seg]
    best[s[pick]] = d[pick]
    return best


def _match(xadj, adjncy, cwgt, part, rng) -> tuple[np.ndarray, int]:
    """Heavy-edge matching of adjacent vertices in the *same* partition ([23]'s local matching).

    Each round every free vertex proposes its heaviest free same-partition
    neighbour (symmetric random tie-breaks); mutual proposals are matched.
    Returns the map to coarse vertices and their number.
    """
    n = len(part)
    src = _sources(xadj)
    keep = (part[src] == part[adjncy]) & (src != adjncy)
    s, d = src[keep], adjncy[keep]
    r = rng.random(n)
    w = cwgt[keep] + 0.5 * ((r[s] + r[d]) % 1.0)  # symmetric in (s, d), below one unit of cwgt
    mate = np.full(n, -1, np.int64)
    for _ in range(ROUNDS):
        free = (mate[s] < 0) & (mate[d] < 0)
        if not free.any():
            break
        best = _segment_best(s[free], d[free], w[free], n)
        v = np.flatnonzero(best >= 0)
        mutual = v[best[best[v]] == v]
        mate[mutual] = best[mutual]
    ids = np.arange(n)
    rep = np.where(mate >= 0, np.minimum(mate, ids), ids)
    _, cmap = np.unique(rep, return_inverse=True)
    return cmap.astype(np.int64), int(cmap.max()) + 1 if n else 0


def _contract(xadj, adjncy, cwgt, pwgt, cmap, nc):
    """The coarse graph of a matching: summed vertex and edge weights, no self-loops."""
    src = _sources(xadj)
    a, b = cmap[src], cmap[adjncy]
    keep = a != b
    A = sp.csr_matrix((cwgt[keep], (a[keep], b[keep])), shape=(nc, nc))
    A.sum_duplicates()
    A.sort_indices()
    return (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.int64),
            np.bincount(cmap, weights=pwgt, minlength=nc).astype(np.int64))


def _flow(pa, pb, load, target, nparts) -> dict:
    """Directed diffusion's flow (2-norm minimal, Hu and Blake) over the cut edges (pa[i], pb[i]):
    solve L x = load - target on the partition graph, flow(p, q) = x_p - x_q > 0 for adjacent p, q."""
    key = np.unique(pa * nparts + pb)
    row, col = key // nparts, key % nparts
    A = sp.csr_matrix((np.ones(len(key)), (row, col)), shape=(nparts, nparts))
    L = sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A
    if nparts <= 512:
        x = np.linalg.lstsq(L.toarray(), load - target, rcond=None)[0]
    else:
        x = sparse_linalg.lsqr(L, load - target, atol=1e-12, btol=1e-12, iter_lim=10 * nparts + 100)[0]
    f = x[row] - x[col]
    pos = f > 0
    return dict(zip(zip(row[pos].tolist(), col[pos].tolist()), f[pos].tolist()))


def _diffuse(xadj, adjncy, pwgt, part, load, target, maxload, nparts, rng) -> None:
    """Move vertices of overloaded partitions along the flow until balanced or stuck (in place).

    A border vertex of an overloaded partition moves to the neighbouring
    partition with the most remaining flow when that flow is at least half
    its weight ("the flow value relative to the vertex weight is high").
    """
    src = _sources(xadj)
    X, adj = xadj.tolist(), adjncy.tolist()
    for _ in range(DIFFUSE):
        if load.max() <= maxload:
            return
        ps, pd_ = part[src], part[adjncy]
        cut = ps != pd_
        rem = _flow(ps[cut], pd_[cut], load, target, nparts)
        border = np.unique(src[cut])
        border = border[load[part[border]] > target]
        rng.shuffle(border)
        moved = 0
        for u in border.tolist():
            p = int(part[u])
            w = float(pwgt[u])
            if load[p] <= target:
                continue
            best, bf = -1, 0.0
            for x in adj[X[u]:X[u + 1]]:
                q = int(part[x])
                f = rem.get((p, q), 0.0)
                if q != p and f > bf:
                    best, bf = q, f
            if best >= 0 and bf >= 0.5 * w:
                part[u] = best
                load[p] -= w
                load[best] += w
                rem[(p, best)] = bf - w
                moved += 1
        if not moved:
            return


def _refine(xadj, adjncy, cwgt, pwgt, part, orig, load, maxload, nparts) -> None:
    """Greedy Kernighan-Lin style boundary refinement that keeps the balance (in place).

    A border vertex moves to the neighbouring partition that lowers the edge
    cut most, if that partition stays within ``maxload``; a move that leaves
    the cut unchanged is made only when it returns the vertex to its original
    partition (vertices stay on their processors). A vertex of a partition
    above ``maxload`` may also move to a neighbouring partition that stays
    within it, the best cut first. Moves go in order of gain; a vertex whose
    neighbour moved in the same pass waits for the next pass (exact gains).
    """
    src = _sources(xadj)
    X, adj, pw = xadj.tolist(), adjncy.tolist(), pwgt.tolist()
    for _ in range(PASSES):
        pd_ = part[adjncy]
        border = np.zeros(len(part), bool)
        border[src[part[src] != pd_]] = True
        e = border[src]
        key, inv = np.unique(src[e] * nparts + pd_[e], return_inverse=True)
        k = np.bincount(inv, weights=cwgt[e])
        u, q = key // nparts, key % nparts
        p = part[u]
        own = q == p
        kp = np.zeros(len(part))
        kp[u[own]] = k[own]
        gain = k - kp[u]
        home = (q == orig[u]).astype(int) - (p == orig[u]).astype(int)
        ok = ~own & (load[q] + pwgt[u] <= maxload) & ((gain > 0) | ((gain == 0) & (home > 0)) | (load[p] > maxload))
        if not ok.any():
            return
        u, q, gain, home = u[ok], q[ok], gain[ok], home[ok]
        order = np.lexsort((load[q], -home, -gain))  # best gain, then back home, then the lightest
        u, q, gain = u[order], q[order], gain[order]
        taken = np.zeros(len(part), bool)
        moved = np.zeros(len(part), bool)
        n_moved = 0
        for v, t in zip(u.tolist(), q.tolist()):
            if taken[v]:
                continue
            taken[v] = True
            f, w = int(part[v]), pw[v]
            if load[t] + w > maxload or moved[adj[X[v]:X[v + 1]]].any():
                continue
            if f == t:
                continue
            part[v] = t
            load[f] -= w
            load[t] += w
            moved[v] = True
            n_moved += 1
        if not n_moved:
            return


def dmetis(g: Graph, old: np.ndarray, nparts: int, seed: int, ubfactor: float = UBFACTOR) -> np.ndarray:
    """DMeTiS, multilevel diffusion (SBN paper §4.2, [23]) from the partition ``old`` (labels in [0, nparts)).

    Coarsen within partitions, diffuse on the coarsest graph, project with
    refinement (diffusing again at a finer level while still unbalanced).
    Vertex weights pwgt, edge weights cwgt; balance to ``ubfactor`` x the mean.
    """
    old = np.asarray(old, np.int64)
    if old.shape != (g.n,) or (old.size and (old.min() < 0 or old.max() >= nparts)):
        raise ValueError(f"dmetis: old partition must have {g.n} labels in [0, {nparts})")
    if not ubfactor >= 1.0:
        raise ValueError(f"dmetis: ubfactor must be >= 1, got {ubfactor}")
    if nparts == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    rng = np.random.default_rng(seed)
    i64 = np.int64
    graphs = [(np.asarray(g.xadj, i64), np.asarray(g.adjncy, i64), np.asarray(g.cwgt, i64), np.asarray(g.pwgt, i64))]
    origs, cmaps = [old], []
    while len(origs[-1]) > COARSEST * nparts:
        xadj, adjncy, cwgt, pwgt = graphs[-1]
        cmap, nc = _match(xadj, adjncy, cwgt, origs[-1], rng)
        if nc > 0.9 * len(cmap):
            break
        coarse = np.empty(nc, i64)
        coarse[cmap] = origs[-1]  # matched vertices share a partition
        graphs.append(_contract(xadj, adjncy, cwgt, pwgt, cmap, nc))
        origs.append(coarse)
        cmaps.append(cmap)
    target = float(graphs[0][3].sum()) / nparts
    maxload = ubfactor * target
    part = origs[-1].copy()
    load = np.bincount(part, weights=graphs[-1][3], minlength=nparts).astype(float)
    for k in range(len(graphs) - 1, -1, -1):
        if k < len(graphs) - 1:
            part = part[cmaps[k]]
        xadj, adjncy, cwgt, pwgt = graphs[k]
        if load.max() > maxload:
            _diffuse(xadj, adjncy, pwgt, part, load, target, maxload, nparts, rng)
        _refine(xadj, adjncy, cwgt, pwgt, part, origs[k], load, maxload, nparts)
    return part
