"""Charm++'s centralized strategies as pure functions of the object loads (README.md, "Strategies").

Each takes the objects' loads, their current processors, which of them may
move (pinned objects may not: their load is background load of their
processor, as Charm++ treats non-migratable objects), P and the processors'
slowdowns (the machine's Proc), and returns the new processor of every
object. As in Charm++ (TreeStrategyBase.h ``Proc<1, true>::assign``: load +=
o.load / speed; Refiner.C: load x pe_speed ratio), an object of load w takes
time w x slow[p] on processor p, and the strategies balance those times.
Ties are broken by processor id and object id, so the result depends on the
data only.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, insort

import numpy as np


def _order(load: np.ndarray, movable: np.ndarray) -> np.ndarray:
    """The movable objects by load, heaviest first (ties: lower id first)."""
    ids = np.flatnonzero(movable)
    return ids[np.lexsort((ids, -load[ids]))]


def _slow(slow, P: int) -> np.ndarray:
    return np.ones(P) if slow is None else np.asarray(slow, float)


def times(load: np.ndarray, owner: np.ndarray, P: int, slow=None) -> np.ndarray:
    """Per processor, the time of the objects on it (load x its slowdown)."""
    return np.bincount(owner, weights=load * _slow(slow, P)[owner], minlength=P).astype(float)


def background(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None) -> np.ndarray:
    """Per processor, the time of the objects that cannot move."""
    return times(load[~movable], owner[~movable], P, slow)


def greedy(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None) -> np.ndarray:
    """GreedyLB: objects by load descending, each onto the least-loaded processor (a heap), where it takes
    load x that processor's slowdown; the current placement is ignored."""
    slow = _slow(slow, P).tolist()
    new = owner.copy()
    heap = [(float(b), p) for p, b in enumerate(background(load, owner, movable, P, slow))]
    heapq.heapify(heap)
    order = _order(load, movable)
    for v, w in zip(order.tolist(), load[order].tolist()):
        lp, p = heapq.heappop(heap)
        new[v] = p
        heapq.heappush(heap, (lp + w * slow[p], p))
    return new


def greedy_refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None,
                  tolerance: float = 1.0) -> np.ndarray:
    """GreedyRefineLB: greedy's order, but an object stays on its current processor when that keeps the
    processor within ``tolerance`` x the maximum load greedy reaches (M); otherwise it goes to the
    least-loaded processor. Migration-aware: the same bound as greedy, far fewer moves."""
    bound = tolerance * float(times(load, greedy(load, owner, movable, P, slow), P, slow).max())
    loads = background(load, owner, movable, P, slow)
    slow = _slow(slow, P).tolist()
    heap = [(float(b), p) for p, b in enumerate(loads)]
    heapq.heapify(heap)
    new = owner.copy()
    order = _order(load, movable)
    for v, w, c in zip(order.tolist(), load[order].tolist(), owner[order].tolist()):
        if loads[c] + w * slow[c] <= bound:
            p = c
        else:
            while True:  # lazy heap: skip entries whose load is stale
                lp, p = heapq.heappop(heap)
                if lp == loads[p]:
                    break
        new[v] = p
        loads[p] += w * slow[p]
        heapq.heappush(heap, (float(loads[p]), p))
    return new


def refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None,
           threshold: float = 1.003) -> np.ndarray:
    """RefineLB (Charm++'s Refiner): while a processor is above ``threshold`` x the average, take the
    heaviest one (the donor) and move its heaviest object that fits on the lightest processor below the
    average without taking it to ``threshold`` x the average; a donor with no such object is left as it is.
    Every move lowers the donor and keeps the receiver under the bound, so few objects move. Loads are times
    (load x slowdown); the average is their mean (Refiner::computeAverage)."""
    sl = _slow(slow, P)
    loads = times(load, owner, P, sl)
    avg = loads.sum() / P
    bound = threshold * avg
    new = owner.copy()
    objs: list[list] = [[] for _ in range(P)]  # per processor, (load, id) ascending
    order = np.flatnonzero(movable)
    order = order[np.lexsort((order, load[order]))]
    for v, w, p in zip(order.tolist(), load[order].tolist(), owner[order].tolist()):
        objs[p].append((w, v))
    done = np.zeros(P, bool)
    while True:
        cand = np.where(~done & (loads > bound), loads, -np.inf)
        donor = int(np.argmax(cand))
        if cand[donor] == -np.inf:
            break
        light = int(np.argmin(loads))
        if loads[light] >= avg:
            break
        room = (bound - loads[light]) / sl[light]  # in load: time on `light` is load x its slowdown
        lst = objs[donor]
        i = bisect_left(lst, (room, -1)) - 1  # heaviest object with load < room
        if i >= 0 and lst[i][0] <= 0:
            i = -1  # only zero-load objects fit: moving them helps nobody
        if i < 0:
            done[donor] = True
            continue
        w, v = lst.pop(i)
        insort(objs[light], (w, v))
        new[v] = light
        loads[donor] -= w * sl[donor]
        loads[light] += w * sl[light]
    return new


STRATEGIES = {"greedy": greedy, "refine": refine, "greedy-refine": greedy_refine}
