"""lbbench hooks: ``kahip``, ``mtkahypar``, ``rcb``, ``rib``, ``hsfc`` (partitioners from scratch, identity remap).

Every one runs on the root rank and is broadcast, so every MPI rank has the
same parts whatever the library does across processes. Pinned objects: the
runner puts pinned vertices back after any partitioner (docs/plugins.md);
``mtkahypar`` honours them itself as fixed vertices.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from harness import Algorithm, curve_parts, hilbert_order, hookimpl, implements, recursive_bisection, registers

from . import libraries

PARAMS = {
    "kahip": {"preset": "eco", "imbalance": 0.03},
    "mtkahypar": {"preset": "default", "epsilon": 0.03},
    "rcb": {"lock_directions": 0}, "rib": {}, "hsfc": {},
}
CHOICES = {"kahip": libraries.KAHIP_PRESETS, "mtkahypar": libraries.MTK_PRESETS}
DESCRIPTIONS = {
    "kahip": "KaHIP kaffpa multilevel k-way (preset fast|eco|strong, imbalance), from scratch",
    "mtkahypar": "Mt-KaHyPar graph partitioning, cut objective, 1 thread (preset default|quality|deterministic, "
                 "epsilon), pinned objects as fixed vertices",
    "rcb": "Zoltan RCB: recursive coordinate bisection at the weighted median (the same bisection as ae-orb); "
           "lock_directions=1: each cut's coordinate kept from its first level on (RCB_LOCK_DIRECTIONS)",
    "rib": "Zoltan RIB: recursive inertial bisection along the weighted principal axis",
    "hsfc": "Zoltan HSFC: Hilbert space-filling curve through the bounding box cut into equal-weight pieces",
}


@dataclass
class RcbMemory:
    """The coordinate of every cut of the recursion, chosen at the first level (``lock_directions=1``)."""

    axes: dict = field(default_factory=dict)


def _validate(name):
    def check(p):
        if "lock_directions" in p and p["lock_directions"] not in (0, 1):
            raise ValueError(f"{name}: lock_directions must be 0 or 1, got {p['lock_directions']!r}")
        if name in CHOICES and p["preset"] not in CHOICES[name]:
            raise ValueError(f"{name}: preset must be one of {', '.join(CHOICES[name])}, got {p['preset']!r}")
        for key in ("imbalance", "epsilon"):
            if key in p and not 0.0 < float(p[key]) <= 1.0:
                raise ValueError(f"{name}: {key} must be in (0, 1], got {p[key]}")
    return check


@hookimpl
def register_algorithms(register):
    for name, params in PARAMS.items():
        family = "geometric" if name in ("rcb", "rib", "hsfc") else "multilevel"
        register(Algorithm(name, family=family, params=dict(params), roles=("partition",),
                           validate=_validate(name), description=DESCRIPTIONS[name],
                           memory=RcbMemory if name == "rcb" else None))


def parts_of(ctx) -> np.ndarray:
    g, P, p = ctx.graph, ctx.P, ctx.params
    seed = int(ctx.rng("partition").integers(2**31 - 1))
    if ctx.algorithm == "kahip":
        return libraries.kaffpa(g, P, seed, p["preset"], float(p["imbalance"]))
    if ctx.algorithm == "mtkahypar":
        return libraries.mtkahypar(g, P, seed, p["preset"], float(p["epsilon"]), fixed=ctx.level.pinned)
    if g.coords is None:
        raise ValueError(f"{ctx.algorithm} needs vertex coordinates (the workload has none)")
    if ctx.algorithm == "hsfc":
        return curve_parts(hilbert_order(g.coords), g.pwgt, P)
    if ctx.algorithm == "rcb":
        return recursive_bisection(g, P, axes=ctx.memory.axes if int(p["lock_directions"]) else None)
    return recursive_bisection(g, P, direction="inertial")


@implements(*PARAMS)
def partition(ctx):
    parts = parts_of(ctx) if ctx.engine.is_root else None
    return ctx.engine.bcast(parts, root=0)


register_claims = registers("lbbench_partitioners.claims", "CLAIMS")
register_reports = registers("lbbench_partitioners.reports", "REPORTS")
