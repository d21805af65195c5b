"""The engine's message counters (docs/architecture.md, "Engine"): per kind, per vproc pair and per
superstep, computed from one superstep's message columns in C (``harness.kernels._engine``, in the order numpy's
``bincount`` would sum them), never per message in Python.

Modelled time follows the Machine: a message from p to q != p lasts ``(latency + bytes / bandwidth) *
Conn[cluster p, cluster q]``; a superstep lasts as long as its busiest sender's messages of a kind, summed
in the order they were sent.
"""
from __future__ import annotations

import numpy as np

from ..contract.model import Machine
from ..kernels import _engine, _metrics
from .batch import KINDS

_COMPACT = 1 << 16  # at least this many logged messages are kept before they are merged into the pairs
MAX_BYTES = 2**53  # the bytes a cell's messages may declare in all: exact in float64 (modelled time, rows)


class Counters:
    """This rank's counts: the sends of its vprocs and the deliveries to them (``loc[v]``: local vproc v's
    index among the ``L`` local vprocs, -1 elsewhere)."""

    def __init__(self, P: int, machine: Machine, loc: np.ndarray, L: int):
        self.P, self.loc, self.L = P, loc, L
        self.lat, self.bw = machine.latency, machine.bandwidth
        self.conn = np.ascontiguousarray(machine.conn, np.float64)
        self.cluster = np.ascontiguousarray(machine.cluster, np.int64)
        self.one = float(self.conn[0, 0]) if machine.C == 1 else -1.0
        self._pairs: dict = {}  # kind -> (src * P + dst, messages, bytes), merged
        self._log: list = []  # (keys, kinds, bytes) of the supersteps since the last merge
        self._sent: list = []  # (superstep, _engine.counted's stats): read by columns
        self._recv: list = []  # (superstep, _engine.most's maxima): read by columns
        self._columns: tuple = ((-1, -1), None)  # (lengths of _sent and _recv, their columns), the last read
        # the bytes this rank's vprocs declared in the cell (at most MAX_BYTES), the messages logged since the last
        # merge, and how many are held before the next: what _engine.book keeps a superstep's counts with
        self._state = np.array([0.0, 0.0, _COMPACT])
        self._books = (self._sent, self._log, self._state)

    @property
    def declared(self) -> float:
        """The bytes this rank's vprocs declared in the cell (at most :data:`MAX_BYTES`)."""
        return float(self._state[0])

    def count_sent(self, step: int, parts: list) -> None:
        """One superstep's sends of this rank: ``parts`` [(kind, src, dst, nbytes), ...] int64 columns, one per
        send in the order sent (``_engine.counted``); ValueError when the cell's bytes would pass
        :data:`MAX_BYTES` (its int64 counters would no longer count them exactly)."""
        self._book(step, _engine.counted(parts, self.loc, self.L, self.lat, self.bw, self.one, self.conn,
                                         self.cluster))

    def local(self, step: int, sends: list, wire) -> dict | None:
        """One superstep of a rank that hosts every vproc, counted and delivered in one C call
        (``_engine.local`` with the rank's ``wire``: :meth:`count_sent`, each tag's delivery and
        :meth:`count_received`): ``sends`` the engine's batch sends [(tag, columns, values, row bytes), ...];
        ``{tag: Batch}`` by tag, each tag's messages in (destination, source, send order); None (nothing counted)
        when the general path must run (a tag sent twice, values not contiguous)."""
        got = _engine.local(wire, sends, step)
        if got is None:
            return None
        if got[1]:
            self.booked(got[1])
        return got[0]

    def wire(self, rank: np.ndarray, R: int):
        """What this rank's exchanges read at every superstep, held once (``_engine.wire``; ``rank[v]``
        vproc v's rank): at R = 1 :meth:`local`'s; under MPI ``_engine.outgoing(wire, sends, step)`` counts
        (:meth:`count_sent`), books and packs a superstep's batch sends for every rank in one call (``batch.wire``'s
        chunks, the tags in increasing order; (buffer, sizes, the booking's flag for :meth:`booked`), or None, nothing
        counted, when the general path must run: a tag sent twice, values not contiguous);
        ``_engine.came(wire, buffer, sizes, step)`` parses what came (``batch.unpack``'s, each tag sorted as
        delivered) and, when no object-path message came, counts the deliveries as :meth:`count_received` does."""
        return _engine.wire(rank, R, self.loc, self.L, self.lat, self.bw, self.one, self.conn, self.cluster,
                            self._books, self._recv)

    def _book(self, step: int, counted: tuple) -> None:
        """Keep one superstep's counts (``_engine.counted``'s result; ``_engine.book``: the declared bytes added,
        ``(step, stats)`` and the messages' columns logged)."""
        self.booked(_engine.book(self._books, step, counted))

    def booked(self, flag: int) -> None:
        """After ``_engine.book`` (or the calls that book as they count): 2, the cell's bytes passed
        :data:`MAX_BYTES` (its int64 counters would no longer count them exactly: nothing was kept); 1, the log
        holds more messages than the pairs (merged now)."""
        if flag == 2:
            raise ValueError(f"the level's messages declare {self.declared:.4g} bytes; the engine counts at most "
                             "2^53 bytes in a level")
        if flag:
            self._compact()

    def count_received(self, step: int, most: tuple) -> None:
        """One superstep's deliveries to this rank's vprocs: per kind the most one local vproc received (-1:
        none of the kind; ``_engine.most``)."""
        self._recv.append((step, most))

    def columns(self) -> tuple:
        """The per-superstep records as numpy columns, converted in C (``_metrics.records``: copied, never summed):
        ``(steps, counts, longest, recv_steps, most)``; per superstep that sent, ``counts[i, k]`` (messages,
        bytes, most one local vproc sent, 1 when a sender's modelled time is given) of kind k (0 where none)
        and ``longest[i, k]`` this rank's longest modelled send time; per superstep that delivered, ``most[i,
        k]`` the most one local vproc received (-1: none of the kind)."""
        seen = (len(self._sent), len(self._recv))  # the records only grow: unchanged while their lengths are
        if self._columns[0] != seen:
            K = len(KINDS)
            ss, cnt, lon, rs, rm = _metrics.records(self._sent, self._recv, K)
            self._columns = (seen, (np.frombuffer(ss, np.int64), np.frombuffer(cnt, np.int64).reshape(-1, K, 4),
                                    np.frombuffer(lon, np.float64).reshape(-1, K), np.frombuffer(rs, np.int64),
                                    np.frombuffer(rm, np.int64).reshape(-1, K)))
        return self._columns[1]

    def traffic(self) -> tuple:
        """This rank's part of the engine's totals (:func:`totals_of`): messages and bytes per kind (K x 2), and
        per superstep this rank sent in, its supersteps, whether a kind's sends left a vproc and its longest
        sender's modelled seconds."""
        steps, counts, longest, _, _ = self.columns()
        return counts[:, :, :2].sum(axis=0), steps, counts[:, :, 3] == 1, longest

    def kind_stats(self, k: int, since: int) -> tuple:
        """This rank's part of the superstep statistics of kind k from superstep ``since`` on
        (:func:`step_stats_of`): the supersteps that sent one, and [most one local vproc sent in one, messages,
        bytes, most one local vproc received in one]."""
        steps, counts, _, rsteps, most = self.columns()
        sent = (counts[:, k, 0] > 0) & (steps >= since)
        got = most[(most[:, k] >= 0) & (rsteps >= since), k]
        c = counts[sent, k]
        return steps[sent], [int(c[:, 2].max(initial=0)), int(c[:, 0].sum()), int(c[:, 1].sum()),
                             int(got.max(initial=0))]

    def pairs(self, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src * P + dst, messages, bytes)`` per vproc pair that this rank's vprocs sent to."""
        self._compact()
        got = self._pairs.get(kind)
        if got is None:
            z = np.empty(0, np.int64)
            return z, z, z
        return got

    def _compact(self) -> None:
        """Merge the logged supersteps into one sorted entry per kind and vproc pair. The next merge comes once
        as many messages are logged as the pairs hold (at least :data:`_COMPACT`): the log never holds much
        more than the pairs (a level of 2.8M messages no longer keeps 1M of them, 24 MB a rank), and each merge's
        sort is paid for by as many new messages."""
        if not self._log:
            return
        keys, kinds, nbytes = (np.frombuffer(b"".join(c), np.int64) for c in zip(*self._log))
        self._log.clear()  # (the list _engine.book appends to)
        self._state[1] = 0
        for k in np.flatnonzero(np.bincount(kinds, minlength=len(KINDS))).tolist():
            pick = kinds == k
            parts = [(keys[pick], np.ones(int(pick.sum()), np.int64), nbytes[pick])]
            if KINDS[k] in self._pairs:
                parts.insert(0, self._pairs[KINDS[k]])
            key, msgs, nb = (np.concatenate(c) for c in zip(*parts))
            order = np.argsort(key, kind="stable")
            key, msgs, nb = key[order], msgs[order], nb[order]
            first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            self._pairs[KINDS[k]] = (key[first], np.add.reduceat(msgs, first), np.add.reduceat(nb, first))
        self._state[2] = max(_COMPACT, sum(p[0].size for p in self._pairs.values()))


def totals_of(parts: list) -> dict:
    """Messages, bytes and modelled seconds per kind from every rank's :meth:`Counters.traffic`: a superstep
    lasts as long as its longest sender (the most over ranks), and a kind's supersteps are summed one after
    another in superstep order, by Python's ``sum`` as ever (integer counts: in any order)."""
    msgs = np.sum([p[0] for p in parts], axis=0)
    out = {}
    for k, kind in enumerate(KINDS):
        keys = np.concatenate([steps[timed[:, k]] for _, steps, timed, _ in parts])
        secs = np.concatenate([longest[timed[:, k], k] for _, _, timed, longest in parts])
        order = np.argsort(keys, kind="stable")
        keys, secs = keys[order], secs[order]
        if keys.size:  # one per superstep: the most over the ranks that sent in it
            secs = np.maximum.reduceat(secs, np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))))
        out[kind] = {"messages": int(msgs[k, 0]), "bytes": int(msgs[k, 1]), "modelled_s": float(sum(secs.tolist()))}
    return out


def step_stats_of(parts: list) -> dict:
    """Superstep statistics of one kind from every rank's :meth:`Counters.kind_stats` (``Engine.step_stats``)."""
    return {"supersteps": int(np.unique(np.concatenate([p[0] for p in parts])).size),
            "max_msgs_per_vproc": max(p[1][0] for p in parts),
            "max_recv_per_vproc": max(p[1][3] for p in parts),
            "messages": sum(p[1][1] for p in parts),
            "bytes": sum(p[1][2] for p in parts)}
