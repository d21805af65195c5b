"""Charm++'s centralized strategies as pure functions of the object loads (README.md, "Strategies").

Each takes the objects' loads, their current processors, which of them may
move (pinned objects may not: their load is background load of their
processor, as Charm++ treats non-migratable objects), P and the processors'
slowdowns (the machine's Proc), and returns the new processor of every
object. As in Charm++ (TreeStrategyBase.h ``Proc<1, true>::assign``: load +=
o.load / speed; Refiner.C: load x pe_speed ratio), an object of load w takes
time w x slow[p] on processor p, and the strategies balance those times.
Where Charm++'s heaps and sorts break ties by their own layout, ours break
them by processor id and object id, so the result depends on the data only.
"""
from __future__ import annotations

import heapq

import numpy as np

from . import _loops


def _order(load: np.ndarray, movable: np.ndarray) -> np.ndarray:
    """The movable objects by load, heaviest first (ties: lower id first)."""
    ids = np.flatnonzero(movable)
    return ids[np.lexsort((ids, -load[ids]))]


def _by_proc(ids: np.ndarray, owner: np.ndarray, P: int) -> list:
    """Per processor, the objects ``ids`` it owns as lists, in their order in ``ids`` (one stable sort)."""
    ids = ids[np.argsort(owner[ids], kind="stable")]
    bounds = np.searchsorted(owner[ids], np.arange(P + 1)).tolist()
    ids = ids.tolist()
    return [ids[bounds[p]:bounds[p + 1]] for p in range(P)]


def _slow(slow, P: int) -> np.ndarray:
    return np.ones(P) if slow is None else np.asarray(slow, float)


def times(load: np.ndarray, owner: np.ndarray, P: int, slow=None) -> np.ndarray:
    """Per processor, the time of the objects on it (load x its slowdown)."""
    return np.bincount(owner, weights=load * _slow(slow, P)[owner], minlength=P).astype(float)


def background(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None) -> np.ndarray:
    """Per processor, the time of the objects that cannot move."""
    return times(load[~movable], owner[~movable], P, slow)


def _placed(order, load, owner, slow, loads, bound: float, refine: bool) -> np.ndarray:
    """The processor of each object of ``order`` from the C loop (``_loops.place``; ``loads`` updated)."""
    to = np.empty(order.size, np.int64)
    _loops.place(order, np.ascontiguousarray(load, float), np.ascontiguousarray(owner, np.int64),
                  np.ascontiguousarray(slow, float), loads, float(bound), refine, to)
    return to


def greedy(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None,
           fast: bool = True) -> np.ndarray:
    """GreedyLB: objects by load descending, each onto the least-loaded processor (a heap), where it takes
    load x that processor's slowdown; the current placement is ignored. ``fast``: the loop in C (the same
    pops and sums); False: heapq (the reference the tests compare it with)."""
    sl = _slow(slow, P)
    new = owner.copy()
    loads = background(load, owner, movable, P, sl)
    order = _order(load, movable)
    if fast:
        new[order] = _placed(order, load, owner, sl, loads, 0.0, False)
        return new
    slow = sl.tolist()
    heap = [(float(b), p) for p, b in enumerate(loads)]
    heapq.heapify(heap)
    for v, w in zip(order.tolist(), load[order].tolist()):
        lp, p = heap[0]  # the least loaded (processors are distinct: one order of pops whatever the layout)
        new[v] = p
        heapq.heapreplace(heap, (lp + w * slow[p], p))
    return new


def greedy_max(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow, fast: bool = True) -> float:
    """TreeLB's ``calcGreedyMaxload`` (greedy.h): greedy's maximum load over the processors it gave objects."""
    new = greedy(load, owner, movable, P, slow, fast)
    got = np.zeros(P, bool)
    got[new[movable]] = True
    return float(times(load, new, P, slow)[got].max(initial=0.0))


def greedy_refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None,
                  tolerance: float = 1.0, fast: bool = True) -> np.ndarray:
    """GreedyRefine as today's TreeLB does it (src/ck-ldb/greedy.h, ``GreedyRefine::solve``): M = tolerance x
    greedy's maximum load over the processors that received an object (``calcGreedyMaxload``); objects in
    greedy's order stay on their processor when its load + the object's load <= M, else go to the least-loaded
    processor; M rises to every load an assignment reaches (``M = std::max(M, p.getLoad())``). ``fast``:
    :func:`greedy`'s."""
    sl = _slow(slow, P)
    bound = tolerance * greedy_max(load, owner, movable, P, sl, fast)
    loads = background(load, owner, movable, P, sl)
    new = owner.copy()
    order = _order(load, movable)
    if fast:
        new[order] = _placed(order, load, owner, sl, loads, bound, True)
        return new
    sl = sl.tolist()
    heap = [(float(b), p) for p, b in enumerate(loads)]
    heapq.heapify(heap)
    for v, w, c in zip(order.tolist(), load[order].tolist(), owner[order].tolist()):
        if loads[c] + w <= bound:  # the object's load as measured, as greedy.h's oldPe.getLoad() + o.getLoad()
            p = c
        else:
            while True:  # lazy heap: skip entries whose load is stale
                lp, p = heapq.heappop(heap)
                if lp == loads[p]:
                    break
        new[v] = p
        loads[p] += w * sl[p]
        bound = max(bound, float(loads[p]))
        heapq.heappush(heap, (float(loads[p]), p))
    return new


class ProcHeap:
    """TreeLB's ``ProcHeap`` (src/ck-ldb/pheap.h): a min-heap of (load, processor) copies in ``q[1:]``, with each
    processor's position (0 for one never pushed). ``remove`` of a processor at position 0 works on slot 0 as the
    file does: it drops the heap's last entry into slot 0 (out of the heap) and sifts from there."""

    def __init__(self, procs, loads):
        self.q = [None] + [(float(loads[p]), p) for p in procs]
        self.pos = {p: i + 1 for i, p in enumerate(procs)}
        for i in range(len(self.q) // 2, 0, -1):  # buildMinHeap
            self._down(i, heapify=True)

    def top(self):
        return self.q[1] if len(self.q) > 1 else None

    def _swap(self, i, j):
        q = self.q
        q[i], q[j] = q[j], q[i]
        self.pos[q[i][1]], self.pos[q[j][1]] = i, j

    def _up(self, i):
        while i > 1 and self.q[i // 2][0] > self.q[i][0]:
            self._swap(i // 2, i)
            i //= 2

    def _down(self, i, heapify=False):
        q = self.q
        while True:
            c1, c2 = 2 * i, 2 * i + 1
            if heapify:  # min_heapify: the smaller child, the left one on ties
                c = c1 if c1 < len(q) and q[c1][0] < q[i][0] else i
                c = c2 if c2 < len(q) and q[c2][0] < q[c][0] else c
                if c == i:
                    return
            else:  # siftDown through minChild: the right child on ties
                if c1 >= len(q):
                    return
                c = c1 if c2 >= len(q) or q[c1][0] < q[c2][0] else c2
                if not q[i][0] > q[c][0]:
                    return
            self._swap(i, c)
            i = c

    def push(self, p, load):
        self.q.append((float(load), p))
        self.pos[p] = len(self.q) - 1
        self._up(len(self.q) - 1)

    def remove(self, p):
        q, i = self.q, self.pos.get(p, 0)
        if len(q) == 2 or i == len(q) - 1:
            q.pop()
        elif i == 1:  # pop
            q[1] = q.pop()
            self.pos[q[1][1]] = 1
            self._down(1)
        else:
            q[i] = q.pop()
            self.pos[q[i][1]] = i
            if q[i // 2][0] > q[i][0]:
                self._up(i)
            else:
                self._down(i)


def refine_treelb(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None) -> np.ndarray:
    """TreeLB's RefineA (src/ck-ldb/refine.h, ``RefineA::solve``; ``+balancer RefineLB`` runs it today): a binary
    search of the bound M between greedy's maximum load and 1.5 times it, until they are within 1%. For each M,
    from the old placement: the heaviest processor above M gives its heaviest object that fits on the lightest
    light processor (a ``ProcHeap``) to the first light processor (in order) where it fits; a heavy processor that
    falls to M or below joins the light list (not the heap); the pass ends when the heaviest has nothing that fits.
    The placement of the M whose pass left the lowest maximum load is returned (the first on ties)."""
    sl = _slow(slow, P)
    lower = greedy_max(load, owner, movable, P, sl)
    upper = 1.5 * lower
    start = times(load, owner, P, sl)
    ids = _order(load, movable)
    mine0 = _by_proc(ids, owner, P)  # per processor, heaviest first
    best, out = np.inf, owner.copy()
    while lower > 0 and max(lower, upper) / min(lower, upper) > 1.01:  # reldiff
        M = (lower + upper) / 2
        loads, new, mine = start.copy(), owner.copy(), [list(x) for x in mine0]
        light = [p for p in range(P) if loads[p] <= M]
        heavy = [(-loads[p], p) for p in range(P) if loads[p] > M]
        heapq.heapify(heavy)
        light_max = float(loads[light].max(initial=0.0))
        lightest = ProcHeap(light, loads)
        while heavy and light and lightest.top() is not None:
            h = heavy[0][1]
            k = next((i for i, v in enumerate(mine[h]) if lightest.top()[0] + load[v] <= M), -1)
            if k < 0:
                break
            v = mine[h].pop(k)
            heapq.heappop(heavy)
            loads[h] -= load[v]  # heavy.load -= o.getLoad()
            to = next(q for q in light if loads[q] + load[v] <= M)
            new[v] = to
            loads[to] += load[v] * sl[to]
            lightest.remove(to)
            lightest.push(to, loads[to])
            light_max = max(light_max, float(loads[to]))
            if loads[h] > M:
                heapq.heappush(heavy, (-loads[h], h))
            else:
                light.append(h)
                light_max = max(light_max, float(loads[h]))
        reached = -heavy[0][0] if heavy else light_max
        if reached < best:
            best, out = reached, new
        lower, upper = (lower, M) if reached / M < 1.01 else (M, upper)
    return out


class Refiner:
    """Charm++'s ``Refiner`` (src/ck-ldb/Refiner.C) as RefineLB builds it (RefineLB.C: ``Refiner refiner(1.05)``).

    Loads are times (load x slowdown), the average their mean (``computeAverage``). A processor is heavy above
    overload x average (``isHeavy``), light below the average (``isLight``). Each processor's objects and the
    light processors are kept in ``Set`` order: the last inserted first (ckset.C ``Set::insert`` prepends)."""

    STEP = 0.01  # multirefine's overloadStep

    def __init__(self, load, owner, movable, P, slow, overload):
        self.load, self.owner, self.P, self.overload = load, owner, P, overload
        self.slow = _slow(slow, P)
        self.key = load * self.slow[owner]  # c->load: what the object measured on its old processor
        self.uniform = bool(np.all(self.slow == 1.0))  # (then key == load and a time is w + L: :meth:`best`)
        self.avg = float(times(load, owner, P, self.slow).sum()) / P
        ids = np.flatnonzero(movable)
        self.start = [x[::-1] for x in _by_proc(ids, owner, P)]  # assigned in index order, prepended

    def reset(self):
        """Every object back on its old processor (``multirefine``'s reset)."""
        self.loads = times(self.load, self.owner, self.P, self.slow)
        self.objs = [list(x) for x in self.start]
        self.new = self.owner.copy()

    def refine(self, overload: float) -> bool:
        """``Refiner::refine``: the heaviest heavy processor gives its object of largest measured load that fits
        (load there < overload x average) on a light processor, the first in the set where it fits; False as soon
        as a donor has no such object (the pass ends there, its moves kept)."""
        loads, avg, bound = self.loads, self.avg, overload * self.avg
        heavy = [(-loads[p], p) for p in range(self.P) if loads[p] > bound]
        heapq.heapify(heavy)
        light = np.array([p for p in range(self.P) if loads[p] <= bound and loads[p] < avg][::-1], np.int64)
        is_light = np.zeros(self.P, bool)  # (the set as an array, in its order, and a mask of it)
        is_light[light] = True
        while heavy:
            donor = heapq.heappop(heavy)[1]
            objs = np.asarray(self.objs[donor], np.int64)
            best, i, k = (self.best if self.uniform else self.best_any)(objs, light, bound) \
                if objs.size and light.size else (0.0, -1, -1)
            if best <= 0.0:
                return False
            to = int(light[i])
            v = self.objs[donor].pop(k)
            self.objs[to].insert(0, v)
            self.new[v] = to
            loads[donor] -= self.load[v] * self.slow[donor]
            loads[to] += self.load[v] * self.slow[to]
            if loads[to] > avg:
                light = np.delete(light, i)
                is_light[to] = False
            if loads[donor] > bound:
                heapq.heappush(heavy, (-loads[donor], donor))
            elif loads[donor] < avg and not is_light[donor]:
                light = np.concatenate([[donor], light])
                is_light[donor] = True
        return True

    def best_any(self, objs: np.ndarray, lp: np.ndarray, bound: float) -> tuple[float, int, int]:
        """(size, index in ``lp``, index in ``objs``) of the move: of the objects whose time on a light processor
        (``lp``, in the set's order) stays below ``bound``, the largest measured load; the first light processor
        where it reaches the largest, the first such object there (size 0: none fits)."""
        fits = (self.load[objs][None, :] * self.slow[lp][:, None] + self.loads[lp][:, None]) < bound
        size = np.where(fits, self.key[objs][None, :], 0.0)
        top = size.max(axis=1)
        if top.max() > 0.0:
            i = int(np.argmax(top))  # the first light processor reaching the largest size
            return float(top[i]), i, int(np.argmax(size[i]))
        return 0.0, -1, -1

    def best(self, objs: np.ndarray, lp: np.ndarray, bound: float) -> tuple[float, int, int]:
        """:meth:`best_any` on a uniform machine without its matrix: time = measured load = w, and w + L < bound
        rounds monotonically in w and L, so the largest object that fits on the lightest light processor is the
        largest anywhere, and it fits on exactly the light processors that reach it."""
        w = self.load[objs]
        ll = self.loads[lp]
        fits = w + float(ll.min()) < bound
        top = float(w[fits].max(initial=0.0))
        if top <= 0.0:
            return 0.0, -1, -1
        return top, int(np.argmax(top + ll < bound)), int(np.argmax(w == top))

    def multirefine(self) -> np.ndarray:
        """``Refiner::multirefine(true)``: a pass at the start overload; if it fails, a pass at the largest
        overload step (max/avg) on what it left; then a binary search in 0.01 steps, each pass from the old
        placement; the placement is what the last pass left (``Refiner::Refine``)."""
        self.reset()
        start = self.overload
        cur = float(self.loads.max()) / self.avg if self.avg > 0 else 1.0
        lo, hi = 0, int((cur - start) / self.STEP + 1)
        if self.refine(start) or not self.refine(hi * self.STEP + start):
            return self.new
        while hi - lo > 1:
            mid = (hi + lo) // 2
            self.reset()
            if self.refine(mid * self.STEP + start):
                hi = mid
            else:
                lo = mid
        return self.new


def refine(load: np.ndarray, owner: np.ndarray, movable: np.ndarray, P: int, slow=None,
           threshold: float = 1.05) -> np.ndarray:
    """RefineLB: ``Refiner(threshold)`` (RefineLB.C ``RefineLB::work``: 1.05) and its ``multirefine``."""
    return Refiner(load, owner, movable, P, slow, threshold).multirefine()


STRATEGIES = {"greedy": greedy, "refine": refine, "greedy-refine": greedy_refine, "refine-treelb": refine_treelb}
