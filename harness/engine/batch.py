"""Typed message batches (docs/architecture.md, "Engine"): the messages of one stream (a *tag*) in one
superstep as numpy columns, and their wire form.

A batch is columns, one entry per message: ``src`` and ``dst`` vprocs, the ``kind`` counted
(balance, migration, application), the ``nbytes`` the message declares, and ``counts`` rows of ``values``
(the messages' payloads, concatenated along the first axis; None for messages that only declare bytes, such
as a migration's data). Between ranks a batch travels as raw array bytes behind a small descriptor; its data
is never pickled.
"""
from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..kernels import _engine

KINDS = ("balance", "migration", "application")
_I64 = np.dtype(np.int64)
_NONE = np.empty(0, np.int64)  # the columns of an empty batch (nothing to write into)


def take_rows(offsets: np.ndarray, counts: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Row indices of the messages ``order`` (each message's rows ``offsets[i]:offsets[i] + counts[i]``)."""
    c = counts[order]
    total = int(c.sum())
    if total == 0:
        return np.empty(0, np.int64)
    starts = np.repeat(offsets[:-1][order] - (np.cumsum(c) - c), c)
    return starts + np.arange(total, dtype=np.int64)


@dataclass
class Batch:
    """Messages of one tag, in the order the engine gives them (delivered: by destination, then source, then
    the order they were sent in): what :meth:`Engine.received` returns.

    A vproc's messages are the entries with its ``dst``; message i's payload is the rows
    ``values[offsets[i]:offsets[i + 1]]`` (``counts[i]`` of them), so several rows per message are split with
    :meth:`split` (one array per message) or :meth:`by_dst` (``{dst: [(src, rows), ...]}``). An empty batch
    (no message of the tag reached this rank: under MPI a rank may get none while another gets all) has
    ``values=None`` whatever the sender sent: test ``len(batch)`` before reading ``values``.

    Example:
        >>> got = eng.received("load")
        >>> for dst, msgs in got.by_dst().items():      # {} when nothing came
        ...     total = sum(int(rows.sum()) for src, rows in msgs)

    Attributes:
        src, dst: the sending and receiving vproc of each message (int64).
        kind: the index in ``KINDS`` of each message's kind (int64).
        nbytes: the bytes each message declares (counted and modelled; int64).
        counts: how many rows of ``values`` each message carries (int64).
        values: every message's rows, concatenated (None when the messages carry no values).
    """

    src: np.ndarray
    dst: np.ndarray
    kind: np.ndarray
    nbytes: np.ndarray
    counts: np.ndarray
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.src.size)

    @cached_property
    def offsets(self) -> np.ndarray:
        """Where each message's rows start in ``values`` (n + 1 entries; a batch is never changed)."""
        out = np.zeros(self.src.size + 1, np.int64)
        np.cumsum(self.counts, out=out[1:])
        return out

    def split(self) -> list:
        """Every message's rows, one array each."""
        if self.values is None or not len(self):
            return [None] * len(self)
        return np.split(self.values, self.offsets[1:-1])

    def by_dst(self) -> dict:
        """``{dst: [(src, rows), ...]}`` of a delivered batch, destinations in order, each one's messages in
        delivery order (one pass over the batch)."""
        if not len(self):
            return {}
        rows = self.split()
        src, dst = self.src.tolist(), self.dst.tolist()
        out: dict = {}
        for d, s_, r in zip(dst, src, rows):
            out.setdefault(d, []).append((s_, r))
        return out

    def select(self, order: np.ndarray) -> "Batch":
        """The messages ``order`` (indices), in that order."""
        values = None if self.values is None else self.values[take_rows(self.offsets, self.counts, order)]
        return Batch(self.src[order], self.dst[order], self.kind[order], self.nbytes[order], self.counts[order],
                     values)

    @staticmethod
    def empty() -> "Batch":
        """A batch of no messages (``values`` None)."""
        return Batch(_NONE, _NONE, _NONE, _NONE, _NONE, None)


class Delivered(Batch):
    """A Batch the kernels made (``_engine``: :meth:`Engine.received`'s): its columns views of one int64 buffer,
    ``kind``, ``nbytes`` and ``counts`` made when first read (most readers never do)."""

    def __getattr__(self, name: str):
        at = _LATER.get(name)
        if at is None or "_cols" not in self.__dict__:
            raise AttributeError(name)
        a = self.__dict__["_cols"]
        n = (a.size - 1) // 6
        got = self.__dict__[name] = a[at * n:(at + 1) * n]
        return got


_LATER = {"kind": 2, "nbytes": 3, "counts": 4}  # Delivered's columns made when read: their place in the buffer
# the kernels make Delivered batches (columns and values numpy arrays of their buffers) and read kinds by name
_engine.bind(KINDS, np.ndarray, Delivered, np.frombuffer, np.dtype)

# ------------------------------------------------------------------ the wire form of a superstep
def row_bytes(values: np.ndarray | None) -> int:
    """The bytes of one row of ``values`` (0 without values)."""
    return 0 if values is None else values.itemsize * math.prod(values.shape[1:])


def wire(streams: list, rank: np.ndarray, objects: list) -> tuple:
    """Every rank's chunk of one superstep in one buffer, and each chunk's size (``_engine.pack``).

    ``streams`` [(tag, (src, dst, kind, nbytes, counts), values), ...] in any order of destinations (each
    rank's messages keep their order), ``rank[v]`` the rank of vproc v, ``objects[r]`` the object-path
    messages for rank r (a list, pickled). A rank's chunk is an int64 header (the tag count, the descriptor's
    and the objects' bytes, then each tag's message count and value bytes), the streams' descriptor (the same
    for every rank: per tag its name, and its values' dtype string, row bytes and row shape), the objects, then
    each tag's columns (src, dst, kind, nbytes, counts) and values, all as raw bytes on 8-byte boundaries. A
    rank that gets nothing gets no bytes."""
    blobs = [pickle.dumps(objs, protocol=5) if objs else b"" for objs in objects]
    return _engine.pack([(*cols, raw(v), row_bytes(v), tag, v) for tag, cols, v in streams], rank, len(objects),
                        blobs)


def pack(batches: list, cuts: list, objects: list) -> list:
    """Every rank's chunk (a list of bytes-like, empty for a rank that gets nothing) of one superstep:
    ``batches`` [(tag, Batch), ...] each ordered by destination rank, ``cuts[i]`` where each rank's messages
    of batch i start (R + 1 entries), ``objects[r]`` the object-path messages for rank r (:func:`wire`)."""
    R = len(objects)
    streams = [(tag, tuple(_i64(getattr(b, f)) for f in _COLS), b.values) for tag, b in batches]
    rank = np.zeros(1 + max((int(b.dst.max()) for _, b in batches if len(b)), default=0), np.int64)
    for (_, b), cut in zip(batches, cuts):  # a destination's rank, from where its messages lie
        rank[b.dst] = np.repeat(np.arange(R, dtype=np.int64), np.diff(np.asarray(cut, np.int64)))
    buf, sizes = wire(streams, rank, objects)
    view, at, out = memoryview(buf), 0, []
    for n in sizes:
        out.append([view[at:at + n]] if n else [])
        at += n
    return out


def objects(blobs: list) -> list:
    """The object-path messages of the pickled blobs a superstep's chunks carried (``_engine.came``'s, ``unpack``'s),
    in the senders' order."""
    return [m for blob in blobs for m in pickle.loads(blob)]


def unpack(parts: list) -> tuple[list, dict]:
    """The object-path messages and ``{tag: Batch}`` of the chunks :func:`pack` wrote, one per sending rank in
    rank order (each tag's messages joined in that order, not sorted)."""
    blobs, got = _engine.receive(parts, 2 ** 62, False)
    return objects(blobs), got


_COLS = ("src", "dst", "kind", "nbytes", "counts")


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def raw(v: np.ndarray | None):
    """``v``'s bytes (a view when C-contiguous), or None."""
    if v is None:
        return None
    return memoryview(np.ascontiguousarray(v)).cast("B") if v.size else b""
