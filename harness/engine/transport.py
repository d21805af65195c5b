"""The one MPI exchange every engine collective is made of (docs/architecture.md, "Engine").

Each collective is an ``Alltoall`` of a fixed int64 header per rank pair (the collective's name as a code,
a tally the ranks sum, the bytes the sending rank sends to other ranks in all, the byte count that follows)
and one ``Alltoallv`` of bytes (mpi4py's buffer interface). The header tells every rank whether any rank
sends another rank a byte; when none does (each rank's messages stay on it: BSP's superstep with no
communication, which every rank learns from the same headers), every rank leaves out the ``Alltoallv`` and
keeps its own chunk. Every rank makes the same calls whatever it sends, so a rank whose cell failed can release
the others from whatever collective they wait in: its header names ``abort`` and every rank raises
:class:`CellAborted`; ranks whose headers name different collectives raise :class:`Diverged` together.
"""
from __future__ import annotations

import functools
import os
import pickle
from itertools import accumulate
import time
import zlib

import numpy as np

from .threads import cores

ABORT = "abort"


class CellAborted(BaseException):
    """Another rank's cell failed: leave the cell (a BaseException, so a plugin's ``except Exception``
    cannot swallow it and go on to a collective the failed rank will never join)."""


class Diverged(CellAborted):
    """The ranks met in different collectives (a rank took another path through the cell): every rank
    raises it in the same collective, so all leave the cell together and the cell fails."""


@functools.cache
def code(what: str) -> int:
    """The header's number for a collective's name (each name's computed once)."""
    return zlib.crc32(what.encode())


_ABORT = code(ABORT)
_CROWDED: dict = {}  # communicator handle -> more ranks on some host than that host's cores


def crowded(comm) -> bool:
    """Whether some host runs more of ``comm``'s ranks than it has cores for them (a collective, once per
    communicator). MPICH spins while it waits in a collective; a spinning rank that shares a core with a
    working one takes the core from it, and the working rank refills its caches after every switch."""
    key = comm.py2f()
    if key not in _CROWDED:
        from mpi4py import MPI

        host = comm.Split_type(MPI.COMM_TYPE_SHARED)
        over = host.Get_size() > cores()
        host.Free()
        _CROWDED[key] = bool(comm.allreduce(over, op=MPI.LOR))
    return _CROWDED[key]


class Transport:
    """The exchange of ``comm`` (R > 1 ranks); ``cpu`` and ``wall`` are the CPU and wall time spent inside it."""

    def __init__(self, comm):
        from mpi4py import MPI  # only a run under mpiexec gets here

        self.comm, self.R, self.byte = comm, comm.Get_size(), MPI.BYTE
        self.me = comm.Get_rank()
        self._head = np.empty((self.R, 4), np.int64)  # the header this rank sends: code, tally, bytes out, bytes
        self._got = np.empty((self.R, 4), np.int64)  # the headers it receives
        self.cpu = self.wall = 0.0  # CPU and wall seconds inside exchanges
        self.tally = 0  # the sum over ranks of the tallies of the last exchange
        self.came = 0  # the bytes the last exchange brought this rank (from every rank, itself included)
        self.inside = False  # between the two calls of an exchange: a signal's exception waits (:meth:`defer`)
        self.deferred = None
        self.timed = False  # the cell runs under a deadline (SIGALRM): collectives wait inside MPI
        self._crowded = None  # known at the first collective (:func:`crowded` is one)

    def exchange(self, buf, sizes: list, what: str, tally: int = 0, clock: float | None = None,
                 one: bool = False) -> list:
        """Send ``sizes[r]`` bytes of ``buf`` (every rank's chunk, one after another) to rank r; the bytes every
        rank sent here, in rank order (:meth:`received`'s, cut into one view per rank)."""
        recv, n = self.received(buf, sizes, what, tally, clock, one)
        if not self.came:
            return [b""] * self.R
        view, at, parts = memoryview(recv), 0, []
        for k in n:
            parts.append(view[at:at + k])
            at += k
        return parts

    def received(self, buf, sizes: list, what: str, tally: int = 0, clock: float | None = None,
                 one: bool = False) -> tuple:
        """:meth:`exchange` with what came left whole: the bytes every rank sent here, one after another in rank
        order, and the list of their sizes. ``tally`` (an int64) rides in the header: ``self.tally`` is the sum
        over ranks afterwards. ``clock``: the CPU clock (``time.process_time``) the caller read as it called (one
        read serves both; None: read here). ``one``: ``buf`` is one chunk that goes to every rank (each
        ``sizes[r]`` is its length; sent once from the same bytes). Raises CellAborted if a rank aborted,
        Diverged (on every rank) if the ranks are in different collectives."""
        t, w = time.process_time() if clock is None else clock, time.perf_counter()
        self._arrive()
        recv, got = self._both(code(what), sizes, np.frombuffer(buf, np.uint8), tally, one=one)
        codes, tallies, _, n = map(list, zip(*got))
        self.tally = sum(tallies)
        self.cpu += time.process_time() - t
        self.wall += time.perf_counter() - w
        if codes.count(codes[0]) != self.R or codes[0] == _ABORT:  # a rank aborted, or the ranks diverged
            self._failed(what, codes, n, recv)
        return recv, n

    def _failed(self, what: str, codes: list, n: list, recv) -> None:
        """Raise CellAborted when a rank's header names ``abort`` (its reason, pickled, in its chunk), else
        Diverged on every rank (all learn each other's collectives' names first, then leave together)."""
        if _ABORT in codes:
            at = sum(n[:codes.index(_ABORT)])
            raise CellAborted(pickle.loads(recv[at:at + n[codes.index(_ABORT)]]))
        names = self.objects(what, "diverged")
        raise Diverged("failed: ranks took different paths through the cell (rank collectives: "
                       + ", ".join(f"{r}: {n}" for r, n in enumerate(names)) + ")")

    def _both(self, what: int, sizes: list, send: np.ndarray, tally: int = 0, late: bool = True,
              one: bool = False) -> tuple:
        """The header ``Alltoall`` and the ``Alltoallv`` of ``send`` (``sizes[r]`` bytes to rank r; with ``one``
        the same chunk, all of ``send``, to every rank: every displacement 0, which MPI allows a send buffer),
        as one step: the bytes received (every rank's in rank order) and the headers (a list of [code, tally,
        bytes out, bytes] per rank). When no rank sends another a byte, every rank leaves the ``Alltoallv`` out
        and receives its own chunk. An exception a signal handler hands to :meth:`defer` meanwhile is raised
        after both (dropped with ``late=False``: the cell has failed already)."""
        head, got, me = self._head, self._got, self.me
        own = sizes[me]
        head[:, :3] = what, tally, sum(sizes) - own  # the same to every rank: one broadcast
        head[:, 3] = sizes
        self.inside = True
        try:
            self.comm.Alltoall(head, got)
            rows = got.tolist()
            n = [r[3] for r in rows]
            self.came = sum(n)
            if any(r[2] for r in rows):
                sdis = [0] * self.R if one else [0, *accumulate(sizes)][:-1]
                rdis = [0, *accumulate(n)][:-1]
                recv = np.empty(self.came, np.uint8)
                self.comm.Alltoallv([send, (sizes, sdis), self.byte], [recv, (n, rdis), self.byte])
            else:  # no rank sends to another: every rank leaves the Alltoallv out alike
                at = 0 if one else sum(sizes[:me])
                recv = send[at:at + own]
        finally:
            self.inside = False
        exc, self.deferred = self.deferred, None
        if exc is not None and late:
            raise exc
        return recv, rows

    def defer(self, exc: BaseException) -> bool:
        """From a signal handler: True if an exchange is between its two calls (``exc`` is raised when both are
        done, so that no rank is left in the second), else False (raise it now)."""
        if self.inside:
            self.deferred = exc
        return self.inside

    def objects(self, obj, what: str) -> list:
        """``obj`` to every rank (pickled once, its bytes sent once to all); the objects every rank sent here, in
        rank order."""
        blob = pickle.dumps(obj, protocol=5)
        got = self.exchange(blob, [len(blob)] * self.R, what, one=True)
        return [pickle.loads(b) for b in got]

    def abort(self, reason: str) -> None:
        """Release the other ranks from the collective they wait in (this rank's cell failed)."""
        self._arrive()
        blob = pickle.dumps(reason, protocol=5)
        self._both(code(ABORT), [len(blob)] * self.R, np.frombuffer(blob, np.uint8), late=False, one=True)

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
