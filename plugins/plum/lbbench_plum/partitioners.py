"""PLUM's two repartitioners (SBN paper §4.2).

* PMeTiS: a global multilevel k-way partition from scratch (real METIS through
  pymetis, ``harness.metis_kway``), vertex weights Wgt (pwgt) and
  edge weights Comm (cwgt); it ignores the current distribution.
* DMeTiS: a diffusive repartitioner that starts from the current partition and
  weighs migration. ParMETIS' diffusion (the Schloegel/Karypis/Kumar scheme the
  paper cites) is not available from Python; we use the real library the
  issue allows instead: Scotch's multilevel repartitioning with migration cost,
  ``SCOTCH_graphRepart`` through pyscotch. Its migration ratio ``emrat`` is the
  cost of migrating one unit of vertex migration load (vmlotab = rwgt, the
  Remap weight) relative to cutting one unit of edge weight: measured on the
  ``mini`` workload, ``emrat = 0`` rebuilds from scratch (thousands of vertices
  move), larger ``emrat`` moves *less* and cuts more. (pyscotch's docstring,
  "higher = more migration allowed", has the direction backwards.)

Scotch draws random numbers from a process-wide generator and, on a threaded
build, is only reproducible with ``SCOTCH_DETERMINISTIC=1`` in the environment
(read at call time); we set it and reseed before every call, so every rank and
every run computes the same partition.
"""
from __future__ import annotations

import contextlib
import io
import os

import numpy as np

from harness import Graph, metis_kway


def pmetis(g: Graph, nparts: int, seed: int, ufactor: int = 30) -> np.ndarray:
    """Global k-way partition from scratch (pwgt, cwgt)."""
    return metis_kway(g, nparts, seed=seed, ufactor=ufactor)


def _pyscotch():
    os.environ["SCOTCH_DETERMINISTIC"] = "1"
    with contextlib.redirect_stderr(io.StringIO()):  # pyscotch announces the library it loaded on stderr
        import pyscotch
    return pyscotch


def dmetis(g: Graph, old: np.ndarray, nparts: int, seed: int, emrat: float = 1.0) -> np.ndarray:
    """Diffusive repartitioning from ``old`` (labels in [0, nparts)) with migration cost rwgt * emrat.

    Scotch's own default repartitioning strategy is used (its default load
    imbalance tolerance for mapping, 1%).
    """
    old = np.asarray(old, np.int64)
    if old.shape != (g.n,) or (old.size and (old.min() < 0 or old.max() >= nparts)):
        raise ValueError(f"dmetis: old partition must have {g.n} labels in [0, {nparts})")
    if emrat < 0:
        raise ValueError(f"dmetis: emrat must be >= 0, got {emrat}")
    if nparts == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    ps = _pyscotch()
    graph = ps.Graph()
    graph.build(np.asarray(g.xadj, np.int64), np.asarray(g.adjncy, np.int64),
                velotab=np.maximum(np.asarray(g.pwgt, np.int64), 1),
                edlotab=np.maximum(np.asarray(g.cwgt, np.int64), 1))
    ps.random_seed(int(seed) % (2**31 - 1))
    ps.random_reset()
    new = graph.repart(int(nparts), old, emrat=float(emrat),
                       vmlotab=np.maximum(np.asarray(g.rwgt, np.int64), 1))
    graph.close()
    return np.asarray(new, np.int64)
