"""What a hook receives: one algorithm, one adaptation level, on the engine's vprocs (docs/plugins.md)."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import adapters
from .engine import Engine, Timer
from .metrics import Costs
from .model import Graph, Level, Machine, State


@dataclass
class Context:
    """Everything a plugin may read while it handles one level.

    ``level.data`` is the level in the form the algorithm accepts and
    ``original`` the level's data in its own form; ``graph`` is always the
    graph form (metrics are computed on it). ``state`` is the state before
    the level (``home`` carried over from the previous level). ``params`` are
    the called algorithm's parameters merged over its defaults; ``memory`` is
    the algorithm's declared per-run state (``Algorithm(memory=...)``);
    ``previous`` the previous level's result row of this run. ``record``
    collects extra columns; ``timer`` accumulates wall time per category.
    """

    level: Level
    graph: Graph
    state: State
    machine: Machine
    engine: Engine
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
        return self.machine.P

    @property
    def data(self):
        return self.level.data

    def cells(self) -> np.ndarray:
        """For each item of ``ctx.data``, the graph vertex it is (the Hilbert order of a graph's array form)."""
        return adapters.cell_vertices(self.original, self.level.form)

    def rng(self, stream: str = "") -> np.random.Generator:
        """A generator seeded by (seed, level, algorithm, stream): the same on every rank and every run."""
        key = zlib.crc32(f"{self.algorithm}/{stream}".encode())
        return np.random.default_rng([self.seed, self.level.index, key])

    def executed(self, on, costs: Costs) -> None:
        """Declare what ran (SBN §5.2's LoadImb): vertex v was processed on ``on[v]`` at ``costs`` (per vertex).

        For a balancer that processes the level's work while it balances; the
        core's ``loadimb``/``maxqwgt`` then describe this, and ``settled_*``
        the end state. Identical on every rank.
        """
        on = np.asarray(on, np.int64)
        n = self.graph.n
        if on.shape != (n,) or any(np.shape(a) != (n,) for a in (costs.wgt, costs.comm, costs.remap)):
            raise ValueError(f"{self.algorithm}: executed() needs one processor and one cost per vertex ({n})")
        if n and (on.min() < 0 or on.max() >= self.P):
            raise ValueError(f"{self.algorithm}: executed() names processors outside [0, {self.P})")
        self.ran = (on, costs)
