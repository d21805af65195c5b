"""``arrays``: structured load functions for MLB (MLB paper §2: "a distributed discrete load function").

MLB's interface is an n-dimensional array of non-negative integers giving the
relative computational load of each region of a structured grid. The paper
gives no test loads; this generator supplies the three families its text
names or implies, as a sequence of steps on a ``dims``-dimensional array with
``size`` cells per side:

* ``uniform``: every cell ``base`` (the already balanced case; MLB phase 3's
  "constant discrete load function").
* ``random``: independent integers in [0, 2 * ``base``] per cell and step.
* ``peaks`` (default): AMR-like localized load. ``npeaks`` refinement centres
  move on straight lines at constant velocity (reflecting at the walls); a cell
  within ``radius`` of a centre carries one level of factor-2 refinement, within
  ``radius`` / 2 two levels: load = ``base`` * 2**((dims + 1) * level) (2**dims
  fine cells, each taking 2**level time steps, as in Berger-Oliger AMR).

Deterministic for a seed: the peak tracks and random loads come from
numpy.random.default_rng([seed, ...]).
"""
from __future__ import annotations

import numpy as np

from harness import Level, LoadArray, Workload, check_params

VERSION = "1"
KINDS = ("peaks", "uniform", "random")
DEFAULTS = {"kind": "peaks", "dims": 2, "size": 128, "steps": 10, "base": 1, "npeaks": 3, "radius": 0.15}


def _centres(rng, npeaks: int, dims: int, steps: int) -> np.ndarray:
    """(steps, npeaks, dims) positions in the unit cube, straight lines reflected at the walls."""
    start = rng.uniform(0.1, 0.9, (npeaks, dims))
    vel = rng.uniform(-1.0, 1.0, (npeaks, dims))
    vel *= 0.6 / max(steps - 1, 1) / np.maximum(np.linalg.norm(vel, axis=1, keepdims=True), 1e-12)
    t = np.arange(steps)[:, None, None]
    x = start[None] + vel[None] * t
    x = np.mod(x, 2.0)
    return np.where(x > 1.0, 2.0 - x, x)  # reflect


BOUNDS = {"dims": (1, 3), "size": (1, 50_000_000), "steps": (1, 10_000), "base": (0, 2 ** 40), "npeaks": (0, 10_000),
          "radius": (1e-6, 10.0)}


def validate(params: dict) -> None:
    """Every parameter in range and at most 50 million cells."""
    check_params("workload arrays", params, BOUNDS)
    if params["kind"] not in KINDS:
        raise ValueError(f"workload arrays: kind must be one of {', '.join(KINDS)}, got {params['kind']!r}")
    if params["size"] ** params["dims"] > 50_000_000:
        raise ValueError(f"workload arrays: {params['size']}^{params['dims']} cells is too large (at most 50 million)")


def generate(seed: int = 0, **params):
    p = {**DEFAULTS, **params}
    validate(p)
    kind, dims, size, steps = p["kind"], int(p["dims"]), int(p["size"]), int(p["steps"])
    base, npeaks, radius = int(p["base"]), int(p["npeaks"]), float(p["radius"])
    rng = np.random.default_rng([seed, 0xA77A, dims])
    shape = (size,) * dims
    out = []
    if kind == "uniform":
        for t in range(steps):
            out.append(Level(t + 1, LoadArray(np.full(shape, base, np.int64)), meta={"kind": kind}))
        return out
    if kind == "random":
        for t in range(steps):
            out.append(Level(t + 1, LoadArray(rng.integers(0, 2 * base + 1, shape)), meta={"kind": kind}))
        return out
    centres = _centres(rng, npeaks, dims, steps)
    axes = [(np.arange(size) + 0.5) / size for _ in range(dims)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1)  # shape + (dims,)
    for t in range(steps):
        level = np.zeros(shape, np.int64)
        for c in centres[t]:
            r = np.linalg.norm(grid - c, axis=-1)
            level = np.maximum(level, (r < radius).astype(np.int64) + (r < radius / 2))
        load = base * 2 ** ((dims + 1) * level)
        out.append(Level(t + 1, LoadArray(load), meta={"kind": kind, "centres": centres[t].tolist()}))
    return out


WORKLOAD = Workload(
    "arrays", generate, version=VERSION, params=dict(DEFAULTS), forms=("array",), validate=validate,
    level_indices=lambda p: range(1, int(p["steps"]) + 1),
    description="MLB's structured load arrays: 1-3-D integer loads (uniform, random, moving AMR-like peaks)")
