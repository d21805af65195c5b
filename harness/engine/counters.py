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
from ..kernels import _engine
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
        self._held = 0  # messages logged since the last merge
        self._limit = _COMPACT  # merged when more are held: the pairs' size, at least _COMPACT
        self._sent: list = []  # (superstep, _engine.counted's stats): read as sent and steps
        self._recv: list = []  # (superstep, _engine.most's maxima): read as recv
        self.declared = 0.0  # bytes this rank's vprocs sent in the cell (at most MAX_BYTES)

    def count_sent(self, step: int, parts: list) -> None:
        """One superstep's sends of this rank: ``parts`` [(kind, src, dst, nbytes), ...] int64 columns, one per
        send in the order sent (``_engine.counted``); ValueError when the cell's bytes would pass
        :data:`MAX_BYTES` (its int64 counters would no longer count them exactly)."""
        self._book(step, _engine.counted(parts, self.loc, self.L, self.lat, self.bw, self.one, self.conn,
                                         self.cluster))

    def local(self, step: int, sends: list, P: int) -> list | None:
        """One superstep of a rank that hosts every vproc, counted and delivered in one C call
        (``_engine.local``: :meth:`count_sent`, each tag's delivery and :meth:`count_received`): ``sends``
        the engine's batch sends [(tag, columns, values, row bytes), ...]; [(tag, columns, values bytes,
        values), ...] by tag, each tag's messages in (destination, source, send order); None (nothing counted)
        when the general path must run (a tag sent twice, values not contiguous)."""
        got = _engine.local(sends, P, self.loc, self.L, self.lat, self.bw, self.one, self.conn, self.cluster)
        if got is None:
            return None
        counted, streams, most = got
        self._book(step, counted)
        self.count_received(step, most)
        return streams

    def outgoing(self, step: int, sends: list, by: list, rank: np.ndarray, R: int, desc: bytes) -> tuple | None:
        """One superstep's batch sends of a rank under MPI counted and packed for every rank in one C call
        (``_engine.outgoing``: :meth:`count_sent` and ``batch.wire``'s chunks): ``sends`` in the order made,
        ``by`` the same by tag, ``rank[v]`` vproc v's rank, ``desc`` their descriptor; (buffer, sizes), or None
        (nothing counted) when the general path must run (a tag sent twice, values not contiguous)."""
        got = _engine.outgoing(sends, by, rank, R, desc, self.loc, self.L, self.lat, self.bw, self.one, self.conn,
                               self.cluster)
        if got is None:
            return None
        self._book(step, got[0])
        return got[1], got[2]

    def _book(self, step: int, counted: tuple) -> None:
        """Keep one superstep's counts (``_engine.counted``'s result)."""
        stats, keys, kinds, nbytes, declared = counted
        self.declared += declared
        if self.declared > MAX_BYTES:
            raise ValueError(f"the level's messages declare {self.declared:.4g} bytes; the engine counts at most "
                             "2^53 bytes in a level")
        self._sent.append((step, stats))
        self._log.append((keys, kinds, nbytes))
        self._held += len(keys) // 8
        if self._held > self._limit:
            self._compact()

    def count_received(self, step: int, most: tuple) -> None:
        """One superstep's deliveries to this rank's vprocs: per kind the most one local vproc received (-1:
        none of the kind; ``_engine.most``)."""
        self._recv.append((step, most))

    @property
    def sent(self) -> list:
        """(superstep, kind, most one local vproc sent, messages, bytes) per superstep and kind sent."""
        return [(step, KINDS[k], st[2], st[0], st[1]) for step, stats in self._sent for k, st in enumerate(stats)
                if st is not None]

    @property
    def steps(self) -> list:
        """(superstep, {kind: this rank's longest modelled send time}) per superstep that sent off a vproc."""
        out = []
        for step, stats in self._sent:
            longest = {KINDS[k]: st[3] for k, st in enumerate(stats) if st is not None and st[3] is not None}
            if longest:
                out.append((step, longest))
        return out

    @property
    def recv(self) -> list:
        """(superstep, kind, most one local vproc received) per superstep and kind delivered."""
        return [(step, KINDS[k], m) for step, most in self._recv for k, m in enumerate(most) if m >= 0]

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
        self._log, self._held = [], 0
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
        self._limit = max(_COMPACT, sum(p[0].size for p in self._pairs.values()))
