"""What a hook receives: one algorithm, one adaptation level, on the engine's vprocs (docs/plugins.md)."""
from __future__ import annotations

import time
import zlib
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import forms
from .model import Costs, Graph, Level, Machine, State


class Timer:
    """Accumulates wall time per category (``with timer("balance"): ...``); nested uses are fine."""

    def __init__(self):
        self.seconds: dict = defaultdict(float)

    @contextmanager
    def __call__(self, category: str):
        start = time.perf_counter()
        try:
            yield self
        finally:
            self.seconds[category] += time.perf_counter() - start


@dataclass
class Context:
    """Everything a plugin may read while it handles one level (``ctx`` of every hook).

    Attributes:
        level: the :class:`Level` (``ctx.level.index`` is its number; ``ctx.level.data`` is ``ctx.data``).
        graph: the level as a :class:`Graph`, always (metrics are computed on it).
        state: the :class:`State` before this level: owners and homes carried over from the previous
            level (a new vertex inherits its parent's).
        machine: the :class:`Machine` (``ctx.P`` processors, clusters, Proc, Conn, latency, bandwidth).
        engine: the :class:`Engine`: the P virtual processors, messages and collectives.
        params: the running algorithm's parameters merged over its defaults.
        seed: the run's seed (use :meth:`rng` rather than seeding yourself).
        original: the level's data in its own form (e.g. the :class:`Boxes` of an AMR level).
        algorithm: the name of the algorithm being run (one ``@implements`` function may serve several).
        memory: the algorithm's per-run state (an instance of ``Algorithm.memory``), None without one.
        previous: the previous level's result row of this run (a dict), None at the first level.
        record: a dict of extra columns for this cell's row.
        timer: ``with ctx.timer("selection"):`` adds wall time to the column ``time_selection_s``.
        ran: set by :meth:`executed`.

    Example:
        >>> @implements("mine")
        ... def balance(ctx, state):
        ...     with ctx.timer("selection"):
        ...         order = ctx.rng("ties").permutation(ctx.graph.n)
        ...     ctx.record["mine_rounds"] = 3
        ...     return State.settled(state.owner, ctx.P)
    """

    level: Level
    graph: Graph
    state: State
    machine: Machine
    engine: Any  # a harness.Engine: the engine layer builds on the contract, so the contract does not import it
    params: dict
    seed: int
    original: Any = None
    algorithm: str = ""
    memory: Any = None
    previous: dict | None = None
    record: dict = field(default_factory=dict)
    timer: Timer = field(default_factory=Timer)
    ran: tuple | None = None

    @property
    def P(self) -> int:
        """The number of processors (``ctx.machine.P``)."""
        return self.machine.P

    @property
    def data(self):
        """The level's data in the form the algorithm accepts (its first form the level converts to)."""
        return self.level.data

    def cells(self) -> np.ndarray:
        """For each item of ``ctx.data``, the graph vertex it is (the Hilbert order of a graph's array form)."""
        return forms.cell_vertices(self.original, self.level.form)

    def rng(self, stream: str = "") -> np.random.Generator:
        """A random generator seeded by (seed, level, algorithm, stream): the same on every rank and every run.

        Args:
            stream: a name that separates independent uses within one hook.

        Returns:
            A ``numpy.random.Generator``.

        Example:
            >>> ties = ctx.rng("ties").permutation(ctx.graph.n)
        """
        key = zlib.crc32(f"{self.algorithm}/{stream}".encode())
        return np.random.default_rng([self.seed, self.level.index, key])

    def executed(self, on, costs: Costs) -> None:
        """Declare what ran (SBN §5.2's LoadImb): vertex v was processed on ``on[v]`` at ``costs`` (per vertex).

        For a balancer that processes the level's work while it balances; the
        core's ``loadimb``/``maxqwgt`` then describe this, and ``settled_*``
        the end state. Read only on the rank of vproc 0, where the metrics run (docs/plugins.md):
        declared there, or identically on every rank.

        Args:
            on: one processor per vertex of ``ctx.graph``.
            costs: a :class:`Costs` with one entry per vertex (what each cost where it ran).

        Example:
            >>> ctx.executed(ran_on, vertex_costs(ctx.graph, State(ran_on, homes, ctx.P), ctx.machine))
        """
        on = np.asarray(on, np.int64)
        n = self.graph.n
        if on.shape != (n,) or any(np.shape(a) != (n,) for a in (costs.wgt, costs.comm, costs.remap)):
            raise ValueError(f"{self.algorithm}: executed() needs one processor and one cost per vertex ({n})")
        if n and (on.min() < 0 or on.max() >= self.P):
            raise ValueError(f"{self.algorithm}: executed() names processors outside [0, {self.P})")
        self.ran = (on, costs)
