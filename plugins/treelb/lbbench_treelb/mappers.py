"""The mapping methods of the paper's experiments (§4): AE/ORB, AE/MC, MLkP.

AE/ORB and AE/MC are not described in the paper (its ref. [6]); these are
reconstructions (spec §1.7):

* ``ae-orb``: recursive coordinate bisection. A set to be split among k
  processors is cut perpendicular to its longer extent at the weighted
  floor(k/2)/k quantile (ties by node id); the pieces get floor(k/2) and
  ceil(k/2) processors, the lower-numbered ones to the low side.
* ``ae-mc``: the same recursive bisection, each bisection refined by
  Fiduccia-Mattheyses min-cut passes (moves keep the halves within one node of
  their targets; passes repeat until one gains nothing, or ``passes`` times).
* ``mlkp``: Karypis-Kumar multilevel k-way = METIS k-way (the core's
  ``metis_kway``, ufactor 30 like the built-in ``metis``).

Each mapping counts its node visits (``tally``, one entry per visit of a
node with its adjacency: the unit T_exec is priced in, README "T_exec"):
ORB visits every node of a set once per split, FM adds the visits of its
gain set-up, heap builds, moves and undos; pymetis is not instrumented, so
MLkP's visits follow its description (:func:`multilevel_visits`).
"""
from __future__ import annotations

import heapq
import math

import numpy as np

from harness import recursive_bisection as geometric_bisection

FM_WINDOW = 64  # default: moves without improvement before a pass stops (METIS-style hill-climbing window)


def recursive_bisection(g, P: int, refine=None) -> np.ndarray:
    """ORB over ``g.coords`` (the harness's coordinate bisection, also Zoltan's RCB); ``refine(low, high,
    target_low_weight)`` may improve each cut."""
    if g.coords is None:
        raise ValueError("ae-orb/ae-mc need node coordinates (the workload has no coords)")
    return geometric_bisection(g, P, refine=refine)


def _counted(refine, tally: list | None):
    """``refine`` (or none) with every split's node visits added to ``tally[0]`` (a set is visited once)."""
    def split(g, low, high, target):
        if tally is not None:
            tally[0] += int(low.size + high.size)
        return refine(g, low, high, target) if refine is not None else (low, high)
    return split


def orb(g, P: int, tally: list | None = None) -> np.ndarray:
    return recursive_bisection(g, P, refine=_counted(None, tally))


def multilevel_visits(n: int, P: int) -> int:
    """Node visits of a multilevel k-way partitioning [22] of ``n`` nodes (pymetis reports none): the graph
    halves per coarsening level until max(n / (40 log2 P), 30 P) nodes (METIS 5's k-way limit); every level
    is visited twice (matching and contraction; projection and refinement), the coarsest once per bisection
    level of the initial partitioning (ceil(log2 P))."""
    depth = max(1, math.ceil(math.log2(max(P, 2))))
    to, size, visits = max(n / (40 * depth), 30 * P), float(n), 0.0
    while size > to:
        visits += 2 * size
        size /= 2
    return int(visits + size * depth)


def fm_refine(g, low: np.ndarray, high: np.ndarray, target: float, passes: int = 0, window: int = FM_WINDOW,
              tally: list | None = None):
    """Fiduccia-Mattheyses passes on the bisection (low, high) of the subgraph they induce.

    A pass moves the best-gain movable node until ``window`` moves bring no
    improvement (0: until every node is locked, the classic pass), then keeps
    the best prefix. Passes repeat until one gains nothing (or ``passes`` ran).
    The gains are computed once and then kept up to date move by move (the
    moves a pass does not keep are undone in reverse order), so a pass costs
    the nodes it touches and its boundary, not the whole subgraph.
    """
    window = window if window > 0 else 1 << 62
    ids = np.concatenate([low, high])
    n = ids.size
    loc = np.full(g.n, -1, np.int64)
    loc[ids] = np.arange(n)
    deg = g.xadj[ids + 1] - g.xadj[ids]
    nb = loc[g.neighbours_of(ids)]
    ent = np.repeat(g.xadj[ids] - np.cumsum(deg) + deg, deg) + np.arange(deg.sum())
    cw = g.cwgt[ent]
    row = np.repeat(np.arange(n), deg)
    keep = nb >= 0
    row, nb, cw = row[keep], nb[keep], cw[keep]
    xadj = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=n), out=xadj[1:])
    side = np.zeros(n, np.int64)
    side[low.size:] = 1
    w = g.pwgt[ids].astype(float)
    tol = float(w.max())
    adj_l, cw_l, xadj_l = nb.tolist(), cw.tolist(), xadj.tolist()
    diff = side[row] != side[nb]
    ext = np.bincount(row, weights=cw * diff, minlength=n)
    tot = np.bincount(row, weights=cw, minlength=n).tolist()
    gain = (ext - np.bincount(row, weights=cw * ~diff, minlength=n)).tolist()  # exact: integer-valued floats
    boundary = set(np.flatnonzero(ext > 0).tolist())  # ext = (gain + tot) / 2 > 0
    sd = side.tolist()
    wv = w.tolist()
    done_passes = 0

    visits = n
    push, pop = heapq.heappush, heapq.heappop
    while passes <= 0 or done_passes < passes:
        done_passes += 1
        visits += len(boundary)
        wlow = float(w[side == 0].sum())
        heaps = ([], [])
        for v in sorted(boundary):
            heaps[sd[v]].append((-gain[v], v))
        for h in heaps:
            heapq.heapify(h)
        locked = bytearray(n)
        moves, cut_delta, best, best_k = [], 0.0, 0.0, 0
        while len(moves) - best_k < window:
            pick = None  # the best-gain movable node over both sides: (-gain, v, side)
            for s in (0, 1):
                h = heaps[s]
                while h:
                    ng, v = h[0]
                    if locked[v] or -ng != gain[v] or sd[v] != s:
                        pop(h)
                        continue
                    if abs((wlow - wv[v] if s == 0 else wlow + wv[v]) - target) <= tol and \
                            (pick is None or (ng, v) < pick[:2]):
                        pick = (ng, v, s)
                    break
            if pick is None:
                break
            _, v, s = pick
            pop(heaps[s])
            locked[v] = 1
            sd[v] = 1 - s
            wlow += -wv[v] if s == 0 else wv[v]
            cut_delta -= gain[v]
            moves.append(v)
            for e in range(xadj_l[v], xadj_l[v + 1]):
                u, c = adj_l[e], cw_l[e]
                gain[u] += 2 * c if sd[u] == s else -2 * c  # v left u's side / joined it
                if not locked[u]:
                    push(heaps[sd[u]], (-gain[u], u))
            gain[v] = -gain[v]
            if cut_delta < best and abs(wlow - target) <= tol:
                best, best_k = cut_delta, len(moves)
        for v in reversed(moves[best_k:]):  # undo the moves the pass does not keep
            s = 1 - sd[v]
            sd[v] = s
            for e in range(xadj_l[v], xadj_l[v + 1]):
                u, c = adj_l[e], cw_l[e]
                gain[u] -= 2 * c if sd[u] == s else -2 * c
            gain[v] = -gain[v]
        visits += 2 * len(moves) - best_k
        kept = moves[:best_k]
        side[kept] = 1 - side[kept]
        for v in kept:
            for u in (v, *adj_l[xadj_l[v]:xadj_l[v + 1]]):
                if gain[u] + tot[u] > 0:
                    boundary.add(u)
                else:
                    boundary.discard(u)
        if best_k == 0:
            break
    if tally is not None:
        tally[0] += visits
    return ids[side == 0], ids[side == 1]


def min_cut(g, P: int, passes: int = 0, window: int = FM_WINDOW, tally: list | None = None) -> np.ndarray:
    return recursive_bisection(g, P, refine=_counted(
        lambda g_, lo, hi, t: fm_refine(g_, lo, hi, t, passes, window, tally), tally))
