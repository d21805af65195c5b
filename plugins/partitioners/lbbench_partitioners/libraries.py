"""KaHIP and Mt-KaHyPar through their PyPI wheels (README.md, "What the packages expose").

* ``kahip.kaffpa(vwgt, xadj, adjcwgt, adjncy, k, imbalance, suppress_output, seed, mode)`` returns
  ``(edgecut, blocks)``; mode FAST/ECO/STRONG = 0/1/2. Sequential and deterministic under a seed.
* ``mtkahypar``: ``initialize(threads)`` once per process, a ``Context`` from a preset,
  ``create_graph(context, n, m, edges, node_weights, edge_weights)``, ``add_fixed_vertices`` (pins),
  ``partition(context).get_partition()``. With one thread a *fresh process* gives the same partition for
  the same seed with every preset, but repeated calls in one process do not (the non-deterministic
  presets keep state between calls): each call therefore runs in a child process
  (``python -m lbbench_partitioners.mtk_child``), one thread.
"""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np

from harness import Graph, quiet_native

KAHIP_PRESETS = {"fast": 0, "eco": 1, "strong": 2}
MTK_PRESETS = {"default": "DEFAULT", "quality": "QUALITY", "deterministic": "DETERMINISTIC"}


LIMIT = 2**30  # both libraries keep weights in 32-bit integers: totals are kept below this


def int32_weights(w) -> np.ndarray:
    """Positive integer weights whose total fits the libraries' 32-bit weights: scaled down proportionally
    when the total exceeds LIMIT (a vt trace's picoseconds and bytes), every weight at least 1."""
    w = np.maximum(np.asarray(w, np.int64), 1)
    total = float(w.sum())
    if total <= LIMIT:
        return w
    return np.maximum(np.rint(w * ((LIMIT - w.size) / total)), 1).astype(np.int64)


def kaffpa(g: Graph, k: int, seed: int, preset: str = "eco", imbalance: float = 0.03) -> np.ndarray:
    """KaHIP's kaffpa: k blocks, vertex weights pwgt, edge weights cwgt (:func:`int32_weights`)."""
    import kahip

    if k == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    vw = int32_weights(g.pwgt).tolist()
    cw = int32_weights(g.cwgt).tolist()
    with quiet_native():
        _, blocks = kahip.kaffpa(vw, g.xadj.tolist(), cw, g.adjncy.tolist(), int(k), float(imbalance), True,
                                 int(seed) % (2**31 - 1), KAHIP_PRESETS[preset])
    return np.asarray(blocks, np.int64)


def edges(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Each undirected edge once (u < v) and its weight."""
    keep = g.src < g.adjncy
    return np.stack([g.src[keep], g.adjncy[keep]], axis=1), g.cwgt[keep]


def mtkahypar(g: Graph, k: int, seed: int, preset: str = "default", epsilon: float = 0.03,
              fixed: np.ndarray | None = None, timeout: float | None = None) -> np.ndarray:
    """Mt-KaHyPar in graph mode (cut objective), one thread, in a child process; ``fixed[v] >= 0`` fixes
    v to that block (Mt-KaHyPar's fixed vertices)."""
    if k == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    e, w = edges(g)
    buf = io.BytesIO()
    np.savez(buf, edges=e, ew=int32_weights(w), vw=int32_weights(g.pwgt),
             fixed=np.full(g.n, -1) if fixed is None else np.asarray(fixed, np.int64),
             args=np.array([k, int(seed) % (2**31 - 1)]), eps=np.array([epsilon]))
    res = subprocess.run([sys.executable, "-m", "lbbench_partitioners.mtk_child", MTK_PRESETS[preset]],
                         input=buf.getvalue(), capture_output=True, timeout=timeout)
    if res.returncode != 0:
        last = (res.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"mtkahypar: {last}")
    return np.load(io.BytesIO(res.stdout)).astype(np.int64)
