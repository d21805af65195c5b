"""Operation counts of one regrid's distribution (AMR paper §4, the cost of Fig. 12 as the algorithms do it).

The paper's distribution time (Fig. 12) is the wall time of its unpublished implementation; here a
regrid's distribution is counted in the operations each scheme's §4 description implies, so the claim
about it (A6) is judged on what the algorithm does, never on our Python/C seconds:

- **boxes visited**: the grid units the scheme (re)places at this regrid. SFC (§4.1) re-cuts the whole
  composite list: every (box, composite block) unit; IGD (§4.2, "no redistribution is required when
  grids are created or deleted") only the boxes created at this regrid; CGD (§4.3, "an almost complete
  redistribution of the grid hierarchy") every box; ILD (§4.4, "Creation or deletion of component
  grids at any level requires a redistribution of the entire level") every box of every level where a
  box was created or deleted; ITB (§4.5, "for every grid, immediate neighbors and children are also
  considered") and WD (§4.6, the affinities of the processors housing each grid's parents and
  neighbours) every box and each of its box-graph edges;
- **pieces created**: the pieces of the boxes visited;
- **cells cut**: the cell faces of the cuts inside the boxes visited ((the pieces' surfaces - the box's) / 2).

``amr_ops`` is their sum.
"""
from __future__ import annotations

import numpy as np

from harness import BoxPieces, Boxes, row_prod

SCOPE = {"amr-sfc": "blocks", "amr-igd": "created", "amr-cgd": "all", "amr-ild": "levels", "amr-itb": "graph",
         "amr-wd": "graph"}


def _faces(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cell faces on the surface of each box lo..hi: 2 Σ_a cells / side_a."""
    ext = hi - lo + 1
    return 2 * (row_prod(ext)[:, None] // ext).sum(axis=1)


def _keys(level, lo, hi) -> np.ndarray:
    """One row per box: level, lo, hi (for set comparisons between steps)."""
    return np.ascontiguousarray(np.column_stack([level, lo, hi]).astype(np.int64))


def changed(boxes: Boxes, previous: BoxPieces | None) -> tuple[np.ndarray, np.ndarray]:
    """(created: per box of ``boxes``, True if no box of the previous step has its level and extent;
    levels where a box was created or deleted). ``previous``: the previous step's pieces (None: all new)."""
    cur = _keys(boxes.level, boxes.lo, boxes.hi)
    if previous is None or previous.n == 0:
        return np.ones(boxes.n, bool), np.unique(boxes.level)
    o = (np.arange(previous.n) if (np.diff(previous.box) >= 0).all()  # the schemes give pieces box by box
         else np.argsort(previous.box, kind="stable"))
    first = np.r_[0, np.nonzero(np.diff(previous.box[o]))[0] + 1]
    prev = _keys(previous.level[o][first], np.minimum.reduceat(previous.lo[o], first),
                 np.maximum.reduceat(previous.hi[o], first))
    both = np.concatenate([cur, prev])
    order = np.lexsort(both.T[::-1])
    same = np.all(both[order[1:]] == both[order[:-1]], axis=1)  # a box of one step equal to one of the other
    shared = np.zeros(both.shape[0], bool)
    shared[order[1:][same]] = shared[order[:-1][same]] = True
    created, deleted = ~shared[:boxes.n], ~shared[boxes.n:]
    return created, np.union1d(boxes.level[created], prev[deleted, 0])


def operations(name: str, boxes: Boxes, previous: BoxPieces | None, pieces: BoxPieces, edges: np.ndarray,
               block: int = 1) -> dict:
    """The ``amr_ops_*`` columns of scheme ``name`` at one regrid (module docstring); ``edges``: the
    box-graph degree of every box; ``block``: SFC's composite unit."""
    created, levels = changed(boxes, previous)
    scope = SCOPE[name]
    visit = {"created": created, "levels": np.isin(boxes.level, levels)}.get(scope, np.ones(boxes.n, bool))
    if scope == "blocks":
        side = block * boxes.ratio ** boxes.level[:, None]
        units = row_prod(boxes.hi // side - boxes.lo // side + 1)
    else:
        units = np.ones(boxes.n, np.int64) + (edges if scope == "graph" else 0)
    per_box = np.bincount(pieces.box, minlength=boxes.n)
    inner = np.bincount(pieces.box, _faces(pieces.lo, pieces.hi), minlength=boxes.n) - _faces(boxes.lo, boxes.hi)
    out = {"amr_ops_boxes": int(units[visit].sum()), "amr_ops_pieces": int(per_box[visit].sum()),
           "amr_ops_cut_faces": int(inner[visit].sum()) // 2}
    out["amr_ops"] = sum(out.values())
    return out
