"""Virtual processors on MPI in bulk-synchronous supersteps (docs/architecture.md, "Engine").

P vprocs are spread over the R ranks of a communicator in contiguous blocks.
Each local vproc posts messages with :meth:`Engine.post`; one
:meth:`Engine.exchange` delivers them (one ``alltoall`` over MPI when R > 1,
plain hand-over in one process). Every message is counted per superstep, per
vproc pair and per kind (``balance``, ``migration``, ``application``), and
modelled time follows the Machine: ``latency + bytes / bandwidth`` per
message, scaled by Conn between the two processors' clusters.

Reductions gather all P values in vproc order before combining, so results are
bit-identical for every R.

Every collective goes through one MPI primitive (``alltoall`` of Python
objects), so a rank whose cell failed can release the others from whatever
collective they wait in: :meth:`Engine.abort` sends an abort marker that
every rank receives in its pending collective, where it raises
:class:`CellAborted`. All ranks then leave the cell together.
"""
from __future__ import annotations

import os
import pickle
import time
from collections import defaultdict

import numpy as np

from ..contract.model import Machine

KINDS = ("balance", "migration", "application")


class CellAborted(BaseException):
    """Another rank's cell failed: leave the cell (a BaseException, so a plugin's ``except Exception``
    cannot swallow it and go on to a collective the failed rank will never join)."""


class Diverged(CellAborted):
    """The ranks met in different collectives (a rank took another path through the cell): every rank
    raises it in the same collective, so all leave the cell together and the cell fails."""


class _Abort:
    """The marker :meth:`Engine.abort` sends."""

    def __init__(self, reason: str):
        self.reason = reason
_MPI_ENV = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def world():
    """MPI.COMM_WORLD when launched by mpiexec, else None (no MPI initialised)."""
    if not any(k in os.environ for k in _MPI_ENV):
        return None
    from mpi4py import MPI

    return MPI.COMM_WORLD


_CROWDED: dict = {}  # communicator handle -> more ranks on some host than that host's cores


def crowded(comm) -> bool:
    """Whether some host runs more of ``comm``'s ranks than it has cores for them (a collective, once per
    communicator). MPICH spins while it waits in a collective; a spinning rank that shares a core with a
    working one takes the core from it, and the working rank refills its caches after every switch."""
    key = comm.py2f()
    if key not in _CROWDED:
        from mpi4py import MPI

        host = comm.Split_type(MPI.COMM_TYPE_SHARED)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        over = host.Get_size() > cores
        host.Free()
        _CROWDED[key] = bool(comm.allreduce(over, op=MPI.LOR))
    return _CROWDED[key]


def payload_bytes(payload) -> int:
    if isinstance(payload, np.ndarray):
        return int(payload.nbytes)
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return len(payload)
    return len(pickle.dumps(payload, protocol=5))


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
    """P virtual processors on the ranks of ``comm`` (None: one process)."""

    def __init__(self, P: int, machine: Machine | None = None, comm="world"):
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
        self._crowded = None  # known at the first collective (:func:`crowded` is one)
        self.timed = False  # the cell runs under a deadline (SIGALRM): collectives wait inside MPI
        self.balance_ranks(None)
        self.superstep = 0
        self.tally = None
        self._outbox: list = []
        # local counters: (kind) -> {(src, dst): [messages, bytes]}; per-superstep modelled times
        self._pairs: dict = {k: defaultdict(lambda: [0, 0]) for k in KINDS}
        self._steps: list = []  # (superstep, {kind: this rank's longest modelled send time})
        self._sent: list = []  # (superstep, kind, most one local vproc sent, messages, bytes)
        self._recv: list = []  # (superstep, kind, most one local vproc received)
        self._busy_reset()

    # ------------------------------------------------------------ busy time
    def _busy_reset(self) -> None:
        self._cpu0 = time.process_time()
        self._coll_cpu = 0.0  # CPU seconds inside collectives (MPI may spin while it waits)
        self._vp_cpu = np.zeros(self.P)  # CPU seconds charged to each local vproc (``working``)
        self.last_work = getattr(self, "last_work", None)  # per vproc, of the last cell (``rank_busy``)

    def busy_s(self) -> float:
        """This rank's CPU seconds since the cell began, outside collectives."""
        return time.process_time() - self._cpu0 - self._coll_cpu

    def working(self, vp: int) -> "_Charge":
        """Charge the CPU time of the block to local vproc ``vp`` (the work measure of :meth:`balance_ranks`)."""
        return _Charge(self._vp_cpu, vp)

    def rank_busy(self, busy: float | None = None) -> dict:
        """``rank_busy_s_max``, ``rank_busy_s_mean`` over ranks and ``rank_balance`` = mean / max of ``busy``
        (default :meth:`busy_s` now); keeps the measured work per vproc in ``last_work`` (a collective: every
        rank calls it at the end of a cell).

        A vproc's work is the CPU charged to it with :meth:`working` plus an even share of its rank's other
        busy time.
        """
        busy = self.busy_s() if busy is None else busy
        mine = self._vp_cpu[self.local.start:self.local.stop]
        rest = max(busy - float(mine.sum()), 0.0)
        parts = self.gather_ranks((busy, mine + rest / max(len(self.local), 1)))
        self.last_work = np.concatenate([w for _, w in parts])
        times = [b for b, _ in parts]
        hi, mean = max(times), sum(times) / len(times)
        return {"rank_busy_s_max": hi, "rank_busy_s_mean": mean, "rank_balance": mean / hi if hi > 0 else 1.0}

    def balance_ranks(self, work: np.ndarray | None) -> None:
        """Lay the vprocs out over the ranks as contiguous blocks of about equal ``work`` (one number per
        vproc, the same on every rank; None: equal counts). Which rank hosts a vproc never changes a figure."""
        if work is None or self.R == 1:
            starts = (np.arange(self.R + 1) * self.P) // self.R
        else:
            w = np.maximum(np.asarray(work, float), 0.0) + 1e-9
            cum = np.concatenate([[0.0], np.cumsum(w)])
            cuts = np.searchsorted(cum, cum[-1] * np.arange(1, self.R) / self.R)
            # the boundary nearer the ideal share; every rank keeps at least one vproc
            cuts = [c - 1 if c > 0 and abs(cum[c - 1] - t) <= abs(cum[c] - t) else c
                    for c, t in zip(cuts.tolist(), (cum[-1] * np.arange(1, self.R) / self.R).tolist())]
            starts = [0]
            for r, c in enumerate(cuts, start=1):
                starts.append(min(max(c, starts[-1] + 1), self.P - (self.R - r)))
            starts = np.array(starts + [self.P])
        self.starts = starts
        self.local = range(int(starts[self.rank]), int(starts[self.rank + 1]))
        self._rank_list = self.rank_of(np.arange(self.P)).tolist()  # vproc -> rank, for the exchange

    # ----------------------------------------------------------------- layout
    def rank_of(self, vp) -> np.ndarray:
        """The MPI rank that runs each vproc of ``vp``."""
        return np.searchsorted(self.starts, vp, side="right") - 1

    @property
    def is_root(self) -> bool:
        """True on rank 0 (the only rank that writes files)."""
        return self.rank == 0

    # --------------------------------------------------------------- messages
    def post(self, src: int, dst: int, payload, kind: str = "balance") -> None:
        """Queue a message from local vproc ``src`` to vproc ``dst`` for the next exchange.

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
        if src not in self.local:
            raise ValueError(f"vproc {src} is not local to rank {self.rank}")
        if not 0 <= dst < self.P:
            raise ValueError(f"destination vproc {dst} out of range for P = {self.P}")
        if kind not in KINDS:
            raise ValueError(f"unknown message kind {kind!r}")
        self._outbox.append((src, dst, kind, payload))

    def pending(self) -> int:
        """Messages posted on this rank and not yet delivered."""
        return len(self._outbox)

    def exchange(self, tally: int | None = None) -> dict[int, list]:
        """Deliver every posted message (one superstep; one ``alltoall`` under MPI).

        Args:
            tally: this rank's share of a count every rank needs (work left, say); the sum over all ranks
                rides on the same collective and is ``self.tally`` afterwards (every rank passes one, or none).

        Returns:
            ``{local dst: [(src, kind, payload), ...]}`` in (src, post) order; every rank must call it.

        Example:
            >>> inbox = eng.exchange()
            >>> for dst, msgs in inbox.items():
            ...     got = sum(int(payload[0]) for src, kind, payload in msgs)
        """
        out, self._outbox = self._outbox, []
        m = self.machine
        lat, bw, conn, cluster = m.latency, m.bandwidth, m.conn, m.cluster
        one = conn[0, 0] if m.C == 1 else None  # one cluster: the same Conn for every pair
        pairs = self._pairs
        step, step_time, sent, nbytes = self.superstep, {}, {}, {}
        for src, dst, kind, payload in out:
            nb = payload_bytes(payload)
            c = pairs[kind][(src, dst)]
            c[0] += 1
            c[1] += nb
            by_src = sent.get(kind)
            if by_src is None:
                by_src = sent[kind] = {}
                nbytes[kind] = 0
            by_src[src] = by_src.get(src, 0) + 1
            nbytes[kind] += nb
            if src != dst:
                t = (lat + nb / bw) * (one if one is not None else conn[cluster[src], cluster[dst]])
                key = (kind, src)
                step_time[key] = step_time.get(key, 0.0) + t
        if step_time:
            longest: dict = {}
            for (kind, _), t in step_time.items():
                longest[kind] = max(longest.get(kind, t), t)
            self._steps.append((step, longest))
        for kind, by_src in sent.items():
            self._sent.append((step, kind, max(by_src.values()), sum(by_src.values()), nbytes[kind]))
        self.superstep += 1
        if self.R == 1:
            received, self.tally = out, tally
        else:
            send = [[] for _ in range(self.R)]
            rank = self._rank_list
            for msg in out:
                send[rank[msg[1]]].append(msg)
            if tally is not None:
                send = [(part, tally) for part in send]
            got = self._alltoall(send, "exchange")
            if tally is not None:
                got, self.tally = [part for part, _ in got], sum(t for _, t in got)
            received = [msg for part in got for msg in part]
        inbox: dict[int, list] = {v: [] for v in self.local}
        recv: dict = {}
        # stable sort by src keeps each sender's post order
        for src, dst, kind, payload in sorted(received, key=lambda x: x[0]):
            inbox[dst].append((src, kind, payload))
            by_dst = recv.get(kind)
            if by_dst is None:
                by_dst = recv[kind] = {}
            by_dst[dst] = by_dst.get(dst, 0) + 1
        for kind, by_dst in recv.items():
            self._recv.append((step, kind, max(by_dst.values())))
        return inbox

    def migrate(self, home_before: np.ndarray, home_after: np.ndarray, weight: np.ndarray,
                bytes_per_unit: int = 8) -> None:
        """Move data for real: each local vproc sends one payload per destination, sized by the moved weight."""
        moved = home_before != home_after
        src, dst, w = home_before[moved], home_after[moved], weight[moved]
        key = src * self.P + dst
        pairs, inv = np.unique(key, return_inverse=True)
        tot = np.bincount(inv, weights=w).astype(np.int64)
        for k, units in zip(pairs.tolist(), tot.tolist()):
            s, d = divmod(k, self.P)
            if s in self.local:
                self.post(s, d, np.zeros(units * bytes_per_unit // 8, np.int64), kind="migration")
        self.exchange()

    # ------------------------------------------------------------- collectives
    def allgather(self, local: dict, what: str = "allgather") -> list:
        """All P vprocs' values, in vproc order, on every rank (``local`` maps local vproc -> value)."""
        mine = [local[v] for v in self.local]
        if self.R == 1:
            return mine
        return [x for part in self._gather(mine, what) for x in part]

    def reduce(self, local: dict, op: str = "sum"):
        """Combine one value per vproc (numbers or arrays) with ``sum``, ``max`` or ``min``."""
        stacked = np.asarray(self.allgather(local, "reduce"))
        return {"sum": np.sum, "max": np.max, "min": np.min}[op](stacked, axis=0)

    def bcast(self, obj, root: int = 0):
        """``obj`` from the rank hosting vproc ``root`` to every rank."""
        if self.R == 1:
            return obj
        src = int(self.rank_of(root))
        return self._alltoall([obj if self.rank == src else None] * self.R, "bcast")[src]

    def rank_max(self, value: float) -> float:
        """Max of a per-rank number (timings) over all ranks."""
        return max(self._gather(value, "rank_max"))

    def gather_ranks(self, obj) -> list:
        """One Python object per rank, in rank order, on every rank."""
        return self._gather(obj, "gather_ranks")

    def _gather(self, obj, what: str) -> list:
        """:meth:`gather_ranks` tagged with the public collective it serves (ranks in different ones diverge)."""
        return [obj] if self.R == 1 else self._alltoall([obj] * self.R, what)

    def barrier(self) -> None:
        """Wait for every rank."""
        if self.R > 1:
            self._alltoall([None] * self.R, "barrier")

    def _alltoall(self, send: list, what: str) -> list:
        """The one MPI collective every other is made of, tagged with the collective's name; raises
        CellAborted if a rank sent the abort marker, Diverged (on every rank) if the ranks are in different
        collectives. Its CPU time is not the rank's busy time."""
        t = time.process_time()
        self._arrive()
        got = self.comm.alltoall([(what, x) for x in send])
        self._coll_cpu += time.process_time() - t
        aborted = [x for _, x in got if isinstance(x, _Abort)]
        if aborted:
            raise CellAborted(aborted[0].reason)
        tags = [t for t, _ in got]
        if len(set(tags)) > 1:
            raise Diverged("failed: ranks took different paths through the cell (rank collectives: "
                           + ", ".join(f"{r}: {t}" for r, t in enumerate(tags)) + ")")
        return [x for _, x in got]

    def abort(self, reason: str) -> None:
        """Release the other ranks from the collective they wait in (this rank's cell failed)."""
        self._outbox = []
        if self.R > 1:
            self._arrive()
            self.comm.alltoall([("abort", _Abort(reason))] * self.R)

    def _arrive(self) -> None:
        """On a crowded host, wait for every rank to reach the collective while yielding the core (a
        nonblocking barrier), so that a waiting rank does not spin on a core that a working rank needs.
        Not in a cell with a deadline: its signal, raised in this loop, would leave the barrier half done."""
        if self.timed:
            return
        if self._crowded is None:
            self._crowded = crowded(self.comm)
        if self._crowded:
            req = self.comm.Ibarrier()
            while not req.Test():
                os.sched_yield()

    # --------------------------------------------------------------- counters
    def totals(self) -> dict:
        """Messages, bytes and modelled seconds per kind, over all ranks and supersteps (a superstep lasts as
        long as its longest sender's transfers)."""
        local = {}
        for kind in KINDS:
            vals = np.array(list(self._pairs[kind].values()), dtype=np.int64).reshape(-1, 2)
            local[kind] = vals.sum(axis=0)
        longest = {(step, kind): t for step, times in self._steps for kind, t in times.items()}
        gathered = self._gather((local, longest), "totals")
        merged: dict = {}  # each rank sends its own maxima: the work after the gather is O(ranks x supersteps)
        for _, part in gathered:
            for key, t in part.items():
                merged[key] = max(merged.get(key, t), t)
        out = {}
        for kind in KINDS:
            msgs, nbytes = np.sum([g[kind] for g, _ in gathered], axis=0)
            secs = sum(t for (s, k), t in sorted(merged.items()) if k == kind)
            out[kind] = {"messages": int(msgs), "bytes": int(nbytes), "modelled_s": float(secs)}
        return out

    def step_stats(self, kind: str, since: int = 0) -> dict:
        """Superstep statistics of one message kind over this cell (from superstep ``since`` on), all ranks.

        ``supersteps``: exchanges that carried a message of the kind;
        ``max_msgs_per_vproc``: most messages one vproc sent in one superstep;
        ``max_recv_per_vproc``: most one vproc received in one superstep;
        ``messages`` and ``bytes``: totals. Complexity claims are read here,
        not from a plugin's own counters.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown message kind {kind!r}")
        mine: dict = {}  # superstep -> [most sent, messages, bytes, most received], this rank's vprocs
        for st, k, most, n, nb in self._sent:
            if k == kind and st >= since:
                mine[st] = [most, n, nb, 0]
        for st, k, most in self._recv:
            if k == kind and st >= since:
                mine.setdefault(st, [0, 0, 0, 0])[3] = most
        steps: dict = {}
        for part in self._gather(mine, "step_stats"):
            for st, (most, n, nb, most_recv) in part.items():
                agg = steps.setdefault(st, [0, 0, 0, 0])
                agg[0], agg[1], agg[2], agg[3] = max(agg[0], most), agg[1] + n, agg[2] + nb, max(agg[3], most_recv)
        return {
            "supersteps": sum(1 for a in steps.values() if a[1]),
            "max_msgs_per_vproc": max((a[0] for a in steps.values()), default=0),
            "max_recv_per_vproc": max((a[3] for a in steps.values()), default=0),
            "messages": sum(a[1] for a in steps.values()),
            "bytes": sum(a[2] for a in steps.values()),
        }

    def pair_matrix(self, kind: str, what: str = "bytes") -> np.ndarray:
        """P x P matrix of messages or bytes sent from vproc i to j (summed over supersteps)."""
        col = {"messages": 0, "bytes": 1}[what]
        mat = np.zeros((self.P, self.P), np.int64)
        for (s, d), c in self._pairs[kind].items():
            mat[s, d] += c[col]
        return np.sum(self._gather(mat, "pair_matrix"), axis=0)

    def reset_counters(self) -> None:
        """Forget the messages and supersteps counted so far (the runner calls it before each cell)."""
        self._outbox = []
        self._pairs = {k: defaultdict(lambda: [0, 0]) for k in KINDS}
        self._steps = []
        self._sent = []
        self._recv = []
        self.superstep = 0
        self._busy_reset()
