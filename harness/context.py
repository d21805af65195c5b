"""What a hook receives: one algorithm, one adaptation level, on the engine's vprocs."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from .engine import Engine, Timer
from .model import Graph, Level, Machine, State


@dataclass
class Context:
    """Everything a plugin may read while it handles one level.

    ``level.data`` is the level in the form the algorithm accepts; ``graph`` is
    always the graph form (metrics are computed on it). ``state`` is the state
    before balancing (``home`` carried over from the previous level).
    ``params`` are the called algorithm's parameters merged over its defaults.
    ``record`` collects extra per-level figures that go into the results row;
    ``memory`` persists across the levels of one run of one algorithm (fitted
    cost models, carried queues). ``timer`` accumulates wall time per category.
    """

    level: Level
    graph: Graph
    state: State
    machine: Machine
    engine: Engine
    params: dict
    seed: int
    algorithm: str = ""
    record: dict = field(default_factory=dict)
    memory: dict = field(default_factory=dict)
    timer: Timer = field(default_factory=Timer)

    @property
    def P(self) -> int:
        return self.machine.P

    @property
    def data(self):
        return self.level.data

    def rng(self, stream: str = "") -> np.random.Generator:
        """A generator seeded by (seed, level, algorithm, stream): the same on every rank and every run."""
        key = zlib.crc32(f"{self.algorithm}/{stream}".encode())
        return np.random.default_rng([self.seed, self.level.index, key])
