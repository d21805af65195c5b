"""``bl``: a Berger-Oliger grid-hierarchy trace of a 3-D Buckley-Leverette front (AMR paper §5).

The AMR paper evaluates its six distribution schemes on the adaptation trace of
the 3-D Buckley-Leverette kernel: the oil-pressure front moves diagonally
across the reservoir; base grid 33^3, 5 levels of factor-2 refinement, 66 regrid
steps, regridding every fourth time step. The trace itself is not published;
this generator rebuilds one the same way an AMR code (GrACE/DAGH) would:

* Front: the Buckley-Leverette saturation shock is a plane perpendicular to the
  diagonal (1,1,1) of the unit cube, moving at constant speed (the 1-D BL shock
  speed is constant for constant injection); at time step n its distance from
  the injection corner is s(n) = ``start`` + (``end`` - ``start``) * n / N, in
  units of the diagonal, N = 4 * (``steps`` - 1) time steps.
* Tagging: at regrid step k (time step 4(k-1)), on every level l < L-1, the cells of
  the level's boxes within ``buffer`` cells of the front are tagged, except cells
  that would break proper nesting (cells whose 1-cell neighbourhood leaves the
  union of the level's boxes; the physical boundary does not count).
* Clustering: Berger-Rigoutsos (IEEE SMC 21(5), 1991): bounding box of the tags;
  accept when the fraction of tagged cells reaches ``efficiency`` (or the box is
  at the minimum size); else cut at a hole of the signature, else at the
  strongest inflection of its second difference, else in the middle of the
  longest side; recurse. A box is also cut until it is properly nested
  (grown by one cell it lies inside the coarser level's boxes).
* The accepted boxes are refined by 2; ``Boxes.parent`` is the coarser box
  holding the box's centre cell (a box may straddle several coarser boxes;
  harness.boxes_to_graph joins it to every one it overlaps).
* ``Level.parent`` links each box to the box of the previous regrid step on the
  same level that overlaps it most (else, to the previous step's box that
  overlaps it most on the nearest coarser level).

Level k = regrid step k (1..66); Boxes use each level's own index space,
ratio 2; work = cells x 2**level (time-step factor). Every level's meta holds
``time_step``, ``front``, ``boxes_per_level``, ``regrid_every`` (coarse time
steps between regrids: AMR level l advances ``regrid_every * ratio**l`` steps
per regrid interval), ``dims`` (the base grid, level-0 cells per axis) and
``ratio``. ``SMALL`` is a fast variant for tests (``bl[base=9,levels=3,steps=4,min_size=2]``).
"""
from __future__ import annotations

import numpy as np

from harness import Boxes, Level, Workload, check_params, lazy_module, overlap_join
from harness.contract.model import IDX

ndimage = lazy_module("scipy.ndimage")  # imported when a level is generated, not when the plugin registers

VERSION = "2"  # 2: regrid_every, dims, ratio in every level's meta
DEFAULTS = {"base": 33, "levels": 5, "steps": 66, "regrid_every": 4, "efficiency": 0.7, "buffer": 2,
            "min_size": 4, "start": 0.15, "end": 0.85}
SMALL = {"base": 9, "levels": 3, "steps": 4, "min_size": 2}  # a few hundred boxes, well under a second


# ------------------------------------------------------------------ Berger-Rigoutsos

def _first_per_group(group: np.ndarray, keys: list, ngroups: int) -> np.ndarray:
    """Index (into the candidate arrays) of the best candidate per group (smallest keys), -1 if none."""
    best = np.full(ngroups, -1, np.int64)
    if group.size:
        order = np.lexsort(tuple(reversed([group] + keys)))
        g = group[order]
        first = np.r_[True, g[1:] != g[:-1]]
        best[g[first]] = order[first]
    return best


def berger_rigoutsos(tags: np.ndarray, efficiency: float, min_size: int, nested=None) -> list:
    """Boxes (lo, hi), inclusive, covering the tagged cells ``tags`` (N, d) (Berger & Rigoutsos 1991).

    A box (the bounding box of its tags) is accepted when its fraction of
    tagged cells reaches ``efficiency`` (or it cannot be cut into parts of
    ``min_size``) and ``nested(lo, hi)`` (vectorized) holds; otherwise it is
    cut: at a hole of a signature (longest side first, the hole nearest the
    middle), else at the strongest zero crossing of a signature's second
    difference (then longest side, nearest the middle), else in the middle of
    its longest side. All boxes of one generation are processed together.
    """
    T = np.asarray(tags, IDX)
    n, d = T.shape
    bid = np.zeros(n, np.int64)
    out_lo, out_hi = [], []
    while T.shape[0]:
        order = np.argsort(bid, kind="stable")
        T, bid = T[order], bid[order]
        B = int(bid[-1]) + 1
        starts = np.searchsorted(bid, np.arange(B))
        cnt = np.diff(np.r_[starts, bid.size])
        lo = np.minimum.reduceat(T, starts, axis=0)
        hi = np.maximum.reduceat(T, starts, axis=0)
        ext = hi - lo + 1
        vol = np.prod(ext, axis=1)
        nest = np.ones(B, bool) if nested is None else np.asarray(nested(lo, hi), bool)
        small = np.all(ext < 2 * min_size, axis=1)
        accept = (nest & ((cnt >= efficiency * vol) | small)) | np.all(ext == 1, axis=1)
        out_lo.append(lo[accept])
        out_hi.append(hi[accept])
        keep_box = ~accept
        keep = keep_box[bid]
        if not keep.any():
            break
        # renumber the boxes still to cut
        newid = np.cumsum(keep_box) - 1
        T, bid = T[keep], newid[bid[keep]]
        lo, hi, ext = lo[keep_box], hi[keep_box], ext[keep_box]
        B = int(keep_box.sum())
        ms = np.where(np.any(ext >= 2 * min_size, axis=1), min_size, 1)
        rank = np.argsort(np.argsort(-ext, axis=1, kind="stable"), axis=1)  # rank of each dim, longest first
        hole_c, hole_key, inf_c, inf_key = [], [], [], []
        for k in range(d):
            off = np.r_[0, np.cumsum(ext[:, k])]
            sig = np.bincount(off[bid] + T[:, k] - lo[bid, k], minlength=int(off[-1]))
            owner = np.repeat(np.arange(B), ext[:, k])
            pos = np.arange(off[-1]) - off[owner]
            mid = ext[owner, k] / 2
            okc = (pos >= ms[owner]) & (pos <= ext[owner, k] - ms[owner])
            h = np.nonzero((sig == 0) & okc)[0]
            hole_c.append((owner[h], np.full(h.size, k), pos[h]))
            hole_key.append((rank[owner[h], k], np.abs(pos[h] - mid[h])))
            lap = np.zeros(sig.size)
            inner = (pos >= 1) & (pos <= ext[owner, k] - 2)
            idx = np.nonzero(inner)[0]
            lap[idx] = sig[idx - 1] - 2.0 * sig[idx] + sig[idx + 1]
            p = np.nonzero(inner[:-1] & inner[1:] & (owner[:-1] == owner[1:]) & (lap[:-1] * lap[1:] < 0))[0]
            c = p + 1
            good = okc[c]
            p, c = p[good], c[good]
            inf_c.append((owner[c], np.full(c.size, k), pos[c]))
            inf_key.append((-np.abs(lap[p + 1] - lap[p]), rank[owner[c], k], np.abs(pos[c] - mid[c])))
        cut_dim = np.argmin(rank, axis=1)  # fallback: the longest side, in the middle
        cut_pos = ext[np.arange(B), cut_dim] // 2
        done = np.zeros(B, bool)
        for cands, keys in ((hole_c, hole_key), (inf_c, inf_key)):
            g = np.concatenate([c[0] for c in cands])
            dims = np.concatenate([c[1] for c in cands])
            cpos = np.concatenate([c[2] for c in cands])
            karr = [np.concatenate([kk[j] for kk in keys]) for j in range(len(keys[0]))]
            best = _first_per_group(g, karr + [cpos], B)
            use = (best >= 0) & ~done
            cut_dim[use] = dims[best[use]]
            cut_pos[use] = cpos[best[use]]
            done |= use
        k = cut_dim[bid]
        left = T[np.arange(T.shape[0]), k] < lo[bid, k] + cut_pos[bid]
        bid = 2 * bid + (~left)
    if not out_lo:
        return []
    lo, hi = np.vstack(out_lo), np.vstack(out_hi)
    return list(zip(lo, hi))


# ------------------------------------------------------------------ hierarchy

def _summed(mask: np.ndarray) -> np.ndarray:
    """Summed-volume table with a zero border: S[i, j, k] = mask[:i, :j, :k].sum()."""
    S = np.zeros(tuple(d + 1 for d in mask.shape), np.int64)
    S[1:, 1:, 1:] = mask.cumsum(0, dtype=np.int64).cumsum(1).cumsum(2)
    return S


def _box_sum(S, lo, hi):
    a, b = lo, hi + 1
    return (S[b[0], b[1], b[2]] - S[a[0], b[1], b[2]] - S[b[0], a[1], b[2]] - S[b[0], b[1], a[2]]
            + S[a[0], a[1], b[2]] + S[a[0], b[1], a[2]] + S[b[0], a[1], a[2]] - S[a[0], a[1], a[2]])


def regrid(n0: int, L: int, s: float, buffer: int, efficiency: float, min_size: int):
    """The box hierarchy for front position s: per level (lo, hi, parent index on the coarser level)."""
    levels = [(np.zeros((1, 3), IDX), np.full((1, 3), n0 - 1, IDX), np.full(1, -1, IDX))]
    sqrt3 = np.sqrt(3.0)
    for lev in range(L - 1):
        lo, hi, _ = levels[-1]
        n = n0 * 2 ** lev
        owner = np.full((n, n, n), -1, np.int32)
        for i, (a, b) in enumerate(zip(lo, hi)):
            owner[a[0]:b[0] + 1, a[1]:b[1] + 1, a[2]:b[2] + 1] = i
        # proper nesting: a tag's 1-cell neighbourhood must lie in the level (the domain boundary does not count)
        allowed = ndimage.binary_erosion(owner >= 0, structure=np.ones((3, 3, 3), bool), border_value=1)
        # the front band: |(x + y + z) / sqrt(3) - s * sqrt(3)| <= buffer + 1/2 cells (cell centres, unit cube)
        # with q = i + j + k: distance = ((q + 1.5) / n) / sqrt(3) - s * sqrt(3)
        q_lo = int(np.ceil((s * sqrt3 - (buffer + 0.5) / n) * sqrt3 * n - 1.5 - 1e-9))
        q_hi = int(np.floor((s * sqrt3 + (buffer + 0.5) / n) * sqrt3 * n - 1.5 + 1e-9))
        r = np.arange(n, dtype=np.int32)
        qs = r[:, None, None] + r[None, :, None] + r[None, None, :]
        tags = np.argwhere(allowed & (qs >= q_lo) & (qs <= q_hi)).astype(IDX)
        if tags.shape[0] == 0:
            break
        S = _summed(allowed)

        def nested(blo, bhi, S=S):
            return _box_sum(S, blo.T, bhi.T) == np.prod(bhi - blo + 1, axis=1)

        boxes = berger_rigoutsos(tags, efficiency, min_size, nested)
        # parent: the coarser box holding the new box's centre cell (the box may overlap others too:
        # harness.boxes_to_graph joins it to every coarser box it overlaps)
        blo = np.array([b[0] for b in boxes], IDX)
        bhi = np.array([b[1] for b in boxes], IDX)
        c = (blo + bhi) // 2
        par = owner[c[:, 0], c[:, 1], c[:, 2]].astype(IDX)
        clo, chi = blo * 2, (bhi + 1) * 2 - 1
        order = np.lexsort((clo[:, 2], clo[:, 1], clo[:, 0]))
        levels.append((clo[order], chi[order], par[order]))
    return levels


def to_boxes(levels) -> Boxes:
    offs = np.cumsum([0] + [lv[0].shape[0] for lv in levels])
    level = np.concatenate([np.full(lv[0].shape[0], k, IDX) for k, lv in enumerate(levels)])
    lo = np.vstack([lv[0] for lv in levels])
    hi = np.vstack([lv[1] for lv in levels])
    parent = np.concatenate([np.where(lv[2] >= 0, lv[2] + (offs[k - 1] if k else 0), -1)
                             for k, lv in enumerate(levels)])
    return Boxes(level, lo, hi, parent, ratio=2)


def step_parents(prev: Boxes, cur: Boxes) -> np.ndarray:
    """For each box of ``cur``, the box of ``prev`` it comes from: the one overlapping it most on the same
    AMR level, else on the nearest coarser level that overlaps it (ties: the lower box number)."""
    out = np.full(cur.n, -1, IDX)
    for lev in np.unique(cur.level):
        mine = np.nonzero(cur.level == lev)[0]
        for l2 in range(int(lev), -1, -1):
            todo = mine[out[mine] < 0]
            cand = np.nonzero(prev.level == l2)[0]
            if not todo.size:
                break
            if not cand.size:
                continue
            f = 2 ** (int(lev) - l2)
            i, j, v = overlap_join(cur.lo[todo] // f, cur.hi[todo] // f, prev.lo[cand], prev.hi[cand])
            if not i.size:
                continue
            order = np.lexsort((cand[j], -v, i))
            first = np.r_[True, i[order][1:] != i[order][:-1]]
            out[todo[i[order][first]]] = cand[j[order][first]]
    return out


BOUNDS = {"base": (4, 256), "levels": (1, 6), "steps": (1, 10_000), "regrid_every": (1, 1000),
          "efficiency": (0.01, 1.0), "buffer": (0, 64), "min_size": (1, 256), "start": (0.0, 1.0), "end": (0.0, 1.0)}


def validate(params: dict) -> None:
    """Every parameter in range (the front inside the unit cube, a hierarchy that fits in memory)."""
    check_params("workload bl", params, BOUNDS)


def generate(seed: int = 0, **params):
    p = {**DEFAULTS, **params}
    validate(p)
    n0, L, steps, every = int(p["base"]), int(p["levels"]), int(p["steps"]), int(p["regrid_every"])
    total = every * max(steps - 1, 1)
    out, prev = [], None
    for k in range(steps):
        n = k * every
        s = float(p["start"]) + (float(p["end"]) - float(p["start"])) * n / total
        lv = regrid(n0, L, s, int(p["buffer"]), float(p["efficiency"]), int(p["min_size"]))
        b = to_boxes(lv)
        parent = step_parents(prev, b) if prev is not None else None
        meta = {"time_step": n, "front": s, "boxes_per_level": [int(x[0].shape[0]) for x in lv],
                "regrid_every": every, "dims": [n0] * 3, "ratio": int(b.ratio)}
        out.append(Level(k + 1, b, parent=parent, meta=meta))
        prev = b
    return out


WORKLOAD = Workload(
    "bl", generate, version=VERSION, params=dict(DEFAULTS), forms=("boxes",), validate=validate,
    level_indices=lambda p: range(1, int(p["steps"]) + 1),
    description="AMR paper's Buckley-Leverette trace: 33^3 base, 5 levels x2, 66 regrid steps, "
                "Berger-Rigoutsos boxes with proper nesting")
