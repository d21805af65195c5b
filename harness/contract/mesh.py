"""Mesh helpers shared by workloads: the dual graph of a simplicial mesh."""
from __future__ import annotations

import numpy as np

from .model import IDX


def cell_faces(cells: np.ndarray) -> np.ndarray:
    """Faces of simplices (triangles -> edges, tetrahedra -> triangles), sorted vertex tuples, shape (ncells, k, k-1)."""
    cells = np.sort(np.asarray(cells, IDX), axis=1)
    k = cells.shape[1]
    drop = [[j for j in range(k) if j != i] for i in range(k)]
    return cells[:, drop]


def dual_edges(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (a, b), a < b, of cells sharing a face: the dual graph's edges, each once."""
    faces = cell_faces(cells)
    n, k, _ = faces.shape
    flat = faces.reshape(n * k, -1)
    owner = np.repeat(np.arange(n, dtype=IDX), k)
    order = np.lexsort(flat.T[::-1])
    flat, owner = flat[order], owner[order]
    same = np.all(flat[1:] == flat[:-1], axis=1)
    a, b = owner[:-1][same], owner[1:][same]
    if np.any(same[1:] & same[:-1]):
        raise ValueError("a face is shared by more than two cells (non-manifold mesh)")
    return np.minimum(a, b), np.maximum(a, b)
