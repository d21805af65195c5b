"""LBAF's ClusteringTransferStrategy (DARMA-tasking/LB-analysis-framework,
src/lbaf/Execution/lbsClusteringTransferStrategy.py), lbaf-iat's ``transfer=clustering``, on live loads.

A cluster is the migratable objects of one rank that share a memory block
(``Level.shared_id``, vt's ``user_defined.shared_id``); objects without a
block are in no cluster and never move. Per iteration, each source rank (as
:func:`lbaf.sources`):

* **swaps** (``__swap_clusters``): for each target (rank order, shuffled
  unless ``deterministic``) until one swap happened: each source cluster
  against each target cluster, both lists headed by the empty cluster (so a
  cluster may also move one way); a criterion value ``c > 0`` above
  ``cluster_swap_rtol`` x the source cluster's load swaps the two (the
  target cluster is then used up), ``0 < c`` below it is a reject;
* **subclusters** (``__build_rank_subclusters``): every combination of 1 ..
  ``max_objects_per_transfer`` objects of each cluster (``deterministic``),
  or ``min(n, max_subclusters)`` random samples of binomial(n, 1/2) objects,
  kept when the source stays at or above (1 - ``cluster_swap_rtol``) x the
  average load, tried from the one that leaves the source lightest: the
  target is the one with ``c`` above ``subclustering_minimum_improvement`` x
  the source's load that lands closest to the average (``deterministic``) or
  a CMF draw; the first subcluster with ``c > 0`` moves and ends the rank's
  turn. Skipped after a swap unless ``deterministic``; after all ranks'
  swaps when ``separate_subclustering``; never with ``max_subclusters=0``.

LBAF iterates Python sets of objects and ranks (an order set by memory
addresses); we iterate ascending ids. The deterministic enumeration is
LBAF's, exponential in the cluster size: a rank whose clusters would give
more than ``MAX_COMBINATIONS`` subclusters is refused with one error line.
"""
from __future__ import annotations

from itertools import chain, combinations
from math import comb

import numpy as np

from .lbaf import criterion, select, sources
from .work import LoadOnly

MAX_COMBINATIONS = 1 << 20


class Clustering:
    """One transfer stage: the live loads and owners, the counters, and the strategy's parameters."""

    def __init__(self, load, owner, movable, shared, on, *, crit, deterministic, max_objects, rtol,
                 max_subclusters, threshold, min_improvement, rng, swaps=0, model_of=None):
        self.load, self.owner, self.movable, self.shared, self.on = load, owner, movable, shared, on
        self.model_of = model_of  # the work model (.work; LoadOnly when None)
        self.crit, self.det, self.max_objects, self.rtol = crit, deterministic, max_objects, rtol
        self.max_sub, self.threshold, self.min_improvement, self.rng = (max_subclusters, threshold,
                                                                        min_improvement, rng)
        self.transfers = self.rejects = 0
        self.swaps = swaps  # LBAF's __n_swaps: set in the strategy's constructor, never reset between iterations

    def value(self, src: int, objs, dst: np.ndarray, back=()) -> np.ndarray:
        """The criterion for ``objs`` from ``src`` to each of ``dst`` and ``back`` the other way."""
        local = self.crit == "strict" and self.on(self.owner, list(objs), src)
        return criterion(self.crit, self.model, src, dst, objs, local, back)

    def move(self, objs, src: int, dst: int, back=()) -> None:
        """phase.transfer_objects: ``objs`` to ``dst``, ``back`` to ``src``."""
        self.model.move(objs, src, dst, back)
        self.transfers += len(objs) + len(back)

    def clusters(self, rank: int, with_null: bool) -> dict:
        """__build_rank_clusters: the rank's migratable objects by shared block (key None: the empty cluster)."""
        out = {None: []} if with_null else {}
        for v in np.flatnonzero(self.movable & (self.owner == rank)).tolist():
            if self.shared[v] >= 0:
                out.setdefault(int(self.shared[v]), []).append(v)
        if self.det:
            return out
        keys = list(out)
        return {keys[i]: out[keys[i]] for i in self.rng.permutation(len(keys))}

    def swap(self, src: int, mine: dict, targets: np.ndarray) -> int:
        """__swap_clusters: the swaps done from ``src``."""
        n = 0
        for dst in (targets if self.det else targets[self.rng.permutation(targets.size)]).tolist():
            if n:
                break
            theirs = self.clusters(dst, True)
            for o_src in mine.values():
                for k_try, o_try in theirs.items():
                    c = float(self.value(src, o_src, np.array([dst]), o_try)[0])
                    if c > 0.0:
                        if c > self.rtol * float(sum(self.load[o_src])):
                            self.move(o_src, src, dst, o_try)
                            del theirs[k_try]
                            n += 1
                            break
                        self.rejects += len(o_src) + len(o_try)
        self.swaps += n
        return n

    def subclusters(self, src: int, avg: float) -> list:
        """__build_rank_subclusters: candidate subclusters, the one leaving ``src`` lightest first."""
        found: dict = {}
        src_load = float(self.loads[src])
        for v in self.clusters(src, False).values():
            n_o = min(self.max_objects, len(v))
            if self.det:
                if sum(comb(len(v), p) for p in range(1, n_o + 1)) > MAX_COMBINATIONS:
                    raise ValueError(f"lbaf-iat: a cluster of {len(v)} objects on rank {src} has more than "
                                     f"{MAX_COMBINATIONS} subclusters of at most {n_o} objects (LBAF enumerates "
                                     "them all when deterministic): use deterministic=false, max_subclusters=0 "
                                     "or a smaller max_objects_per_transfer")
                subs = chain.from_iterable(combinations(v, p) for p in range(1, n_o + 1))
            else:
                subs = (tuple(self.rng.choice(v, p, replace=False).tolist())
                        for p in self.rng.binomial(n_o, 0.5, min(n_o, self.max_sub)))
            for c in subs:
                reach = src_load - sum(self.load[list(c)].tolist())
                if reach >= (1.0 - self.rtol) * avg:
                    found[c] = reach
        return sorted(found, key=found.get)

    def transfer_subclusters(self, src: int, targets: np.ndarray, avg: float, max_load: float) -> None:
        """__transfer_subclusters: the first subcluster some target takes with c > 0 moves there."""
        for o_src in self.subclusters(src, avg):
            c = self.value(src, o_src, targets)
            if self.det:  # LBAF's filters skip c <= ...: a nan value (an unbounded work) passes them
                ok = ~(c <= self.min_improvement * self.loads[src]) & (self.loads[src] >= self.threshold * max_load)
                if not ok.any():
                    self.rejects += len(o_src)
                    continue
                dist = np.where(ok, np.abs(self.loads[targets] + float(sum(self.load[list(o_src)])) - avg), np.inf)
                near = np.flatnonzero(dist == dist.min())
                num = near[~np.isnan(c[near])]  # the first nearest, replaced only by a strictly larger c
                k = int(near[0] if np.isnan(c[near[0]]) else num[np.argmax(c[num])])
            else:
                k = select(c, False, self.rng)
            if k >= 0 and c[k] > 0.0:
                self.move(o_src, src, int(targets[k]))
                return
            self.rejects += len(o_src)

    def execute(self, known: list, separate: bool) -> None:
        """ClusteringTransferStrategy.execute over the ranks' known peers."""
        self.model = (LoadOnly(self.load, self.owner, len(known)) if self.model_of is None
                      else self.model_of(self.owner))
        self.loads = self.model.loads
        avg, max_load = float(self.loads.mean()), float(self.loads.max())
        srcs = sources(known, self.owner, self.movable, self.det, self.rng)
        targets = {src: known[src][known[src] != src] for src in srcs}
        for src in srcs:
            if self.swap(src, self.clusters(src, True), targets[src]) and not self.det:
                continue
            if not separate and self.max_sub > 0:
                self.transfer_subclusters(src, targets[src], avg, max_load)
        if separate and self.max_sub > 0 and not (self.swaps and not self.det):
            for src in srcs:
                self.transfer_subclusters(src, targets[src], avg, max_load)


def stage(load, movable, shared, on, *, separate: bool, **params):
    """The transfer stage lbaf.balance calls: ``stage(known, owner, rng)`` -> (transfers, rejects); the swap
    count carries from one iteration to the next, as LBAF's strategy object keeps it."""
    swaps = 0

    def run(known, owner, rng):
        nonlocal swaps
        c = Clustering(load, owner, movable, shared, on, rng=rng, swaps=swaps, **params)
        c.execute(known, separate)
        swaps = c.swaps
        return c.transfers, c.rejects
    return run
