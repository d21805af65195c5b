"""The Heap of potential reassignments (MinEX paper §3.3, §3.4).

A binary min-heap keyed by Gain. A record is {Gain, ΔMinVar, v, p}. Each
vertex has at most one record: its best move. ``pos[v]`` is the vertex's
direct pointer into the heap (VList's ``*Heap``), so a record can be changed
or removed without searching. Ties in Gain go to the smaller vertex id,
which keeps the order the same on every run and every MPI rank.
"""
from __future__ import annotations


class GainHeap:
    __slots__ = ("gain", "vert", "rec", "pos")

    def __init__(self):
        self.gain: list = []  # keys
        self.vert: list = []  # vertex of each slot
        self.rec: list = []  # (ΔMinVar, p, ...) payload of each slot
        self.pos: dict = {}  # *Heap: vertex -> slot

    def __len__(self) -> int:
        return len(self.vert)

    def __contains__(self, v) -> bool:
        return v in self.pos

    def top_gain(self) -> float:
        return self.gain[0]

    def _less(self, i: int, j: int) -> bool:
        gi, gj = self.gain[i], self.gain[j]
        return gi < gj or (gi == gj and self.vert[i] < self.vert[j])

    def _swap(self, i: int, j: int) -> None:
        g, vt, r, pos = self.gain, self.vert, self.rec, self.pos
        g[i], g[j] = g[j], g[i]
        vt[i], vt[j] = vt[j], vt[i]
        r[i], r[j] = r[j], r[i]
        pos[vt[i]] = i
        pos[vt[j]] = j

    def _up(self, i: int) -> None:
        while i > 0:
            parent = (i - 1) >> 1
            if self._less(i, parent):
                self._swap(i, parent)
                i = parent
            else:
                break

    def _down(self, i: int) -> None:
        n = len(self.vert)
        while True:
            left = 2 * i + 1
            if left >= n:
                return
            best = left
            right = left + 1
            if right < n and self._less(right, left):
                best = right
            if self._less(best, i):
                self._swap(best, i)
                i = best
            else:
                return

    def put(self, v: int, gain: float, rec) -> None:
        """Insert v's record, or replace it if v already has one."""
        i = self.pos.get(v)
        if i is None:
            i = len(self.vert)
            self.gain.append(gain)
            self.vert.append(v)
            self.rec.append(rec)
            self.pos[v] = i
            self._up(i)
            return
        old = self.gain[i]
        self.gain[i] = gain
        self.rec[i] = rec
        if gain < old:
            self._up(i)
        else:
            self._down(i)

    def remove(self, v: int) -> None:
        """Remove v's record if it has one (direct, through ``pos``)."""
        i = self.pos.pop(v, None)
        if i is None:
            return
        last = len(self.vert) - 1
        if i != last:
            g, vt, r = self.gain, self.vert, self.rec
            g[i], vt[i], r[i] = g[last], vt[last], r[last]
            self.pos[vt[i]] = i
            g.pop(), vt.pop(), r.pop()
            u = vt[i]
            self._up(i)
            self._down(self.pos[u])
        else:
            self.gain.pop(), self.vert.pop(), self.rec.pop()

    def pop(self):
        """Remove and return (gain, v, rec) of the smallest Gain."""
        g, v, r = self.gain[0], self.vert[0], self.rec[0]
        self.remove(v)
        return g, v, r
