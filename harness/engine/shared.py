"""Read-only arrays held once per host, not once per rank (issue 52: a host's memory under several ranks).

Under MPI the ranks of one host (``comm.Split_type(MPI.COMM_TYPE_SHARED)``) share one window
(``MPI.Win.Allocate_shared``: the host's first rank allocates the bytes, the others ``Shared_query(0)``) and
each gets a numpy view of it, read-only (``flags.writeable`` False) once it is filled. The host
communicators and the communicator of the hosts' first ranks are made once per communicator
(:func:`hosts`). With one process (``engine.comm`` None) every call returns the array itself, no copy.

    held = HostArrays(engine)                    # on every rank of engine.comm
    deg = held.computed(lambda: np.diff(xadj))   # fn() on each host's first rank only
    owner = held.sent(owner, root=0)             # the array on vproc 0's rank (None on the others)
    out = held.assembled(n, idx, values)         # each rank's (index, value) pairs as one array, -1 elsewhere
    ...
    held.release()                               # on every rank, at the same point: the windows freed

``HostArrays.of(engine)`` is the engine's run-long one (arrays that outlive a hook, such as a level's owners),
swept by the runner after every cell and released at the end of ``compare``.

Every call is a collective of the engine's communicator: every rank makes it, in the same order. Each begins
with one of the engine's collectives (a rank whose cell failed before it releases the others there), and a
cell's deadline that comes during the window calls after it is raised once they are done (:func:`_whole`). The
:class:`HostArrays` frees its windows: whoever made it calls :meth:`~HostArrays.release` (or leaves a
``with HostArrays(engine) as held:`` block) once nothing reads its arrays any more; :meth:`~HostArrays.sweep`
frees those that no rank of the host views any more and keeps the others. A view must not outlive its window:
an array (or a view of one) still referenced at release keeps its window (until MPI ends) rather than be
left reading unmapped memory, so a forgotten view costs memory, never a crash.

An array under ``small`` bytes (:data:`SMALL`, 4 MiB, by default) gets no window: it travels in the engine's
collective itself and each rank holds its own read-only copy, since a window's allocation and freeing (about
0.2 ms each, outside the engine's collectives: the rank's busy time) cost more than its pages save.
"""
from __future__ import annotations

import gc
import signal
import sys
import threading
import weakref
from contextlib import contextmanager

import numpy as np

from ..contract.lazy import lazy_module
from ..contract.model import FrozenBuffer

__all__ = ["HostArrays", "hosts"]

MPI = lazy_module("mpi4py.MPI")  # (importing it initialises MPI: read only by a run under mpiexec)
SMALL = 4 << 20  # bytes: a smaller array is each rank's own copy (module docstring)
_HOSTS: dict = {}  # (communicator handle, host key) -> Hosts
_RUN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # engine -> its run-long HostArrays (HostArrays.of)


class Hosts:
    """A communicator's ranks by host: ``host`` (this rank's host's ranks), ``first`` (the hosts' first ranks,
    None on the others) and ``first_of[r]``, rank r's host's first rank's rank in ``first``."""

    def __init__(self, comm, key: int | None):
        self.host = comm.Split_type(MPI.COMM_TYPE_SHARED) if key is None else comm.Split(key, comm.Get_rank())
        lead = self.host.Get_rank() == 0
        self.first = comm.Split(0 if lead else MPI.UNDEFINED, comm.Get_rank())
        self.first = None if self.first == MPI.COMM_NULL else self.first
        self.first_of = np.array(comm.allgather(self.host.bcast(self.first.Get_rank() if lead else None)))
        self.hosts = 1 if self.first is None else self.first.Get_size()
        self.hosts = self.host.bcast(self.hosts)
        self.members = self.host.allgather(comm.Get_rank())  # this host's ranks (in comm), its first rank first


def hosts(comm, key: int | None = None) -> Hosts:
    """``comm``'s ranks by host (a collective the first time, then kept). ``key``: this rank's host as a number
    in place of the ranks that share memory (tests: ``rank % 2`` makes two hosts of one machine)."""
    k = (comm.py2f(), key)
    if k not in _HOSTS:
        _HOSTS[k] = Hosts(comm, key)
    return _HOSTS[k]


class _Window(FrozenBuffer):
    """One host-shared window and the arrays over it (numpy's ``__array_interface__``: every array made from it
    has it as ``base``, so its reference count tells whether one is alive)."""

    def __init__(self, win, shape: tuple, dtype: np.dtype):
        self.win, self.shape, self.dtype, self.frozen = win, shape, dtype, False
        self.address = win.Shared_query(0)[0].address

    @property
    def __array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.address, self.frozen), "version": 3}

    def array(self) -> np.ndarray:
        """An array over the window: writable until it is frozen, read-only after."""
        return np.asarray(self)


@contextmanager
def _whole():
    """The ranks' window calls, never cut in half by a cell's deadline (SIGALRM: ``harness.run.runner.deadline``):
    a signal that comes during them is handled once they are done, as :meth:`Engine.defer` does in a collective,
    so no rank is left waiting in a call another rank left. Each group of such calls follows an engine collective
    (abort-aware: a rank that failed before it releases the others there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list = []
    old = signal.signal(signal.SIGALRM, lambda *a: came.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGALRM, old)
        if came and callable(old):
            old(*came[0])


def _own(a: np.ndarray) -> np.ndarray:
    """A small array as this rank's own read-only copy (never the caller's array frozen)."""
    a = np.array(a)
    a.setflags(write=False)
    return a


def _viewed(windows: list) -> np.ndarray:
    """Whether an array over each window is alive on this rank (beyond the list, the loop's name and
    ``getrefcount``'s argument, each a reference)."""
    return np.array([sys.getrefcount(w) > 3 for w in windows], bool)


class HostArrays:
    """Read-only arrays one copy per host, freed together by :meth:`release` (module docstring).

    ``engine``: the :class:`~harness.engine.vprocs.Engine` whose ranks share them; ``host``: this rank's host
    as a number in place of the ranks that share memory (tests); ``small``: the bytes under which an array is
    each rank's own copy, sent in the engine's collective, not a window."""

    def __init__(self, engine, host: int | None = None, small: int = SMALL):
        self.engine = weakref.proxy(engine)  # (not kept alive by its run-long arrays: HostArrays.of)
        self.small = small
        self._hosts = None if engine.comm is None else hosts(engine.comm, host)
        self._windows: list[_Window] = []
        self._kept: list[_Window] = []  # released while a view still read them: kept until MPI ends

    @classmethod
    def of(cls, engine) -> "HostArrays":
        """The engine's run-long arrays: those whose arrays outlive a hook (a level's owners, which the runner
        and the next level read). The runner sweeps them after every cell and releases them at the end of
        ``compare`` (``harness.run.api``); a plugin's arrays that die with its hook go in a
        ``HostArrays(engine)`` of its own, released when the hook is done with them."""
        if engine not in _RUN:
            _RUN[engine] = cls(engine)
        return _RUN[engine]

    def __enter__(self) -> "HostArrays":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is None:  # (after an error the ranks may not all be here: the windows go when MPI ends)
            self.release()

    def _window(self, shape, dtype) -> _Window:
        """A new window of ``shape`` and ``dtype`` on this rank's host (a collective of the host's ranks)."""
        dtype, shape = np.dtype(dtype), tuple(int(s) for s in shape)
        host = self._hosts.host
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize if host.Get_rank() == 0 else 0
        win = _Window(MPI.Win.Allocate_shared(size, dtype.itemsize, comm=host), shape, dtype)
        self._windows.append(win)
        return win

    def _frozen(self, win: _Window) -> np.ndarray:
        """``win``'s array, read-only, once every rank of the host is past its writing."""
        self._hosts.host.Barrier()
        win.frozen = True
        return win.array()

    def computed(self, fn) -> np.ndarray:
        """``fn()`` (an array), computed on each host's first rank only and read by every rank of the host."""
        if self._hosts is None:
            return np.asarray(fn())
        a = meta = failed = None
        if self._hosts.host.Get_rank() == 0:
            try:
                a = np.ascontiguousarray(fn())
                meta = a if a.nbytes < self.small else (a.shape, a.dtype.str)  # (a small array travels itself)
            except Exception as exc:  # the host's other ranks raise too, never wait for a window
                meta, failed = f"{type(exc).__name__}: {exc}", exc
        meta = self.engine.gather_ranks(meta)[self._hosts.members[0]]  # (each host's first rank's)
        if failed is not None:
            raise failed
        if isinstance(meta, str):
            raise RuntimeError(f"the host's first rank failed to compute a shared array: {meta}")
        if isinstance(meta, np.ndarray):
            return _own(meta)
        with _whole():
            win = self._window(*meta)
            if a is not None:
                win.array()[...] = a
            del a
            return self._frozen(win)

    def sent(self, a: np.ndarray | None, root: int = 0) -> np.ndarray:
        """``a``, given on the rank that hosts vproc ``root`` (None on the others), on every rank: that rank
        writes it into its host's copy, whose first rank sends it once to the other hosts' first ranks (over
        their own communicator), which write it into theirs."""
        eng = self.engine
        if self._hosts is None:
            return np.asarray(a)
        src = int(eng.rank_of(root))
        a = np.ascontiguousarray(a) if eng.rank == src else None
        meta = None if a is None else a if a.nbytes < self.small else (a.shape, a.dtype.str)
        meta = eng.bcast(meta, root, what="shared")
        if isinstance(meta, np.ndarray):  # (a small array travels itself)
            return _own(meta)
        shape, dtype = meta
        with _whole():
            win = self._window(shape, dtype)
            if a is not None:
                win.array()[...] = a
            del a
            if self._hosts.hosts > 1:
                self._hosts.host.Barrier()  # the source's host's copy is written before its first rank sends it
                if self._hosts.first is not None:
                    self._hosts.first.Bcast(win.array().reshape(-1).view(np.uint8),
                                            root=int(self._hosts.first_of[src]))
            return self._frozen(win)

    def assembled(self, n: int, index: np.ndarray, values: np.ndarray, dtype=np.int64) -> np.ndarray:
        """One array of ``n`` entries (a signed integer ``dtype``) from every rank's ``values`` at its ``index``
        (each entry written by one rank at most), -1 where no rank wrote: every rank of a host writes its pairs
        into the host's copy, and the hosts' first ranks combine their copies by a bitwise AND (an entry no
        rank of a host wrote is -1 there, every bit set, which leaves the other hosts' value as it is)."""
        dtype = np.dtype(dtype)
        if dtype.kind != "i":
            raise ValueError(f"assembled arrays hold signed integers (-1 where no rank wrote), not {dtype}")
        index, values = np.asarray(index, np.int64), np.asarray(values, dtype)  # (an error here: before any call)
        if index.shape != values.shape or (index.size and not 0 <= int(index.min()) <= int(index.max()) < n):
            raise ValueError(f"assembled: {index.size} indices in [0, {n}) for as many values, got {values.size} "
                             "values or an index out of range")
        if self._hosts is None or n * dtype.itemsize < self.small:  # (small: every rank's pairs to every rank)
            out = np.full(n, -1, dtype)
            for at, got in [(index, values)] if self._hosts is None else self.engine.gather_ranks((index, values)):
                out[at] = got
            return out if self._hosts is None else _own(out)
        self.engine.barrier()
        with _whole():
            win = self._window((n,), dtype)
            if self._hosts.host.Get_rank() == 0:
                win.array().fill(-1)
            self._hosts.host.Barrier()
            win.array()[index] = values
            if self._hosts.hosts > 1:
                self._hosts.host.Barrier()
                if self._hosts.first is not None:
                    self._hosts.first.Allreduce(MPI.IN_PLACE, win.array().view(np.uint8), op=MPI.BAND)
            return self._frozen(win)

    def sweep(self) -> None:
        """Free the windows no rank of their host views any more (a collective; the others stay)."""
        self._free(collect=False)

    def release(self) -> None:
        """Free every window (a collective of every rank, at the same point, once nothing reads the arrays):
        one that a rank of its host still views (after a full garbage collection) is kept until MPI ends."""
        self._free(collect=True)
        self._kept += self._windows
        self._windows = []

    def _free(self, collect: bool) -> None:
        if not self._windows:  # (the same on every rank: windows are made together)
            return
        viewed = _viewed(self._windows)
        if collect and viewed.any():  # an array kept alive only by a cycle the collector has not yet found
            gc.collect()
            viewed = _viewed(self._windows)
        every = self.engine.gather_ranks(viewed)
        keep = np.any([every[r] for r in self._hosts.members], axis=0).tolist()  # viewed on some rank of the host
        with _whole():
            for w, kept in zip(self._windows, keep):
                if not kept:
                    w.win.Free()
        self._windows = [w for w, kept in zip(self._windows, keep) if kept]
