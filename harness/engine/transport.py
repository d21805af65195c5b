"""The one MPI exchange every engine collective is made of (docs/architecture.md, "Engine").

Each collective is an ``Alltoall`` of a fixed int64 header per rank pair (the collective's name as a code,
the byte count that follows, a tally the ranks sum) and one ``Alltoallv`` of bytes (mpi4py's buffer
interface). Every rank makes the same two calls whatever it sends, so a rank whose cell failed can release
the others from whatever collective they wait in: its header names ``abort`` and every rank raises
:class:`CellAborted`; ranks whose headers name different collectives raise :class:`Diverged` together.
"""
from __future__ import annotations

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


def code(what: str) -> int:
    """The header's number for a collective's name."""
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
    """The exchange of ``comm`` (R > 1 ranks); ``cpu`` is the CPU time spent inside it."""

    def __init__(self, comm):
        from mpi4py import MPI  # only a run under mpiexec gets here

        self.comm, self.R, self.byte = comm, comm.Get_size(), MPI.BYTE
        self._head = np.empty((self.R, 3), np.int64)  # the header this rank sends: code, bytes, tally
        self.cpu = 0.0
        self.tally = 0  # the sum over ranks of the tallies of the last exchange
        self.inside = False  # between the two calls of an exchange: a signal's exception waits (:meth:`defer`)
        self.deferred = None
        self.timed = False  # the cell runs under a deadline (SIGALRM): collectives wait inside MPI
        self._crowded = None  # known at the first collective (:func:`crowded` is one)

    def exchange(self, buf, sizes: list, what: str, tally: int = 0) -> list:
        """Send ``sizes[r]`` bytes of ``buf`` (every rank's chunk, one after another) to rank r; the bytes every
        rank sent here, in rank order. ``tally`` (an int64) rides in the header: ``self.tally`` is the sum over
        ranks afterwards. Raises CellAborted if a rank aborted, Diverged (on every rank) if the ranks are in
        different collectives."""
        t = time.process_time()
        self._arrive()
        send = np.frombuffer(buf, np.uint8)
        recv, got, rdis = self._both(code(what), sizes, send, tally)
        codes, n, tallies = zip(*got.tolist())
        self.tally = sum(tallies)
        self.cpu += time.process_time() - t
        view = memoryview(recv)
        parts = [view[a:a + k] for a, k in zip(rdis, n)]
        if _ABORT in codes:
            raise CellAborted(pickle.loads(parts[codes.index(_ABORT)]))
        if len(set(codes)) > 1:  # every rank sees it: all learn each other's names, then leave together
            names = self.objects([what] * self.R, "diverged")
            raise Diverged("failed: ranks took different paths through the cell (rank collectives: "
                           + ", ".join(f"{r}: {n}" for r, n in enumerate(names)) + ")")
        return parts

    def _both(self, what: int, sizes: list, send: np.ndarray, tally: int = 0, late: bool = True) -> tuple:
        """The header ``Alltoall`` and the ``Alltoallv`` of ``send`` (``sizes[r]`` bytes to rank r), as one
        step: an exception a signal handler hands to :meth:`defer` meanwhile is raised after both (dropped
        with ``late=False``: the cell has failed already)."""
        head, got = self._head, np.empty((self.R, 3), np.int64)
        head[:, 0], head[:, 1], head[:, 2] = what, sizes, tally
        sdis = [0, *accumulate(sizes)][:-1]
        self.inside = True
        try:
            self.comm.Alltoall(head, got)
            n = got[:, 1].tolist()
            rdis = [0, *accumulate(n)]
            recv = np.empty(rdis.pop(), np.uint8)
            self.comm.Alltoallv([send, (sizes, sdis), self.byte], [recv, (n, rdis), self.byte])
        finally:
            self.inside = False
        exc, self.deferred = self.deferred, None
        if exc is not None and late:
            raise exc
        return recv, got, rdis

    def defer(self, exc: BaseException) -> bool:
        """From a signal handler: True if an exchange is between its two calls (``exc`` is raised when both are
        done, so that no rank is left in the second), else False (raise it now)."""
        if self.inside:
            self.deferred = exc
        return self.inside

    def objects(self, send: list, what: str) -> list:
        """One Python object to each rank; the objects every rank sent here, in rank order."""
        blobs = [pickle.dumps(x, protocol=5) for x in send]
        got = self.exchange(b"".join(blobs), [len(b) for b in blobs], what)
        return [pickle.loads(b) for b in got]

    def abort(self, reason: str) -> None:
        """Release the other ranks from the collective they wait in (this rank's cell failed)."""
        self._arrive()
        blob = pickle.dumps(reason, protocol=5)
        self._both(code(ABORT), [len(blob)] * self.R, np.frombuffer(blob * self.R, np.uint8), late=False)

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
