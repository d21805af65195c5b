"""The MinEX partitioner (MinEX paper §3): contraction, partitioning, expansion.

:func:`minex` is sequential, as published, and deterministic given its seed:
the same inputs give the same owners on every MPI rank. Two implementations
make the same decisions in the same order. The Python reference
(:func:`minex_python`, on :mod:`mesh`, :mod:`heap`, :mod:`criteria`,
:mod:`contract`) is readable and can trace every move. The C kernel
(``_kernel.c``, :func:`minex_c`) is the same code in C, for speed. A test
checks that both give identical owners.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from harness import latency_model, max_tolerance, no_tolerance

from .contract import contract
from .criteria import GAINS, NORMALIZE, Criteria, Loads
from .heap import GainHeap
from .mesh import Mesh

try:
    from . import _kernel
except ImportError:  # built without a C compiler
    _kernel = None

IMPLS = ("auto", "c", "python")


@dataclass
class Stats:
    """What one call did (goes into the results row through ctx.record)."""

    impl: str = ""
    coarse_vertices: int = 0
    merges: int = 0
    coarse_moves: int = 0
    expand_moves: int = 0
    passes: int = 0
    seconds: dict = field(default_factory=dict)


class Refiner:
    """The heap-driven move loop shared by §3.6 (coarse graph) and §3.7 (each expansion step)."""

    def __init__(self, crit: Criteria, max_moves: int):
        self.crit = crit
        self.mesh = crit.mesh
        self.heap = GainHeap()
        self.max_moves = max_moves

    def consider(self, v: int) -> None:
        """(Re)compute v's best admissible move and put it in the heap (or take v's record out)."""
        e = self.crit.evaluate(v)
        if e is None:
            self.heap.remove(v)
        else:
            self.heap.put(v, e[0], e)

    def drain(self) -> int:
        """Execute moves in heap (Gain) order until none is admissible; returns the moves made.

        A popped record is re-evaluated first, since earlier moves change
        loads and MinQwgt. If its Gain has risen above the next record's, it
        goes back into the heap with the new key. After a move, the moved
        vertex and its border neighbours are reconsidered (§3.7: "adjacent
        border vertices are also considered").
        """
        heap, crit, mesh = self.heap, self.crit, self.mesh
        merge, find, nbr, border = mesh.merge, mesh.find, mesh.nbr, mesh.border
        made = 0
        while len(heap):
            _, v, _ = heap.pop()
            e = crit.evaluate(v)
            if e is None:
                continue
            if len(heap) and e[0] > heap.top_gain():
                heap.put(v, e[0], e)
                continue
            crit.move(v, e)
            made += 1
            if crit.moves >= self.max_moves:
                self.heap = heap = GainHeap()
                break
            self.consider(v)
            seen = {v}
            for x in nbr[v]:
                if merge[x] != -1:
                    x = find(x)
                if x not in seen:
                    seen.add(x)
                    if border[x]:
                        self.consider(x)
        return made


def initial_border(xadj, adjncy, owner) -> np.ndarray:
    """VList's border flags: vertices with a neighbour on another processor."""
    n = len(xadj) - 1
    src = np.repeat(np.arange(n), np.diff(xadj))
    cut = owner[src] != owner[adjncy]
    return np.bincount(src[cut], minlength=n) > 0


def _model_code(model):
    """(code, fraction) of a latency model the C kernel knows, or None."""
    if model is no_tolerance:
        return 0, 0.0
    if model is max_tolerance:
        return 1, 1.0
    if hasattr(model, "fraction"):
        return 2, float(model.fraction)
    return None


def minex_python(graph, machine, owner, home, loads: Loads, seed: int, target: int, sample: int,
                 passes: int, max_moves: int, trace: list | None, stats: Stats,
                 fixed: np.ndarray | None = None) -> np.ndarray:
    """The reference implementation."""
    t0 = time.perf_counter()
    border = initial_border(graph.xadj, graph.adjncy, owner)
    mesh = Mesh(graph.xadj, graph.adjncy, graph.cwgt, graph.pwgt, graph.rwgt, owner, home, border.tolist(),
                None if fixed is None else fixed.tolist())
    crit = Criteria(mesh, machine, loads, trace)
    ref = Refiner(crit, max_moves)
    t1 = time.perf_counter()

    # §3.5 contraction
    stats.merges = contract(mesh, target, seed, sample)
    stats.coarse_vertices = mesh.nactive
    t2 = time.perf_counter()

    # §3.6 partitioning the contracted graph: every border vertex into the heap, executed in Gain order
    for _ in range(passes):
        for v in sorted(mesh.vmap):
            if mesh.border[v]:
                ref.consider(v)
        made = ref.drain()
        stats.passes += 1
        stats.coarse_moves += made
        if not made:
            break
    t3 = time.perf_counter()

    # §3.7 expansion in reverse Stack order: after each split, v and w (and moved vertices' neighbours)
    border_flags = mesh.border
    while mesh.stack:
        v, w, _ = mesh.split_top()
        if border_flags[v]:
            ref.consider(v)
            ref.consider(w)
            if len(ref.heap):
                stats.expand_moves += ref.drain()
    t4 = time.perf_counter()
    stats.seconds.update(setup=t1 - t0, contract=t2 - t1, coarse=t3 - t2, expand=t4 - t3)
    return np.asarray(mesh.owner, np.int64)


def minex_c(graph, machine, owner, home, loads: Loads, seed: int, target: int, sample: int,
            passes: int, max_moves: int, stats: Stats, fixed: np.ndarray | None = None) -> np.ndarray:
    """The C kernel: the same algorithm as :func:`minex_python` (it finds the border vertices itself)."""
    code, frac = _model_code(loads.model)
    i64 = np.int64

    def a(x, dt=i64):
        return np.ascontiguousarray(x, dtype=dt)

    W, C, R, Q = (np.array(x, float) for x in (loads.W, loads.C, loads.R, loads.Q))
    t0 = time.perf_counter()
    flags = np.zeros(graph.n, np.uint8) if fixed is None else 2 * a(fixed, np.uint8)  # bit 1: pinned
    out = _kernel.run(a(graph.xadj), a(graph.adjncy), a(graph.cwgt), a(graph.pwgt), a(graph.rwgt), a(owner),
                      a(home), flags, machine.P, machine.C, a(machine.cluster),
                      a(machine.conn, float), a(machine.proc_of, float), W, C, R, Q, loads.S1, loads.limit,
                      loads.tol, int(loads.inf), code, frac, target, sample, passes, max_moves,
                      int(seed) & ((1 << 64) - 1), int(loads.gsum))
    parts, stats.coarse_vertices, stats.merges, stats.coarse_moves, stats.expand_moves, stats.passes, _, secs = out
    stats.seconds["kernel"] = time.perf_counter() - t0
    stats.seconds.update(zip(("contract", "coarse", "expand"), secs))
    return np.frombuffer(parts, dtype=i64).copy()


def check_params(throttle, latency, coarse, sample, passes, normalize, impl, gain="sum", unit=1.0) -> None:
    """ValueError (one line) for a parameter MinEX cannot run with."""
    if impl not in IMPLS:
        raise ValueError(f"minex: impl must be one of {', '.join(IMPLS)}, got {impl!r}")
    if coarse < 1:
        raise ValueError(f"minex: coarse must be >= 1 (vertices per processor after contraction), got {coarse}")
    if sample < 1:
        raise ValueError(f"minex: sample must be >= 1, got {sample}")
    if passes < 0:
        raise ValueError(f"minex: passes must be >= 0, got {passes}")
    if not throttle >= 0:
        raise ValueError(f"minex: ThroTtle must be >= 0 (inf allowed), got {throttle}")
    if not 0 < unit < float("inf"):
        raise ValueError(f"minex: unit must be a positive number (ThroTtle's unit, Q0/unit), got {unit}")
    if gain not in GAINS:
        raise ValueError(f"minex: gain must be one of {', '.join(GAINS)}, got {gain!r}")
    if normalize not in NORMALIZE:
        raise ValueError(f"minex: normalize must be one of {', '.join(NORMALIZE)}, got {normalize!r}")
    latency_model(latency)  # an unknown latency model is a one-line ValueError


def minex(graph, owner, home, machine, seed: int, throttle: float = 64.0, latency="none", coarse: int = 8,
          sample: int = 1, passes: int = 8, normalize: str = "total", max_moves: int | None = None,
          impl: str = "auto", trace: list | None = None, gain: str = "sum",
          pinned: np.ndarray | None = None, unit: float = 1.0) -> tuple[np.ndarray, Stats]:
    """New owners for every vertex of ``graph`` from the current ``owner`` (data on ``home``).

    ``throttle``: ThroTtle of §3.3, in loads of Q0/``unit`` (``normalize="total"``). ``latency``: a latency model (harness.measure.latency).
    ``coarse``: contract to at most ``coarse * P`` vertices (§3.5). ``sample``: active
    vertices drawn for each contraction's random set of pairs. ``passes``: at most this many
    sweeps over the coarse graph's border vertices (§3.6). ``max_moves``: a safety cap
    (default 4 n + 100). ``impl``: ``c``, ``python`` or ``auto`` (C when built, and when the
    latency model is one it knows). ``trace``: a list that receives one record per move
    (Python implementation only). ``pinned``: ``Level.pinned``; pinned vertices (and any
    contraction holding one) are never moved.
    """
    P = machine.P
    owner = np.asarray(owner, np.int64)
    home = np.asarray(home, np.int64)
    n = graph.n
    check_params(throttle, latency, coarse, sample, passes, normalize, impl, gain, unit)
    if owner.shape != (n,) or home.shape != (n,):
        raise ValueError(f"minex: owner and home must have one entry per vertex ({n})")
    stats = Stats()
    if P == 1 or n == 0:
        return np.zeros(n, np.int64), stats
    t0 = time.perf_counter()
    loads = Loads(graph, machine, owner, home, throttle, latency, normalize, gain, unit)
    stats.seconds["loads"] = time.perf_counter() - t0
    cap = max_moves if max_moves is not None else 4 * n + 100
    fixed = None if pinned is None else np.asarray(pinned) >= 0
    use_c = impl == "c" or (impl == "auto" and trace is None)
    stale = fixed is not None and not getattr(_kernel, "PINS", 0)  # a kernel built before pins: rebuild it
    if use_c and (_kernel is None or _model_code(loads.model) is None or stale):
        if impl == "c":
            why = "the C kernel is not built" if _kernel is None else "the latency model is a Python function" \
                if _model_code(loads.model) is None else "the C kernel predates pinned objects (rebuild it)"
            raise ValueError(f"minex: impl=c unavailable: {why}")
        use_c = False
    stats.impl = "c" if use_c else "python"
    if use_c:
        parts = minex_c(graph, machine, owner, home, loads, seed, coarse * P, sample, passes, cap, stats,
                        fixed)
    else:
        parts = minex_python(graph, machine, owner, home, loads, seed, coarse * P, sample, passes, cap,
                             trace, stats, fixed)
    return parts, stats
