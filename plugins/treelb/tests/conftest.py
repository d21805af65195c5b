import numpy as np
import pytest

from harness import Graph


def grid_graph(nx: int, ny: int) -> Graph:
    """An nx x ny triangulated grid (FE node graph) with coordinates."""
    idx = np.arange(nx * ny).reshape(ny, nx)
    u = [idx[:, :-1].ravel(), idx[:-1, :].ravel(), idx[:-1, :-1].ravel()]
    v = [idx[:, 1:].ravel(), idx[1:, :].ravel(), idx[1:, 1:].ravel()]
    xs, ys = np.meshgrid(np.arange(nx, dtype=float), np.arange(ny, dtype=float) * 1.01)
    return Graph.from_edges(nx * ny, np.concatenate(u), np.concatenate(v),
                            coords=np.column_stack([xs.ravel(), ys.ravel()]))


@pytest.fixture
def grid():
    return grid_graph(30, 20)


@pytest.fixture
def make_grid():
    return grid_graph
