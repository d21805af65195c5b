"""``mini``: a small tetrahedral mesh with three adaptation levels, for the core's tests.

A fixed-seed point set in the box [0,2]x[0,1]x[0,1] is tetrahedralized with
scipy.spatial.Delaunay (a few thousand tetrahedra); its dual graph is fixed
over the levels, as in PLUM. A sphere of radius 0.35 moves along x; an element
is refined 1:8 ``depth`` times where depth = 2 inside half the radius, 1
inside the radius, else 0 (coarsened back once the sphere has passed). The
weights follow PLUM (SBN paper §4.1): pwgt = 8**d leaf elements, rwgt = all
elements of the tree, cwgt = 4**max(d_v, d_w) leaf faces across the shared face.
"""
import numpy as np

from harness import Graph, Level, Workload, dual_edges, hookimpl, lazy_module

spatial = lazy_module("scipy.spatial")  # imported when a level is generated, not when the plugin registers


def generate(seed: int = 0, points: int = 900, levels: int = 3):
    rng = np.random.default_rng(seed)
    pts = rng.random((points, 3)) * np.array([2.0, 1.0, 1.0])
    tets = spatial.Delaunay(pts).simplices
    centre = pts[tets].mean(axis=1)
    a, b = dual_edges(tets)
    out = []
    for i in range(levels):
        x = 0.3 + 1.4 * i / max(levels - 1, 1)
        r = np.linalg.norm(centre - np.array([x, 0.5, 0.5]), axis=1)
        depth = (r < 0.35).astype(np.int64) + (r < 0.175)
        pwgt = 8 ** depth
        rwgt = (8 ** (depth + 1) - 1) // 7
        cw = 4 ** np.maximum(depth[a], depth[b])
        g = Graph.from_edges(tets.shape[0], a, b, cw, pwgt=pwgt, rwgt=rwgt, coords=centre, name=f"mini-{i + 1}")
        out.append(Level(i + 1, g, meta={"sphere_x": x}))
    return out


def validate(params: dict) -> None:
    if not 5 <= params["points"] <= 1_000_000:
        raise ValueError(f"workload mini: points={params['points']} must be in [5, 1000000]")
    if not 1 <= params["levels"] <= 1000:
        raise ValueError(f"workload mini: levels={params['levels']} must be in [1, 1000]")


WORKLOAD = Workload("mini", generate, version="1", params={"points": 900, "levels": 3}, validate=validate,
                    level_indices=lambda p: range(1, p["levels"] + 1),
                    description="small Delaunay tetrahedral mesh, 3 levels, a moving refined sphere (core tests)")


@hookimpl
def register_workloads(register):
    register(WORKLOAD)
