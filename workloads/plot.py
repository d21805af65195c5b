"""Pictures of one workload level for ``lbbench workloads plot NAME --level L -o FILE.png``.

* shock: the cross-section z = 0.5 of the initial mesh, each tetrahedron coloured
  by its refinement depth log8(pwgt) (like the papers' Fig. 1 / Fig. 8), with the
  cylinder's outline;
* a graph whose level carries ``meta["triangles"]`` (truss): the triangle mesh;
* boxes (bl): the boxes cut by the plane z = mid-domain, outlined per AMR level;
* arrays: the load (1-D line, 2-D image, 3-D middle slice);
* any other graph: its vertices at their coordinates (first two), coloured by pwgt.
"""
from __future__ import annotations

import numpy as np


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_level(name: str, level: int, path: str, params: dict | None = None, seed: int = 0) -> str:
    """Draw level ``level`` of workload ``name`` (with ``params``) to the PNG file ``path``."""
    from harness.run import workloads

    wl, params, levels = workloads.load(name, params or {}, seed)
    have = {lv.index: lv for lv in levels}
    if level not in have:
        raise ValueError(f"workload {name!r} has no level {level} (levels {min(have)}-{max(have)})")
    lv = have[level]
    plt = _figure()
    fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
    title = f"{name} level {level}"
    if wl.name == "shock":
        _shock(fig, ax, lv, params, seed)
    elif lv.form == "graph" and "triangles" in lv.meta:
        _triangles(ax, lv)
    elif lv.form == "boxes":
        _boxes(fig, ax, lv)
    elif lv.form == "array":
        _array(fig, ax, lv)
    else:
        _graph(fig, ax, lv)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def tet_slice(pts: np.ndarray, tets: np.ndarray, z: float):
    """Cross-section polygons of tetrahedra with the plane z: (indices of cut tets, list of (k, 2) arrays)."""
    P = pts[tets]  # (n, 4, 3)
    above = P[:, :, 2] > z
    cut = np.nonzero(above.any(1) & ~above.all(1))[0]
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    polys = []
    for t in cut:
        q = []
        for a, b in pairs:
            za, zb = P[t, a, 2], P[t, b, 2]
            if (za > z) != (zb > z):
                s = (z - za) / (zb - za)
                q.append(P[t, a, :2] + s * (P[t, b, :2] - P[t, a, :2]))
        q = np.array(q)
        c = q.mean(0)
        polys.append(q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))])
    return cut, polys


def _shock(fig, ax, lv, params, seed):
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Circle

    from . import shock

    pts, tets = shock.initial_mesh(float(params.get("scale", 1.0)), seed)
    cut, polys = tet_slice(pts, tets, 0.5 + 1e-9)
    depth = np.log(lv.data.pwgt[cut]) / np.log(8)
    pc = PolyCollection(polys, array=depth, cmap="viridis", edgecolors="k", linewidths=0.15)
    pc.set_clim(0, float(params.get("max_depth", 3)))
    ax.add_collection(pc)
    fig.colorbar(pc, ax=ax, label="refinement depth log8(pwgt)")
    x = lv.meta.get("cylinder_x")
    if x is not None:
        ax.add_patch(Circle((x, shock.AXIS_Y), float(params.get("radius", shock.DEFAULTS["radius"])),
                            fill=False, ec="r", lw=1.2))
    ax.set_xlim(0, shock.BOX[0])
    ax.set_ylim(0, shock.BOX[1])
    ax.set_aspect("equal")
    ax.set_xlabel("x (section z = 0.5)")
    ax.set_ylabel("y")


def _triangles(ax, lv):
    from matplotlib.collections import LineCollection

    xy = lv.data.coords[:, :2]
    tri = np.asarray(lv.meta["triangles"])
    e = np.unique(np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1), axis=0)
    ax.add_collection(LineCollection(xy[e], linewidths=0.1, colors="k"))
    ax.set_xlim(xy[:, 0].min(), xy[:, 0].max())
    ax.set_ylim(xy[:, 1].min(), xy[:, 1].max())
    ax.set_aspect("equal")
    ax.set_xlabel(f"{lv.data.n} nodes, {len(tri)} elements")


def _boxes(fig, ax, lv):
    from matplotlib.patches import Rectangle

    b = lv.data
    r = b.ratio
    top = int(b.level.max())
    base_hi = b.hi[b.level == 0].max(axis=0) + 1  # base-level extent
    zmid = base_hi[-1] / 2 if b.lo.shape[1] == 3 else None
    cmap = __import__("matplotlib").colormaps["plasma"]
    for lev in range(top + 1):
        f = float(r) ** lev
        sel = np.nonzero(b.level == lev)[0]
        for i in sel:
            lo, hi = b.lo[i] / f, (b.hi[i] + 1) / f
            if zmid is not None and not lo[2] <= zmid < hi[2]:
                continue
            ax.add_patch(Rectangle(lo[:2], *(hi[:2] - lo[:2]), fill=False, lw=0.3 + 0.3 * (top - lev),
                                   ec=cmap(lev / max(top, 1))))
    ax.set_xlim(0, base_hi[0])
    ax.set_ylim(0, base_hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel(f"{b.n} boxes" + (f" (section z = {zmid:g} base cells)" if zmid is not None else ""))


def _array(fig, ax, lv):
    a = lv.data.load
    if a.ndim == 1:
        ax.plot(a)
        ax.set_xlabel("cell")
        ax.set_ylabel("load")
        return
    if a.ndim == 3:
        a = a[:, :, a.shape[2] // 2]
    im = ax.imshow(a.T, origin="lower", cmap="magma")
    fig.colorbar(im, ax=ax, label="load")


def _graph(fig, ax, lv):
    from harness import as_form

    g = as_form(lv.data, "graph")
    if g.coords is None:
        raise ValueError("this graph has no coordinates to draw")
    xy = g.coords[:, :2] if g.coords.shape[1] > 1 else np.column_stack([g.coords[:, 0], np.zeros(g.n)])
    sc = ax.scatter(xy[:, 0], xy[:, 1], c=np.log10(np.maximum(g.pwgt, 1)), s=2, cmap="viridis")
    fig.colorbar(sc, ax=ax, label="log10 pwgt")
    ax.set_aspect("equal")
