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
        # the terms that can change a value: beta with communications; a bound some rank could exceed
        self.alpha, self.beta = alpha, (beta if comm[0].size else 0.0)
        self.gamma, self.delta, self.max_memory = gamma, delta, max_memory
        most = rank_bytes.max(initial=0.0) + block_size.sum() + footprint.sum() + overhead.max(initial=0.0)
        self.bounded = 0 < max_memory < most
        self.blocky = block_size.size > 0 and (self.bounded or delta != 0)  # the block terms matter
        self.footprint, self.overhead, self.rank_bytes, self.block = footprint, overhead, rank_bytes, block
        self.block_size, self.block_home, self.comm = block_size, block_home, comm
        self.fp = np.bincount(owner, weights=footprint, minlength=P)
        self.held = np.zeros((P, block_size.size), np.int64)
        has = block >= 0
        np.add.at(self.held, (owner[has], block[has]), 1)
        self.ov = np.zeros(P)
        np.maximum.at(self.ov, owner, overhead)
        f, t, _ = comm
        ends = np.concatenate([f, t])  # each object's communications (as sender or receiver)
        self.inc = np.concatenate([np.arange(f.size), np.arange(t.size)])[np.argsort(ends, kind="stable")]
        self.xinc = np.concatenate([[0], np.cumsum(np.bincount(ends, minlength=load.size))])
        self.recv, self.sent = self._volumes(owner) if beta else (np.zeros(P), np.zeros(P))
        self.now = self._now()

    def _blocks(self, objs) -> np.ndarray:
        b = self.block[list(objs)]
        return np.bincount(b[b >= 0], minlength=self.block_size.size)

    def _max_overhead(self, rank: int, objs, back) -> float:
        """The largest working bytes on ``rank`` without ``objs`` and with ``back``."""
        gone = self.overhead[list(objs)].max(initial=0.0)
        come = self.overhead[list(back)].max(initial=0.0)
        if gone < self.ov[rank]:  # an object that stays holds the maximum
            return max(float(self.ov[rank]), float(come))
        on = self.owner == rank
        on[list(objs)] = False
        on[list(back)] = True
        return float(self.overhead[on].max(initial=0.0))

    def _volumes(self, owner) -> tuple[np.ndarray, np.ndarray]:
        """(received, sent) bytes of every rank under ``owner``: the communications across ranks."""
        f, t, b = self.comm
        cross = owner[f] != owner[t]
        return (np.bincount(owner[t][cross], weights=b[cross], minlength=self.loads.size),
                np.bincount(owner[f][cross], weights=b[cross], minlength=self.loads.size))

    def _volume_after(self, src: int, objs, back, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """max(received, sent) of ``src`` and of each ``dst`` once ``objs`` went there and ``back`` came to
        ``src``: the current volumes, with the communications of the moved objects recounted."""
        moved = list(objs) + list(back)
        e = np.unique(np.concatenate([self.inc[self.xinc[v]:self.xinc[v + 1]] for v in moved]))
        f, t, b = (a[e] for a in self.comm)
        to = np.zeros(self.owner.size, np.int64)  # 0: stays, 1: to dst, 2: to src
        to[list(objs)], to[list(back)] = 1, 2
        T = dst[:, None]
        of, ot = self.owner[f][None, :], self.owner[t][None, :]
        nf = np.where(to[f] == 1, T, np.where(to[f] == 2, src, of))
        nt = np.where(to[t] == 1, T, np.where(to[t] == 2, src, ot))

        def part(r, a, z):  # bytes into (received) and out of (sent) rank r over these communications
            return ((((z == r) & (a != r)) * b).sum(axis=1), (((a == r) & (z != r)) * b).sum(axis=1))
        out = []
        for r in (np.full((dst.size, 1), src), T):
            old, new = part(r, of, ot), part(r, nf, nt)
            now = self.recv[r[:, 0]], self.sent[r[:, 0]]
            out.append(np.maximum(now[0] - old[0] + new[0], now[1] - old[1] + new[1]))
        return out[0], out[1]

    def _state(self, ranks: np.ndarray, fp, held: np.ndarray, ov) -> tuple:
        """(max_memory_usage, homing) of ``ranks`` holding footprints ``fp``, blocks ``held`` (counts per block)
        and largest working bytes ``ov``; 0 where the model does not use them."""
        shared = homing = 0.0
        if self.blocky:
            present = held > 0
            shared = present @ self.block_size
            homing = (present & (self.block_home[None, :] != ranks[:, None])) @ self.block_size
        return (self.rank_bytes[ranks] + shared + fp + ov if self.bounded else 0.0), homing

    def _work(self, ranks: np.ndarray, load, state: tuple, vol) -> np.ndarray:
        memory, homing = state
        w = self.alpha[ranks] * load + self.beta * vol + self.gamma + self.delta * homing
        return np.where(memory > self.max_memory, np.inf, w) if self.bounded else w

    def _now(self) -> np.ndarray:
        ranks = np.arange(self.loads.size)
        return self._work(ranks, self.loads, self._state(ranks, self.fp, self.held, self.ov),
                          np.maximum(self.recv, self.sent))

    def work(self, ranks):
        return self.now[ranks]

    def after(self, src, objs, dst, back=()):
        ls, ld = super().after(src, objs, dst, back)
        dst = np.atleast_1d(dst)
        s, d = np.array([src]), dst
        held_s, held_d, fp_s, fp_d, ov_s, ov_d = self.held[s], self.held[d], 0.0, 0.0, 0.0, 0.0
        if self.blocky:
            db = self._blocks(objs) - self._blocks(back)
            held_s, held_d = held_s - db, held_d + db
        if self.bounded:
            df = total(self.footprint, objs) - total(self.footprint, back)
            fp_s, fp_d = self.fp[src] - df, self.fp[dst] + df
            ov_s = self._max_overhead(src, objs, back)
            ov_d = (np.array([self._max_overhead(int(dst[0]), back, objs)]) if len(back)  # a swap: one target
                    else np.maximum(self.ov[dst], self.overhead[list(objs)].max(initial=0.0)))
        vol_s, vol_d = self._volume_after(src, objs, back, dst) if self.beta else (0.0, 0.0)
        ws = self._work(s, ls, self._state(s, fp_s, held_s, ov_s), np.ravel(vol_s)[:1])
        return ws[0], self._work(d, ld, self._state(d, fp_d, held_d, ov_d), vol_d)

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
        if self.beta:
            self.recv, self.sent = self._volumes(self.owner)
        self.now = self._now()


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
