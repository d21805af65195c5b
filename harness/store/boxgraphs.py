"""The box graphs of AMR levels, built once: kept as data (``.npz``, no pickle) in the workload cache
directory under ``boxgraphs/``, keyed by the boxes' content and the source of the code that builds them
(:func:`harness.contract.forms.boxes_to_graph`), and the last few in memory."""
from __future__ import annotations

import hashlib
import inspect
import os
from pathlib import Path

import numpy as np

from ..contract import forms, model, pieces
from ..contract.model import Boxes, Graph
from ..kernels import _cells
from .results import savez
from .wlcache import cache_dir

BOX_GRAPHS_IN_MEMORY = 256
_box_graphs: dict = {}
_BUILDER = None


def _builder_hash() -> str:
    """Hash of the code that builds a box graph: these functions' source, the Graph model and the compiled
    pair search (not the whole modules, so an edit elsewhere in them, e.g. to the AMR figures, keeps the
    cached graphs)."""
    global _BUILDER
    if _BUILDER is None:
        h = hashlib.sha256(Path(_cells.__file__).read_bytes())
        for f in (forms.boxes_to_graph, forms.box_centres, forms._coarse_overlaps, pieces.face_pairs,
                  pieces.overlap_join, model.Graph, model.Boxes):
            h.update(inspect.getsource(f).encode())
        _BUILDER = h.hexdigest()[:16]
    return _BUILDER


def box_graph_key(b: Boxes) -> str:
    """What determines a box graph: the boxes (levels, corners, ratio) and the code that builds it."""
    h = hashlib.sha256(_builder_hash().encode())
    h.update(str(int(b.ratio)).encode())
    for a in (b.level, b.lo, b.hi):
        a = np.ascontiguousarray(a, np.int64)
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:24]


def box_graph(b: Boxes) -> Graph:
    """:func:`harness.boxes_to_graph`, from memory or the workload cache when it was built before (else built
    and kept)."""
    key = box_graph_key(b)
    g = _box_graphs.get(key)
    if g is not None:
        return g
    path = cache_dir() / "boxgraphs" / f"{key}.npz"
    g = _read_graph(path)
    if g is None:
        g = forms.boxes_to_graph(b)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                savez(fh, dict(xadj=g.xadj, adjncy=g.adjncy, pwgt=g.pwgt, rwgt=g.rwgt, cwgt=g.cwgt, coords=g.coords))
            os.replace(tmp, path)
        except OSError:  # a read-only or full cache: the graph is simply not kept
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _box_graphs[key] = g
    while len(_box_graphs) > BOX_GRAPHS_IN_MEMORY:
        _box_graphs.pop(next(iter(_box_graphs)))
    return g


def _read_graph(path) -> Graph | None:
    """A cached box graph (data only, validated by Graph), or None when missing or unreadable (then removed).

    The symmetry check is skipped: the graph was built symmetric (``Graph.from_edges``) and the file's zip
    CRCs guard its bytes; every other check of Graph runs.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            return Graph(z["xadj"], z["adjncy"], z["pwgt"], z["rwgt"], z["cwgt"], coords=z["coords"], name="boxes",
                         symmetric=True)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - corrupt or foreign: rebuild it
        try:
            path.unlink()
        except OSError:
            pass
        return None
