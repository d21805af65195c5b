"""SBN's messages on the engine's batch path (README "Message costs").

Every message of a level but the locate messages travels on one stream, ``sbn``, so that a processor
reads what it received in the order it was sent (by sender, then send order), whatever its type. A
message is int64 words: its code, then its fields; a float travels as its IEEE-754 bits. It declares
8 bytes a word, and a ``DATA`` message also the data it stands for, 8 bytes per rwgt unit (the data
itself is not allocated). Operations are ``(start superstep, root, seq, overloaded)``.

| code | fields |
|---|---|
| ``BAL``, ``ABORT`` | op |
| ``NAK`` | op, joined |
| ``UP`` | op, m, the m gathered rows [p, QWgt, flags] (floats), k, k receivers, their neighbour counts, the neighbours |
| ``DIST`` | op, GWLen, e, plan entries as e senders, e receivers, e amounts, e bases; a, a receivers, a arrival depths |
| ``JOB`` | vertices |
| ``DJOB`` | origin, vertices |
| ``FETCH`` | requester, vertices |
| ``DATA`` | vertices |
"""
from __future__ import annotations

import struct

import numpy as np

from harness import KINDS

from . import _queue

BAL, NAK, ABORT, UP, DIST, JOB, DJOB, FETCH, DATA = range(9)
TAG = "sbn"
LOCATE = "locate"  # the locate messages' stream
WORD = 8
_BALANCE, _MIGRATION = KINDS.index("balance"), KINDS.index("migration")


def _as(k: int, frm: str, to: str, x) -> tuple:
    """k numbers ``x`` of struct format ``frm`` read back as ``to`` (float64 <-> int64 bits, little-endian)."""
    return struct.unpack(f"<{k}{to}", struct.pack(f"<{k}{frm}", *x))


def floats(words: np.ndarray) -> np.ndarray:
    """The floats whose bits ``words`` are."""
    return np.ascontiguousarray(words, np.int64).view(np.float64)


class Outbox:
    """One superstep's SBN messages, kept as Python tuples and sent in one :meth:`Engine.send` at the exchange;
    the locate messages (stream ``locate``) likewise, sent before them (they are posted first)."""

    def __init__(self):
        self.msgs: list = []  # (src, dst, code, fields, data bytes)
        self.locs: list = []  # (src, destinations, the message's words)

    def add(self, src: int, dst: int, code: int, fields, data_bytes: int = 0) -> None:
        """One message: its ``fields`` (a sequence of ints, or an int64 array: the form for long messages) and
        the bytes of data it stands for."""
        self.msgs.append((src, dst, code, fields, data_bytes))

    def locate(self, src: int, to: np.ndarray, words: np.ndarray) -> None:
        """One locate message (``words``: [src, vertex, ...]) from ``src`` to each of ``to``."""
        if to.size:
            self.locs.append((src, to, words))

    def bound(self, eng):
        """What ``_queue.step`` reads to flush this outbox as :meth:`flush` does, in C (its lists cleared in place)."""
        return _queue.bind("oooooooi", self.locs, self.msgs, eng, eng.sender(), np.frombuffer, np.dtype(np.int64),
                           (TAG, LOCATE, "migration"), np.array([WORD, FETCH, _BALANCE, _MIGRATION], np.int64))

    def flush(self, eng) -> None:
        if self.locs:  # one message per receiver: the columns and the words packed in C
            cols = np.frombuffer(_queue.locates(self.locs), np.int64)
            self.locs.clear()  # (in place: the level's C steps append to it)
            n = int(cols[0])
            src, dst, counts = cols[1:1 + 3 * n].reshape(3, n)
            eng.send(LOCATE, src, dst, cols[1 + 3 * n:], counts=counts, kind="migration")
        if not self.msgs:
            return
        n = len(self.msgs)
        # the columns (the kind of each message from its code: FETCH and DATA are migration), then the words (C)
        cols = np.frombuffer(_queue.pack(self.msgs, WORD, FETCH, _BALANCE, _MIGRATION), np.int64)
        self.msgs.clear()  # (in place: the level's C steps append to it)
        src, dst, kind, counts, nbytes = cols[:5 * n].reshape(5, n)
        eng.send(TAG, src, dst, cols[5 * n:], counts=counts, nbytes=nbytes, kind=kind)


def up_fields(op: tuple, rows: np.ndarray, nbd: tuple) -> np.ndarray:
    """``UP``: the gathered rows of a subtree and the neighbour processors its receivers reported (``nbd``:
    receivers, their neighbour counts, the neighbours concatenated), as one int64 array."""
    keys, lens, procs = nbd
    return np.concatenate((np.array([*op, len(rows)], np.int64),
                           np.ascontiguousarray(rows, np.float64).reshape(-1).view(np.int64),
                           np.array([len(keys)], np.int64), keys, lens, procs), dtype=np.int64)


def read_up(words: np.ndarray) -> tuple:
    """(rows, nbd) of an ``UP`` message's fields after the op."""
    m = int(words[0])
    rows = floats(words[1:1 + 3 * m]).reshape(m, 3)
    at = 1 + 3 * m
    k = int(words[at])
    return rows, (words[at + 1:at + 1 + k], words[at + 1 + k:at + 1 + 2 * k], words[at + 1 + 2 * k:])


def dist_fields(op: tuple, gw: float, plan: list, arrive: list) -> list:
    """``DIST``: GWLen, the plan entries (sender, receiver, amount, base) and the arrival depths (receiver,
    depth) of a subtree."""
    s, j, a, b = zip(*plan) if plan else ((),) * 4
    k, d = zip(*arrive) if arrive else ((), ())
    e = len(s)
    f = _as(1 + 2 * e, "d", "q", (gw, *a, *b))  # the floats' bits
    return [*op, f[0], e, *s, *j, *f[1:], len(k), *k, *d]


def read_dist(words: np.ndarray) -> tuple:
    """(GWLen, plan columns, arrive columns) of a ``DIST`` message's fields after the op, as lists."""
    ints = words.tolist()
    e = ints[1]
    s, j = ints[2:2 + e], ints[2 + e:2 + 2 * e]
    f = _as(1 + 2 * e, "q", "d", (ints[0], *ints[2 + 2 * e:2 + 4 * e]))  # the floats of the bits
    gw, a, b = f[0], list(f[1:1 + e]), list(f[1 + e:])
    at = 2 + 4 * e
    n = ints[at]
    return gw, (s, j, a, b), (ints[at + 1:at + 1 + n], ints[at + 1 + n:at + 1 + 2 * n])
