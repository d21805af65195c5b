"""The C priority queue (lbbench_sbn/_queue.c) against the numpy code it replaces, bit for bit (§3.3)."""
import numpy as np

from lbbench_sbn import _queue


def _order_numpy(Q, cw, cc, cr, depth):
    c, m, r = cw[Q], cc[Q], cr[Q]
    order = np.lexsort((Q, -depth[Q], (m + r) / np.maximum(c, 1e-12)))
    tot = (c + m + r)[order]
    cum = np.cumsum(tot)
    return Q[order], cum - tot, float(cum[-1]) if cum.size else 0.0


def _order_c(Q, stale, cw, cc, cr, depth):
    buf, total = _queue.order(Q, stale, cw, cc, cr, depth)
    k = Q.size
    return np.frombuffer(buf, np.int64, k), np.frombuffer(buf, np.float64, k, 8 * k), total


def _prices(rng, n):
    cw = rng.integers(0, 4, n).astype(float)  # Wgt 0 takes the 1e-12 floor
    cc = rng.integers(0, 3, n) * rng.random(n)
    cr = np.where(rng.random(n) < 0.3, rng.random(n) * 5, 0.0)
    return cw, cc, cr, rng.integers(0, 4, n)  # few distinct ratios and depths: ties go to the vertex number


def test_order_is_the_lexsort_with_stale_vertices_merged():
    rng = np.random.default_rng(5)
    n = 2000
    cw, cc, cr, depth = _prices(rng, n)
    stale = np.ones(n, bool)
    Q = rng.choice(n, 700, replace=False)
    for step in range(40):
        want = _order_numpy(Q, cw, cc, cr, depth)
        got = _order_c(Q, stale, cw, cc, cr, depth)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]) and got[2] == want[2]
        assert not stale[Q].any()  # order() clears the marks of what it sorted
        Q = got[0].copy()
        # re-price a few queued vertices (marked stale), add some, drop some
        some = rng.choice(Q, 15, replace=False)
        cc[some] = rng.random(15) * 3
        stale[some] = True
        new = np.setdiff1d(rng.choice(n, 10, replace=False), Q)
        stale[new] = True
        Q = np.concatenate([Q[rng.random(Q.size) > 0.02], new])
        if step % 10 == 9:  # a price changed without a mark: order() notices and sorts everything
            cc[Q[rng.integers(0, Q.size)]] += 7.0
    empty = _order_c(np.zeros(0, np.int64), stale, cw, cc, cr, depth)
    assert empty[0].size == 0 and empty[2] == 0.0


def _chunks_numpy(Qs, befs, credit, qs, window):
    """LevelRun._select_all's chunk choice as numpy computed it before the C kernel."""
    full = np.array([q.size for q in Qs])
    win = np.minimum(full, window)
    while True:
        G = np.concatenate([q[:w] for q, w in zip(Qs, win.tolist())])
        Bf = np.concatenate([b[:w] for b, w in zip(befs, win.tolist())])
        starts = np.cumsum(win) - win
        seg = np.repeat(np.arange(win.size), win)
        take = Bf < (credit + Bf[starts])[seg]
        k = np.add.reduceat(take, starts)
        short = (k == win) & (win < full)
        if not short.any():
            break
        win = np.where(short, np.minimum(full, 4 * win), win)
    after = np.where(k < win, Bf[np.minimum(starts + k, Bf.size - 1)], 0.0)
    rest = np.where(k < full, qs - (after - Bf[starts]), 0.0)
    return k, rest, G[take], seg[take]


def test_chunks_match_the_windowed_numpy_choice():
    rng = np.random.default_rng(6)
    for _ in range(30):
        A = int(rng.integers(1, 12))
        Qs, befs, qs = [], [], []
        for _ in range(A):
            k = int(rng.integers(1, 900))
            tot = rng.random(k) * 3 * (rng.random(k) < 0.9)  # some zero loads
            cum = np.cumsum(tot)
            Qs.append(rng.choice(10**6, k, replace=False))
            befs.append(cum - tot)
            qs.append(float(cum[-1]))
        credit = rng.random(A) * rng.choice([1.0, 50.0, 5000.0], A)  # small, window-sized and whole-queue chunks
        qs = np.array(qs)
        buf = _queue.chunks(Qs, befs, credit, qs, 32)
        got = len(buf) // 16 - A
        k, rest = np.frombuffer(buf, np.int64, A), np.frombuffer(buf, np.float64, A, 8 * A)
        chosen, seg = np.frombuffer(buf, np.int64, got, 16 * A), np.frombuffer(buf, np.int64, got, 8 * (2 * A + got))
        want = _chunks_numpy(Qs, befs, credit, qs, 32)
        for a, b in zip((k, rest, chosen, seg), want):
            assert np.array_equal(a, b)
