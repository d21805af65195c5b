"""CBTLB Phase 5 (§3.3): the dimension exchange method (Cybenko 1989) inside each hypercube metaprocessor.

For each cube dimension in creation order, every pair (i, i xor bit) evens
its loads: the heavier sends floor((w_heavy - w_light) / 2) (spec §1.3,
reproduces Example 3). One sweep over the dimensions.
"""
from __future__ import annotations

import numpy as np


def dem_steps(dims: list[list[tuple[int, int]]], load) -> tuple[list, np.ndarray]:
    """``dims[k]`` = the processor pairs of dimension k (over all cubes). Returns the steps
    (lists of (sender, receiver, amount), by sender) and the final loads."""
    w = np.asarray(load, np.int64).copy()
    steps = []
    for pairs in dims:
        step = []
        for a, b in pairs:
            hi, lo = (a, b) if (w[a], b) > (w[b], a) else (b, a)
            m = int((w[hi] - w[lo]) // 2)
            if m > 0:
                w[hi] -= m
                w[lo] += m
                step.append((int(hi), int(lo), m))
        steps.append(sorted(step))
    return steps, w
