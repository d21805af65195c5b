"""PLUM's remapping cost model and accept rule (SBN paper §4.4).

Redistribution cost = gamma * MaxSR + O, with gamma the cost of processing one
redistributed element and O the constant overheads, per machine. PLUM fits
gamma and O by least squares to measured remapping times; we fit them to the
(MaxSR, migration time) pairs of the engine's real migrations at the previous
levels of the same run (non-negative least squares). The time is either the
engine's modelled migration time (latency + bytes / bandwidth x Conn per
message, from the counted real messages; identical for every number of ranks)
or the measured wall time of the migration (max over ranks; faster-moving but
not reproducible). Until two distinct MaxSR values have been seen the model
uses the machine's prior (:func:`prior`).

The computational gain of adopting the new assignment is
``(MaxQwgt before - MaxQwgt after) * iterations * work_s``: the bottleneck
processor's load shrinks for every solver iteration until the next adaptation,
and ``work_s`` converts one unit of QWgt per iteration into seconds. The new
assignment is accepted only when gain > cost.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import BYTES_PER_UNIT, Machine, lazy_module

optimize = lazy_module("scipy.optimize")  # imported when first called, not when the plugin registers


@dataclass(frozen=True)
class CostModel:
    gamma: float      # seconds per unit of MaxSR
    overhead: float   # O, seconds
    source: str       # "prior", "fit" or "given"

    def cost(self, maxsr: float) -> float:
        return self.gamma * maxsr + self.overhead if maxsr > 0 else 0.0


def prior(m: Machine) -> CostModel:
    """The machine's a-priori model, from the same formula the engine uses for modelled time.

    gamma: one unit of redistribution weight is BYTES_PER_UNIT bytes over the
    slowest link; O: one message latency per other processor over the slowest
    link (a processor exchanging data with all others).
    """
    slow = float(m.conn.max())
    return CostModel(BYTES_PER_UNIT / m.bandwidth * slow, m.latency * slow * max(m.P - 1, 1), "prior")


def fit(pairs, m: Machine) -> CostModel:
    """Least-squares gamma and O (both >= 0) from (MaxSR, seconds) pairs; the prior until two MaxSR differ."""
    pts = np.asarray([p for p in pairs if p[0] > 0], float).reshape(-1, 2)
    if pts.shape[0] < 2 or np.unique(pts[:, 0]).size < 2:
        return prior(m)
    A = np.column_stack([pts[:, 0], np.ones(pts.shape[0])])
    (gamma, overhead), _ = optimize.nnls(A, pts[:, 1])
    return CostModel(float(gamma), float(overhead), "fit")


def gain(maxqwgt_before: float, maxqwgt_after: float, iterations: int, work_s: float) -> float:
    """Seconds saved over the solver iterations until the next adaptation."""
    return (maxqwgt_before - maxqwgt_after) * iterations * work_s


def decide(gain_s: float, cost_s: float) -> bool:
    """PLUM's rule: remap only when the computational gain exceeds the redistribution cost."""
    return gain_s > cost_s
