"""Virtual processors on MPI in bulk-synchronous supersteps (docs/architecture.md, "Engine").

P vprocs are spread over the R ranks of a communicator by a layout (:data:`LAYOUTS`: contiguous blocks by
default, an interleave that parts hypercube neighbours, round robin, or one fitted to the previous level's
profile of work per superstep); the
layout only moves vprocs between ranks, never a figure. A local vproc sends messages two ways, both delivered
by one :meth:`Engine.exchange` (one superstep):

* **batches** (the fast path): :meth:`Engine.send` takes numpy columns (source and destination vprocs,
  declared bytes, payload rows) for many messages at once; :meth:`Engine.received` gives a tag's messages as
  one :class:`~harness.engine.batch.Batch`. Nothing is done per message in Python.
* **objects** (the slow path): :meth:`Engine.post` queues one Python object; its bytes are its size
  (arrays, bytes) or its pickle's.

Under MPI a superstep is one ``Alltoall`` of a fixed header and one ``Alltoallv`` of buffers
(:mod:`harness.engine.transport`). A superstep's checks, counting, cut by destination rank, packing and
delivery order run in C (``harness.kernels._engine``): a fixed number of calls per superstep and tag. Every message is counted per superstep, per vproc pair and per kind
(``balance``, ``migration``, ``application``; :mod:`harness.engine.counters`), and modelled time follows the
Machine: ``latency + bytes / bandwidth`` per message, scaled by Conn between the two processors' clusters.

Reductions gather all P values in vproc order before combining, so results are bit-identical for every R.
Every collective goes through the one exchange, so a rank whose cell failed can release the others from
whatever collective they wait in (:meth:`Engine.abort`; they raise :class:`CellAborted`).
"""
from __future__ import annotations

import functools
import os
import pickle
import time

import numpy as np

from ..contract.model import Machine
from ..kernels import _engine
from .batch import KINDS, Batch, objects, raw, row_bytes, wire
from .counters import MAX_BYTES, Counters, step_stats_of, totals_of
from .transport import CellAborted, Diverged, Transport, crowded

__all__ = ["KINDS", "LAYOUTS", "Batch", "CellAborted", "Diverged", "Engine", "Local", "crowded", "payload_bytes",
           "world"]

_KIND = {k: i for i, k in enumerate(KINDS)}
_KIND_COL = [np.array([i], np.int64) for i in range(len(KINDS))]
_I64 = np.dtype(np.int64)
_EMPTY = Batch.empty()  # what received() gives for a tag that brought nothing (one for all: a batch is never changed)
LAYOUTS = ("blocks", "interleave", "roundrobin", "profile")
_PROFILE_ROWS = 256  # under ``profile`` a cell keeps its vprocs' CPU at 256-512 points (pairs merged beyond)
_REFUSED = {  # _engine.columns's codes: Engine.send's one-line errors
    1: lambda e, tag, v, rows: f"tag {tag!r}: a message kind is not an index of {KINDS}",
    2: lambda e, tag, v, rows: f"tag {tag!r}: source vproc {v} is not local to rank {e.rank}",
    3: lambda e, tag, v, rows: f"tag {tag!r}: destination vproc {v} is out of range for P = {e.P}",
    4: lambda e, tag, v, rows: f"tag {tag!r}: counts sum to {v}, values have {rows} rows",
    5: lambda e, tag, v, rows: (f"tag {tag!r}: a message declares {float(v):.4g} bytes; the engine counts at most "
                                "2^53 bytes in a level"),
    6: lambda e, tag, v, rows: f"tag {tag!r}: a message declares negative bytes",
    7: lambda e, tag, v, rows: f"tag {tag!r}: the columns of a send differ in length (one entry, or one per message)",
}
_MPI_ENV = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def world():
    """MPI.COMM_WORLD when launched by mpiexec, else None (no MPI initialised)."""
    if not any(k in os.environ for k in _MPI_ENV):
        return None
    from mpi4py import MPI

    return MPI.COMM_WORLD


def _whole(a: np.ndarray, what: str, tag) -> np.ndarray:
    """``a`` as int64 when every value is a whole number; ValueError naming the first that is not."""
    if a.dtype.kind in "iu":
        return a.astype(np.int64, copy=False)
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.round(a)) if a.size else a
        if not bad.any():
            return a.astype(np.int64)
        raise ValueError(f"tag {tag!r}: {what} {a[bad].ravel()[0].item()!r} is not an integer")
    raise ValueError(f"tag {tag!r}: {what}s must be integers, not {a.dtype}")


def _ints(a, what: str, tag) -> np.ndarray:
    """``a`` as a flat int64 array (:func:`_whole`'s checks when it is not int64 already)."""
    if type(a) is np.ndarray and a.dtype == _I64:
        return a.ravel()
    return _whole(np.asarray(a).ravel(), what, tag)


def payload_bytes(payload) -> int:
    """The bytes an object-path message counts: an array's or bytes' size, else its pickle's."""
    if isinstance(payload, np.ndarray):
        return int(payload.nbytes)
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return len(payload)
    return len(pickle.dumps(payload, protocol=5))


def _framed(obj) -> bytes:
    """``obj`` as one chunk: a count, the sizes, its pickle and, out of band, its numpy arrays' bytes, each on an
    8-byte boundary (:func:`_unframed` reads the arrays where they arrived, without a copy)."""
    bufs: list = []
    head = pickle.dumps(obj, protocol=5, buffer_callback=bufs.append)
    blobs = [head, *(b.raw() for b in bufs)]
    sizes = [len(head), *(b.nbytes for b in blobs[1:])]
    parts = [np.array([len(bufs), *sizes], np.int64).tobytes()]
    for blob, n in zip(blobs, sizes):
        parts += [blob, bytes(-n % 8)]
    return b"".join(parts)


def _unframed(view: memoryview):
    """The object :func:`_framed` made, its arrays views of ``view``."""
    k = int(np.frombuffer(view[:8], np.int64)[0])
    at, blobs = 8 * (k + 2), []
    for n in np.frombuffer(view[8:at], np.int64).tolist():
        blobs.append(view[at:at + n])
        at += n + (-n % 8)
    return pickle.loads(blobs[0], buffers=blobs[1:])


def interleave(P: int, R: int) -> np.ndarray:
    """The rank of each vproc: the XOR of its number's groups of ceil(log2 R) bits, mod R. Hypercube
    neighbours (numbers one bit apart: a parent and its child in SBN's broadcast trees, SBN §2) are always on
    different ranks, and for R a power of two every rank gets P / R vprocs (vprocs 0 .. R - 1 open one rank
    each whatever R)."""
    bits = max((R - 1).bit_length(), 1)
    v, rank = np.arange(P), np.zeros(P, np.int64)
    while v.any():
        rank ^= v & ((1 << bits) - 1)
        v >>= bits
    return rank % R


def profile_layout(W: np.ndarray, R: int) -> np.ndarray:
    """The rank of each vproc, from a profile ``W`` (supersteps x P: each vproc's work in each superstep):
    greedily, heaviest vproc first, each to the rank that adds least to the sum over supersteps of the
    busiest rank's work (the time of a superstep with a free exchange); the R heaviest open one rank each,
    ties go to the rank with fewest vprocs. O(P x supersteps x R) in numpy."""
    W = np.asarray(W, float)
    order = np.argsort(-W.sum(axis=0), kind="stable")
    rank = np.empty(W.shape[1], np.int64)
    loads, count = np.zeros((W.shape[0], R)), np.zeros(R, np.int64)
    for i, v in enumerate(order.tolist()):
        w = W[:, v]
        if i < R:
            r = i
        else:
            cost = np.maximum(loads.max(axis=1)[:, None], loads + w[:, None]).sum(axis=0)
            best = np.flatnonzero(cost == cost.min())
            r = int(best[np.argmin(count[best])])
        rank[v] = r
        loads[:, r] += w
        count[r] += 1
    return rank


class Inbox(dict):
    """``{local dst: [(src, kind, payload), ...]}`` of the object path: only vprocs that received a message
    are keys (in vproc order); any other local vproc reads as an empty list."""

    def __missing__(self, key):
        return []


class Local(tuple):
    """The local vprocs under a layout other than contiguous blocks (there ``Engine.local`` is a ``range``):
    a sorted tuple with a constant-time ``in``. It has no ``start`` or ``stop``: a plugin that indexes its
    arrays by ``p - local.start`` runs under blocks only (``Engine.local_index[p]`` is the same index under
    any layout)."""

    def __new__(cls, vps, index: np.ndarray, layout: str):
        got = super().__new__(cls, vps)
        got._index, got._layout = index, layout
        return got

    def __contains__(self, vp) -> bool:
        return 0 <= vp < self._index.size and self._index[vp] >= 0

    @property
    def start(self):
        raise AttributeError(f"the vprocs are laid out by {self._layout!r}: a rank's vprocs are not a range "
                             "(use Engine.local_index)")

    stop = start


class _Charge:
    """The context manager of :meth:`Engine.working`: adds the block's CPU seconds to ``cpu[vp]`` (a CPU
    clock: with more ranks than cores a wall clock would charge a vproc the time its rank was descheduled)."""

    __slots__ = ("cpu", "vp", "t")

    def __init__(self, cpu: np.ndarray, vp: int):
        self.cpu, self.vp = cpu, vp

    def __enter__(self):
        self.t = time.process_time()

    def __exit__(self, *exc):
        self.cpu[self.vp] += time.process_time() - self.t


class Engine:
    """P virtual processors on the ranks of ``comm`` (None: one process), laid out by ``layout`` (one of
    :data:`LAYOUTS`; None: ``$LBBENCH_LAYOUT``, else ``blocks``)."""

    def __init__(self, P: int, machine: Machine | None = None, comm="world", layout: str | None = None):
        self.comm = world() if comm == "world" else comm
        self.R = 1 if self.comm is None else self.comm.Get_size()
        self.rank = 0 if self.comm is None else self.comm.Get_rank()
        if P < 1:
            raise ValueError(f"P must be >= 1, got {P}")
        if self.R > P:
            raise ValueError(f"{self.R} MPI ranks cannot host only P = {P} virtual processors")
        self.P = P
        self.machine = machine or Machine.uniform(P)
        if self.machine.P != P:
            raise ValueError(f"machine has P = {self.machine.P}, engine P = {P}")
        self.layout = layout or os.environ.get("LBBENCH_LAYOUT") or "blocks"
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown vproc layout {self.layout!r} (one of: {', '.join(LAYOUTS)})")
        self._net = None if self.R == 1 else Transport(self.comm)
        self.superstep = 0
        self.tally = None
        self.balance_ranks(None)
        self._busy_reset()

    @property
    def timed(self) -> bool:
        """The cell runs under a deadline (SIGALRM): collectives wait inside MPI, not in a yielding loop."""
        return self._net is not None and self._net.timed

    @timed.setter
    def timed(self, value: bool) -> None:
        if self._net is not None:
            self._net.timed = bool(value)

    def defer(self, exc: BaseException) -> bool:
        """For a signal handler (a cell's deadline): True if a collective is under way, which then raises
        ``exc`` when it is complete on this rank (no rank is left waiting in half of it); else False."""
        return self._net is not None and self._net.defer(exc)

    @property
    def _crowded(self):
        return None if self._net is None else self._net._crowded

    # ------------------------------------------------------------ busy time
    def _busy_reset(self) -> None:
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()
        if self._net is not None:
            self._net.cpu = self._net.wall = 0.0  # CPU and wall seconds inside collectives (MPI may spin)
        self._vp_cpu = np.zeros(self.P)  # CPU seconds charged to each local vproc (``working``, ``each``)
        self._pending = bytearray()  # ``each``'s turns not charged yet: (vproc, wall seconds), int64 and float64
        self._win = (0.0, 0.0)  # busy CPU and busy wall seconds of the cell when the turns were last charged
        self._step_busy: list = []  # under MPI: this rank's busy seconds as each exchange's collective begins
        self.last_work = getattr(self, "last_work", None)  # per vproc, of the last cell (``rank_busy``)

    def busy_s(self) -> float:
        """This rank's CPU seconds since the cell began, outside collectives."""
        return time.process_time() - self._cpu0 - (0.0 if self._net is None else self._net.cpu)

    def _settle(self, now: float | None = None) -> None:
        """Charge :meth:`each`'s turns since the last call: the rank's busy CPU seconds since then, shared over
        them in proportion to each turn's wall time (over the busy wall time since then, collectives left out:
        a superstep's turns get its CPU at its ratio of CPU to wall). ``now``: the CPU clock, read by the
        caller."""
        busy = (time.process_time() if now is None else now) - self._cpu0
        wall = time.perf_counter() - self._wall0
        if self._net is not None:
            busy, wall = busy - self._net.cpu, wall - self._net.wall
        if self._pending:
            _engine.settle(self._vp_cpu, self._pending, busy - self._win[0], wall - self._win[1])
        self._win = (busy, wall)

    def charged(self) -> np.ndarray:
        """The CPU seconds charged to each vproc so far in the cell (:meth:`working`, :meth:`each`; zero on
        another rank's vprocs)."""
        if self._pending:
            self._settle()
        return self._vp_cpu

    def working(self, vp: int) -> "_Charge":
        """Charge the CPU time of the block to local vproc ``vp`` (the work measure of :meth:`balance_ranks`)."""
        return _Charge(self._vp_cpu, vp)

    def each(self, vps):
        """Iterate local vprocs, charging each its turn (from its turn to the next one's) in bulk: each turn is
        timed on the wall clock (a cheap clock read per vproc), and at the superstep's end (the next exchange,
        or when the charges are read) the rank's busy CPU seconds since the last charge are shared over the
        turns in proportion to their wall time, over the busy wall time since then (:meth:`_settle`: one read
        of the CPU clock, a system call, per superstep, not two per loop). A turn is charged its wall time at
        the superstep's ratio of CPU to wall (1 on a rank that keeps its core); a turn the rank was descheduled
        in takes a larger share. The iterator is C (``_engine.turns``): a few machine words per turn.

        Example:
            >>> for p in eng.each(sorted(inbox)):
            ...     handle(p, inbox[p])
        """
        return _engine.turns(self._pending, self.P, vps)

    def rank_busy(self, busy: float | None = None) -> dict:
        """``rank_busy_s_max``, ``rank_busy_s_mean`` over ranks and ``rank_balance`` = mean / max of ``busy``
        (default :meth:`busy_s` now); superstep by superstep, ``rank_critical_s`` (the busiest rank's busy time
        of each superstep, summed: the cell's time with a free exchange) and ``rank_step_balance`` (the means
        summed over ``rank_critical_s``: how evenly each superstep's work fell on the ranks; a superstep's busy
        time runs from one exchange's collective to the next, its sends' counting and packing included). Keeps the
        measured work per vproc in ``last_work`` (a collective: every rank calls it at the end of a cell).

        A vproc's work is the CPU charged to it with :meth:`working` plus an even share of its rank's other
        busy time.
        """
        busy = self.busy_s() if busy is None else busy
        mine = self.charged()[self.mine]
        rest = max(busy - float(mine.sum()), 0.0)
        steps = np.diff([0.0, *[b for b in self._step_busy if b < busy], busy])  # up to ``busy``, then the rest
        profile = np.array(self._vp_steps) if self.layout == "profile" and self.R > 1 else None
        parts = self.gather_ranks((busy, mine + rest / max(len(self.local), 1), steps, profile))
        self.last_work = np.empty(self.P)
        self.last_work[self._by_rank] = np.concatenate([w for _, w, _, _ in parts])
        n = min(len(f) for _, _, _, f in parts) if profile is not None else 0
        if n:  # under ``profile``: the vprocs' CPU per superstep, then the rest in one more row
            cum = np.zeros((n + 1, self.P))
            cum[1:, self._by_rank] = np.concatenate([f[:n].reshape(n, -1) for _, _, _, f in parts], axis=1)
            W = np.diff(cum, axis=0)
            self.last_work = np.vstack([W, np.maximum(self.last_work - W.sum(axis=0), 0.0)])
        parts = [p[:3] for p in parts]
        times = [b for b, _, _ in parts]
        hi, mean = max(times), sum(times) / len(times)
        n = min(len(s) for _, _, s in parts)  # the same supersteps on every rank: a clock tie may hide the last
        per_step = np.array([np.append(s[:n - 1], s[n - 1:].sum()) for _, _, s in parts])
        critical = float(per_step.max(axis=0).sum())
        return {"rank_busy_s_max": hi, "rank_busy_s_mean": mean, "rank_balance": mean / hi if hi > 0 else 1.0,
                "rank_critical_s": critical,
                "rank_step_balance": float(per_step.mean(axis=0).sum()) / critical if critical > 0 else 1.0}

    def balance_ranks(self, work: np.ndarray | None) -> None:
        """Lay the vprocs out over the ranks by the engine's layout and ``work`` (the same on every rank: one
        number per vproc, or under ``profile`` the rows of :meth:`rank_busy`'s per-superstep profile; None:
        equal counts). ``blocks``: contiguous blocks of about equal work; ``interleave``: :func:`interleave`;
        ``roundrobin``: vproc v on rank v mod R; ``profile``: :func:`profile_layout`. Which rank hosts a vproc
        never changes a figure."""
        work = None if work is None else np.asarray(work, float)
        if self.R > 1 and self.layout in ("interleave", "roundrobin"):
            return self._lay(interleave(self.P, self.R) if self.layout == "interleave" else
                             np.arange(self.P) % self.R, None)
        if self.R > 1 and self.layout == "profile" and work is not None and work.ndim == 2:
            return self._lay(profile_layout(work, self.R), None)
        if work is not None and work.ndim == 2:
            work = work.sum(axis=0)
        if work is None or self.R == 1:
            starts = (np.arange(self.R + 1) * self.P) // self.R
        else:
            w = np.maximum(work, 0.0) + 1e-9
            cum = np.concatenate([[0.0], np.cumsum(w)])
            cuts = np.searchsorted(cum, cum[-1] * np.arange(1, self.R) / self.R)
            # the boundary nearer the ideal share; every rank keeps at least one vproc
            cuts = [c - 1 if c > 0 and abs(cum[c - 1] - t) <= abs(cum[c] - t) else c
                    for c, t in zip(cuts.tolist(), (cum[-1] * np.arange(1, self.R) / self.R).tolist())]
            starts = [0]
            for r, c in enumerate(cuts, start=1):
                starts.append(min(max(c, starts[-1] + 1), self.P - (self.R - r)))
            starts = np.array(starts + [self.P])
        self._lay(np.repeat(np.arange(self.R), np.diff(starts)), starts)

    def _lay(self, rank: np.ndarray, starts) -> None:
        """Host vproc v on rank ``rank[v]`` (contiguous blocks: ``starts``, R + 1 entries; else None)."""
        self._rank = np.ascontiguousarray(rank, np.int64)
        self.starts = starts
        self.mine = np.flatnonzero(self._rank == self.rank)  # this rank's vprocs, in order
        self.local_index = np.full(self.P, -1, np.int64)  # a local vproc's index among them, else -1
        self.local_index[self.mine] = np.arange(self.mine.size)
        self.local = range(int(starts[self.rank]), int(starts[self.rank + 1])) if starts is not None else \
            Local(self.mine.tolist(), self.local_index, self.layout)
        self._by_rank = np.argsort(self._rank, kind="stable")  # the vprocs of rank 0, then of rank 1, ...
        self._rank_list = self._rank.tolist()  # vproc -> rank, for the object path
        self._reset_messages()

    # ----------------------------------------------------------------- layout
    def rank_of(self, vp) -> np.ndarray:
        """The MPI rank that runs each vproc of ``vp``."""
        return self._rank[vp]

    def hosts(self, vp: int) -> bool:
        """True on the rank that runs vproc ``vp`` (vproc 0's: the source of :meth:`bcast`, the metrics' rank)."""
        return self.rank == int(self._rank[vp])

    @property
    def is_root(self) -> bool:
        """True on rank 0 (the only rank that writes files)."""
        return self.rank == 0

    # --------------------------------------------------------------- messages
    def _reset_messages(self) -> None:
        self._outbox: list = []  # object path: (src, dst, kind, payload)
        self._sends: list = []  # in the order sent: (tag, its five columns, values, row bytes) or [None, posts]
        self._got: dict = {}  # tag -> Batch delivered by the last exchange
        self._vp_steps: list = []  # under ``profile``: the local vprocs' CPU at each exchange
        self._counters = Counters(self.P, self.machine, self.local_index, len(self.mine))
        self._wire = self._counters.wire(self._rank, self.R)  # (what every exchange reads, held once)
        self._stats: dict = {}  # (kind, since, superstep) -> step_stats' figures, read while no superstep followed

    def post(self, src: int, dst: int, payload, kind: str = "balance") -> None:
        """Queue one message from local vproc ``src`` to vproc ``dst`` for the next exchange (the slow path:
        Python per message; :meth:`send` takes many at once).

        Args:
            src: the sending vproc; it must be local (``src in eng.local``).
            dst: the receiving vproc, any of ``range(eng.P)``.
            payload: a numpy array or bytes (counted by size; anything else is counted by its pickle).
            kind: ``balance``, ``migration`` or ``application`` (counted separately).

        Example:
            >>> for p in eng.local:
            ...     eng.post(p, (p + 1) % eng.P, np.array([load[p]]), kind="balance")
            >>> inbox = eng.exchange()
        """
        src, dst = (int(_whole(np.asarray(v), what, "post")) for v, what in ((src, "source"), (dst, "destination")))
        if src not in self.local:
            raise ValueError(f"vproc {src} is not local to rank {self.rank}")
        if not 0 <= dst < self.P:
            raise ValueError(f"destination vproc {dst} out of range for P = {self.P}")
        if kind not in _KIND:
            raise ValueError(f"unknown message kind {kind!r}")
        self._outbox.append((src, dst, kind, payload))
        if self._sends and self._sends[-1][0] is None:
            self._sends[-1][1] += 1
        else:
            self._sends.append([None, 1])

    def send(self, tag: str, src, dst, values: np.ndarray | None = None, counts=None, nbytes=None,
             kind="balance") -> None:
        """Queue many messages of stream ``tag`` for the next exchange (the fast path).

        Args:
            tag: names the stream; the receivers read it with :meth:`received`. A tag's messages carry values
                of one dtype and row shape, or none.
            src, dst: the sending (local) and receiving vproc of each message (arrays, or one number for all).
            values: the messages' payload rows, concatenated along the first axis (None: no payload).
            counts: rows of ``values`` per message (default: one row each; zero without values).
            nbytes: the bytes each message declares (counted and modelled; default: its rows' size). Data that
                is only accounted for (a migration) declares its bytes and carries no values.
            kind: ``balance``, ``migration`` or ``application``; or, per message, their indices in ``KINDS``
                (one stream may mix kinds and keep its order).

        Example:
            >>> p = np.arange(eng.local.start, eng.local.stop)
            >>> eng.send("load", p, (p + 1) % eng.P, load[p])
            >>> eng.exchange()
            >>> got = eng.received("load")  # got.dst, got.src, got.values
        """
        got = _engine.send(self._sends, self.local_index, tag, src, dst, values, counts, nbytes, kind)
        if got is None:  # queued in one C call (int64 columns or ints, an ndarray's rows, a kind's name)
            return
        if got:
            raise ValueError(_REFUSED[got[0]](self, tag, got[1], got[2]))
        self._send(tag, src, dst, values, counts, nbytes, kind)

    def sender(self):
        """:meth:`send` for a kernel's calls in this cell, with no Python frame: a callable of send's seven arguments,
        all positional (tag, src, dst, values, counts, nbytes, kind), that queues the send in one C call as send does
        for arguments as they usually come (``_engine.send``) and returns None; for any other arguments it queues
        nothing and returns something else (the caller then calls :meth:`send` with them: its conversions and
        one-line errors). Valid until the counters are reset (the next cell) or the vprocs are laid out anew."""
        return functools.partial(_engine.send, self._sends, self.local_index)

    def _send(self, tag: str, src, dst, values, counts, nbytes, kind) -> None:
        """:meth:`send`'s general path: its arguments converted and checked, then its columns made in C."""
        if isinstance(kind, str):
            if kind not in _KIND:
                raise ValueError(f"unknown message kind {kind!r}")
            kind = _KIND_COL[_KIND[kind]]
        else:
            kind = np.asarray(kind, np.int64).ravel()
        src, dst = _ints(src, "source", tag), _ints(dst, "destination", tag)
        rows, row = -1, 0
        if values is not None:
            values = np.asarray(values)
            if values.dtype.hasobject or values.ndim == 0:
                raise ValueError(f"tag {tag!r}: values must be a numeric array with one row per item, "
                                 f"not {values.dtype} of shape {values.shape}")
            rows, row = len(values), values.itemsize if values.ndim == 1 else row_bytes(values)
            counts = None if counts is None else np.asarray(counts, np.int64).ravel()
        else:
            counts = None
        if nbytes is not None:
            nbytes = np.asarray(nbytes)
            if nbytes.dtype.kind not in "iu" and nbytes.size and (
                    not np.isfinite(nbytes).all() or np.abs(nbytes).max() > MAX_BYTES):
                raise ValueError(f"tag {tag!r}: a message declares {np.abs(nbytes).max():.4g} bytes; the engine "
                                 "counts at most 2^53 bytes in a level")
            nbytes = _ints(nbytes, "byte count", tag)
        cols = _engine.columns(src, dst, kind, nbytes, counts, rows, row, self.local_index, len(KINDS))
        if len(cols) == 2:
            raise ValueError(_REFUSED[cols[0]](self, tag, cols[1], rows))
        if cols:
            self._sends.append((tag, cols, values, row))

    def received(self, tag: str) -> Batch:
        """The messages of ``tag`` the last exchange delivered to this rank's vprocs, sorted by destination,
        then source, then the order they were sent in (an empty Batch when none came)."""
        got = self._got.get(tag)
        return got if got is not None and got.src.size else _EMPTY

    def pending(self) -> int:
        """Messages posted or sent on this rank and not yet delivered."""
        return len(self._outbox) + sum(len(e[1][0]) // 8 for e in self._sends if e[0] is not None)

    def drained(self) -> None:
        """ValueError (one line) when messages posted or sent on this rank were never exchanged: the runner calls
        it when a level's hooks return (such messages would vanish uncounted)."""
        if self.pending():
            tags = sorted({e[0] for e in self._sends if e[0] is not None}) + (
                ["the object path (post)"] if self._outbox else [])
            raise ValueError(f"{self.pending()} messages sent and never exchanged (tags: {', '.join(map(str, tags))});"
                             " call ctx.engine.exchange() before the hook returns")

    def exchange(self, tally: int | None = None) -> Inbox:
        """Deliver every message posted or sent (one superstep; under MPI one header ``Alltoall`` and one
        ``Alltoallv``). The batches are read afterwards with :meth:`received`.

        Args:
            tally: this rank's share of a count every rank needs (work left, say); the sum over all ranks
                rides on the same collective and is ``self.tally`` afterwards (every rank passes one, or none).

        Returns:
            The object path's messages, ``{local dst: [(src, kind, payload), ...]}`` in (src, post) order
            (:class:`Inbox`: a local vproc that received none reads as ``[]``); every rank must call it.

        Example:
            >>> inbox = eng.exchange()
            >>> for dst, msgs in inbox.items():
            ...     got = sum(int(payload[0]) for src, kind, payload in msgs)
        """
        step = self.superstep
        self.superstep += 1
        if self._pending and self.R == 1:  # the superstep's turns of ``each`` charged (under MPI: in ``_move``)
            self._settle()
        out, self._outbox = self._outbox, []
        sends = self._sends[:]  # (the list itself stays: sender() appends to it)
        self._sends.clear()
        if not sends and self.R == 1:  # an empty superstep: nothing to count or move
            self._got, self.tally = {}, tally
            return Inbox()
        if sends and not out:  # batches only, each tag once: counted and delivered (R = 1) or packed in one C call
            if self.R == 1:
                got = self._counters.local(step, sends, self._wire)
                if got is not None:
                    self._got, self.tally = got, tally
                    return Inbox()
            else:
                packed = _engine.outgoing(self._wire, sends, step)  # (buffer, sizes, the booking's flag)
                if packed is not None:
                    if packed[2]:
                        self._counters.booked(packed[2])
                    return self._move(step, out, [], tally, packed)
        streams = self._count_sent(step, out, sends) if sends else []
        if self.R == 1:
            received, self.tally, self._got = out, tally, {}
            for tag, cols, v in streams:
                self._got[tag] = _engine.deliver(*cols, raw(v), row_bytes(v), self.P, None if v is None else v.dtype,
                                                 () if v is None else v.shape[1:])
        else:
            return self._move(step, out, streams, tally)
        return self._inbox(step, received)

    def _inbox(self, step: int, received: list) -> Inbox:
        """The object path's messages by destination, and the deliveries of both paths counted."""
        if not received and not self._got:  # nothing came
            return Inbox()
        kinds = [b.kind for b in self._got.values()]
        dsts = [b.dst for b in self._got.values()]
        inbox = Inbox()
        if received:
            received.sort(key=lambda x: x[0])  # stable sort by src keeps each sender's post order
            for src, dst, kind, payload in received:
                inbox.setdefault(dst, []).append((src, kind, payload))
            kinds.append(np.array([_KIND[m[2]] for m in received], np.int64))
            dsts.append(np.array([m[1] for m in received], np.int64))
            inbox = Inbox(sorted(inbox.items()))
        self._counters.count_received(step, _engine.most(kinds, dsts, self.local_index, len(self.mine)))
        return inbox

    def _count_sent(self, step: int, out: list, sends: list) -> list:
        """Count this superstep's sends in the order they were made (a sender's modelled time is summed in
        that order, whichever path each message took); each tag's sends joined: [(tag, columns, values)]."""
        parts, at, by = [], 0, {}
        for e in sends:
            if e[0] is None:  # a run of posts
                msgs, at = out[at:at + e[1]], at + e[1]
                parts.append((np.array([_KIND[m[2]] for m in msgs], np.int64), np.array([m[0] for m in msgs], np.int64),
                              np.array([m[1] for m in msgs], np.int64),
                              np.array([payload_bytes(m[3]) for m in msgs], np.int64)))
            else:
                cols = e[1]
                parts.append((cols[2], cols[0], cols[1], cols[3]))
                by.setdefault(e[0], []).append(e)
        self._counters.count_sent(step, parts)
        streams = []
        for tag in sorted(by):
            es = by[tag]
            if len(es) == 1:
                streams.append((tag, es[0][1], es[0][2]))
                continue
            with_values = [e[2] is not None for e in es]
            if any(with_values) and not all(with_values):
                raise ValueError(f"tag {tag!r}: a tag's messages either all carry values or none do")
            streams.append((tag, tuple(b"".join(e[1][j] for e in es) for j in range(5)),
                            np.concatenate([e[2] for e in es]) if with_values[0] else None))
        return streams

    def _move(self, step: int, out: list, streams: list, tally, packed: tuple | None = None) -> Inbox:
        """The superstep's messages to the ranks that host their destinations (one pack for all ranks, the
        tally in the header; ``packed``: the buffer and sizes packed already, first in a tuple); what came to this
        rank (``_engine.came``): its batches kept (:meth:`received`), their deliveries counted (per kind the most one
        local vproc received), with the object path's messages when some came."""
        if packed is not None:
            buf, sizes = packed[0], packed[1]
        elif not streams and not out:  # nothing to send: the header alone
            buf, sizes = b"", [0] * self.R
        else:
            posts = [[] for _ in range(self.R)]
            rank = self._rank_list
            for msg in out:
                posts[rank[msg[1]]].append(msg)
            buf, sizes = wire(streams, self._rank, posts)
        # one read of the CPU clock: the superstep's turns charged, this rank's busy seconds as the superstep's
        # collective begins (its sends packed), and the collective's start
        now = time.process_time()
        self._settle(now)
        self._step_busy.append(self._win[0])
        if self.layout == "profile":  # one rank has one layout
            self._vp_steps.append(self._vp_cpu[self.mine])
            if len(self._vp_steps) > 2 * _PROFILE_ROWS:  # adjacent supersteps merged: the profile stays bounded
                self._vp_steps = self._vp_steps[1::2]
        net = self._net
        recv, n = net.received(buf, sizes, "exchange", 0 if tally is None else tally, now)
        if tally is not None:
            self.tally = net.tally
        if not net.came:
            self._got = {}
            return Inbox()
        blobs, self._got = _engine.came(self._wire, recv, n, step)  # (the deliveries counted there, objects aside)
        if blobs:
            return self._inbox(step, objects(blobs))
        return Inbox()

    def migrate(self, home_before: np.ndarray, home_after: np.ndarray, weight: np.ndarray,
                bytes_per_unit: int = 8) -> None:
        """Account for data moving: each local vproc sends one message per destination that declares the moved
        weight's bytes (nothing is allocated for them)."""
        moved = home_before != home_after
        src, dst, w = home_before[moved], home_after[moved], weight[moved]
        pairs, inv = np.unique(src * self.P + dst, return_inverse=True)
        units = np.bincount(inv, weights=w, minlength=pairs.size).astype(np.int64)
        s, d = pairs // self.P, pairs % self.P
        mine = self.local_index[s] >= 0
        self.send("migrate", s[mine], d[mine], nbytes=units[mine] * bytes_per_unit // 8 * 8, kind="migration")
        self.exchange()

    # ------------------------------------------------------------- collectives
    def allgather(self, local: dict, what: str = "allgather") -> list:
        """All P vprocs' values, in vproc order, on every rank (``local`` maps local vproc -> value).

        ``what`` names the collective (any string): ranks that meet in collectives of different names fail
        the cell together (:class:`Diverged`)."""
        mine = [local[v] for v in self.local]
        if self.R == 1:
            return mine
        return self._in_vproc_order(self._gather(mine, what))

    def gather(self, local: dict, root: int = 0, what: str = "gather") -> list | None:
        """All P vprocs' values, in vproc order, on the rank that hosts vproc ``root``; None on every other rank
        (``local`` and ``what``: :meth:`allgather`). Each rank sends its values once, to that rank only: where
        one rank needs them (the metrics' rank, vproc 0's), the other ranks never hold every rank's values."""
        mine = [local[v] for v in self.local]
        if self.R == 1:
            return mine
        to = int(self.rank_of(root))
        blob = b"" if self.rank == to else _framed(mine)  # the root keeps its own values as they are
        got = self._net.exchange(blob, [len(blob) if r == to else 0 for r in range(self.R)], what)
        if self.rank != to:
            return None
        return self._in_vproc_order([mine if r == to else _unframed(part) for r, part in enumerate(got)])

    def _in_vproc_order(self, parts: list) -> list:
        """Every rank's list of its vprocs' values (in rank order) as one list in vproc order."""
        got = [x for part in parts for x in part]  # rank 0's vprocs, then rank 1's, ...
        if self.starts is not None:
            return got
        out = [None] * self.P
        for v, x in zip(self._by_rank.tolist(), got):
            out[v] = x
        return out

    def reduce(self, local: dict, op: str = "sum"):
        """Combine one value per vproc (numbers or arrays) with ``sum``, ``max`` or ``min``."""
        stacked = np.asarray(self.allgather(local, "reduce"))
        return {"sum": np.sum, "max": np.max, "min": np.min}[op](stacked, axis=0)

    def bcast(self, obj, root: int = 0, what: str = "bcast"):
        """``obj`` from the rank hosting vproc ``root`` to every rank (``what``: :meth:`allgather`)."""
        if self.R == 1:
            return obj
        src = int(self.rank_of(root))
        return self._net.objects(obj if self.rank == src else None, what)[src]

    def rank_max(self, value: float) -> float:
        """Max of a per-rank number (timings) over all ranks."""
        return max(self._gather(value, "rank_max"))

    def gather_ranks(self, obj) -> list:
        """One Python object per rank, in rank order, on every rank."""
        return self._gather(obj, "gather_ranks")

    def _gather(self, obj, what: str) -> list:
        """:meth:`gather_ranks` tagged with the public collective it serves (ranks in different ones diverge)."""
        return [obj] if self.R == 1 else self._net.objects(obj, what)

    def barrier(self) -> None:
        """Wait for every rank."""
        if self.R > 1:
            self._net.objects(None, "barrier")

    def abort(self, reason: str) -> None:
        """Release the other ranks from the collective they wait in (this rank's cell failed)."""
        self._outbox = []
        self._sends.clear()
        if self.R > 1:
            self._net.abort(reason)

    # --------------------------------------------------------------- counters
    def totals(self) -> dict:
        """Messages, bytes and modelled seconds per kind, over all ranks and supersteps (a superstep lasts as
        long as its longest sender's transfers; :func:`harness.engine.counters.totals_of`)."""
        return totals_of(self._gather(self._counters.traffic(), "totals"))

    def step_stats(self, kind: str, since: int = 0) -> dict:
        """Superstep statistics of one message kind over this cell (from superstep ``since`` on), all ranks.

        ``supersteps``: exchanges that carried a message of the kind;
        ``max_msgs_per_vproc``: most messages one vproc sent in one superstep;
        ``max_recv_per_vproc``: most one vproc received in one superstep;
        ``messages`` and ``bytes``: totals. Complexity claims are read here,
        not from a plugin's own counters. A collective: read again at the same superstep, the figures come from
        the first read (every rank alike, since every rank is at the same superstep).
        """
        if kind not in _KIND:
            raise ValueError(f"unknown message kind {kind!r}")
        key = (kind, since, self.superstep)
        if key not in self._stats:
            self._stats[key] = step_stats_of(self._gather(self._counters.kind_stats(_KIND[kind], since), "step_stats"))
        return dict(self._stats[key])

    def pair_matrix(self, kind: str, what: str = "bytes") -> np.ndarray:
        """P x P matrix of messages or bytes sent from vproc i to j (summed over supersteps)."""
        keys, msgs, nbytes = self._counters.pairs(kind)
        mat = np.zeros(self.P * self.P, np.int64)
        mat[keys] = {"messages": msgs, "bytes": nbytes}[what]
        return np.sum(self._gather(mat.reshape(self.P, self.P), "pair_matrix"), axis=0)

    def reset_counters(self) -> None:
        """Forget the messages and supersteps counted so far (the runner calls it before each cell)."""
        self._reset_messages()
        self.superstep = 0
        self._busy_reset()
