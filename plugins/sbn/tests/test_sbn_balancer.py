"""The SBN balancer through whole levels (mini workload): processing, lazy migration, balance."""
import numpy as np
import pytest

from harness import (Costs, Engine, Machine, State, costs_if_on, delta_cut, initial_state, load_workload, loadimb,
                     qwgt, vertex_costs)
from lbbench_sbn import messages as msg
from lbbench_sbn.balancer import LevelRun, Params, _Received, plan_rows
from lbbench_sbn.outcome import executed, share
from lbbench_sbn.prepartition import _Costs, prepartition
from lbbench_sbn.selection import select
from lbbench_sbn import thresholds as th


def _loadimb(g, s, m):
    return loadimb(qwgt(vertex_costs(g, s, m), s.owner, s.P))


@pytest.fixture(scope="module")
def mini():
    _, _, levels = load_workload("mini", {}, 0)
    return levels


def _run(g, state, P, trace=False, **kw):
    m = Machine.uniform(P)
    run = LevelRun(g, m, Engine(P, m, comm=None), state, Params(**kw), lambda p: np.random.default_rng([7, p]),
                   trace=trace)
    return run.run(), run


@pytest.mark.parametrize("P", [4, 6])
def test_level_processes_every_vertex_once_and_balances(mini, P):
    g = mini[1].data
    m = Machine.uniform(P)
    before = initial_state(mini[0], P, 0)
    after, run = _run(g, before, P, trace=True)
    procs = np.concatenate([e[3] for e in run.trace if e[0] == "proc"])
    assert np.sort(procs).tolist() == list(range(g.n))  # each vertex computed exactly once
    assert np.array_equal(after.home, after.owner)
    # §4.5: SBN always improves (or keeps) the load balance
    lb_before = _loadimb(g, before, m)
    assert lb_before > 1.5
    assert _loadimb(g, after, m) < lb_before
    on, costs = executed(share(run))
    assert loadimb(qwgt(costs, on, P)) < lb_before  # what ran is balanced too (the core's loadimb)
    assert run.figures()["sbn_balance_ops"] > 0


@pytest.mark.parametrize("fetch_adjacent", [False, True])
def test_data_never_moves_before_its_vertex_is_processed(mini, fetch_adjacent):
    g = mini[0].data
    before = initial_state(mini[0], 4, 0)
    after, run = _run(g, before, 4, trace=True, fetch_adjacent=fetch_adjacent)
    proc_at = {}
    for kind, step, p, ids, _ in run.trace:
        if kind == "proc":
            for v in ids.tolist():
                proc_at[v] = (step, p)
    prefetch = {(step, p, v) for kind, step, p, ids, _ in run.trace if kind == "prefetch" for v in ids.tolist()}
    arrivals = [(step, p, v) for kind, step, p, ids, _ in run.trace if kind == "data" for v in ids.tolist()]
    assert arrivals, "the balancer moved work, so some data must move"
    for step, p, v in arrivals:
        if proc_at[v] == (step, p):
            continue  # arrived as its processor computes it (§3.5)
        # otherwise only as an adjacent vertex queued at p, requested two supersteps earlier (§3.5)
        assert fetch_adjacent and (step - 2, p, v) in prefetch
    # data moves only to processors that compute the vertex or a queued neighbour, never by balancing:
    moved = np.flatnonzero(before.home != after.home)
    assert set(moved.tolist()) <= {v for _, _, v in arrivals}


def test_balancing_operation_never_raises_the_maximum(mini):
    g = mini[2].data
    P = 8
    m = Machine.uniform(P)
    state = initial_state(mini[0], P, 0)
    q0 = qwgt(vertex_costs(g, state, m), state.owner, P)
    minth = float(np.sort(q0)[2]) + 1  # the three lightest processors ask for work
    run = LevelRun(g, m, Engine(P, m, comm=None), state, Params(), lambda p: np.random.default_rng(p),
                   process=False, init_thresholds=th.Thresholds(None, minth, float("inf")), const=minth,
                   )
    run.max_steps = 200
    try:
        after = run.run()
    except RuntimeError:  # still asking for work after 200 supersteps: look at where it got
        after = State(np.where(run.holder >= 0, run.holder, state.owner), state.home, P)
    q1 = qwgt(vertex_costs(g, after, m), after.owner, P)
    assert q1.max() <= q0.max()
    assert q1.min() >= q0.min()
    assert not np.array_equal(after.owner, state.owner)


def test_selection_never_makes_the_receiver_heavier_than_the_sender(mini):
    g = mini[0].data
    m = Machine.uniform(4)
    s = initial_state(mini[0], 4, 0)
    c = vertex_costs(g, s, m)
    q = qwgt(c, s.owner, 4)
    p, r = int(np.argmax(q)), int(np.argmin(q))
    queue = np.flatnonzero(s.owner == p)
    avail = s.owner == p
    verts, sent_p, sent_q = select(g, m, s, queue, avail, c, r, amount=1e18, load_p=q[p], base_q=q[r],
                                   rng=np.random.default_rng(0))
    assert verts.size > 0
    assert q[r] + sent_q <= q[p] - sent_p
    assert not avail[verts].any()
    assert np.isclose(sent_p, c.total[verts].sum())


def test_prepartition_balances_projected_load(mini):
    g = mini[1].data
    P = 4
    m = Machine.uniform(P)
    s = initial_state(mini[0], P, 0)
    owner, figs = prepartition(g, s, m, np.random.default_rng(0))
    assert owner.shape == (g.n,) and owner.min() >= 0 and owner.max() < P
    before = _loadimb(g, s, m)
    # QWgt as the pre-partitioner sees it: Comm projected on the owners, Remap on the data homes
    assert _Costs(g, m, owner, s.home, P).qw.max() < _Costs(g, m, s.owner, s.home, P).qw.max()
    assert figs["prepart_loadimb"] < before
    assert figs["prepart_iterations"] >= 4


def test_bad_parameters():
    with pytest.raises(ValueError):
        Params(checks=0).validate()
    with pytest.raises(ValueError):
        Params(minth="never").validate()


def _counting(run):
    """Count the locate messages the engine delivers (its ``locate`` stream) and the arrivals that cause them: the
    processors that receive data in a superstep (the distinct receivers of a superstep's ``DATA`` messages), as each
    exchange delivers them (one process: every message sent)."""
    cnt = {"locate": 0, "arrivals": 0}
    eng = run.eng
    exchange = eng.exchange

    def counted_exchange(*args, **kw):
        inbox = exchange(*args, **kw)
        cnt["locate"] += len(eng.received("locate"))
        b = eng.received(msg.TAG)
        if len(b):
            codes = b.values[b.offsets[:-1]]
            cnt["arrivals"] += np.unique(b.dst[codes == msg.DATA]).size
        return inbox

    eng.exchange = counted_exchange
    return cnt


def _step(run, eng):
    """One superstep by hand: send what the processors queued, exchange, and what came on the ``sbn`` stream."""
    run.out.flush(eng)
    eng.exchange()
    return _Received(eng.received(msg.TAG))


def test_locate_messages_go_to_few_processors_and_views_stay_exact(mini):
    """§3.5 without broadcasts: far fewer than P - 1 locate messages per arrival; a processor's view of the
    data it holds itself is always right."""
    P = 16
    g = mini[1].data
    m = Machine.uniform(P)
    run = LevelRun(g, m, Engine(P, m, comm=None), initial_state(mini[0], P, 0), Params(),
                   lambda p: np.random.default_rng([7, p]))
    cnt = _counting(run)
    after = run.run()
    assert cnt["arrivals"] > 0
    assert cnt["locate"] < 0.25 * cnt["arrivals"] * (P - 1)
    for p, v in run.vp.items():
        mine = np.flatnonzero(run.data_at == p)
        assert np.all(v.view[mine] == p)
    assert np.array_equal(after.owner, executed(share(run))[0])


def test_a_level_run_is_freed_with_its_bound_arrays(mini):
    """The level's arrays bound for the C calls (``_queue.bind``, a list of the processors among them, which refer
    back to the run) do not keep a finished level alive: the cyclic GC frees it."""
    import gc
    import weakref

    P = 4
    m = Machine.uniform(P)
    run = LevelRun(mini[0].data, m, Engine(P, m, comm=None), initial_state(mini[0], P, 0), Params(),
                   lambda p: np.random.default_rng(p))
    run.run()
    ref = weakref.ref(run)
    del run
    gc.collect()
    assert ref() is None


def _locates(run, eng, p):
    """p's locate messages of the last exchange, as the run loop hands them to _receive."""
    return run._locates(eng.received("locate")).get(p, run.no_locs)


def test_request_on_a_stale_view_is_forwarded(mini):
    """Data that moved on since the requester's view: the old holder forwards the request along its pointer."""
    P = 4
    g = mini[0].data
    m = Machine.uniform(P)
    state = initial_state(mini[0], P, 0)
    eng = Engine(P, m, comm=None)
    run = LevelRun(g, m, eng, state, Params(), lambda p: np.random.default_rng(p), process=False)
    u = int(np.flatnonzero(state.home == 0)[0])
    v0, v1, v2 = run.vp[0], run.vp[1], run.vp[2]
    ids = np.array([u])
    run._serve(v0, ids, 1)  # processor 1 asks 0 for u's data
    run._receive(v1, _step(run, eng), run.no_locs)
    assert run.data_at[u] == 1 and v1.view[ids][0] == 1 and v0.view[ids][0] == 1
    assert v2.view[ids][0] == 0  # 2 was not told (it holds no data next to u's, nor is it u's home)
    run._serve(v0, ids, 2)  # 2 asks the home processor, which forwards to 1
    got = _step(run, eng)
    assert [(got.src[m], got.code[m], int(got.words(m)[0])) for m in got.at[1]] == [(0, msg.FETCH, 2)]
    run._receive(v1, got, _locates(run, eng, 1))
    got = _step(run, eng)
    run._receive(v2, got, _locates(run, eng, 2))
    assert run.data_at[u] == 2 and v2.view[ids][0] == 2


def test_simultaneous_operations_combine(mini):
    """Operations started in the same superstep meet; the earliest (lowest root) completes, the others are
    abandoned, so all processors end with the thresholds of one GWLen and far fewer than 3(P - 1) messages
    per operation flow."""
    g = mini[2].data
    P = 16
    m = Machine.uniform(P)
    state = initial_state(mini[0], P, 0)
    q0 = qwgt(vertex_costs(g, state, m), state.owner, P)
    minth = float(np.sort(q0)[4]) + 1  # the five lightest processors start operations at once
    eng = Engine(P, m, comm=None)
    run = LevelRun(g, m, eng, state, Params(), lambda p: np.random.default_rng(p), process=False,
                   init_thresholds=th.Thresholds(None, minth, float("inf")), const=minth)
    run.max_steps = 10
    run._mainline_all()
    starts = {v.p for v in run.vlist if v.n_balance}
    assert starts == set(np.flatnonzero(q0 < minth).tolist()) and len(starts) == 5
    for _ in range(3 * run.trees.d + 2):  # long enough for every operation to complete or be abandoned
        got = _step(run, eng)
        for p in got.at:  # balancing only: no data moves, no locate messages
            run._receive(run.vp[p], got, run.no_locs)
        run.step += 1
    f = run.figures()
    assert f["sbn_balance_ops"] == 5 and f["sbn_aborted_ops"] == 4
    assert len({v.thr.wsysll for v in run.vlist}) == 1 and run.vlist[0].thr.wsysll is not None
    assert not run.busy.any()
    assert eng.totals()["balance"]["messages"] < 2 * 3 * (P - 1) + sum(len(x) for x in [starts]) * 3 * run.trees.d


def _select_python(g, machine, view, queue, avail, cost, q, amount, load_p, base_q, rng, subset, cap_p, near_q):
    """selection.select as it was in Python and numpy (layer by layer, costs on q per layer): the reference for
    its search in C."""
    chosen, sent_p, sent_q, near = [], 0.0, 0.0, None
    for _ in range(64):
        if sent_q >= amount or sent_p >= cap_p:
            break
        free = avail[queue]
        pool = queue[free]
        if pool.size == 0:
            break
        if near_q and near is None:
            deg = g.xadj[queue + 1] - g.xadj[queue]
            hit = view.home[g.neighbours_of(queue)] == q
            near = np.bincount(np.repeat(np.arange(queue.size), deg), weights=hit, minlength=queue.size) > 0
        if near_q and near[free].any():
            pool = pool[near[free]]
        R = pool if pool.size <= subset else rng.choice(pool, size=subset, replace=False)
        on_q = costs_if_on(g, view, machine, R, q)
        dc = delta_cut(Costs(cost.wgt[R], cost.comm[R], cost.remap[R]), on_q)
        i = int(np.argmin(dc))
        layer, cq = R[i:i + 1], on_q.total[i:i + 1]
        while layer.size:
            cp = (cost.wgt[layer] + cost.comm[layer] + cost.remap[layer]).tolist()
            k, run_p, run_q, now_p, now_q = 0, 0.0, 0.0, sent_p, sent_q
            for a, b in zip(cp, cq.tolist()):
                before_p = sent_p + run_p
                run_p += a
                run_q += b
                after_p, after_q = sent_p + run_p, sent_q + run_q
                if not (after_q - b < amount and before_p < cap_p and base_q + after_q <= load_p - after_p):
                    break
                k, now_p, now_q = k + 1, after_p, after_q
            sent_p, sent_q = now_p, now_q
            avail[layer[:k]] = False
            chosen.append(layer[:k])
            if k < layer.size:
                return np.concatenate(chosen), sent_p, sent_q
            nb = g.neighbours_of(layer, distinct=True)
            layer = nb[avail[nb]]
            cq = costs_if_on(g, view, machine, layer, q).total if layer.size else cq
    return (np.concatenate(chosen) if chosen else queue[:0]), sent_p, sent_q


@pytest.mark.parametrize("near_q", [False, True])
@pytest.mark.parametrize("machine", ["uniform", "grid:2:3"])
def test_selection_search_in_c_is_the_layer_by_layer_search(mini, machine, near_q):
    """§3.4's selection (its search in C, _queue.search) chooses the same vertices and sums, to the bit, as the
    Python search layer by layer, on one random stream, with data moved in p's view."""
    g = mini[1].data
    P = 4
    m = Machine.parse(machine, P)
    s = initial_state(mini[1], P, 0)
    rng = np.random.default_rng(3)
    home = s.home.copy()
    moved = rng.choice(g.n, g.n // 10, replace=False)
    home[moved] = rng.integers(0, P, moved.size)  # p's view: some data elsewhere (Remap, Comm to other homes)
    view = State(s.owner, home, P)
    for trial in range(60):
        p, q = (int(x) for x in rng.choice(P, 2, replace=False))
        queue = np.flatnonzero(s.owner == p)
        cost = costs_if_on(g, view, m, np.arange(g.n), s.owner)
        total = float(cost.total[queue].sum())
        amount, cap = (float(x) * total for x in rng.random(2) * rng.choice([0.05, 0.5, 2.0]))
        base = float(rng.random() * total)
        seed = int(rng.integers(1 << 30))
        want_avail, got_avail = s.owner == p, s.owner == p
        want = _select_python(g, m, view, queue, want_avail, cost, q, amount, total, base,
                              np.random.default_rng(seed), 8, cap, near_q)
        got = select(g, m, view, queue, got_avail, cost, q, amount, total, base, np.random.default_rng(seed), 8,
                     cap_p=cap, near_q=near_q)
        assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
        assert np.array_equal(got_avail, want_avail)


def _plan_rows_numpy(rows, nbd, gwlen, P, fill_all=False):
    """plan_rows as it was (every receiver sorts every sender): the reference for its heap."""
    import math
    W = math.ceil(gwlen / P - 1e-9)
    ids, L, flags = rows[:, 0].astype(np.int64), rows[:, 1], rows[:, 2].astype(np.int64)
    S, surplus = ids[L > W], (L - W)[L > W]
    o = np.argsort(S)
    S, surplus = S[o], surplus[o]
    r_mask = (((flags & 1) > 0) | (fill_all & ((flags & 2) > 0))) & (L < W)
    R, RL = ids[r_mask], L[r_mask]
    ro = np.lexsort((R, -(W - RL)))
    rev = {}
    for i in S.tolist():
        for q in np.asarray(nbd.get(i, ())).tolist():
            rev.setdefault(q, []).append(i)
    out = {}
    for j, base in zip(R[ro].tolist(), RL[ro].tolist()):
        need = W - base
        adj = np.isin(S, np.asarray(nbd.get(j, ()))) | np.isin(S, rev.get(j, ()))
        for k in np.lexsort((S, -surplus, ~adj)).tolist():
            if need <= 1e-9:
                break
            amt = min(need, float(surplus[k]))
            if amt <= 1e-9:
                continue
            out.setdefault(int(S[k]), []).append((j, float(amt), float(base)))
            surplus[k] -= amt
            need -= amt
            base += amt
    return out


def test_plan_is_every_receiver_sorting_every_sender():
    """The root's plan (its senders in a heap) equals, entry for entry and in order, the plan whose every receiver
    sorts every sender by (neighbour, surplus, number)."""
    rng = np.random.default_rng(9)
    for trial in range(300):
        P = int(rng.choice([4, 16, 64, 300]))
        loads = rng.choice([rng.random(P) * 100, np.round(rng.random(P) * 20), np.full(P, 7.0)], axis=0)
        loads = loads * rng.choice([1.0, 1e-8])
        flags = rng.integers(0, 4, P).astype(float)
        rows = np.stack([rng.permutation(P).astype(float), loads, flags], axis=1)
        nbd = {int(p): rng.choice(P, int(rng.integers(0, 5)), replace=False) for p in rng.choice(P, P // 2)}
        gw = float(loads.sum()) * float(rng.choice([1.0, 0.7]))
        fill = bool(rng.integers(2))
        want = _plan_rows_numpy(rows, nbd, gw, P, fill)
        got = plan_rows(rows, nbd, gw, P, fill)
        assert list(got.items()) == list(want.items())


def test_outbox_sends_list_and_array_fields_alike():
    """An UP message's fields go out as one int64 array, the others as lists of ints: one superstep mixing
    both sends the same words, counts, bytes and kinds as the same messages all as lists."""
    rows = np.array([[3.0, 12.5, 3.0], [1.0, 0.25, 0.0]])
    nbd = (np.array([3]), np.array([2]), np.array([0, 1]))
    op = (4, 1, 2, True)
    up = msg.up_fields(op, rows, nbd)
    assert up.dtype == np.int64
    got = {}
    for form in ("mixed", "lists"):
        eng = Engine(4, comm=None)
        out = msg.Outbox()
        out.add(0, 1, msg.NAK, (*op, 0))
        out.add(0, 2, msg.UP, up if form == "mixed" else up.tolist())
        out.add(1, 2, msg.DATA, [5, 6], 48)
        out.add(1, 3, msg.UP, up if form == "mixed" else up.tolist())
        out.locate(2, np.array([0, 3]), np.array([2, 7, 8]))
        out.flush(eng)
        eng.exchange()
        b, loc = eng.received(msg.TAG), eng.received("locate")
        got[form] = (b.src.tolist(), b.dst.tolist(), b.values.tolist(), b.nbytes.tolist(), b.kind.tolist(),
                     loc.dst.tolist(), loc.values.tolist())
    assert got["mixed"] == got["lists"]
    rows_back, nbd_back = msg.read_up(np.array(up[4:]))
    assert np.array_equal(rows_back, rows) and [a.tolist() for a in nbd_back] == [[3], [2], [0, 1]]


def test_selection_draws_r_from_the_whole_local_queue(mini):
    """§3.4: p "randomly picks a subset of vertices from those queued locally": by default MinV can be a vertex
    with no neighbour whose data q holds; ``near_q`` (``subset_from=receiver``, our variant) never draws one."""
    g = mini[1].data
    P = 4
    m = Machine.parse("uniform", P)
    s = initial_state(mini[1], P, 0)
    p, q = 0, 1
    queue = np.flatnonzero(s.owner == p)
    near = np.array([(s.home[g.neighbours_of(np.array([v]))] == q).any() for v in queue])
    assert near.any() and not near.all()
    cost = costs_if_on(g, s, m, np.arange(g.n), s.owner)
    total = float(cost.total[queue].sum())
    first = {}
    for near_q in (False, True):
        firsts = set()
        for seed in range(40):  # one vertex: the search stops at MinV (amount reached)
            got, _, _ = select(g, m, s, queue, s.owner == p, cost, q, 1e-9, total, 0.0, np.random.default_rng(seed),
                               1, near_q=near_q)
            firsts.add(int(got[0]))
        first[near_q] = firsts
    far = set(queue[~near].tolist())
    assert first[False] & far
    assert not first[True] & far
