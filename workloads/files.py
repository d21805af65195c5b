"""``files``: the user's own data as a workload.

``path`` names one file, a directory (every readable file in it, in natural
sort order) or a glob pattern; each file is one level.

* METIS / Chaco ``.graph`` files (also ``.metis``, ``.chaco``): the header
  ``n m [fmt [ncon]]`` then one line per vertex. ``fmt`` digits as in the METIS
  manual (§4.1.1): hundreds = vertex sizes, tens = vertex weights, units = edge
  weights; in ``format=chaco`` the hundreds digit means "each line starts with
  its vertex number" instead (Chaco user guide §3). Mapping to lbbench: the
  first vertex weight -> pwgt; the vertex size (METIS's redistribution size)
  or else the second vertex weight -> rwgt, else rwgt = pwgt; edge weights ->
  cwgt (1 when absent). Lines starting with ``%`` (or ``#``) are comments. A
  sibling file with the same stem and suffix ``.xyz`` or ``.coords`` (one
  vertex per line, 1-3 numbers) gives coordinates.
* Any other file is read with meshio: the cells of the highest dimension
  (simplices, quads, hexahedra, wedges, pyramids) become the vertices, an edge
  joins cells sharing a face (cwgt 1), coords are cell centroids; cell data named
  ``pwgt`` / ``rwgt`` (if present) give the weights, else 1.

Levels with different vertex counts are linked by ``Level.parent``: each vertex's
parent is the nearest vertex (by coordinates) of the previous level; without
coordinates the levels must have equal sizes. A malformed file raises
``ValueError`` naming the file and the line.
"""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import numpy as np

from harness import Graph, Level, Workload, lazy_module
from harness.store.contain import contained
from harness.contract.model import IDX
from harness.store.validate import MAX_WEIGHT

spatial = lazy_module("scipy.spatial")  # imported when levels of different sizes are linked

GRAPH_SUFFIXES = {".graph", ".metis", ".chaco", ".gr"}
SIDECARS = (".xyz", ".coords")


def _natural(s: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def expand(path: str) -> list[Path]:
    """The files a ``path`` parameter names, in natural order."""
    if not path:
        raise ValueError("workload files: give path=FILE, path=DIRECTORY or path='GLOB'")
    p = Path(path).expanduser()
    if p.is_dir():
        files = [f for f in p.iterdir() if f.is_file() and f.suffix not in SIDECARS and not f.name.startswith(".")]
    elif p.is_file():
        files = [p]
    else:
        files = [Path(f) for f in glob.glob(os.path.expanduser(path)) if Path(f).is_file()]
        files = [f for f in files if f.suffix not in SIDECARS]
    if not files:
        raise ValueError(f"workload files: no files match {path!r}")
    return sorted(files, key=lambda f: _natural(str(f)))


# ------------------------------------------------------------------ METIS / Chaco

def _data_lines(text: str):
    """(line number, tokens) of the non-comment lines; blank lines are kept (isolated vertices)."""
    for no, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if s.startswith("%") or s.startswith("#"):
            continue
        yield no, s.split()


MAX_VALUE = MAX_WEIGHT  # 2^53: every weight, and every sum of weights, exact in the float64 the metrics use


def _ints(path, no, toks, what):
    try:
        vals = [int(t) for t in toks]
    except ValueError:
        bad = next(t for t in toks if not re.fullmatch(r"[+-]?\d+", t))
        raise ValueError(f"{path}:{no}: {what}: {bad!r} is not an integer") from None
    big = [v for v in vals if abs(v) > MAX_VALUE]
    if big:
        raise ValueError(f"{path}:{no}: {what}: {big[0]} is larger than 2^53")
    return vals


def _check_sums(path, **arrays) -> None:
    for name, a in arrays.items():
        if a.size and int(a.sum(dtype=object)) > MAX_VALUE:
            raise ValueError(f"{path}: the {name} weights sum to more than 2^53 (metrics would lose exactness)")


def read_graph(path, format: str = "auto") -> Graph:
    """A METIS or Chaco graph file as a :class:`Graph` (see the module docstring)."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from None
    lines = _data_lines(text)
    header = None
    for no, toks in lines:
        if toks:
            header = (no, toks)
            break
    if header is None:
        raise ValueError(f"{path}:1: empty graph file (expected the header 'n m [fmt [ncon]]')")
    hno, htoks = header
    if not 2 <= len(htoks) <= 4:
        raise ValueError(f"{path}:{hno}: header must be 'n m [fmt [ncon]]', got {' '.join(htoks)!r}")
    vals = _ints(path, hno, htoks[:2] + ([htoks[3]] if len(htoks) == 4 else []), "header")
    n, m = vals[0], vals[1]
    fmt = htoks[2] if len(htoks) >= 3 else "0"
    if not re.fullmatch(r"[01]{1,3}", fmt):
        raise ValueError(f"{path}:{hno}: fmt must be up to three 0/1 digits, got {fmt!r}")
    fmt = fmt.zfill(3)
    first, has_vw, has_ew = fmt[0] == "1", fmt[1] == "1", fmt[2] == "1"
    chaco = format == "chaco" or (format == "auto" and path.suffix == ".chaco")
    has_vsize, has_vnum = first and not chaco, first and chaco
    ncon = vals[2] if len(htoks) == 4 else (1 if has_vw else 0)
    if len(htoks) == 4 and not has_vw:
        raise ValueError(f"{path}:{hno}: ncon given but fmt {fmt} has no vertex weights")
    if n < 0 or m < 0 or ncon < 0:
        raise ValueError(f"{path}:{hno}: n, m and ncon must be non-negative")
    # plausibility before allocating: one line per vertex, two tokens per edge at least
    lines_after = text.count("\n") + 1 - hno
    if n > lines_after + 1:
        raise ValueError(f"{path}:{hno}: header announces {n} vertices, the file has only {lines_after} more lines")
    if 2 * m > len(text.split()):
        raise ValueError(f"{path}:{hno}: header announces {m} edges, more than the file's numbers can hold")
    lead = int(has_vnum) + int(has_vsize) + ncon
    step = 2 if has_ew else 1
    vsize = np.ones(n, IDX)
    vw = np.ones((n, max(ncon, 1)), IDX)
    src, dst, ew, where = [], [], [], np.zeros(n, np.int64)
    v = 0
    for no, toks in lines:
        if v >= n:
            if toks:
                raise ValueError(f"{path}:{no}: more vertex lines than the {n} the header announces")
            continue
        nums = _ints(path, no, toks, f"vertex {v + 1}")
        where[v] = no
        if len(nums) < lead or (len(nums) - lead) % step:
            raise ValueError(f"{path}:{no}: vertex {v + 1}: expected {lead} leading value(s) and "
                             f"{'(neighbour, weight) pairs' if has_ew else 'neighbours'}, got {len(nums)} numbers")
        k = 0
        if has_vnum:
            if nums[0] != v + 1:
                raise ValueError(f"{path}:{no}: vertex number {nums[0]}, expected {v + 1}")
            k += 1
        if has_vsize:
            vsize[v] = nums[k]
            k += 1
        if ncon:
            vw[v, :ncon] = nums[k:k + ncon]
            k += ncon
        rest = nums[k:]
        nb = rest[0::step]
        for u in nb:
            if not 1 <= u <= n:
                raise ValueError(f"{path}:{no}: vertex {v + 1}: neighbour {u} out of range 1..{n}")
            if u == v + 1:
                raise ValueError(f"{path}:{no}: vertex {v + 1}: self loop")
        src.extend([v] * len(nb))
        dst.extend(u - 1 for u in nb)
        ew.extend(rest[1::2] if has_ew else [1] * len(nb))
        v += 1
    if v < n:
        raise ValueError(f"{path}:{len(text.splitlines()) + 1}: only {v} vertex lines, the header announces {n}")
    if (vw < 0).any() or (vsize < 0).any():
        bad = int(np.argmax((vw < 0).any(axis=1) | (vsize < 0)))
        raise ValueError(f"{path}:{where[bad]}: vertex {bad + 1}: negative weight")
    src, dst, ew = np.asarray(src, IDX), np.asarray(dst, IDX), np.asarray(ew, IDX)
    _check_sums(path, vertex=vw, size=vsize, edge=ew)
    if (ew < 0).any():
        i = int(np.argmax(ew < 0))
        raise ValueError(f"{path}:{where[src[i]]}: vertex {src[i] + 1}: negative edge weight")
    order = np.lexsort((dst, src))
    if np.any((src[order][1:] == src[order][:-1]) & (dst[order][1:] == dst[order][:-1])):
        i = order[1:][(src[order][1:] == src[order][:-1]) & (dst[order][1:] == dst[order][:-1])][0]
        raise ValueError(f"{path}:{where[src[i]]}: vertex {src[i] + 1}: neighbour {dst[i] + 1} listed twice")
    # symmetry: every (u, v, w) needs its (v, u, w)
    if src.size:
        skey = (src * n + dst)[order]
        rkey = dst * n + src
        pos = np.minimum(np.searchsorted(skey, rkey), skey.size - 1)
        ok = skey[pos] == rkey
        if not ok.all():
            i = int(np.argmax(~ok))
            raise ValueError(f"{path}:{where[src[i]]}: vertex {src[i] + 1} lists {dst[i] + 1}, "
                             f"but vertex {dst[i] + 1} does not list {src[i] + 1}")
        back = ew[order][pos]
        if not np.array_equal(back, ew):
            i = int(np.argmax(back != ew))
            raise ValueError(f"{path}:{where[src[i]]}: edge {src[i] + 1}-{dst[i] + 1} has weight {ew[i]} here "
                             f"but {back[i]} on line {where[dst[i]]}")
    if src.size != 2 * m:
        raise ValueError(f"{path}:{hno}: header announces {m} edges, the vertex lines give {src.size // 2}")
    xadj = np.zeros(n + 1, IDX)
    np.cumsum(np.bincount(src, minlength=n), out=xadj[1:])
    pwgt = vw[:, 0]
    rwgt = vsize if has_vsize else (vw[:, 1] if ncon >= 2 else pwgt)
    coords = _sidecar_coords(path, n)
    return Graph(xadj, dst[order], pwgt=pwgt, rwgt=rwgt, cwgt=ew[order], coords=coords, name=path.name)


def _sidecar_coords(path: Path, n: int):
    for suf in SIDECARS:
        side = path.with_suffix(suf)
        if side.is_file():
            rows = []
            for no, toks in _data_lines(side.read_text()):
                if not toks:
                    continue
                try:
                    rows.append([float(t) for t in toks])
                except ValueError:
                    raise ValueError(f"{side}:{no}: coordinates must be numbers") from None
                if len(rows[-1]) != len(rows[0]) or not 1 <= len(rows[0]) <= 3:
                    raise ValueError(f"{side}:{no}: expected {len(rows[0])} coordinates (1 to 3 per line)")
            if len(rows) != n:
                raise ValueError(f"{side}: {len(rows)} coordinate lines for {n} vertices")
            return np.asarray(rows, float)
    return None


# ------------------------------------------------------------------ meshio meshes

# faces of each cell type as local vertex tuples (meshio / VTK node order)
FACES = {
    "line": [(0,), (1,)],
    "triangle": [(1, 2), (0, 2), (0, 1)],
    "quad": [(0, 1), (1, 2), (2, 3), (3, 0)],
    "tetra": [(1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)],
    "hexahedron": [(0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)],
    "wedge": [(0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)],
    "pyramid": [(0, 1, 2, 3), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)],
}
DIM = {"line": 1, "triangle": 2, "quad": 2, "tetra": 3, "hexahedron": 3, "wedge": 3, "pyramid": 3}


def dual_of_cells(blocks: list[np.ndarray], types: list[str]):
    """Edges (a, b) between cells of the given blocks that share a face (each once)."""
    faces, owner = [], []
    start = 0
    for cells, t in zip(blocks, types):
        for f in FACES[t]:
            fv = np.sort(cells[:, list(f)], axis=1)
            pad = np.full((fv.shape[0], 4 - fv.shape[1]), -1, IDX)
            faces.append(np.hstack([pad, fv]))
            owner.append(np.arange(start, start + cells.shape[0], dtype=IDX))
        start += cells.shape[0]
    flat, own = np.vstack(faces), np.concatenate(owner)
    order = np.lexsort(flat.T[::-1])
    flat, own = flat[order], own[order]
    same = np.all(flat[1:] == flat[:-1], axis=1)
    if np.any(same[1:] & same[:-1]):
        raise ValueError("a face is shared by more than two cells (non-manifold mesh)")
    a, b = own[:-1][same], own[1:][same]
    return np.minimum(a, b), np.maximum(a, b), start


def read_mesh(path) -> Graph:
    """Any mesh meshio reads, as the dual graph of its highest-dimensional cells."""
    import meshio

    path = Path(path)
    try:
        with contained(f"{path}: cannot read mesh"):  # meshio may print and sys.exit on a malformed file
            mesh = meshio.read(str(path))
    except ValueError as exc:
        if str(exc).startswith(f"{path}: cannot read mesh"):
            raise
        raise ValueError(f"{path}: cannot read mesh: {exc}") from None
    except Exception as exc:  # meshio raises many types; one clear line for the user
        line = getattr(exc, "lineno", None)
        where = f"{path}:{line}" if line else str(path)
        raise ValueError(f"{where}: cannot read mesh: {str(exc).strip() or type(exc).__name__}") from None
    known = [i for i, cb in enumerate(mesh.cells) if cb.type in DIM]
    if not known:
        raise ValueError(f"{path}: no cells of a supported type ({', '.join(DIM)})")
    top = max(DIM[mesh.cells[i].type] for i in known)
    use = [i for i in known if DIM[mesh.cells[i].type] == top]
    blocks = [np.asarray(mesh.cells[i].data, IDX) for i in use]
    types = [mesh.cells[i].type for i in use]
    npts = len(mesh.points)
    for cells in blocks:
        if cells.size and (cells.min() < 0 or cells.max() >= npts):
            raise ValueError(f"{path}: a cell refers to point {int(cells.max())}, the mesh has {npts} points")
    try:
        a, b, n = dual_of_cells(blocks, types)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    pts = np.asarray(mesh.points, float)
    coords = np.vstack([pts[c].mean(axis=1) for c in blocks])

    def cell_weight(name):
        data = mesh.cell_data.get(name)
        if data is None:
            return None
        w = np.concatenate([np.asarray(data[i]).reshape(-1) for i in use])
        if not np.all(np.equal(np.mod(w, 1), 0)) or (w < 0).any():
            raise ValueError(f"{path}: cell data {name!r} must hold non-negative integers")
        return w.astype(IDX)

    pwgt = cell_weight("pwgt")
    rwgt = cell_weight("rwgt")
    return Graph.from_edges(n, a, b, pwgt=pwgt, rwgt=rwgt, coords=coords, name=path.name)


# ------------------------------------------------------------------ the workload

def read(path, format: str = "auto") -> Graph:
    path = Path(path)
    if format not in ("auto", "metis", "chaco", "mesh"):
        raise ValueError(f"workload files: format must be auto, metis, chaco or mesh, got {format!r}")
    if format in ("metis", "chaco") or (format == "auto" and path.suffix in GRAPH_SUFFIXES):
        return read_graph(path, format)
    return read_mesh(path)


def parents(prev: Graph, cur: Graph, name: str):
    """parent[v] of each vertex of ``cur`` in ``prev`` (None when the vertex sets are equal)."""
    if prev.n == cur.n:
        return None
    if prev.coords is None or cur.coords is None or prev.coords.shape[1] != cur.coords.shape[1]:
        raise ValueError(f"{name}: has {cur.n} vertices, the previous level {prev.n}; levels of different "
                         f"sizes need coordinates to link each vertex to the previous level")
    return spatial.cKDTree(prev.coords).query(cur.coords)[1].astype(IDX)


def generate(seed: int = 0, path: str = "", format: str = "auto"):
    files = expand(path)
    levels, prev = [], None
    for i, f in enumerate(files, start=1):
        g = read(f, format)
        parent = parents(prev, g, str(f)) if prev is not None else None
        levels.append(Level(i, g, parent=parent, meta={"file": str(f)}))
        prev = g
    return levels


WORKLOAD = Workload(
    "files", generate, version="1", params={"path": "", "format": "auto"}, cache=False,
    description="your own METIS/Chaco .graph files or meshio meshes; a directory or glob = one level per file")
