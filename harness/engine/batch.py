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
import struct
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..kernels import _engine

KINDS = ("balance", "migration", "application")
_I64 = np.dtype(np.int64)


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
        z = np.empty(0, np.int64)
        return Batch(z, z, z, z, z, None)


# ------------------------------------------------------------------ the wire form of a superstep
def descriptor(streams: list, cache: dict) -> bytes:
    """The streams' descriptor (tags, value dtypes and row shapes), pickled once per distinct set."""
    key = tuple((tag, None if v is None else (v.dtype.str, v.shape[1:])) for tag, v in streams)
    got = cache.get(key)
    if got is None:
        got = cache[key] = pickle.dumps(list(key), protocol=5) if key else b""
    return got


def row_bytes(values: np.ndarray | None) -> int:
    """The bytes of one row of ``values`` (0 without values)."""
    return 0 if values is None else values.itemsize * math.prod(values.shape[1:])


def wire(streams: list, rank: np.ndarray, objects: list, descs: dict) -> tuple:
    """Every rank's chunk of one superstep in one buffer, and each chunk's size (``_engine.pack``).

    ``streams`` [(tag, (src, dst, kind, nbytes, counts), values), ...] in any order of destinations (each
    rank's messages keep their order), ``rank[v]`` the rank of vproc v, ``objects[r]`` the object-path
    messages for rank r (a list, pickled). A rank's chunk is an int64 header (the tag count, the descriptor's
    and the objects' bytes, then each tag's message count and value bytes), the descriptor (the same for
    every rank), the objects, then each tag's columns (src, dst, kind, nbytes, counts) and values, all as
    raw bytes on 8-byte boundaries. A rank that gets nothing gets no bytes."""
    desc = descriptor([(tag, v) for tag, _, v in streams], descs)
    blobs = [pickle.dumps(objs, protocol=5) if objs else b"" for objs in objects]
    return _engine.pack([(*cols, raw(v), row_bytes(v)) for _, cols, v in streams], rank, len(objects), desc,
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
    buf, sizes = wire(streams, rank, objects, {})
    view, at, out = memoryview(buf), 0, []
    for n in sizes:
        out.append([view[at:at + n]] if n else [])
        at += n
    return out


def segments(parts: list, descs: dict) -> tuple[list, dict, dict]:
    """The object-path messages, ``{tag: [(src, dst, kind, nbytes, counts, values), ...]}`` (raw bytes, one
    entry per sender that sent the tag, in sender order) and ``{tag: (dtype str, row shape) or None}`` of the
    chunks the senders wrote, one per sending rank in rank order. ``descs`` caches decoded descriptors."""
    objects, segs, types = [], {}, {}
    for buf in parts:
        if not len(buf):
            continue
        k, dlen, olen = struct.unpack_from("<3q", buf, 0)
        sizes = struct.unpack_from(f"<{2 * k}q", buf, 24)
        pos = 24 + 16 * k
        key = bytes(buf[pos:pos + dlen])
        desc = descs.get(key)
        if desc is None:
            desc = descs[key] = pickle.loads(key) if dlen else []
        pos += dlen + -dlen % 8
        if olen:
            objects.extend(pickle.loads(buf[pos:pos + olen]))
            pos += olen + -olen % 8
        for i, (tag, vtype) in enumerate(desc):
            n, nv = 8 * sizes[i], sizes[k + i]
            cols = [buf[pos + j * n:pos + (j + 1) * n] for j in range(5)]
            pos += 5 * n
            if vtype is not None:
                cols.append(buf[pos:pos + nv])
                pos += nv + -nv % 8
            else:
                cols.append(None)
            segs.setdefault(tag, []).append(tuple(cols))
            if types.setdefault(tag, vtype) != vtype:
                raise ValueError(f"tag {tag!r}: a tag's messages either all carry values of one type or none do")
    return objects, segs, types


def unpack(parts: list, descs: dict | None = None) -> tuple[list, dict]:
    """The object-path messages and ``{tag: Batch}`` of the chunks :func:`pack` wrote, one per sending rank in
    rank order (each tag's messages joined in that order, not sorted)."""
    objects, segs, types = segments(parts, {} if descs is None else descs)
    got = {}
    for tag, ps in segs.items():
        cols = [np.frombuffer(b"".join(p[i] for p in ps), np.int64) for i in range(5)]
        values = None
        if types[tag] is not None:
            values = np.frombuffer(b"".join(p[5] for p in ps), np.dtype(types[tag][0])).reshape(
                (int(cols[4].sum()),) + tuple(types[tag][1]))
        got[tag] = Batch(*cols, values)
    return objects, got


_COLS = ("src", "dst", "kind", "nbytes", "counts")


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def raw(v: np.ndarray | None):
    """``v``'s bytes (a view when C-contiguous), or None."""
    if v is None:
        return None
    return memoryview(np.ascontiguousarray(v)).cast("B") if v.size else b""
