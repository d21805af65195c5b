"""The C priority queue (lbbench_sbn/_queue.c) against the numpy code it replaces, bit for bit (§3.3)."""
import numpy as np
import pytest

from harness import LocationView
from lbbench_sbn import _queue
from lbbench_sbn.balancer import _log2


def _order_numpy(Q, cw, cc, cr, depth):
    c, m, r = cw[Q], cc[Q], cr[Q]
    order = np.lexsort((Q, -depth[Q], (m + r) / np.maximum(c, 1e-12)))
    tot = (c + m + r)[order]
    cum = np.cumsum(tot)
    return Q[order], cum - tot, float(cum[-1]) if cum.size else 0.0


class _Proc:
    """What ``_queue.sort`` reads and sets of a processor (balancer.VProc): its Qall and bef."""

    def __init__(self, Qall):
        self.Qall, self.bef = Qall, None


def _order_c(Q, stale, cw, cc, cr, depth, head=0):
    """``_queue.sort`` (LevelRun._sort) at slot 1 of three: the queue read past ``head`` entries of Qall ahead of Q
    (out of range: never read), then the processor's order, sums, load and scalars."""
    hd, qs, qlen, unsorted = np.array([0, head, 0]), np.zeros(3), np.zeros(3, np.int64), np.ones(3, bool)
    v = _Proc(np.concatenate([np.full(head, -1), Q]).astype(np.int64))
    _queue.sort(v, 1, _queue.bind("bfffiifibooo", stale, cw, cc, cr, depth, hd, qs, qlen, unsorted, np.frombuffer,
                                  np.dtype(np.int64), np.dtype(np.float64)))
    assert hd.tolist() == [0, 0, 0] and qlen.tolist() == [0, Q.size, 0] and unsorted.tolist() == [True, False, True]
    return v.Qall, v.bef, float(qs[1])


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
        got = _order_c(Q, stale, cw, cc, cr, depth, head=step % 3)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]) and got[2] == want[2]
        assert not stale[Q].any()  # sort() clears the marks of what it sorted
        Q = got[0].copy()
        # re-price a few queued vertices (marked stale), add some, drop some
        some = rng.choice(Q, 15, replace=False)
        cc[some] = rng.random(15) * 3
        stale[some] = True
        new = np.setdiff1d(rng.choice(n, 10, replace=False), Q)
        stale[new] = True
        Q = np.concatenate([Q[rng.random(Q.size) > 0.02], new])
        if step % 10 == 9:  # a price changed without a mark: sort() notices and sorts everything
            cc[Q[rng.integers(0, Q.size)]] += 7.0
    empty = _order_c(np.zeros(0, np.int64), stale, cw, cc, cr, depth)
    assert empty[0].size == 0 and empty[2] == 0.0


def test_order_merge_sorts_many_stale_vertices_and_nan_prices():
    """Stale runs past the insertion sort's size, halves in and out of order, NaN ratios (last): the lexsort's order."""
    rng = np.random.default_rng(11)
    n = 3000
    cw, cc, cr, depth = _prices(rng, n)
    cw[rng.choice(n, 40, replace=False)] = np.nan
    stale = np.ones(n, bool)
    Q = rng.choice(n, 1500, replace=False)
    for step, k in enumerate([0, 25, 60, 200, 1499]):
        some = rng.choice(Q, k, replace=False)
        cc[some] = rng.random(k) * 3
        stale[some] = True
        want = _order_numpy(Q, cw, cc, cr, depth)
        got = _order_c(Q, stale, cw, cc, cr, depth, head=step % 2)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1], equal_nan=True)
        Q = got[0][::-1].copy() if step == 2 else got[0].copy()  # once reversed: every vertex out of order


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


def test_chunks_read_a_processors_sums_from_its_head_as_from_its_tail():
    """``chunks`` with act: each processor's queue and prefix sums either set to their tails after its chunk
    (Q[k:], bef[k:]) or kept whole (Qall, bef) and read from ``heads`` (advanced by k): the same chunks, step
    after step, and the same queues."""
    from types import SimpleNamespace

    rng = np.random.default_rng(8)
    A = 7
    tails, heads = [], []
    for _ in range(A):
        k = int(rng.integers(1, 300))
        tot = rng.random(k) * 3 * (rng.random(k) < 0.9)
        cum = np.cumsum(tot)
        Q, bef = rng.choice(10**6, k, replace=False), cum - tot
        tails.append(SimpleNamespace(Q=Q, bef=bef, qs=float(cum[-1])))
        heads.append(SimpleNamespace(Qall=Q, bef=bef, qs=float(cum[-1])))
    at = np.zeros(A + 2, np.int64)
    for _ in range(12):
        act = [j for j in range(A) if tails[j].Q.size]
        if not act:
            break
        credit = rng.random(len(act)) * rng.choice([1.0, 20.0, 400.0])
        who = np.array(act, np.int64) + 2  # the processors' slots in heads
        got = []
        for procs, extra in (([tails[j] for j in act], ()), ([heads[j] for j in act], (at, who))):
            qs = np.array([p.qs for p in procs])
            buf = _queue.chunks(None, None, credit, qs, 4, procs, *extra)
            got.append(bytes(buf))
            for p, r in zip(procs, np.frombuffer(buf, np.float64, len(act), 8 * len(act)).tolist()):
                p.qs = r  # the queue's load after its chunk
        assert got[0] == got[1]
        for j in act:
            assert np.array_equal(tails[j].Q, heads[j].Qall[at[j + 2]:])
            assert np.array_equal(tails[j].bef, heads[j].bef[at[j + 2]:])


def test_choose_is_ready_chunks_and_take_in_turn():
    """``choose`` (balancer.LevelRun._select_all's one call) gives what ``ready``, ``chunks`` (by head index) and
    ``take`` (with §5.4's count) give in turn, superstep after superstep: the same chunks, costs, queues and state."""
    from types import SimpleNamespace

    rng = np.random.default_rng(11)
    L, n = 9, 3000
    ids = rng.permutation(n)
    cuts = np.sort(rng.choice(np.arange(1, n), L - 1, replace=False))
    mine = np.arange(L, dtype=np.int64) * 3 + 1
    st = {"credit": rng.random(L) - 0.3, "qlen": np.zeros(L, np.int64), "qs": np.zeros(L),
          "head": np.zeros(L, np.int64),
          "stg": np.zeros(L), "nstaged": np.zeros(L, np.int64), "queued": np.ones(n, bool),
          "pinned": np.zeros(n, bool), "sel": np.zeros(L)}
    procs = []
    for i, Q in enumerate(np.split(ids, cuts)):
        tot = rng.random(Q.size) * 3 * (rng.random(Q.size) < 0.9)
        cum = np.cumsum(tot)
        procs.append(SimpleNamespace(Qall=Q.astype(np.int64), bef=cum - tot))
        st["qlen"][i], st["qs"][i] = Q.size, float(cum[-1]) if Q.size else 0.0
    degs, table = rng.integers(0, 9, n).astype(np.int64), _log2(np.arange(n + 1))
    want, got = ({x: v.copy() for x, v in st.items()} for _ in range(2))
    for step in range(40):
        B = float(rng.choice([0.5, 5.0, 60.0]))
        w = want
        who = np.frombuffer(_queue.ready(w["credit"], B, w["qlen"]), np.int64)
        level = _queue.bind("fifiifibbffio", got["credit"], got["qlen"], got["qs"], got["head"], mine, got["stg"],
                            got["nstaged"], got["queued"], got["pinned"], got["sel"], table, degs, procs)
        buf = _queue.choose(level, B, 4)
        if not who.size:
            assert buf is None
            continue
        A = who.size
        c = _queue.chunks(None, None, w["credit"][who], w["qs"][who], 4, [procs[i] for i in who.tolist()], w["head"],
                          who)
        k, rest = np.frombuffer(c, np.int64, A), np.frombuffer(c, np.float64, A, 8 * A)
        m = len(c) // 16 - A
        chosen, seg = np.frombuffer(c, np.int64, m, 16 * A), np.frombuffer(c, np.int64, m, 8 * (2 * A + m))
        t = _queue.take(who, k, rest, chosen, seg, mine, w["qs"], w["qlen"], w["credit"], w["stg"], w["nstaged"],
                        w["queued"], w["pinned"], w["sel"], table, degs)
        out = np.frombuffer(buf, np.int64)
        assert out[:2].tolist() == [A, m]
        assert np.array_equal(out[2:2 + A], who) and np.array_equal(out[2 + A:2 + 2 * A], k)
        assert bytes(buf)[8 * (2 + 2 * A):8 * (2 + 3 * A)] == bytes(t)[8 * m:]  # cost
        assert np.array_equal(out[2 + 3 * A:2 + 3 * A + m], chosen)
        assert bytes(buf)[8 * (2 + 3 * A + m):] == bytes(t)[:8 * m]  # procs
        for x in st:
            assert np.array_equal(want[x], got[x]), x  # the head indices included


def test_done_with_data_at_waits_for_every_vertex_s_data():
    """``done`` given data_at does the chunks only when every vertex's data is at its processor (True, as
    without it), else returns False and changes nothing (balancer.LevelRun._process_all's common case)."""
    rng = np.random.default_rng(5)
    n, L = 50, 4
    verts, procs = np.array([3, 7, 9, 20], np.int64), np.array([1, 1, 2, 2], np.int64)
    who, cost = np.array([1, 2], np.int64), np.array([1.5, 2.5])
    # holder, pinned, done_by, stg, nstaged, proc_cost, busy_steps, last_busy
    a = [np.full(n, 1, np.int32), rng.random(n) < 0.5, np.full(n, -1, np.int32), np.full(L, 4.0),
         np.full(L, 2, np.int64), np.zeros(L), np.zeros(L, np.int64), np.full(L, -1, np.int64)]
    data_at = np.zeros(n, np.int32)  # (processors by vertex: int32)
    data_at[verts] = procs
    data_at[9] = 0  # not there yet
    before = [x.copy() for x in a]
    assert _queue.done(verts, procs, who, cost, 6, _queue.bind("nbnfifii", *a), data_at) is False
    assert all(np.array_equal(x, y) for x, y in zip(a, before))
    data_at[9] = 2
    b = [x.copy() for x in a]
    assert _queue.done(verts, procs, who, cost, 6, _queue.bind("nbnfifii", *a), data_at) is True
    assert _queue.done(verts, procs, who, cost, 6, _queue.bind("nbnfifii", *b)) is True
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    # choose()'s result (A, got, who, k, cost, chosen, procs) done as such: the count done, or None
    chosen = bytearray(np.concatenate([[2, 4], who, [2, 2], cost.view(np.int64), verts, procs]).astype(np.int64))
    c, data_at[9] = [x.copy() for x in before], 0
    assert _queue.done_chosen(chosen, 6, _queue.bind("nbnfifii", *c), data_at) is None
    assert all(np.array_equal(x, y) for x, y in zip(c, before))
    data_at[9] = 2
    assert _queue.done_chosen(chosen, 6, _queue.bind("nbnfifii", *c), data_at) == 4
    assert all(np.array_equal(x, y) for x, y in zip(c, a))


def _graph(rng, n, deg=4):
    """A random symmetric graph in CSR form (some isolated vertices, some small separate components)."""
    a = rng.integers(0, n, n * deg // 2)
    b = (a + rng.integers(1, 9, a.size)) % n  # mostly local edges: several components when n is large
    a, b = np.concatenate([a, b]), np.concatenate([b, a])
    keep = a != b
    key = np.unique(a[keep] * n + b[keep])
    src, adj = key // n, key % n
    xadj = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int64)
    return xadj, adj.astype(np.int64)


def _depth_numpy(xadj, adj, owner):
    """balancer.boundary_depth as numpy computed it before the C search."""
    n = owner.size
    src = np.repeat(np.arange(n), np.diff(xadj))
    depth = np.full(n, -1, np.int64)
    front = np.unique(src[owner[src] != owner[adj]])
    if front.size == 0:
        return np.zeros(n, np.int64)
    d = 0
    depth[front] = 0
    while front.size:
        d += 1
        nb = np.concatenate([adj[xadj[v]:xadj[v + 1]] for v in front])
        nb = np.unique(nb[depth[nb] < 0])
        depth[nb] = d
        front = nb
    depth[depth < 0] = d
    return depth


def test_depth_is_the_breadth_first_search_of_numpy():
    rng = np.random.default_rng(8)
    for n, parts in [(400, 4), (3000, 7), (50, 1), (1, 1)]:
        xadj, adj = _graph(rng, n)
        owner = (np.arange(n) * parts // n).astype(np.int64)  # blocks: far vertices, unreached components
        got = np.frombuffer(_queue.depth(xadj, adj, owner), np.int64)
        assert np.array_equal(got, _depth_numpy(xadj, adj, owner))


def test_a_superstep_bookkeeping_matches_numpy():
    """take, requests, done, ready and acting (LevelRun's per-superstep steps) against the numpy they replace."""
    rng = np.random.default_rng(9)
    n, L = 2000, 12
    mine = 40 + 3 * np.arange(L)  # the rank's processors under a round-robin layout (R = 3): not a range
    xadj, adj = _graph(rng, n, 6)
    degs, table = np.diff(xadj), _log2(np.arange(n + 1))
    for trial in range(25):
        st = {
            "qs": rng.random(L) * 50, "qlen": rng.integers(0, 30, L), "credit": rng.random(L) * 4 - 1,
            "stg": rng.random(L) * 3, "nstaged": rng.integers(0, 3, L), "queued": rng.random(n) < 0.6,
            "pinned": rng.random(n) < 0.2, "requested": rng.random(n) < 0.3,
            "data_at": mine[rng.integers(0, L, n)].astype(np.int32),
            "holder": np.where(rng.random(n) < 0.7, mine[rng.integers(0, L, n)], -1).astype(np.int32),
            "done_by": np.full(n, -1, np.int32), "proc_cost": rng.random(L), "busy_steps": rng.integers(0, 5, L),
            "last_busy": rng.integers(-1, 5, L), "busy": rng.integers(0, 2, L), "hold": rng.integers(-1, 8, L),
            "prom": rng.random(L) < 0.2, "cooldown": rng.integers(-1, 8, L), "want": rng.random(L) < 0.1,
            "minth": rng.random(L) * 20, "maxth": 20 + rng.random(L) * 40, "sel": rng.random(L) * 100,
        }
        st["qs"][rng.random(L) < 0.2] = 0.0
        A = int(rng.integers(1, L + 1))
        who = np.sort(rng.choice(L, A, replace=False)).astype(np.int64)
        k = rng.integers(0, 5, A).astype(np.int64)
        rest = st["qs"][who] * rng.random(A)
        chosen = rng.choice(n, int(k.sum()), replace=False).astype(np.int64)
        seg = np.repeat(np.arange(A), k).astype(np.int64)
        want, got = {x: v.copy() for x, v in st.items()}, {x: v.copy() for x, v in st.items()}
        # numpy, as LevelRun had it
        w = want
        ql = np.zeros(L)  # §5.4's delete-min count (queue lengths before the chunks left)
        ql[who] = w["qlen"][who]
        at = who[seg]
        w["sel"] += np.bincount(at, _log2(ql[at]) + degs[chosen], minlength=L)
        cost = w["qs"][who] - rest
        w["qs"][who] = rest
        w["qlen"][who] -= k
        w["credit"][who] -= cost
        w["stg"][who] += cost
        w["nstaged"][who] += 1
        procs = mine[who][seg]
        w["queued"][chosen] = False
        w["pinned"][chosen] = True
        need = (w["data_at"][chosen] != procs) & ~w["requested"][chosen]
        deg = xadj[chosen + 1] - xadj[chosen]
        nb = np.concatenate([adj[xadj[v]:xadj[v + 1]] for v in chosen] + [np.zeros(0, np.int64)])
        pr = np.repeat(procs, deg)
        ok = (w["holder"][nb] == pr) & w["queued"][nb] & (w["data_at"][nb] != pr) & ~w["requested"][nb]
        nb = np.unique(nb[ok])
        w["pinned"][nb] = True
        ids, rq = np.concatenate([chosen[need], nb]), np.concatenate([procs[need], w["holder"][nb]])
        # C
        g = got
        buf = _queue.take(who, k, rest, chosen, seg, mine, g["qs"], g["qlen"], g["credit"], g["stg"], g["nstaged"],
                          g["queued"], g["pinned"], g["sel"], table, degs)
        assert np.array_equal(g["sel"], w["sel"])
        got_procs = np.frombuffer(buf, np.int64, chosen.size)
        assert np.array_equal(got_procs, procs)
        assert np.array_equal(np.frombuffer(buf, np.float64, A, 8 * chosen.size), cost)
        buf = _queue.requests(chosen, got_procs, g["queued"], g["pinned"], g["data_at"], g["requested"], g["holder"],
                              xadj, adj, True)
        r, m = np.frombuffer(buf, np.int64, 2).tolist()
        assert r == int(need.sum())
        assert np.array_equal(np.frombuffer(buf, np.int64, m, 16), ids)
        assert np.array_equal(np.frombuffer(buf, np.int64, m, 16 + 8 * m), rq)
        # done: the chunks processed two supersteps later
        verts = chosen[: chosen.size // 2]
        vp = procs[: verts.size]
        w["holder"][verts] = -1
        w["pinned"][verts] = False
        w["done_by"][verts] = vp
        w["stg"][who] -= cost
        w["nstaged"][who] -= 1
        w["stg"][who[w["nstaged"][who] == 0]] = 0.0
        w["proc_cost"][who] += cost
        w["busy_steps"][who] += 1
        w["last_busy"][who] = trial
        _queue.done(verts, vp, who, cost, trial, _queue.bind("nbnfifii", g["holder"], g["pinned"], g["done_by"], g["stg"],
                                                             g["nstaged"], g["proc_cost"], g["busy_steps"],
                                                             g["last_busy"]))
        # the next superstep's credit and choosers, and the main lines that act
        B = float(rng.random() * 3)
        w["credit"] = np.minimum(w["credit"], 0.0) + B
        act = np.flatnonzero((w["qlen"] > 0) & (w["credit"] > 0))
        assert np.array_equal(np.frombuffer(_queue.ready(g["credit"], B, g["qlen"]), np.int64), act)
        Lw = w["qs"] + w["stg"]
        free = (w["busy"] == 0) & (trial > w["hold"]) & ~w["prom"]
        over = (Lw > w["maxth"]) & (trial > w["cooldown"])
        acts = np.flatnonzero(free & (w["want"] | over | (Lw < w["minth"])))
        got_acts = _queue.acting(trial, _queue.bind("ffiirirff", g["qs"], g["stg"], g["busy"], g["hold"], g["prom"],
                                                    g["cooldown"], g["want"], g["minth"], g["maxth"]))
        assert np.array_equal(np.frombuffer(got_acts, np.int64), acts)
        for x in st:
            assert np.array_equal(g[x], w[x]), x


def _carve_numpy(g, ids, cost, amount):
    """A carve in numpy: BFS region growing inside ids (the expression the C kernel follows)."""
    if amount <= 0 or ids.size == 0:
        return ids[:0], ids
    member = np.zeros(g.n, bool)
    member[ids] = True
    price = np.zeros(g.n)
    price[ids] = cost
    taken, got, rest_order = [], 0.0, ids
    while got < amount:
        rest_order = rest_order[member[rest_order]]
        if rest_order.size == 0:
            break
        layer = rest_order[:1]
        while layer.size and got < amount:
            c = price[layer]
            before = got + np.cumsum(c) - c
            k = int(np.searchsorted(before, amount, side="left"))
            take = layer[:k]
            member[take] = False
            taken.append(take)
            got += float(c[:k].sum())
            if k < layer.size:
                break
            nb = g.neighbours_of(take, distinct=True)
            layer = nb[member[nb]]
    return (np.concatenate(taken) if taken else ids[:0]), ids[member[ids]]


def test_carve_is_the_numpy_region_growing():
    """A carve (the C region growing behind selection.spread) against numpy: at a node with one successor,
    spread keeps the carve of the deficit and hands on the rest."""
    from harness import Graph
    from lbbench_sbn.selection import spread
    from lbbench_sbn.topology import Trees

    rng = np.random.default_rng(11)
    n = 3000
    u = rng.integers(0, n, 9000)
    v = (u + rng.integers(1, 40, u.size)) % n  # local edges: regions grow over several layers
    key = np.unique(np.minimum(u, v) * n + np.maximum(u, v))
    g = Graph.from_edges(n, key // n, key % n)
    slot = np.zeros(n, np.int32)
    tree = Trees(2).csr(0)  # T_0 of two processors: 0 -> 1
    for trial in range(300):
        m = int(rng.choice([0, 1, 5, 9, 60, 300, 1500]))
        ids = rng.choice(n, m, replace=False)
        cost = rng.random(m) * rng.choice([1.0, 1e-3, 1e6]) + (rng.random(m) < 0.2) * 0.1
        amount = float(rng.choice([-1.0, 0.0, 0.3, 2.5, 40.0, 1e9]) * (1 + rng.random()))
        want_take, want_rest = _carve_numpy(g, ids, cost, amount)
        kids, (took, rest) = spread(g, ids, cost, amount, tree, 0, slot)
        assert kids == [1] and np.array_equal(ids[took], want_take) and np.array_equal(ids[rest], want_rest)
        assert not slot.any()  # the scratch is left as it was


def _spread_numpy(g, ids, tot, deficit, trees, origin, p):
    """GetDistribute's split in numpy (the Python the C kernel replaced): p keeps a carved piece of its deficit,
    each successor but the last carves its share of the rest by subtree size, the last takes what is left."""
    kids = trees.children(origin, p)
    if not kids:
        return kids, [ids]
    keep, rest = _carve_numpy(g, ids, tot, deficit)
    parts = [keep]
    sizes = np.array([trees.subtree_size(origin, q) for q in kids], float)
    price = dict(zip(ids.tolist(), tot.tolist()))
    share = sizes / sizes.sum() * np.array([price[x] for x in rest.tolist()]).sum()
    for j in range(len(kids)):
        if j == len(kids) - 1:
            mine = rest
        else:
            mine, rest = _carve_numpy(g, rest, np.array([price[x] for x in rest.tolist()]), share[j])
        parts.append(mine)
    return kids, parts


@pytest.mark.parametrize("P", [16, 12])
def test_spread_is_the_carves_in_turn(P):
    """_queue.spread (GetDistribute, SBN §3) equals carving the deficit, then each successor's share in turn, at
    every node of the broadcast trees, P a power of two (trees by XOR) or not."""
    from harness import Graph
    from lbbench_sbn.selection import spread
    from lbbench_sbn.topology import Trees

    rng = np.random.default_rng(5)
    n = 2000
    u = rng.integers(0, n, 6000)
    v = (u + rng.integers(1, 30, u.size)) % n
    key = np.unique(np.minimum(u, v) * n + np.maximum(u, v))
    g = Graph.from_edges(n, key // n, key % n)
    slot = np.zeros(n, np.int32)
    trees = Trees(P)
    for trial in range(200):
        origin, p = int(rng.integers(P)), int(rng.integers(P))
        m = int(rng.choice([0, 1, 7, 40, 400]))
        ids = rng.choice(n, m, replace=False)
        tot = rng.random(m) * rng.choice([1.0, 1e-3, 1e5]) + (rng.random(m) < 0.2) * 0.1
        deficit = float(rng.choice([-5.0, 0.0, 0.4, 3.0, 60.0, 1e9]) * (1 + rng.random()))
        want_kids, want = _spread_numpy(g, ids, tot, deficit, trees, origin, p)
        kids, parts = spread(g, ids, tot, deficit, trees.csr(origin), p, slot)
        assert tuple(kids) == want_kids and len(parts) == len(want)
        for got, exp in zip(parts, want):
            assert np.array_equal(ids[got], exp)
        assert not slot.any()


def test_choice_draws_what_numpy_choice_draws():
    """§3.4's random subset R: ``_queue.choice`` is ``rng.choice(pool, size, replace=False)`` of numpy's Generator,
    the same draws from the same stream (Floyd's algorithm and its shuffle, the tail shuffle of a large pool)."""
    r = np.random.default_rng(7)
    for seed in range(8):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(40):
            n = int(r.choice([2, 9, 100, 1000, 10001, 30000]))
            size = int(min(n, r.choice([1, 8, 16, 700])))
            pool = np.sort(r.choice(10**6, n, replace=False)).astype(np.int64)
            want = a.choice(pool, size=size, replace=False)
            got = np.frombuffer(_queue.choice(b.bit_generator.capsule, pool, size), np.int64)
            assert np.array_equal(got, want)
        assert a.random() == b.random()  # the streams stay in step
    with pytest.raises(ValueError):
        _queue.choice(np.random.default_rng(0).bit_generator.capsule, np.arange(3), 4)


def test_groups_and_fetches_are_the_stable_argsort():
    """``_queue.groups`` (balancer._groups) and ``_queue.fetches`` (the data requests, §3.5) group as a stable
    argsort by key does, and fetches reads the processor holding each vertex from the view (base, keys, values)."""
    rng = np.random.default_rng(11)
    for k in (1, 2, 7, 60):
        key, ids = rng.integers(0, 4, k), rng.choice(500, k, replace=False)
        order = np.argsort(key, kind="stable")
        want = [(int(h), ids[order][key[order] == h].tolist()) for h in np.unique(key)]
        buf = np.frombuffer(_queue.groups(key, ids), np.int64)
        g = int(buf[0])
        cuts = buf[1 + g:2 + 2 * g].tolist()
        grouped = buf[2 + 2 * g:]
        assert [(h, grouped[a:b].tolist()) for h, a, b in zip(buf[1:1 + g].tolist(), cuts, cuts[1:])] == want
        view = LocationView(rng.integers(0, 4, 500), 5)
        view.learn(ids[: k // 2], 4)
        dest = view[ids]
        for given in (dest, None):
            msgs = []
            n = _queue.fetches(msgs, 7, 5, 3, ids, given, view.base, view.keys, view.values)
            order = np.argsort(dest, kind="stable")
            assert n == len(msgs) == np.unique(dest).size
            assert msgs == [(5, int(h), 7, [3, *ids[order][dest[order] == h].tolist()], 0) for h in np.unique(dest)]
    with pytest.raises(RuntimeError, match="view out of date"):
        _queue.fetches([], 7, 4, 3, ids, None, view.base, view.keys, view.values)  # p = 4 holds some of them


def test_fastcall_arguments_are_checked():
    """The METH_FASTCALL calls (_fastargs.h) reject a wrong count or kind of argument as PyArg_ParseTuple did."""
    with pytest.raises(TypeError, match="inbox takes 18 arguments"):
        _queue.inbox(1, 2)
    with pytest.raises(TypeError):
        _queue.sort(None, "x", None)
    with pytest.raises(TypeError, match="msgs, fwd and servers"):
        _queue.inbox(None, None, 0, 0, None, None, None, 0, 0, 0, 0, None, (), {}, set(), None, None, None)
    with pytest.raises(TypeError, match="msgs is a list"):
        _queue.fetch_chunks(None, None, True, (), 0, 0, 0)
    # a superstep's two calls (balancer.LevelRun.run) read their level bound as their docs say
    with pytest.raises(TypeError, match="step's level must be bind"):
        _queue.step(_queue.bind("i", np.zeros(1, np.int64)), 0, None)
    with pytest.raises(TypeError, match="deliver takes 11 arguments"):
        _queue.deliver(None)
    none, start = np.empty(0, np.int64), np.zeros(1, np.int64)  # an empty batch's columns
    with pytest.raises(TypeError, match="deliver's level must be bind"):
        _queue.deliver(None, None, {}, frozenset(), {}, none, start, none, start, none, 0)
