"""``truss``: the solution-adaptive finite element graph of the tree-LB paper (§4, Table 1, Fig. 5).

The paper's test sample *Truss* is a 2-D unstructured triangular mesh of a
truss-shaped domain, made with DIME and refined five times by the authors'
refinement code after each Laplace solve. Its Table 1 gives the nodes and
elements per refinement; we reproduce them within 2%:

    refinement  0      1      2      3      4      5
    nodes       18407  23570  29202  36622  46817  57081
    elements    35817  46028  57181  71895  92101  112494

How it is made (choices the paper leaves open are in workloads/README.md):

* Domain: a Warren truss, a 12 x 2 beam with 6 panels whose triangular
  openings (and the two end triangles) are holes, members of width ``WIDTH``.
* Initial mesh: boundary points every h along every polygon edge, a jittered
  triangular lattice inside (kept h/2 away from the boundary), Delaunay, and
  the triangles whose centroid lies outside the domain dropped. h is chosen so
  that the mesh has 18,407 nodes (within 0.5%).
* Refinement: Laplace's equation (P1 finite elements, u = 0 on the left end,
  u = 1 on the right end, natural conditions elsewhere) is solved on the current
  mesh; the residual error indicator eta_T^2 = 1/2 sum_e h_e^2 [du/dn]_e^2 ranks the
  elements; the k largest are marked, and conforming newest-vertex bisection
  (with its closure) refines them. k is the smallest count whose refined mesh
  reaches the node count of the next row of Table 1.
* Graph: the FE node graph (a node is a task; nodes of a common element are
  adjacent), pwgt = rwgt = cwgt = 1, coords = node coordinates. A new node's
  ``Level.parent`` is the apex (newest vertex) of the element whose refinement
  edge it bisects: it inherits that element's processor.
"""
from __future__ import annotations

import numpy as np

from harness import Graph, Level, Workload, check_params, lazy_module
from harness.contract.model import IDX

# imported when a level is generated, not when the plugin registers
sp = lazy_module("scipy.sparse")
sparse_linalg = lazy_module("scipy.sparse.linalg")
spatial = lazy_module("scipy.spatial")

TABLE1 = [(18407, 35817), (23570, 46028), (29202, 57181), (36622, 71895), (46817, 92101), (57081, 112494)]
LENGTH, HEIGHT, PANELS, WIDTH = 12.0, 2.0, 6, 0.9
VERSION = "1"


# ------------------------------------------------------------------ geometry

def cross2(a, b):
    """z-component of the cross product of 2-D vectors."""
    a, b = np.asarray(a), np.asarray(b)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def holes() -> list[np.ndarray]:
    """The truss openings: triangles between chords and diagonals, inset by half a member width."""
    step = LENGTH / PANELS
    tris = []
    for i in range(PANELS):  # "up" triangles on the bottom chord
        x = i * step
        tris.append([(x, 0.0), (x + step, 0.0), (x + step / 2, HEIGHT)])
    for i in range(PANELS - 1):  # "down" triangles under the top chord
        x = i * step + step / 2
        tris.append([(x, HEIGHT), (x + step, HEIGHT), (x + step / 2, 0.0)])
    tris.append([(0.0, 0.0), (step / 2, HEIGHT), (0.0, HEIGHT)])  # end triangles
    tris.append([(LENGTH, 0.0), (LENGTH, HEIGHT), (LENGTH - step / 2, HEIGHT)])
    out = []
    d = WIDTH / 2
    for t in tris:
        t = np.asarray(t)
        a, b, c = (np.linalg.norm(t[(i + 1) % 3] - t[(i + 2) % 3]) for i in range(3))
        inc = (a * t[0] + b * t[1] + c * t[2]) / (a + b + c)
        area = 0.5 * abs(cross2(t[1] - t[0], t[2] - t[0]))
        r = 2 * area / (a + b + c)
        out.append(inc + (t - inc) * (r - d) / r)
    return out


def _in_triangles(p: np.ndarray, tris: list[np.ndarray], margin: float = 0.0) -> np.ndarray:
    """Points inside any triangle (grown by ``margin``)."""
    inside = np.zeros(len(p), bool)
    for t in tris:
        s = np.ones(len(p), bool)
        ccw = cross2(t[1] - t[0], t[2] - t[0]) > 0
        for i in range(3):
            a, b = t[i], t[(i + 1) % 3]
            e = b - a
            n = np.array([e[1], -e[0]]) / np.linalg.norm(e)  # right-hand normal: outward when ccw
            if not ccw:
                n = -n
            s &= (p - a) @ n <= margin  # inside: negative distance along the outward normal
        inside |= s
    return inside


def _boundary_points(h: float) -> np.ndarray:
    polys = [np.array([(0, 0), (LENGTH, 0), (LENGTH, HEIGHT), (0, HEIGHT)], float)] + holes()
    pts = []
    for poly in polys:
        for i in range(len(poly)):
            a, b = poly[i], poly[(i + 1) % len(poly)]
            k = max(1, int(np.ceil(np.linalg.norm(b - a) / h)))
            s = np.arange(k)[:, None] / k
            pts.append(a + s * (b - a))
    return np.vstack(pts)


def initial_mesh(h: float, seed: int = 0):
    """Nodes and triangles of the initial truss mesh with spacing about h."""
    rng = np.random.default_rng([seed, 0x7255])
    bnd = _boundary_points(h)
    dy = h * np.sqrt(3) / 2
    ys = np.arange(dy / 2, HEIGHT, dy)
    rows = []
    for j, y in enumerate(ys):
        xs = np.arange((j % 2) * h / 2 + h / 4, LENGTH, h)
        rows.append(np.column_stack([xs, np.full(xs.size, y)]))
    inner = np.vstack(rows)
    inner = inner + rng.uniform(-0.2 * h, 0.2 * h, inner.shape)
    hs = holes()
    keep = ((inner[:, 0] > h / 2) & (inner[:, 0] < LENGTH - h / 2) & (inner[:, 1] > h / 2)
            & (inner[:, 1] < HEIGHT - h / 2) & ~_in_triangles(inner, hs, margin=h / 2))
    pts = np.vstack([bnd, inner[keep]])
    tri = spatial.Delaunay(pts).simplices
    cent = pts[tri].mean(axis=1)
    tri = tri[~_in_triangles(cent, hs)]
    used = np.unique(tri)
    remap = np.full(len(pts), -1, IDX)
    remap[used] = np.arange(used.size)
    return pts[used], remap[tri].astype(IDX)


def calibrated_mesh(target_nodes: int, seed: int = 0):
    """The initial mesh with h tuned (secant steps on log h) to ``target_nodes`` within 0.5%."""
    area = LENGTH * HEIGHT - sum(0.5 * abs(cross2(t[1] - t[0], t[2] - t[0])) for t in holes())
    h = np.sqrt(area / (target_nodes * np.sqrt(3) / 2))
    best = None
    for _ in range(8):
        pts, tri = initial_mesh(h, seed)
        err = len(pts) / target_nodes - 1
        if best is None or abs(err) < abs(best[0]):
            best = (err, pts, tri)
        if abs(err) < 0.005:
            break
        h *= np.sqrt(1 + err)
    return best[1], best[2]


# ------------------------------------------------------------------ newest-vertex bisection

def orient_longest(pts, tri):
    """Rotate each triangle so that its longest edge is (t1, t2), the refinement edge."""
    P = pts[tri]
    L = np.stack([((P[:, (i + 1) % 3] - P[:, (i + 2) % 3]) ** 2).sum(1) for i in range(3)], 1)
    k = np.argmax(L, axis=1)  # vertex opposite the longest edge becomes t0
    idx = (k[:, None] + np.arange(3)) % 3
    return np.take_along_axis(tri, idx, axis=1)


def edges_of(tri):
    """Unique edges and, per triangle, the ids of e0 = (t1, t2), e1 = (t2, t0), e2 = (t0, t1)."""
    e = np.stack([tri[:, [1, 2]], tri[:, [2, 0]], tri[:, [0, 1]]], 1).reshape(-1, 2)
    e = np.sort(e, axis=1)
    uniq, inv = np.unique(e, axis=0, return_inverse=True)
    return uniq, inv.reshape(-1, 3)


def closure(E, marked_tris, nedges):
    """Edges to bisect: refinement edges of the marked triangles, closed so every triangle with a
    bisected edge also has its refinement edge bisected (conformity)."""
    m = np.zeros(nedges, bool)
    m[E[marked_tris, 0]] = True
    while True:
        need = m[E].any(axis=1) & ~m[E[:, 0]]
        if not need.any():
            return m
        m[E[need, 0]] = True


def bisect(pts, tri, E, edges, m):
    """Refine: every triangle with marked edges is bisected (2, 3 or 4 children); returns the new
    nodes, triangles and, for each new node, the apex of the element it came from."""
    nold = len(pts)
    mid_id = np.full(len(edges), -1, IDX)
    mid_id[m] = nold + np.arange(int(m.sum()))
    new_pts = np.vstack([pts, pts[edges[m]].mean(axis=1)])
    # parent of a new node: the apex t0 of the lowest-numbered triangle whose refinement edge it is
    e0 = E[:, 0]
    hit = np.nonzero(m[e0])[0]
    first = np.full(len(edges), -1, IDX)
    first[e0[hit[::-1]]] = hit[::-1]
    parent = tri[first[m], 0]
    t0, t1, t2 = tri[:, 0], tri[:, 1], tri[:, 2]
    p0, p1, p2 = m[E[:, 0]], m[E[:, 1]], m[E[:, 2]]
    M, M1, M2 = mid_id[E[:, 0]], mid_id[E[:, 1]], mid_id[E[:, 2]]
    out = [tri[~p0]]
    a = p0 & ~p2
    out.append(np.column_stack([M[a], t0[a], t1[a]]))          # C1 unsplit
    a = p0 & p2
    out.append(np.column_stack([M2[a], M[a], t0[a]]))          # C1 split at the midpoint of (t0, t1)
    out.append(np.column_stack([M2[a], t1[a], M[a]]))
    a = p0 & ~p1
    out.append(np.column_stack([M[a], t2[a], t0[a]]))          # C2 unsplit
    a = p0 & p1
    out.append(np.column_stack([M1[a], M[a], t2[a]]))          # C2 split at the midpoint of (t2, t0)
    out.append(np.column_stack([M1[a], t0[a], M[a]]))
    return new_pts, np.vstack(out).astype(IDX), parent


# ------------------------------------------------------------------ Laplace solve and error indicator

def laplace(pts, tri):
    """P1 solution of Laplace's equation, u = 0 at x = 0, u = 1 at x = LENGTH."""
    n = len(pts)
    P = pts[tri]
    d = np.stack([P[:, 2] - P[:, 1], P[:, 0] - P[:, 2], P[:, 1] - P[:, 0]], 1)  # edge opposite vertex i
    area = 0.5 * np.abs(d[:, 0, 0] * d[:, 1, 1] - d[:, 0, 1] * d[:, 1, 0])
    K = np.einsum("tid,tjd->tij", d, d) / (4 * area)[:, None, None]
    rows = np.repeat(tri, 3, axis=1).ravel()
    cols = np.tile(tri, (1, 3)).ravel()
    A = sp.csr_matrix((K.ravel(), (rows, cols)), shape=(n, n))
    tol = 1e-9 * LENGTH
    fixed = (pts[:, 0] < tol) | (pts[:, 0] > LENGTH - tol)
    val = (pts[:, 0] > LENGTH / 2).astype(float)
    free = ~fixed
    u = val.copy()
    rhs = -A[free][:, fixed] @ val[fixed]
    u[free] = sparse_linalg.spsolve(A[free][:, free].tocsc(), rhs)
    return u


def indicator(pts, tri, u, E, edges):
    """eta_T^2 = 1/2 sum over interior edges of h_e^2 [grad u . n]^2."""
    P = pts[tri]
    d = np.stack([P[:, 2] - P[:, 1], P[:, 0] - P[:, 2], P[:, 1] - P[:, 0]], 1)
    area2 = d[:, 0, 0] * d[:, 1, 1] - d[:, 0, 1] * d[:, 1, 0]  # signed 2*area
    # grad u = sum_i u_i * rot(d_i) / (2 area), rot(x, y) = (y, -x) up to orientation sign
    rot = np.stack([d[..., 1], -d[..., 0]], -1)
    grad = (u[tri][:, :, None] * rot).sum(1) / area2[:, None]
    T = len(tri)
    flat = E.ravel()
    owner = np.repeat(np.arange(T), 3)
    order = np.argsort(flat, kind="stable")
    fe, fo = flat[order], owner[order]
    pair = np.nonzero(fe[1:] == fe[:-1])[0]
    ta, tb, eid = fo[pair], fo[pair + 1], fe[pair]
    vec = pts[edges[eid, 1]] - pts[edges[eid, 0]]
    h = np.linalg.norm(vec, axis=1)
    nrm = np.column_stack([vec[:, 1], -vec[:, 0]]) / h[:, None]
    jump = ((grad[ta] - grad[tb]) * nrm).sum(1)
    contrib = 0.5 * h ** 2 * jump ** 2
    eta2 = np.bincount(ta, contrib, T) + np.bincount(tb, contrib, T)
    return np.sqrt(eta2)


def refine_to(pts, tri, target_nodes):
    """One solution-adaptive refinement reaching ``target_nodes`` nodes (the least marking that does)."""
    edges, E = edges_of(tri)
    u = laplace(pts, tri)
    eta = indicator(pts, tri, u, E, edges)
    rank = np.lexsort((np.arange(len(tri)), -eta))  # largest error first, ties by element number
    need = target_nodes - len(pts)
    lo, hi = 0, len(tri)
    while lo < hi:  # smallest k whose closure adds >= need nodes
        k = (lo + hi) // 2
        if closure(E, rank[:k], len(edges)).sum() >= need:
            hi = k
        else:
            lo = k + 1
    m = closure(E, rank[:lo], len(edges))
    if lo > 0:
        alt = closure(E, rank[:lo - 1], len(edges))
        if abs(alt.sum() - need) < abs(m.sum() - need):
            m = alt
    return bisect(pts, tri, E, edges, m)


# ------------------------------------------------------------------ the workload

def node_graph(pts, tri, name):
    edges, _ = edges_of(tri)
    n = len(pts)
    return Graph.from_edges(n, edges[:, 0], edges[:, 1], pwgt=np.ones(n, IDX), coords=pts, name=name)


def validate(params: dict) -> None:
    """refinements in [0, 5] (Table 1 has five)."""
    check_params("workload truss", params, {"refinements": (0, 5)})


def generate(seed: int = 0, refinements: int = 5):
    validate({"refinements": refinements})
    pts, tri = calibrated_mesh(TABLE1[0][0], seed)
    tri = orient_longest(pts, tri)
    levels = [Level(1, node_graph(pts, tri, "truss-0"), meta={"refinement": 0, "elements": len(tri),
                                                                "triangles": tri, "paper": TABLE1[0]})]
    for r in range(1, refinements + 1):
        old = len(pts)
        pts, tri, par = refine_to(pts, tri, TABLE1[r][0])
        parent = np.concatenate([np.arange(old, dtype=IDX), par])
        levels.append(Level(r + 1, node_graph(pts, tri, f"truss-{r}"), parent=parent,
                            meta={"refinement": r, "elements": len(tri), "triangles": tri, "paper": TABLE1[r]}))
    return levels


WORKLOAD = Workload(
    "truss", generate, version=VERSION, params={"refinements": 5}, validate=validate,
    level_indices=lambda p: range(1, int(p["refinements"]) + 2),
    description="tree-LB paper's Truss: 2-D triangular FE node graph, 18,407 -> 57,081 nodes over 5 "
                "Laplace-adaptive bisection refinements (Table 1); level L = refinement L-1")
