"""The data model shared by the harness and every plugin (docs/architecture.md, "Data model").

All arrays are numpy; every class validates on construction and raises
``ValueError`` naming the problem.
"""
from __future__ import annotations

import mmap
from dataclasses import InitVar, dataclass, field
from typing import Any

import numpy as np

from ..kernels import _graph

IDX = np.int64
MAX_SLOWDOWN = 1e6  # the largest Proc / Conn slowdown a Machine takes (MinEX's tables go to 1000)


def breadth_first(xadj, adjncy, roots) -> np.ndarray:
    """The breadth-first order of a graph given as rows (``adjncy[xadj[v]:xadj[v + 1]]``: v's neighbours in the
    order they are to be visited; need not be symmetric), searched from each of ``roots`` in turn that no
    earlier search reached; every vertex reached once. C: ``harness/kernels/_graph.c``."""
    return np.frombuffer(_graph.bfs(np.ascontiguousarray(xadj, IDX), np.ascontiguousarray(adjncy, IDX),
                                    np.ascontiguousarray(roots, IDX)), IDX)


def row_prod(a) -> np.ndarray:
    """``np.prod(a, axis=1)`` of a 2-D array column by column (a tenth of its time on many short rows)."""
    a = np.asarray(a)
    out = np.ones(a.shape[0], np.int64 if a.dtype.kind in "biu" else a.dtype)
    for k in range(a.shape[1]):
        out *= a[:, k]
    return out


class FrozenBuffer:
    """Memory its maker writes before it hands out read-only arrays over it and never after, and keeps while
    any of them lives (a host-shared array: ``harness.engine.shared``); the ``base`` of those arrays."""


def unwritable(arr: np.ndarray) -> bool:
    """Nothing can write ``arr``: frozen and owning its memory (another Graph's array), or an aligned view of
    bytes, of a file mapped read-only (a workload cache file's, ``harness.store.wlcache``) or of a
    :class:`FrozenBuffer` (a host-shared array's): taken as it is."""
    if arr.flags.writeable or not arr.flags.aligned:
        return False
    root = arr
    while isinstance(root, np.ndarray) and root.base is not None:
        root = root.base
    if isinstance(root, memoryview):
        root = root.obj if root.readonly else None
    return root is arr or isinstance(root, (bytes, FrozenBuffer)) or \
        (isinstance(root, mmap.mmap) and memoryview(root).readonly)


def _as_int_array(name: str, values, length: int | None = None, *, nonneg: bool = True) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(values))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise ValueError(f"{name} must hold integers")
    if arr.dtype != IDX or not unwritable(arr):
        arr = arr.astype(IDX, copy=True)  # never freeze the caller's array; a frozen one (another Graph's) is shared
    if length is not None and arr.size != length:
        raise ValueError(f"{name} has length {arr.size}, expected {length}")
    if nonneg and arr.size and arr.min() < 0:
        raise ValueError(f"{name} has negative entries (first at index {int(np.argmax(arr < 0))})")
    arr.setflags(write=False)
    return arr


def check_integer_dtype(name: str, values) -> None:
    """The one rule for an assignment (owners, homes, a partition): an integer dtype, whatever the values.

    A float array is refused even when its values are whole (``np.zeros(n)`` is a bug more often than a
    choice): ``ValueError("owner has dtype float64, expected integers")``.
    """
    dtype = np.asarray(values).dtype
    if np.asarray(values).size and not np.issubdtype(dtype, np.integer):
        raise ValueError(f"{name} has dtype {dtype}, expected integers")


def _check_rows(xadj: np.ndarray, src: np.ndarray, block: int = 1 << 18) -> None:
    """``src`` is the CSR row of every adjacency entry (``np.repeat(arange(n), diff(xadj))``), compared ``block``
    vertices at a time (no temporary of the adjacency's size)."""
    n = xadj.size - 1
    for v in range(0, n, block):
        w = min(v + block, n)
        a, b = int(xadj[v]), int(xadj[w])
        if not np.array_equal(src[a:b], np.repeat(np.arange(v, w, dtype=IDX), np.diff(xadj[v:w + 1]))):
            raise ValueError("src_array is not the row of each adjacency entry")


def _check_symmetric(src: np.ndarray, adjncy: np.ndarray, cwgt: np.ndarray) -> None:
    """Symmetry of adjacency and of cwgt: the sorted (u, v, w) triples equal the sorted (v, u, w) ones.

    Entries are sorted by the one key ``u * n + v`` (stable); only when the weights do not line up that
    way (parallel entries between two vertices) are they compared with the weight as second key.
    """
    n = int(max(src.max(), adjncy.max())) + 1 if src.size else 0
    fk, bk = src * n + adjncy, adjncy * n + src
    fwd, bwd = np.argsort(fk, kind="stable"), np.argsort(bk, kind="stable")
    if not np.array_equal(fk[fwd], bk[bwd]):
        raise ValueError("adjacency is not symmetric")
    if np.array_equal(cwgt[fwd], cwgt[bwd]):
        return
    fwd, bwd = np.lexsort((cwgt, fk)), np.lexsort((cwgt, bk))
    if not np.array_equal(cwgt[fwd], cwgt[bwd]):
        raise ValueError("cwgt is not symmetric")


@dataclass(frozen=True, eq=False)
class Graph:
    """A weighted dual graph in CSR form, immutable and validated (one ``ValueError`` line on bad input).

    Build one from an edge list with :meth:`Graph.from_edges`. The neighbours of
    v are ``adjncy[xadj[v]:xadj[v + 1]]``; ``src[e]`` is the vertex adjacency
    entry e starts at, so ``(src, adjncy, cwgt)`` lists every edge twice.

    Attributes:
        xadj: CSR row starts, length n + 1, from 0, non-decreasing.
        adjncy: the neighbour of each adjacency entry (both directions of every edge).
        pwgt: processing weight per vertex: leaf elements of its refinement tree (default 1).
        rwgt: redistribution weight per vertex: all elements of its tree (default ``pwgt``).
        cwgt: communication weight per adjacency entry, symmetric (default 1).
        coords: optional ``(n, dim)`` float coordinates (pictures, Hilbert order, ORB).
        name: a label.
        symmetric: built symmetric (``from_edges``): skips the symmetry check.
        src_array: this graph's :attr:`src` when the caller has it (the workload cache maps it from its file,
            one copy per host): checked block by block and kept as it is (a frozen int64 array) or copied.

    Example:
        >>> g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], w=[1, 2, 1], pwgt=[1, 1, 2, 2])
        >>> g.n, g.nedges, g.neighbours(1).tolist()
        (4, 3, [0, 2])
    """

    xadj: np.ndarray
    adjncy: np.ndarray
    pwgt: np.ndarray | None = None
    rwgt: np.ndarray | None = None
    cwgt: np.ndarray | None = None
    coords: np.ndarray | None = None
    name: str = ""
    symmetric: InitVar[bool] = False  # built symmetric (from_edges): skip the O(m log m) symmetry check
    src_array: InitVar[np.ndarray | None] = None  # src, when the caller has it (checked)

    def __post_init__(self, symmetric: bool = False, src_array: np.ndarray | None = None):
        xadj = _as_int_array("xadj", self.xadj)
        if xadj.size == 0 or xadj[0] != 0 or np.any(np.diff(xadj) < 0):
            raise ValueError("xadj must start at 0 and be non-decreasing")
        n = xadj.size - 1
        m2 = int(xadj[-1])
        adjncy = _as_int_array("adjncy", self.adjncy, m2)
        if m2 and adjncy.max() >= n:
            raise ValueError(f"adjncy refers to vertex {int(adjncy.max())} but the graph has {n} vertices")
        pwgt = _as_int_array("pwgt", np.ones(n, IDX) if self.pwgt is None else self.pwgt, n)
        rwgt = _as_int_array("rwgt", pwgt if self.rwgt is None else self.rwgt, n)
        cwgt = _as_int_array("cwgt", np.ones(m2, IDX) if self.cwgt is None else self.cwgt, m2)
        if src_array is None:
            src = np.repeat(np.arange(n, dtype=IDX), np.diff(xadj))
        else:
            src = _as_int_array("src_array", src_array, m2)
            _check_rows(xadj, src)
            object.__setattr__(self, "_src", src)
        if np.any(src == adjncy):
            v = int(src[np.argmax(src == adjncy)])
            raise ValueError(f"self loop at vertex {v}")
        if not symmetric:
            _check_symmetric(src, adjncy, cwgt)
        coords = self.coords
        if coords is not None:
            coords = np.ascontiguousarray(coords, dtype=float)
            if coords.ndim != 2 or coords.shape[0] != n:
                raise ValueError(f"coords must have shape (n, dim) with n = {n}, got {coords.shape}")
            coords.setflags(write=False)
        for k, v in dict(xadj=xadj, adjncy=adjncy, pwgt=pwgt, rwgt=rwgt, cwgt=cwgt, coords=coords).items():
            object.__setattr__(self, k, v)

    @property
    def n(self) -> int:
        """Number of vertices."""
        return self.xadj.size - 1

    @property
    def nedges(self) -> int:
        """Number of undirected edges (each adjacency pair once)."""
        return int(self.xadj[-1]) // 2

    @property
    def src(self) -> np.ndarray:
        """For each adjacency entry e, the vertex it starts at (CSR row index; cached)."""
        s = self.__dict__.get("_src")
        if s is None:
            s = np.repeat(np.arange(self.n, dtype=IDX), np.diff(self.xadj))
            s.setflags(write=False)
            object.__setattr__(self, "_src", s)
        return s

    def neighbours(self, v: int) -> np.ndarray:
        """The neighbours of vertex v (a view of ``adjncy``)."""
        return self.adjncy[self.xadj[v]:self.xadj[v + 1]]

    def neighbours_of(self, verts, distinct: bool = False) -> np.ndarray:
        """The neighbours of every vertex in ``verts``, concatenated in CSR order (repeats kept); with
        ``distinct``, ``np.unique`` of that (sorted, each once). C: ``harness/kernels/_graph.c``."""
        return self._rows(verts, 1 if distinct else 0)

    def neighbourhood(self, verts) -> np.ndarray:
        """The closed neighbourhood of ``verts``: they and their neighbours, sorted, each once."""
        return self._rows(verts, 2)

    def _rows(self, verts, mode: int) -> np.ndarray:
        verts = np.ascontiguousarray(verts, IDX).reshape(-1)
        if verts.size == 0:
            return verts
        return np.frombuffer(_graph.rows(self.xadj, self.adjncy, verts, mode), IDX)

    @classmethod
    def from_edges(cls, n: int, u, v, w=None, **kw) -> "Graph":
        """Build from an undirected edge list (each edge once); symmetric by construction.

        Args:
            n: number of vertices.
            u: first end of each edge.
            v: second end of each edge (``u[i] != v[i]``; give each edge once, not both ways).
            w: communication weight of each edge (default 1); it becomes ``cwgt`` of both entries.
            **kw: the other fields: ``pwgt=``, ``rwgt=``, ``coords=``, ``name=`` (not ``cwgt=``: use ``w``).

        Returns:
            The Graph.

        Example:
            >>> ring = Graph.from_edges(5, np.arange(5), (np.arange(5) + 1) % 5, pwgt=np.full(5, 8))
        """
        u = np.asarray(u, IDX).reshape(-1)
        v = np.asarray(v, IDX).reshape(-1)
        w = np.ones(u.size, IDX) if w is None else np.asarray(w, IDX).reshape(-1)
        if not u.size == v.size == w.size:
            raise ValueError(f"edge list: {u.size} u, {v.size} v and {w.size} weights")
        src = np.concatenate([u, v])
        dst = np.concatenate([v, u])
        ww = np.concatenate([w, w])
        order = np.lexsort((dst, src))
        xadj = np.zeros(n + 1, IDX)
        np.cumsum(np.bincount(src, minlength=n), out=xadj[1:])
        return cls(xadj, dst[order], cwgt=ww[order], symmetric=True, **kw)


@dataclass(frozen=True, eq=False)
class Boxes:
    """An AMR grid hierarchy (AMR paper §2): one row per box.

    ``level[b]``, ``lo[b]``/``hi[b]`` (inclusive cell indices in the box's own
    level index space), ``parent[b]`` (-1 on the base level) and the refinement
    ratio between consecutive levels. Work of a box = cells x time-step factor
    ratio**level (finer levels take more, smaller steps).
    """

    level: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    parent: np.ndarray
    ratio: int = 2

    def __post_init__(self):
        level = _as_int_array("level", self.level)
        nb = level.size
        lo = np.asarray(self.lo, IDX).reshape(nb, -1)
        hi = np.asarray(self.hi, IDX).reshape(nb, -1)
        if lo.shape != hi.shape:
            raise ValueError("lo and hi must have the same shape")
        if np.any(hi < lo):
            raise ValueError("a box has hi < lo")
        parent = _as_int_array("parent", self.parent, nb, nonneg=False)
        if np.any((parent < -1) | (parent >= nb)):
            raise ValueError("parent out of range")
        if np.any((parent >= 0) != (level > 0)):
            raise ValueError("boxes above level 0 need a parent, level-0 boxes must have none")
        if self.ratio < 2:
            raise ValueError("refinement ratio must be >= 2")
        lo.setflags(write=False)
        hi.setflags(write=False)
        for k, v in dict(level=level, lo=lo, hi=hi, parent=parent).items():
            object.__setattr__(self, k, v)

    @property
    def n(self) -> int:
        """Number of boxes."""
        return self.level.size

    @property
    def cells(self) -> np.ndarray:
        """Cells per box."""
        return row_prod(self.hi - self.lo + 1)

    @property
    def work(self) -> np.ndarray:
        """Work per box: cells x ratio**level."""
        return self.cells * self.ratio ** self.level


@dataclass(frozen=True, eq=False)
class LoadArray:
    """An n-dimensional array of non-negative integer loads (MLB paper's interface)."""

    load: np.ndarray

    def __post_init__(self):
        a = np.asarray(self.load)
        if a.size and not np.issubdtype(a.dtype, np.integer):
            raise ValueError("load must hold integers")
        a = np.ascontiguousarray(a, dtype=IDX)
        if a.size and a.min() < 0:
            raise ValueError("load has negative entries")
        a.setflags(write=False)
        object.__setattr__(self, "load", a)

    @property
    def n(self) -> int:
        """Number of cells."""
        return self.load.size


@dataclass(frozen=True, eq=False)
class Machine:
    """P processors in C clusters (MinEX paper §2.2-2.3).

    ``proc[c] >= 1`` processing slowdown of cluster c; ``conn[c, d] >= 1``
    interconnect slowdown (intra-cluster on the diagonal); ``latency`` in
    seconds and ``bandwidth`` in bytes/s for modelled time. Processors are
    divided among clusters as evenly as possible, in contiguous blocks.
    """

    P: int
    proc: np.ndarray = field(default_factory=lambda: np.ones(1))
    conn: np.ndarray = field(default_factory=lambda: np.ones((1, 1)))
    latency: float = 40e-6
    bandwidth: float = 36e6
    name: str = "uniform"

    def __post_init__(self):
        if int(self.P) != self.P or self.P < 1:
            raise ValueError(f"P must be a positive integer, got {self.P}")
        proc = np.asarray(self.proc, float).reshape(-1)
        conn = np.asarray(self.conn, float)
        C = proc.size
        if conn.shape != (C, C):
            raise ValueError(f"conn must be {C}x{C} for {C} clusters, got shape {conn.shape}")
        if not np.allclose(conn, conn.T):
            raise ValueError("conn must be symmetric")
        if not (np.all(proc >= 1) and np.all(conn >= 1) and proc.max() <= MAX_SLOWDOWN
                and conn.max() <= MAX_SLOWDOWN):
            raise ValueError(f"slowdowns Proc and Conn must be in [1, {MAX_SLOWDOWN:g}]")
        if C > self.P:
            raise ValueError(f"{C} clusters need at least {C} processors, got P = {self.P}")
        if self.latency < 0 or self.bandwidth <= 0:
            raise ValueError("latency must be >= 0 and bandwidth > 0")
        proc.setflags(write=False)
        conn.setflags(write=False)
        object.__setattr__(self, "P", int(self.P))
        object.__setattr__(self, "proc", proc)
        object.__setattr__(self, "conn", conn)
        cluster = (np.arange(self.P, dtype=IDX) * C) // self.P
        cluster.setflags(write=False)
        object.__setattr__(self, "cluster", cluster)

    @property
    def C(self) -> int:
        """Number of clusters."""
        return self.proc.size

    @property
    def proc_of(self) -> np.ndarray:
        """Processing slowdown per processor (cached)."""
        m = self.__dict__.get("_proc_of")
        if m is None:
            m = self.proc[self.cluster]
            m.setflags(write=False)
            object.__setattr__(self, "_proc_of", m)
        return m

    @property
    def conn_pp(self) -> np.ndarray:
        """P x P interconnect slowdown between processors (cached)."""
        m = self.__dict__.get("_conn_pp")
        if m is None:
            m = self.conn[np.ix_(self.cluster, self.cluster)]
            m.setflags(write=False)
            object.__setattr__(self, "_conn_pp", m)
        return m

    def slowdown(self, p, q):
        """Conn between processors p and q (arrays broadcast; a plain 1.0 on a one-cluster machine)."""
        if self.C == 1:
            return self.conn[0, 0]
        return self.conn[self.cluster[p], self.cluster[q]]

    @classmethod
    def uniform(cls, P: int) -> "Machine":
        """P processors in one cluster (no slowdowns)."""
        return cls(P, name="uniform")

    @classmethod
    def sp2(cls, P: int) -> "Machine":
        """The wide-node IBM SP2 of the SBN paper §5.4: 40 µs latency, 36 MB/s."""
        return cls(P, latency=40e-6, bandwidth=36e6, name="sp2")

    @classmethod
    def grid(cls, P: int, C: int, I: float) -> "Machine":
        """MinEX's C clusters with inter-cluster slowdown I (intra-cluster 1)."""
        conn = np.full((C, C), float(I))
        np.fill_diagonal(conn, 1.0)
        return cls(P, proc=np.ones(C), conn=conn, name=f"grid:{C}:{I:g}")

    @classmethod
    def parse(cls, spec: str, P: int) -> "Machine":
        """``uniform``, ``sp2`` or ``grid:C:I``."""
        parts = spec.split(":")
        if parts == ["uniform"]:
            return cls.uniform(P)
        if parts == ["sp2"]:
            return cls.sp2(P)
        if parts[0] == "grid" and len(parts) == 3:
            try:
                C, I = int(parts[1]), float(parts[2])
            except ValueError:
                raise ValueError(f"machine {spec!r}: grid takes grid:C:I with integer C and number I") from None
            if not 1 <= C <= P or not 1 <= I <= MAX_SLOWDOWN:
                raise ValueError(f"machine {spec!r}: C must be in [1, P = {P}] and I in [1, {MAX_SLOWDOWN:g}]")
            return cls.grid(P, C, I)
        raise ValueError(f"unknown machine {spec!r} (use uniform, sp2 or grid:C:I)")


@dataclass(frozen=True, eq=False)
class State:
    """Where each vertex is computed (``owner``) and where its data lives (``home``).

    Data moves when ``home`` changes; the runner accounts for it. ``owner``
    and ``home`` must have an integer dtype (a float array is refused even
    with whole values, as a partition is) and lie in ``[0, P)``.

    Attributes:
        owner: the processor that computes each vertex (or box, or cell).
        home: the processor that holds its data.
        P: the number of processors.
        pieces: on boxes levels, a :class:`BoxPieces` (sub-boxes and their owners; ``owner`` summarises per box).

    Example:
        >>> moved = State(new_owner, ctx.state.home, ctx.P)   # lazy: data stays, the runner counts nothing yet
        >>> done = State.settled(new_owner, ctx.P)            # data where it is computed
    """

    owner: np.ndarray
    home: np.ndarray
    P: int
    pieces: Any = None

    def __post_init__(self):
        check_integer_dtype("owner", self.owner)
        check_integer_dtype("home", self.home)
        owner = _as_int_array("owner", self.owner)
        # a settled state's homes are its owners: one frozen array, not two copies (issue 52)
        home = owner if self.home is self.owner else _as_int_array("home", self.home, owner.size)
        for name, a in (("owner", owner), ("home", home)):
            if a.size and a.max() >= self.P:
                raise ValueError(f"{name} has processor {int(a.max())} out of range for P = {self.P}")
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "home", home)

    @classmethod
    def settled(cls, owner, P: int, pieces=None) -> "State":
        """A state whose data already lives where it is computed (``home = owner``).

        Args:
            owner: an integer array, one processor per vertex.
            P: the number of processors.
            pieces: box pieces on a boxes level (else None).

        Returns:
            The State.

        Example:
            >>> return State.settled(owner, ctx.P)   # the end of a balance hook
        """
        owner = np.asarray(owner)
        return cls(owner, owner, P, pieces)

    def with_owner(self, owner) -> "State":
        """The same homes with new owners (no data moved yet)."""
        return State(owner, self.home, self.P)

    def migrated(self) -> "State":
        """All data moved to its owner (eager migration, as PLUM does)."""
        return State(self.owner, self.owner, self.P, self.pieces)


@dataclass(frozen=True)
class Level:
    """One adaptation level of a workload (``ctx.level`` is one: ``ctx.level.index`` is its number).

    Attributes:
        index: the level's number as the papers count (1, 2, ...).
        data: the level: a :class:`Graph`, :class:`Boxes` or :class:`LoadArray`.
        parent: ``parent[v]`` is the vertex of the previous level that v came from (owners and homes carry
            over through it); None means the identity (same vertices as the previous level, or the first level).
            ``parent[v] = -1`` marks a vertex with no parent (a new task of a trace): it starts on processor
            ``meta["home"][v]``.
        meta: anything else a workload wants to keep (plain data), e.g. ``triangles`` for a picture.
        pinned: None, or one int64 per vertex of the level's graph: -1 for a migratable object, ``p >= 0``
            for an object pinned to processor p (its owner and home must stay p; docs/plugins.md,
            "Pinned objects").
        shared_id: None, or one int64 per vertex of the level's graph: the id of the memory block the object
            shares with others (DARMA vt's ``user_defined.shared_id``, LBAF's shared blocks), -1 for none
            (docs/plugins.md, "Shared blocks").

    Example:
        >>> Level(2, Graph.from_edges(n, u, v), parent=np.repeat(np.arange(n // 2), 2))
    """

    index: int
    data: Any  # Graph | Boxes | LoadArray
    parent: np.ndarray | None = None  # parent[v] = vertex of the previous level that v came from
    meta: dict = field(default_factory=dict)
    pinned: np.ndarray | None = None
    shared_id: np.ndarray | None = None

    def __post_init__(self):
        for name in ("pinned", "shared_id"):  # None when every entry is -1
            a = getattr(self, name)
            if a is not None:
                a = _as_int_array(name, a, getattr(self.data, "n", None), nonneg=False)
                if a.size and a.min() < -1:
                    raise ValueError(f"{name} has entries below -1 (first at index {int(np.argmax(a < -1))})")
                object.__setattr__(self, name, a if (a >= 0).any() else None)

    @property
    def pinned_vertices(self) -> np.ndarray:
        """The indices of the pinned vertices (empty when none are pinned)."""
        return np.empty(0, IDX) if self.pinned is None else np.flatnonzero(self.pinned >= 0)

    @property
    def form(self) -> str:
        """``graph``, ``boxes`` or ``array``."""
        return {Graph: "graph", Boxes: "boxes", LoadArray: "array"}[type(self.data)]


@dataclass(frozen=True)
class Costs:
    """Per-vertex Wgt, Comm and Remap of a state (SBN paper Table 1's rows).

    Attributes:
        wgt: processing cost ``pwgt * Proc`` of each vertex on its owner.
        comm: communication cost: cwgt to neighbours whose data is elsewhere, times Conn.
        remap: redistribution cost ``rwgt * Conn`` when the vertex's data is not where it is computed.
    """

    wgt: np.ndarray
    comm: np.ndarray
    remap: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Wgt + Comm + Remap per vertex (its contribution to QWgt)."""
        return self.wgt + self.comm + self.remap
