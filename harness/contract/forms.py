"""The three forms of a workload level and the conversions between them (docs/plugins.md, "Level forms").

Every algorithm declares the forms it accepts (``graph``, ``boxes``, ``array``);
the runner hands it the level in one of them (:func:`convert`, through
``harness.as_form``), and the metrics are always computed on the graph form.

- ``Boxes -> graph``: one vertex per box; an edge between two boxes of the same
  AMR level whose cell ranges touch across a face, weighted by the number of
  cell faces they share, and an edge between a box and every box of the next
  coarser level its region overlaps (its parent and any other), weighted by the
  fine box's boundary cell faces that lie over that coarse box (the coarse-fine
  interface whose ghost values it supplies), at least 1 (the overlap alone means
  restriction / prolongation traffic; AMR paper §2). pwgt =
  work (cells x time-step factor ``ratio**level``), rwgt = cells (the data that
  moves), coords = box centres in base-level cell units.
- ``graph -> array``: a graph with coordinates becomes a 1-D :class:`LoadArray`
  of its pwgt in Hilbert-curve order of the coordinates (cell i holds vertex
  ``cell_vertices(...)[i]``), the interface of MLB (MLB paper §2).
- ``array -> graph``: the grid graph of the cells (C order), edges between
  face-adjacent cells with weight 1, pwgt = rwgt = load, coords = cell indices.
- ``boxes -> array``: boxes -> graph -> array.
- Same form: the data itself. Anything else raises ``ValueError``.

Pure functions of the data: the cached box graph (``harness.store.boxgraphs``)
is what the runner passes to :func:`convert`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .model import IDX, Boxes, Graph, LoadArray
from .pieces import face_pairs, overlap_join

FORMS = ("graph", "boxes", "array")


def form_of(data) -> str:
    if isinstance(data, Graph):
        return "graph"
    if isinstance(data, Boxes):
        return "boxes"
    if isinstance(data, LoadArray):
        return "array"
    raise ValueError(f"not a workload level: {type(data).__name__} (expected Graph, Boxes or LoadArray)")


def check_form(data, form: str) -> str:
    """The form of ``data`` after checking that it converts to ``form`` (``ValueError`` otherwise)."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r} (forms: {', '.join(FORMS)})")
    have = form_of(data)
    if form == "boxes" and have != "boxes":
        raise ValueError(f"cannot convert a {have} level to boxes: an AMR box hierarchy cannot be "
                         f"recovered from a {'graph' if have == 'graph' else 'load array'}")
    return have


def convert(data, form: str, box_graph: Callable[[Boxes], Graph] | None = None):
    """``data`` (Graph, Boxes or LoadArray) converted to ``form``; ValueError when impossible.

    ``box_graph(boxes)`` gives a box level's graph (default :func:`boxes_to_graph`; the runner passes the
    workload cache's)."""
    have = check_form(data, form)
    if have == form:
        return data
    if have == "boxes":
        g = (box_graph or boxes_to_graph)(data)
        return g if form == "graph" else graph_to_array(g)
    return array_to_graph(data) if form == "graph" else graph_to_array(data)


def vertices(data) -> int:
    """How many vertices the graph form of ``data`` has, without building it."""
    return int(data.load.size) if form_of(data) == "array" else int(data.n)


def cell_vertices(data, form: str) -> np.ndarray:
    """For each item (vertex / cell / box) of ``convert(data, form)``, the vertex of the graph form it is.

    The identity except for ``form == "array"`` from a graph or boxes, where
    cell i of the Hilbert-ordered array is graph vertex ``result[i]``: a
    partition ``parts_cells`` of the array is ``parts[result] = parts_cells`` on
    the graph.
    """
    have = check_form(data, form)
    if form == "array" and have != "array":  # a box level's cells follow its graph's coordinates, built alone
        return hilbert_order(box_centres(data) if have == "boxes" else _require_coords(data))
    return np.arange(vertices(data), dtype=IDX)


# ---------------------------------------------------------------- Hilbert curve

def hilbert_index(q: np.ndarray, bits: int) -> np.ndarray:
    """Hilbert index of integer points ``q`` (shape (n, d), entries in [0, 2**bits)).

    Skilling's transpose algorithm ("Programming the Hilbert curve", AIP Conf.
    Proc. 707, 2004), vectorized over the points; d * bits <= 63.
    """
    x = np.array(q, dtype=np.uint64, copy=True)
    n, d = x.shape
    if d * bits > 63:
        raise ValueError(f"{d} dimensions x {bits} bits do not fit a 64-bit Hilbert index")
    if n == 0:
        return np.zeros(0, np.uint64)
    one = np.uint64(1)
    m = one << np.uint64(bits - 1)
    # inverse undo excess work
    qb = m
    while qb > one:
        p = qb - one
        for i in range(d):
            hi = (x[:, i] & qb) != 0
            # where set: invert low bits of x[0]; else exchange low bits of x[0] and x[i]
            x[hi, 0] ^= p
            t = (x[~hi, 0] ^ x[~hi, i]) & p
            x[~hi, 0] ^= t
            x[~hi, i] ^= t
        qb >>= one
    # Gray encode
    for i in range(1, d):
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(n, np.uint64)
    qb = m
    while qb > one:
        sel = (x[:, d - 1] & qb) != 0
        t[sel] ^= qb - one
        qb >>= one
    x ^= t[:, None]
    # interleave the transposed bits: most significant bit of x[0] first
    h = np.zeros(n, np.uint64)
    for b in range(bits - 1, -1, -1):
        for i in range(d):
            h = (h << one) | ((x[:, i] >> np.uint64(b)) & one)
    return h


def hilbert_order(coords: np.ndarray, bits: int | None = None) -> np.ndarray:
    """Vertex order along a Hilbert curve through the bounding box of ``coords`` (ties by vertex id)."""
    c = np.asarray(coords, float)
    if c.ndim != 2 or c.shape[1] < 1:
        raise ValueError(f"coordinates must have shape (n, d), got {c.shape}")
    n, d = c.shape
    if n == 0:
        return np.zeros(0, IDX)
    if d == 1:
        return np.argsort(c[:, 0], kind="stable").astype(IDX)
    bits = bits or min(21, 63 // d)
    lo, hi = c.min(axis=0), c.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    q = np.minimum(((c - lo) / span * (1 << bits)).astype(np.int64), (1 << bits) - 1)
    h = hilbert_index(q, bits)
    return np.lexsort((np.arange(n), h)).astype(IDX)


def _require_coords(g: Graph) -> np.ndarray:
    if g.coords is None:
        raise ValueError("cannot lay a graph without coordinates along a space-filling curve "
                         "(graph -> array needs vertex coordinates)")
    return g.coords


def graph_to_array(g: Graph) -> LoadArray:
    """The graph's pwgt as a 1-D load array in Hilbert order of its coordinates."""
    order = hilbert_order(_require_coords(g))
    return LoadArray(g.pwgt[order])


# ---------------------------------------------------------------- arrays

def array_to_graph(a: LoadArray) -> Graph:
    """Grid graph of the cells of an n-D load array (C order), face-adjacent cells joined."""
    load = a.load
    shape = load.shape if load.ndim else (1,)
    n = int(np.prod(shape))
    ids = np.arange(n, dtype=IDX).reshape(shape)
    us, vs = [], []
    for ax in range(len(shape)):
        lo = [slice(None)] * len(shape)
        hi = [slice(None)] * len(shape)
        lo[ax], hi[ax] = slice(0, -1), slice(1, None)
        us.append(ids[tuple(lo)].ravel())
        vs.append(ids[tuple(hi)].ravel())
    u = np.concatenate(us) if us else np.zeros(0, IDX)
    v = np.concatenate(vs) if vs else np.zeros(0, IDX)
    coords = np.stack(np.unravel_index(np.arange(n), shape), axis=1).astype(float)
    w = load.reshape(-1)
    return Graph.from_edges(n, u, v, pwgt=w, rwgt=w, coords=coords, name="array")


# ---------------------------------------------------------------- boxes

def _coarse_overlaps(b: Boxes):
    """Pairs (coarse box, fine box) on consecutive levels whose regions overlap, with the fine box's
    boundary cell faces that lie over the coarse box (at least 1: the overlap alone already means
    restriction / prolongation traffic)."""
    r = b.ratio
    U, V, Wt = [], [], []
    levels = np.unique(b.level)
    for lev in levels[1:]:
        fine = np.nonzero(b.level == lev)[0]
        coarse = np.nonzero(b.level == lev - 1)[0]
        if not fine.size or not coarse.size:
            continue
        flo, fhi = b.lo[fine], b.hi[fine]
        clo, chi = b.lo[coarse] * r, (b.hi[coarse] + 1) * r - 1  # coarse regions in fine index space
        fi, ci, _ = overlap_join(flo, fhi, clo, chi)
        lo, hi = flo[fi], fhi[fi]
        plo, phi = clo[ci], chi[ci]
        span_all = np.clip(np.minimum(hi, phi) - np.maximum(lo, plo) + 1, 0, None)
        faces = np.zeros(fi.size, IDX)
        for k in range(lo.shape[1]):
            # the fine box's low and high face cells that lie over the coarse box
            span = np.prod(np.delete(span_all, k, axis=1), axis=1)
            faces += span * ((lo[:, k] >= plo[:, k]) & (lo[:, k] <= phi[:, k]))
            faces += span * ((hi[:, k] >= plo[:, k]) & (hi[:, k] <= phi[:, k]))
        U.append(coarse[ci])
        V.append(fine[fi])
        Wt.append(np.maximum(faces, 1))
    if not U:
        return np.zeros(0, IDX), np.zeros(0, IDX), np.zeros(0, IDX)
    return np.concatenate(U), np.concatenate(V), np.concatenate(Wt)


def boxes_to_graph(b: Boxes) -> Graph:
    """Boxes as vertices; same-level face neighbours and coarse-fine edges weighted by shared faces."""
    us, vs, ws = [], [], []
    for lev in np.unique(b.level):
        idx = np.nonzero(b.level == lev)[0]
        i, j, w = face_pairs(b.lo[idx], b.hi[idx])
        us.append(idx[i])
        vs.append(idx[j])
        ws.append(w)
    u, v, w = _coarse_overlaps(b)
    us.append(u)
    vs.append(v)
    ws.append(w)
    u = np.concatenate(us)
    v = np.concatenate(vs)
    w = np.concatenate(ws)
    return Graph.from_edges(b.n, u, v, w, pwgt=b.work, rwgt=b.cells, coords=box_centres(b), name="boxes")


def box_centres(b: Boxes) -> np.ndarray:
    """Each box's centre in base-level cell units: the box graph's coordinates."""
    scale = float(b.ratio) ** b.level[:, None].astype(float)
    return (b.lo + b.hi + 1) / 2.0 / scale
