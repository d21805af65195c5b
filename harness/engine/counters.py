"""The engine's message counters (docs/architecture.md, "Engine"): per kind, per vproc pair and per
superstep, computed from one superstep's message columns with numpy (``bincount`` per vproc), never per
message in Python.

Modelled time follows the Machine: a message from p to q != p lasts ``(latency + bytes / bandwidth) *
Conn[cluster p, cluster q]``; a superstep lasts as long as its busiest sender's messages of a kind, summed
in the order they were sent.
"""
from __future__ import annotations

import numpy as np

from ..contract.model import Machine
from .batch import KINDS

_COMPACT = 1 << 20  # pair entries kept before they are merged
MAX_BYTES = 2**53  # the bytes a cell's messages may declare in all: exact in float64 (modelled time, rows)


class Counters:
    """This rank's counts: the sends of its vprocs and the deliveries to them."""

    def __init__(self, P: int, machine: Machine, lo: int):
        self.P, self.lo = P, lo
        self.lat, self.bw = machine.latency, machine.bandwidth
        self.conn, self.cluster = machine.conn, machine.cluster
        self.one = float(self.conn[0, 0]) if machine.C == 1 else None
        self._pairs = {k: [] for k in KINDS}  # kind -> [(src * P + dst, messages, bytes), ...]
        self._held = 0
        self.steps: list = []  # (superstep, {kind: this rank's longest modelled send time})
        self.sent: list = []  # (superstep, kind, most one local vproc sent, messages, bytes)
        self.recv: list = []  # (superstep, kind, most one local vproc received)
        self.declared = 0.0  # bytes this rank's vprocs sent in the cell (at most MAX_BYTES)

    def count_sent(self, step: int, kind: np.ndarray, src: np.ndarray, dst: np.ndarray, nbytes: np.ndarray) -> None:
        """One superstep's sends of this rank (one entry per message, in the order sent); ValueError when the
        cell's bytes would pass :data:`MAX_BYTES` (its int64 counters would no longer count them exactly)."""
        self.declared += float(nbytes.sum(dtype=np.float64))
        if self.declared > MAX_BYTES:
            raise ValueError(f"the level's messages declare {self.declared:.4g} bytes; the engine counts at most "
                             "2^53 bytes in a level")
        longest = {}
        present = np.flatnonzero(np.bincount(kind, minlength=len(KINDS))).tolist()
        for k in present:
            name = KINDS[k]
            s, d, b = (src, dst, nbytes) if len(present) == 1 else (src[kind == k], dst[kind == k], nbytes[kind == k])
            self._pairs[name].append((s * self.P + d, None, b))
            self._held += s.size
            per = np.bincount(s - self.lo)
            self.sent.append((step, name, int(per.max()), int(s.size), int(b.sum())))
            off = s != d
            if off.any():
                s, d, b = s[off], d[off], b[off]
                conn = self.one if self.one is not None else self.conn[self.cluster[s], self.cluster[d]]
                t = (self.lat + b / self.bw) * conn
                longest[name] = float(np.bincount(s - self.lo, weights=t).max())
        if longest:
            self.steps.append((step, longest))
        if self._held > _COMPACT:
            self._compact()

    def count_received(self, step: int, kind: np.ndarray, dst: np.ndarray) -> None:
        """One superstep's deliveries to this rank's vprocs."""
        present = np.flatnonzero(np.bincount(kind, minlength=len(KINDS))).tolist()
        for k in present:
            d = dst if len(present) == 1 else dst[kind == k]
            self.recv.append((step, KINDS[k], int(np.bincount(d - self.lo).max())))

    def pairs(self, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src * P + dst, messages, bytes)`` per vproc pair that this rank's vprocs sent to."""
        self._compact()
        got = self._pairs[kind]
        if not got:
            z = np.empty(0, np.int64)
            return z, z, z
        return got[0]

    def _compact(self) -> None:
        for kind, got in self._pairs.items():
            if len(got) < 2 and all(n is not None for _, n, _ in got):
                continue
            keys = np.concatenate([k for k, _, _ in got])
            msgs = np.concatenate([np.ones(k.size, np.int64) if n is None else n for k, n, _ in got])
            nbytes = np.concatenate([b for _, _, b in got])
            order = np.argsort(keys, kind="stable")
            keys, msgs, nbytes = keys[order], msgs[order], nbytes[order]
            first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
            self._pairs[kind] = [(keys[first], np.add.reduceat(msgs, first), np.add.reduceat(nbytes, first))]
        self._held = sum(k.size for got in self._pairs.values() for k, _, _ in got)
