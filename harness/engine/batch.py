"""Typed message batches (docs/architecture.md, "Engine"): the messages of one stream (a *tag*) in one
superstep as numpy columns, and their wire form.

A batch is columns, one entry per message: ``src`` and ``dst`` vprocs, the ``kind`` counted
(balance, migration, application), the ``nbytes`` the message declares, and ``counts`` rows of ``values``
(the messages' payloads, concatenated along the first axis; None for messages that only declare bytes, such
as a migration's data). Between ranks a batch travels as raw array bytes behind a small descriptor; its data
is never pickled.
"""
from __future__ import annotations

import pickle
import struct
from dataclasses import dataclass
from functools import cached_property

import numpy as np

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
    the order they were sent in).

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

    def rows(self, a: int, z: int) -> "Batch":
        """The messages ``a:z`` (views, no copy)."""
        values = None if self.values is None else self.values[self.offsets[a]:self.offsets[z]]
        return Batch(self.src[a:z], self.dst[a:z], self.kind[a:z], self.nbytes[a:z], self.counts[a:z], values)

    @staticmethod
    def empty() -> "Batch":
        z = np.empty(0, np.int64)
        return Batch(z, z, z, z, z, None)

    @staticmethod
    def concat(parts: list) -> "Batch":
        """One batch of ``parts``' messages, in order (their values share a dtype and row shape, or none has any)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return Batch.empty()
        if len(parts) == 1:
            return parts[0]
        with_values = [p.values is not None for p in parts]
        if any(with_values) and not all(with_values):
            raise ValueError("a tag's messages either all carry values or none do")
        values = np.concatenate([p.values for p in parts]) if all(with_values) else None
        cols = [np.concatenate([getattr(p, f) for p in parts]) for f in ("src", "dst", "kind", "nbytes", "counts")]
        return Batch(*cols, values)


# ------------------------------------------------------------------ the wire form of one rank's sections
def pack(meta, sections: list) -> list:
    """Byte chunks of ``meta`` (a small picklable descriptor: tally, object-path messages) and the batch
    ``sections`` [(tag, Batch), ...]: one header, then each batch's columns as raw bytes."""
    if not sections and type(meta) is tuple and len(meta) == 2 and type(meta[0]) is int and meta[1] == [] \
            and -2 ** 63 <= meta[0] < 2 ** 63:
        return [struct.pack("<q", meta[0])]  # a tally alone: 8 bytes (an empty superstep's whole message)
    desc = [(tag, len(b), None if b.values is None else (b.values.dtype.str, b.values.shape[1:]))
            for tag, b in sections]
    head = pickle.dumps((meta, desc), protocol=5)
    chunks = [struct.pack("<q", len(head)), head]
    for _, b in sections:
        chunks.append(_raw(np.stack((b.src, b.dst, b.kind, b.nbytes, b.counts)).astype(np.int64, copy=False)))
        if b.values is not None:
            chunks.append(_raw(b.values))
    return chunks


def _raw(a: np.ndarray) -> np.ndarray:
    """``a``'s bytes as a flat uint8 array (no copy when ``a`` is contiguous)."""
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def unpack(buf) -> tuple:
    """``(meta, [(tag, Batch), ...])`` of a buffer :func:`pack` wrote (the arrays are views of ``buf``, which
    must not be written to afterwards)."""
    buf = memoryview(buf).cast("B")
    if not len(buf):
        return None, []
    if len(buf) == 8:
        return (struct.unpack_from("<q", buf, 0)[0], []), []
    (n,) = struct.unpack_from("<q", buf, 0)
    meta, desc = pickle.loads(buf[8:8 + n])
    pos, sections = 8 + n, []
    for tag, count, vtype in desc:
        cols = np.frombuffer(buf, np.int64, 5 * count, pos).reshape(5, count)  # src, dst, kind, nbytes, counts
        pos += 40 * count
        values = None
        if vtype is not None:
            dtype, shape = np.dtype(vtype[0]), tuple(vtype[1])
            rows = int(cols[4].sum())
            size = rows * int(np.prod(shape, dtype=np.int64)) if shape else rows
            values = np.frombuffer(buf, dtype, size, pos).reshape((rows,) + shape)
            pos += dtype.itemsize * size
        sections.append((tag, Batch(*cols, values)))
    return meta, sections
