"""LBAF's work models (DARMA-tasking/LB-analysis-framework, src/lbaf/Model/lbsLoadOnlyWorkModel.py,
lbsAffineCombinationWorkModel.py, lbsRank.py): what lbaf-iat's tempered criterion compares.

A model holds the live per-rank state of one transfer stage (built from the
owners at its start, updated by :meth:`LoadOnly.move`); ``work(ranks)`` is
the work of ranks now, ``after(src, objs, dst, back)`` the works of ``src``
and of each rank of ``dst`` once ``objs`` went there and ``back`` came to
``src`` (TemperedCriterion.compute moves them there and back).
"""
from __future__ import annotations

import numpy as np


def total(a: np.ndarray, idx) -> float:
    """Sum of ``a[idx]`` in Python's order (as LBAF's ``sum``, so equal sums compare equal on both sides)."""
    return float(sum(a[list(idx)].tolist()))


class LoadOnly:
    """LoadOnlyWorkModel.compute: a rank's work is its load (``Rank.get_load``)."""

    fast = True  # tempered's sign follows from loads alone (lbaf.transfer's shortcut)

    def __init__(self, load: np.ndarray, owner: np.ndarray, P: int):
        self.load, self.owner = load, owner
        self.loads = np.bincount(owner, weights=load, minlength=P).astype(float)

    def work(self, ranks):
        return self.loads[ranks]

    def after(self, src: int, objs, dst: np.ndarray, back=()):
        w, wb = total(self.load, objs), total(self.load, back)
        return self.loads[src] - w + wb, self.loads[dst] + w - wb

    def move(self, objs, src: int, dst: int, back=()) -> None:
        """Phase.transfer_objects: ``objs`` to ``dst``, ``back`` to ``src``."""
        w, wb = total(self.load, objs), total(self.load, back)
        self.owner[list(objs)], self.owner[list(back)] = dst, src
        self.loads[src] += wb - w
        self.loads[dst] += w - wb


class Affine(LoadOnly):
    """AffineCombinationWorkModel.compute: alpha x load + beta x max(received, sent volume) + gamma + delta x
    homing, or inf when the rank's ``max_memory_usage`` is above its upper bound.

    * load as given (lbaf-iat passes seconds, LBAF's unit); alpha per rank (``Rank.get_alpha``);
    * volumes (``Rank.get_received_volume``, ``get_sent_volume``): the bytes of the communications
      (``comm``: from, to, bytes) between the rank's objects and objects elsewhere;
    * homing (``Rank.get_homing``): the sizes of the blocks on the rank homed elsewhere;
    * ``Rank.get_max_memory_usage``: the rank's working bytes + its blocks' sizes (each block once) + its
      objects' footprints + the largest working bytes of its objects.
    """

    fast = False

    def __init__(self, load, owner, P, *, alpha, beta, gamma, delta, max_memory, footprint, overhead,
                 rank_bytes, block, block_size, block_home, comm):
        super().__init__(load, owner, P)
        self.alpha, self.beta, self.gamma, self.delta = alpha, beta, gamma, delta
        self.max_memory = max_memory if max_memory > 0 else np.inf
        self.footprint, self.overhead, self.rank_bytes, self.block = footprint, overhead, rank_bytes, block
        self.block_size, self.block_home, self.comm = block_size, block_home, comm
        self.fp = np.bincount(owner, weights=footprint, minlength=P)
        self.held = np.zeros((P, block_size.size), np.int64)
        has = block >= 0
        np.add.at(self.held, (owner[has], block[has]), 1)
        self.ov = np.zeros(P)
        np.maximum.at(self.ov, owner, overhead)

    def _blocks(self, objs) -> np.ndarray:
        b = self.block[list(objs)]
        return np.bincount(b[b >= 0], minlength=self.block_size.size)

    def _max_overhead(self, rank: int, objs, back) -> float:
        """The largest working bytes on ``rank`` without ``objs`` and with ``back``."""
        on = self.owner == rank
        on[list(objs)] = False
        on[list(back)] = True
        return float(self.overhead[on].max(initial=0.0))

    def _volume(self, ranks: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """max(received, sent) of each of ``ranks`` under ``owner``."""
        if not self.beta:
            return np.zeros(ranks.size)
        src, dst, b = self.comm
        out = []
        for r in ranks.tolist():
            on_from, on_to = owner[src] == r, owner[dst] == r
            out.append(max(float(b[on_to & ~on_from].sum()), float(b[on_from & ~on_to].sum())))
        return np.array(out)

    def _work(self, ranks, load, fp, held, ov, vol) -> np.ndarray:
        ranks = np.atleast_1d(ranks)
        present = held > 0
        memory = self.rank_bytes[ranks] + present @ self.block_size + fp + ov
        homing = (present & (self.block_home[None, :] != ranks[:, None])) @ self.block_size
        w = self.alpha[ranks] * load + self.beta * vol + self.gamma + self.delta * homing
        return np.where(memory > self.max_memory, np.inf, w)

    def work(self, ranks):
        ranks = np.atleast_1d(ranks)
        return self._work(ranks, self.loads[ranks], self.fp[ranks], self.held[ranks], self.ov[ranks],
                          self._volume(ranks, self.owner))

    def after(self, src, objs, dst, back=()):
        ls, ld = super().after(src, objs, dst, back)
        df = total(self.footprint, objs) - total(self.footprint, back)
        db = self._blocks(objs) - self._blocks(back)
        dst = np.atleast_1d(dst)
        ov_src = self._max_overhead(src, objs, back)
        if len(back):  # a swap: one target
            ov_dst = np.array([self._max_overhead(int(dst[0]), back, objs)])
        else:
            ov_dst = np.maximum(self.ov[dst], self.overhead[list(objs)].max(initial=0.0))
        vol_src = vol_dst = np.zeros(dst.size)
        if self.beta:
            vol_dst = np.empty(dst.size)
            for i, d in enumerate(dst.tolist()):
                owner = self.owner.copy()
                owner[list(objs)], owner[list(back)] = d, src
                vol_dst[i] = self._volume(np.array([d]), owner)[0]
                vol_src = self._volume(np.array([src]), owner)
        ws = self._work(np.array([src]), np.array([ls]), self.fp[src] - df, (self.held[src] - db)[None, :],
                        ov_src, vol_src[:1])[0]
        wd = self._work(dst, ld, self.fp[dst] + df, self.held[dst] + db, ov_dst, vol_dst)
        return ws, wd

    def move(self, objs, src, dst, back=()):
        df = total(self.footprint, objs) - total(self.footprint, back)
        db = self._blocks(objs) - self._blocks(back)
        super().move(objs, src, dst, back)
        self.fp[src] -= df
        self.fp[dst] += df
        self.held[src] -= db
        self.held[dst] += db
        for r in (src, dst):
            self.ov[r] = float(self.overhead[self.owner == r].max(initial=0.0))


def affine(load, P: int, meta: dict, shared, node, *, alpha, beta, gamma, delta, max_memory):
    """``model_of(owner)`` for :class:`Affine` from a level's vt data (workloads/vt.py's meta; zeros where the
    trace has none): blocks are (home rank, shared id) pairs as LBAF's reader makes them (one ``Block`` per
    rank file and id, homed on that rank, of the first task's ``shared_bytes``)."""
    n = load.size
    zeros = np.zeros(n)
    shared = np.full(n, -1) if shared is None else np.asarray(shared)
    has = shared >= 0
    keys, first, inv = np.unique(np.stack([node[has], shared[has]]), axis=1, return_index=True, return_inverse=True)
    block = np.full(n, -1, np.int64)
    block[has] = inv.ravel()
    sizes = np.asarray(meta.get("shared_bytes", zeros), float)[np.flatnonzero(has)[first]]
    ranks_alpha = np.asarray(meta.get("rank_alpha", np.full(P, np.nan)), float)
    alphas = np.where(np.isnan(ranks_alpha), alpha, ranks_alpha)
    kw = dict(alpha=alphas, beta=beta, gamma=gamma, delta=delta,
              max_memory=max_memory, footprint=np.asarray(meta.get("footprint_bytes", zeros), float),
              overhead=np.asarray(meta.get("working_bytes", zeros), float),
              rank_bytes=np.asarray(meta.get("rank_working_bytes", np.zeros(P)), float), block=block,
              block_size=sizes, block_home=keys[0], comm=meta.get("comm", (np.zeros(0, int),) * 2 + (zeros[:0],)))
    return lambda owner: Affine(load, owner, P, **kw)
