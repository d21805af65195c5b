"""LBAF's InformAndTransfer (DARMA-tasking/LB-analysis-framework, src/lbaf/Execution/lbsInformAndTransferAlgorithm.py,
lbsRecursiveTransferStrategy.py, lbsTransferStrategyBase.py, lbsTemperedCriterion.py, lbsStrictLocalizingCriterion.py)
with its ``LoadOnly`` work model (a rank's work is its load) or its ``AffineCombination`` (:mod:`.work`).

A centralised simulation of a distributed algorithm, as LBAF is: the inform
stage runs on the engine (its messages are counted), but the transfer stage
reads and updates every rank's *live* load, which no rank of a real run would
know. Per iteration:

* **inform** (``__execute_information_stage``): in round 0 every rank sends
  its id to ``fanout`` distinct random other ranks; in each of rounds 1 ..
  ``rounds`` - 1 every rank sends all the ids it knows to ``fanout`` ranks
  sampled from the peers it knows (one superstep per round, ids only);
* **transfer** (``RecursiveTransferStrategy.execute``): the ranks with
  migratable objects and known peers, in random order (rank order when
  ``deterministic``), each walk their migratable objects in ``order`` (LBAF's
  order strategies), taking them with ``pop()`` from the end of the ordered
  list. For an object the criterion is computed for every known peer:
  ``tempered`` = max(W_src, W_dst) before minus after the move, ``strict`` =
  -1 when a communication partner of the objects is on the source rank, else 1.
  ``deterministic``: the best peer; otherwise a peer drawn from the CMF of
  (c - c_min) / (c_max - c_min) (uniform when all are equal). A negative value
  extends the list with objects drawn at random from the rest (at most
  ``max_objects_per_transfer``) until the criterion allows it; the list moves
  at once, and the loads are updated.
"""
from __future__ import annotations

import numpy as np

from . import _loops
from .work import LoadOnly

CRITERIA = ("tempered", "strict")
TRANSFERS = ("recursive", "clustering")
ORDERS = ("arbitrary", "element_id", "decreasing_loads", "increasing_loads", "fewest_migrations", "small_objects")


# ------------------------------------------------------------------ messages (engine only)
def inform(eng, rounds: int, fanout: int, rng_of) -> list:
    """__execute_information_stage: every vproc's known peers (sorted ids), the same on every rank.

    Round 0 sends each rank's own id (``Message(0, {r_snd})``). In rounds 1 .. ``rounds`` - 1 each rank draws its
    targets from the peers it knows, and its message is its live set (``Message(i, self.__known_peers[r_snd])``
    holds a reference): the receivers are processed in the order they were first sent to (senders by id), each
    receipt (``__process_message``) reading its sender's set as it is then, so a sender processed earlier in the
    round passes on what it learnt in it. Every rank runs this bookkeeping for all ranks (the draws are one stream
    per (round, rank)); each vproc's messages, with the ids its receiver reads, go as one engine batch per round."""
    P = eng.P
    known = [{p} for p in range(P)]
    everyone = np.arange(P)
    for r in range(max(rounds, 1)):
        sends = []  # (source, target): senders by id, each one's targets in draw order
        for p in range(P):
            peers = np.delete(everyone, p) if r == 0 else np.array(sorted(known[p] - {p}), np.int64)
            to = rng_of(f"{r}/{p}").choice(peers, size=min(fanout, peers.size), replace=False)
            sends.extend((p, int(d)) for d in to)
        first: dict = {}
        for i, (_, d) in enumerate(sends):
            first.setdefault(d, []).append(i)
        read = [np.empty(0, np.int64)] * len(sends)
        for d, idx in first.items():
            for i in idx:
                src = sends[i][0]
                read[i] = np.array(sorted(known[src]) if r else [src], np.int64)
                known[d].update(read[i].tolist())
        mine = [i for i, (src, _) in enumerate(sends) if src in eng.local]
        if mine:
            eng.send("inform", np.array([sends[i][0] for i in mine]), np.array([sends[i][1] for i in mine]),
                     np.concatenate([read[i] for i in mine]), counts=np.array([read[i].size for i in mine]))
        eng.exchange()
    return [np.array(sorted(k), np.int64) for k in known]


# ------------------------------------------------------------------ the transfer stage (centralised)
def ordered(order: str, objs: np.ndarray, load: np.ndarray, avg: float, entity: np.ndarray) -> np.ndarray:
    """LBAF's order strategies over one rank's migratable objects (in the trace's task order); transfers pop from
    the end. ``element_id`` sorts by ``entity``, each object's place in vt entity id order (``Object.get_id``)."""
    if order == "arbitrary":
        return objs
    if order == "element_id":
        return objs[np.argsort(entity[objs], kind="stable")]
    w = load[objs]
    asc, desc = objs[np.argsort(w, kind="stable")], objs[np.argsort(-w, kind="stable")]
    if order == "increasing_loads":
        return asc
    if order == "decreasing_loads":
        return desc
    excess = float(w.sum()) - avg
    if order == "fewest_migrations":
        small = load[desc] <= excess
        return np.concatenate([desc[small], asc[load[asc] > excess]])
    idx = int(np.searchsorted(np.cumsum(load[asc]), excess, side="right")) + 1  # small_objects
    head, tail = asc[:idx], asc[idx:]
    return np.concatenate([head[np.argsort(-load[head], kind="stable")], tail])


def criterion(name: str, model, src: int, dst: np.ndarray, objs, local_partner: bool, back=()) -> np.ndarray:
    """The criterion's value for moving ``objs`` from ``src`` to each of ``dst`` (and, a swap, ``back`` from the
    target to ``src``; strict ignores what comes back, as LBAF's does). Tempered (TemperedCriterion.compute):
    max(W_src, W_dst) before minus after, W the work ``model`` computes (:mod:`.work`; inf - inf is nan, as in
    LBAF's floats)."""
    if name == "strict":
        return np.full(dst.size, -1.0 if local_partner else 1.0)
    ws, wd = model.after(src, objs, dst, back)
    with np.errstate(invalid="ignore"):
        return np.maximum(model.work(src), model.work(dst)) - np.maximum(ws, wd)


def partners(graph, self_comm: np.ndarray, comm=None):
    """The strict criterion's test ``on(owner, objs, src)``: whether a communication partner of ``objs`` is on
    ``src`` (StrictLocalizingCriterion.compute's -1). LBAF's partners are every object an object sends to or
    receives from, zero bytes included: ``comm`` (from, to, bytes), the vt reader's ``meta["comm"]``; without
    it, our graph's edges. An object that messages itself is its own partner (``self_comm``), so strict never
    moves it."""
    if comm is None:
        xadj, adj = graph.xadj, graph.adjncy
    else:
        a, b = (np.concatenate([np.asarray(comm[0], np.int64), np.asarray(comm[1], np.int64)][::s]) for s in (1, -1))
        adj = b[np.argsort(a, kind="stable")]
        xadj = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=self_comm.size))])

    def on(owner: np.ndarray, objs, src: int) -> bool:
        return any(self_comm[v] or np.any(owner[adj[xadj[v]:xadj[v + 1]]] == src) for v in objs)
    return on


def select(c: np.ndarray, deterministic: bool, rng: np.random.Generator) -> int:
    """The chosen target's index, -1 for none: the first strictly above -inf and all before it (the
    deterministic loop's ``c_try > c_dst`` from -inf), or _randomly_select_target's CMF draw with Python's
    min/max (nan skipped), its weights (c - c_min) / (c_max - c_min) and ``inverse_transform_sample``'s first
    cumulate not below the draw (a nan cumulate is taken)."""
    if deterministic:
        ok = np.flatnonzero(c > -np.inf)
        return int(ok[np.argmax(c[ok])]) if ok.size else -1
    num = c[~np.isnan(c)]
    lo, hi = (num.min(), num.max()) if num.size else (np.inf, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        cmf = np.cumsum(np.ones(c.size) if lo == hi else (c - lo) / (hi - lo))
        cmf = cmf / cmf[-1]
        first = np.flatnonzero(~(cmf < rng.random()))
    return int(first[0]) if first.size else -1


def sources(known: list, owner: np.ndarray, movable: np.ndarray, deterministic: bool, rng) -> list:
    """_get_ranks_to_traverse: the ranks with migratable objects and known peers, in rank order or shuffled."""
    has = np.bincount(owner[movable], minlength=len(known)) > 0
    srcs = [p for p in range(len(known)) if known[p].size > 1 and has[p]]
    return srcs if deterministic else [srcs[i] for i in rng.permutation(len(srcs))]


def transfer(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, known: list, on, entity: np.ndarray, *,
             crit: str, order: str, deterministic: bool, max_objects: int, rng: np.random.Generator,
             model_of=None, fast: bool = True) -> tuple[int, int]:
    """RecursiveTransferStrategy.execute on live loads; updates ``owner``; returns (transfers, rejects).
    ``model_of(owner)``: the work model (:mod:`.work`; LoadOnly when None). ``fast``: LoadOnly's deterministic
    tempered transfers walk a rank's objects in C (``_loops.walk``, the same decisions and floats), the
    extended search's objects in Python; False: every object through :func:`criterion` and :func:`select`
    (the reference the tests compare it with)."""
    P = len(known)
    model = LoadOnly(load, owner, P) if model_of is None else model_of(owner)
    loads = model.loads
    avg = float(loads.mean())
    srcs = sources(known, owner, movable, deterministic, rng)
    in_c = fast and model.fast and crit == "tempered" and deterministic
    counts = [0, 0]  # transfers, rejects
    # each rank's migratable objects, kept up to date: a rank's objects leave only at its own turn
    mov = np.flatnonzero(movable)
    by_rank = mov[np.argsort(owner[mov], kind="stable")]
    bounds = np.searchsorted(owner[by_rank], np.arange(P + 1))
    received: list = [[] for _ in range(P)]

    def visit(src: int, targets: np.ndarray, rest: list) -> None:
        """One object popped from ``rest`` (an extended search takes more of ``rest``)."""
        objs = [rest.pop()]
        w = float(load[objs[0]])
        if crit == "tempered" and model.fast and w > 0.0 and w > loads[src] - float(loads[targets].min()):
            # LoadOnly: for w > 0 tempered is >= 0 iff w <= L_src - L_dst: negative for every target, and
            # adding objects (the extended search) only lowers it: LBAF's outcome is a reject, without
            # computing it (a zero-load object has tempered 0 everywhere and moves)
            counts[1] += 1
            return
        partner = crit == "strict" and on(owner, objs, src)  # a communication partner on the source rank
        c = criterion(crit, model, src, targets, objs, partner)
        k = select(c, deterministic, rng)
        if k < 0:
            counts[1] += 1
            return
        dst, c_dst = int(targets[k]), float(c[k])
        if c_dst < 0:
            if not rest:
                counts[1] += 1
                return
            pick = rest[:]
            while c_dst < 0 and pick and len(objs) < max_objects:  # __recursive_extended_search
                objs.append(pick.pop(int(rng.integers(len(pick)))))
                partner = crit == "strict" and on(owner, objs, src)
                c_dst = float(criterion(crit, model, src, np.array([dst]), objs, partner)[0])
            if c_dst < 0:
                counts[1] += 1
                return
            rest[:] = pick
        model.move(objs, src, dst)
        counts[0] += len(objs)

    for src in srcs:
        targets = known[src][known[src] != src]
        # get_migratable_objects() at the rank's turn: with what earlier sources sent it
        mine = by_rank[bounds[src]:bounds[src + 1]]
        if received[src]:
            mine = np.sort(np.concatenate([mine, received[src]]))
        rest = ordered(order, mine, load, avg, entity)
        n = rest.size
        while n:
            if in_c:
                n, t, r = _loops.walk(rest, n, load, loads, owner, targets, src)
                counts[0] += t
                counts[1] += r
                if not n:
                    break
            left = rest[:n].tolist()
            visit(src, targets, left)  # in C: the object that needs the extended search
            while left and not in_c:
                visit(src, targets, left)
            rest, n = np.array(left, np.int64), len(left)
        gone = mine[owner[mine] != src]
        for v, d in zip(gone.tolist(), owner[gone].tolist()):
            received[d].append(v)
    return counts[0], counts[1]


def balance(eng, load: np.ndarray, owner: np.ndarray, movable: np.ndarray, on, entity: np.ndarray, *, criterion: str,
            order: str, iterations: int, rounds: int, fanout: int, max_objects: int, deterministic: bool, rng_of,
            stage=None, model_of=None, fast: bool = True) -> dict:
    """InformAndTransferAlgorithm.execute: ``iterations`` of inform then transfer (``stage(known, owner, rng)``
    when given, else the recursive strategy), ending early at imbalance max/avg - 1 <= 0 (LBAF's default
    ``target_imbalance``); the new owners and counts. ``on``: the strict criterion's test (:func:`partners`);
    ``entity``: each object's place in vt entity id order (``element_id``); ``fast``: :func:`transfer`'s."""
    owner = owner.copy()
    n_t = n_r = 0
    for it in range(iterations):
        known = inform(eng, rounds, fanout, lambda s: rng_of(f"{it}/inform/{s}"))
        if stage is None:
            t, r = transfer(load, owner, movable, known, on, entity, crit=criterion, order=order,
                            deterministic=deterministic, max_objects=max_objects, rng=rng_of(f"{it}/transfer"),
                            model_of=model_of, fast=fast)
        else:
            t, r = stage(known, owner, rng_of(f"{it}/transfer"))
        n_t, n_r = n_t + t, n_r + r
        loads = np.bincount(owner, weights=load, minlength=eng.P)
        if loads.sum() > 0 and loads.max() / loads.mean() - 1.0 <= 0.0:
            break
    return {"owner": owner, "transfers": n_t, "rejects": n_r}
