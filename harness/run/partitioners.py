"""Real partitioners every plugin may call (METIS through pymetis)."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import numpy as np

from ..contract.model import Graph


def metis_kway(g: Graph, nparts: int, seed: int = 0, vweights=None, eweights=None,
               ufactor: int = 30) -> np.ndarray:
    """METIS multilevel k-way partition; vertex weights default to pwgt, edge weights to cwgt.

    ``ufactor`` is METIS's load-imbalance tolerance in thousandths (30 = 3%).
    Zero vertex weights are raised to 1, as METIS needs positive weights for
    balance to mean anything.
    """
    import pymetis

    if nparts == 1 or g.n == 0:
        return np.zeros(g.n, np.int64)
    vw = np.maximum(np.asarray(g.pwgt if vweights is None else vweights, np.int64), 1)
    ew = np.maximum(np.asarray(g.cwgt if eweights is None else eweights, np.int64), 1)
    opts = pymetis.Options(seed=int(seed) % (2**31 - 1), ufactor=int(ufactor))
    adj = pymetis.CSRAdjacency(g.xadj, g.adjncy)
    with quiet_native():
        _, parts = pymetis.part_graph(int(nparts), adj, vweights=vw, eweights=ew, options=opts)
    return np.asarray(parts, np.int64)


@contextmanager
def quiet_native():
    """Keep a native library's prints (METIS's ``***Cannot bisect``) off stdout, at the file-descriptor level.

    They go nowhere, or to stderr when ``LBBENCH_NATIVE_OUTPUT=1``: stdout stays the command's output
    (``--format csv`` must parse).
    """
    sys.stdout.flush()
    saved = os.dup(1)
    target = os.dup(2) if os.environ.get("LBBENCH_NATIVE_OUTPUT") == "1" else os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(target, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(target)
