"""Charm++'s centralized strategies as pure functions of the object loads (README.md, "Strategies").

Each takes the objects' loads, their current processors, which of them may
move (pinned objects may not: their load is background load of their
processor, as Charm++ treats non-migratable objects) and P, and returns the
new processor of every object. Ties are broken by processor id and object
id, so the result depends on the data only.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, insort

import numpy as np


def _order(load: np.ndarray, movable: np.ndarray) -> np.ndarray:
    """The movable objects by load, heaviest first (ties: lower id first)."""
    ids = np.flatnonzero(movable)
    return ids[np.lexsort((ids, -load[ids]))]


def background(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int) -> np.ndarray:
    """Per processor, the load of the objects that cannot move."""
    return np.bincount(owner[~movable], weights=load[~movable], minlength=P).astype(float)


def greedy(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int) -> np.ndarray:
    """GreedyLB: objects by load descending, each onto the least-loaded processor (a heap); the current
    placement is ignored."""
    new = owner.copy()
    heap = [(float(b), p) for p, b in enumerate(background(load, owner, movable, P))]
    heapq.heapify(heap)
    order = _order(load, movable)
    for v, w in zip(order.tolist(), load[order].tolist()):
        lp, p = heapq.heappop(heap)
        new[v] = p
        heapq.heappush(heap, (lp + w, p))
    return new


def greedy_refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int,
                  tolerance: float = 1.0) -> np.ndarray:
    """GreedyRefineLB: greedy's order, but an object stays on its current processor when that keeps the
    processor within ``tolerance`` x the maximum load greedy reaches (M); otherwise it goes to the
    least-loaded processor. Migration-aware: the same bound as greedy, far fewer moves."""
    bound = tolerance * float(np.bincount(greedy(load, owner, movable, P), weights=load, minlength=P).max())
    loads = background(load, owner, movable, P)
    heap = [(float(b), p) for p, b in enumerate(loads)]
    heapq.heapify(heap)
    new = owner.copy()
    order = _order(load, movable)
    for v, w, c in zip(order.tolist(), load[order].tolist(), owner[order].tolist()):
        if loads[c] + w <= bound:
            p = c
        else:
            while True:  # lazy heap: skip entries whose load is stale
                lp, p = heapq.heappop(heap)
                if lp == loads[p]:
                    break
        new[v] = p
        loads[p] += w
        heapq.heappush(heap, (float(loads[p]), p))
    return new


def refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, threshold: float = 1.003) -> np.ndarray:
    """RefineLB (Charm++'s Refiner): while a processor is above ``threshold`` x the average, take the
    heaviest one (the donor) and move its heaviest object that fits on the lightest processor below the
    average without taking it to ``threshold`` x the average; a donor with no such object is left as it is.
    Every move lowers the donor and keeps the receiver under the bound, so few objects move."""
    loads = np.bincount(owner, weights=load, minlength=P).astype(float)
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
        room = bound - loads[light]
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
        loads[donor] -= w
        loads[light] += w
    return new


STRATEGIES = {"greedy": greedy, "refine": refine, "greedy-refine": greedy_refine}
