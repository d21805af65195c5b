"""GrapevineLB (Menon & Kalé, SC'13, §IV): gossip about underloaded processors, then probabilistic transfer.

One iteration, on the engine's virtual processors:

* average load L_avg by a reduction (§IV: the average is known to all);
* **inform stage** (§IV-A, "information propagation"): in round 1 every
  underloaded processor (L < L_avg) sends its (id, load) to ``fanout``
  processors drawn uniformly at random (never itself); in each later round
  every processor that has heard of an underloaded processor forwards all it
  knows to ``fanout`` random processors. One superstep per round, ``rounds``
  rounds (default ceil(log_fanout P), the O(log P) the paper shows suffices);
* **transfer stage** (§IV-B, Algorithm 2): each overloaded processor
  (L > ``threshold`` x L_avg) walks its migratable objects heaviest first
  and, for each, draws a target among the underloaded processors it heard of
  by the CMF of p_x = (1 - L_x / L_avg) / Z over its own (updated) view of
  their loads; the ``criterion`` decides whether the object goes:
  ``original`` (the paper's): L_x + l_o < L_avg; ``relaxed``: L_x + l_o < L_p,
  i.e. the move lowers max(L_p, L_x) (the relaxation LBAF's InformAndTransfer
  applies to the same line, its "tempered" criterion). Transfers are one
  ``balance`` message per (sender, target) with the object ids, one superstep;
  receivers add the objects and their loads.

``iterations`` repeats both stages on the updated loads. Random draws come
from generators seeded per (iteration, round) or (iteration, processor), so
the result is the same for any number of MPI ranks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

CRITERIA = ("original", "relaxed")


def default_rounds(P: int, fanout: int) -> int:
    """ceil(log_f P) with f = max(fanout, 2), at least 1."""
    return max(1, math.ceil(math.log(max(P, 2)) / math.log(max(fanout, 2)) - 1e-9))


@dataclass
class Outcome:
    owner: np.ndarray
    inform_supersteps: list = field(default_factory=list)  # per iteration, from the engine
    inform_max_msgs: list = field(default_factory=list)    # most messages one vproc sent in one inform round
    informed: list = field(default_factory=list)            # per iteration: processors that heard of someone
    transfers: int = 0
    rejects: int = 0


def _targets(rng: np.random.Generator, P: int, fanout: int) -> np.ndarray:
    """P x fanout random processors, row p never p (duplicates possible; the sender drops them)."""
    t = rng.integers(0, P - 1, size=(P, fanout))
    return t + (t >= np.arange(P)[:, None])


def inform(eng, loads: dict, avg: float, rounds: int, fanout: int, rng_of) -> dict:
    """§IV-A. ``loads``: local vproc -> its load. Returns local vproc -> (ids, loads) it heard of."""
    P = eng.P
    known = {p: (np.array([p]), np.array([loads[p]])) if loads[p] < avg else (np.empty(0, np.int64), np.empty(0))
             for p in eng.local}
    for r in range(rounds):
        targets = _targets(rng_of(r), P, fanout)
        for p in eng.local:
            ids, lds = known[p]
            if ids.size == 0:
                continue
            for q in np.unique(targets[p]).tolist():
                eng.post(p, q, np.stack([ids.astype(float), lds]), kind="balance")
        inbox = eng.exchange()
        for p, msgs in inbox.items():
            if not msgs:
                continue
            ids = np.concatenate([known[p][0].astype(float)] + [m[0] for _, _, m in msgs])
            lds = np.concatenate([known[p][1]] + [m[1] for _, _, m in msgs])
            u, first = np.unique(ids, return_index=True)
            known[p] = (u.astype(np.int64), lds[first])
    return known


def transfer(p: int, objs: np.ndarray, load: np.ndarray, L_p: float, avg: float, threshold: float,
             known: tuple, criterion: str, rng: np.random.Generator) -> tuple[list, int]:
    """§IV-B, Algorithm 2 for one overloaded processor: [(object, target), ...] and the rejections."""
    ids, view = known
    keep = ids != p
    ids, view = ids[keep], view[keep].astype(float).copy()
    out, rejects = [], 0
    if ids.size == 0:
        return out, 0
    for v, w in zip(objs.tolist(), load[objs].tolist()):
        if L_p <= threshold * avg:
            break
        if w <= 0:
            continue
        prob = np.maximum(1.0 - view / avg, 0.0)
        z = prob.sum()
        if z <= 0:
            break
        k = min(int(np.searchsorted(np.cumsum(prob) / z, rng.random(), side="right")), ids.size - 1)
        limit = avg if criterion == "original" else L_p
        if view[k] + w < limit:
            out.append((v, int(ids[k])))
            view[k] += w
            L_p -= w
        else:
            rejects += 1
    return out, rejects


def balance(eng, load: np.ndarray, owner: np.ndarray, movable: np.ndarray, *, rounds: int, fanout: int,
            iterations: int, criterion: str, threshold: float, rng_of) -> Outcome:
    """GrapevineLB's iterations; ``rng_of(stream)`` gives a generator that every rank draws identically."""
    P = eng.P
    owner = owner.copy()
    res = Outcome(owner)
    if P == 1:
        return res
    for it in range(iterations):
        order = np.argsort(owner, kind="stable")
        starts = np.searchsorted(owner[order], np.arange(P + 1))
        loads = {p: float(load[order[starts[p]:starts[p + 1]]].sum()) for p in eng.local}
        avg = float(eng.reduce(loads, "sum")) / P
        mark = eng.superstep
        known = inform(eng, loads, avg, rounds, fanout, lambda r: rng_of(f"inform/{it}/{r}"))
        st = eng.step_stats("balance", since=mark)
        res.inform_supersteps.append(st["supersteps"])
        res.inform_max_msgs.append(st["max_msgs_per_vproc"])
        res.informed.append(int(eng.reduce({p: int(known[p][0].size > 0) for p in eng.local}, "sum")))
        n_transfer = n_reject = 0
        for p in eng.local:
            if loads[p] <= threshold * avg:
                continue
            objs = order[starts[p]:starts[p + 1]]
            objs = objs[movable[objs]]
            objs = objs[np.lexsort((objs, -load[objs]))]
            moves, rej = transfer(p, objs, load, loads[p], avg, threshold, known[p], criterion,
                                  rng_of(f"transfer/{it}/{p}"))
            n_reject += rej
            n_transfer += len(moves)
            by_target: dict = {}
            for v, q in moves:
                by_target.setdefault(q, []).append(v)
                owner[v] = q
            for q, vs in sorted(by_target.items()):
                eng.post(p, q, np.asarray(vs, np.int64), kind="balance")
        for q, msgs in eng.exchange().items():
            for _, _, vs in msgs:
                owner[vs] = q
        counts = eng.reduce({p: (n_transfer, n_reject) if p == eng.local[0] else (0, 0) for p in eng.local}, "sum")
        res.transfers += int(counts[0])
        res.rejects += int(counts[1])
    # every rank learns the final owners: each vproc names its objects
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(P + 1))
    final = owner.copy()
    for p, objs in enumerate(eng.allgather({p: order[starts[p]:starts[p + 1]] for p in eng.local})):
        final[objs] = p
    res.owner = final
    return res
