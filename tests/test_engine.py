import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from harness import Engine, Machine
from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "engine_check.py")


def run(ranks, P, cores=None, crowded=None, layout="blocks"):
    res = mpirun(ranks, SCRIPT, str(P), timeout=120, cores=cores, env={"LBBENCH_LAYOUT": layout})
    assert res.returncode == 0, res.stderr
    if crowded is not None:
        assert f"crowded={crowded}" in res.stderr
    return json.loads(res.stdout)


def test_one_process_exchange_and_counters():
    eng = Engine(4, Machine.parse("grid:2:3", 4), comm=None)
    eng.post(0, 3, np.zeros(10, np.int64), kind="migration")
    eng.post(1, 1, b"abc")
    inbox = eng.exchange()
    assert inbox[3][0][0] == 0 and inbox[1] == [(1, "balance", b"abc")]
    t = eng.totals()
    assert t["migration"] == {"messages": 1, "bytes": 80, "modelled_s": pytest.approx((40e-6 + 80 / 36e6) * 3)}
    assert t["balance"]["messages"] == 1 and t["balance"]["modelled_s"] == 0  # to itself: no network time
    assert eng.pair_matrix("migration")[0, 3] == 80
    for v in range(4):  # every vproc sends to vproc 2: it receives 4, each sends 1
        eng.post(v, 2, b"x", kind="application")
    eng.post(0, 1, b"y", kind="application")
    eng.exchange()
    st = eng.step_stats("application")
    assert st == {"supersteps": 1, "max_msgs_per_vproc": 2, "max_recv_per_vproc": 4, "messages": 5,
                  "bytes": st["bytes"]}
    assert eng.step_stats("application", since=2)["supersteps"] == 0
    with pytest.raises(ValueError, match="not local"):
        Engine(4, comm=None).post(7, 0, b"")
    with pytest.raises(ValueError, match="unknown message kind"):
        Engine(4, comm=None).post(0, 0, b"", kind="gossip")


def test_object_and_batch_paths_count_the_same_messages_and_bytes():
    """The same messages posted one by one (arrays: counted by size) and sent as one batch (declared by
    their rows' size) give the same totals, step statistics, pair matrices and modelled times."""
    P = 6
    rng = np.random.default_rng(1)
    src = np.sort(rng.integers(0, P, 40))
    dst = rng.integers(0, P, 40)
    counts = rng.integers(0, 5, 40)
    values = rng.random((int(counts.sum()), 3))
    kinds = ["balance", "migration", "application"]
    one, many = Engine(P, Machine.parse("grid:2:3", P), comm=None), Engine(P, Machine.parse("grid:2:3", P), comm=None)
    off = np.concatenate([[0], np.cumsum(counts)])
    for step in range(2):
        for i in range(40):
            one.post(int(src[i]), int(dst[i]), values[off[i]:off[i + 1]], kind=kinds[(i + step) % 3])
        inbox = one.exchange()
        for k in range(3):
            pick = np.flatnonzero((np.arange(40) + step) % 3 == k)
            many.send(f"t{k}", src[pick], dst[pick], np.concatenate([values[off[i]:off[i + 1]] for i in pick]),
                      counts=counts[pick], kind=kinds[k])
        many.exchange()
        for k in range(3):  # the same rows, in the same (dst, src, post) order
            b = many.received(f"t{k}")
            want = [(d, s, p.tolist()) for d in range(P) for s, kind, p in inbox[d] if kind == kinds[k]]
            assert [(int(d), int(s), r.tolist()) for d, s, r in zip(b.dst, b.src, b.split())] == want
    assert one.totals() == many.totals()
    for kind in kinds:
        assert one.step_stats(kind) == many.step_stats(kind)
        assert (one.pair_matrix(kind) == many.pair_matrix(kind)).all()
        assert (one.pair_matrix(kind, "messages") == many.pair_matrix(kind, "messages")).all()
    # one stream with a kind per message (SBN's): the same totals as the three streams, in send order
    mixed = Engine(P, Machine.parse("grid:2:3", P), comm=None)
    for step in range(2):
        mixed.send("t", src, dst, values, counts=counts, kind=(np.arange(40) + step) % 3)
        mixed.exchange()
        assert mixed.received("t").kind.tolist() == [((i + step) % 3) for i in
                                                      np.lexsort((np.arange(40), src, dst)).tolist()]
    assert mixed.totals() == one.totals()


def test_batch_errors_and_declared_bytes():
    eng = Engine(4, comm=None)
    eng.send("x", [0, 1], 3, nbytes=2 ** 50, kind="migration")  # declared, never allocated
    eng.exchange()
    assert eng.totals()["migration"]["bytes"] == 2 ** 51 and len(eng.received("x")) == 2
    assert len(eng.received("y")) == 0
    with pytest.raises(ValueError, match="not local"):
        Engine(4, comm=None).send("x", 7, 0)
    with pytest.raises(ValueError, match="out of range"):
        Engine(4, comm=None).send("x", 0, 4)
    with pytest.raises(ValueError, match="counts sum"):
        Engine(4, comm=None).send("x", [0, 1], 1, np.zeros(3), counts=[1, 1])
    with pytest.raises(ValueError, match="negative bytes"):
        Engine(4, comm=None).send("x", 0, 1, nbytes=-8)
    with pytest.raises(ValueError, match="not an index"):
        Engine(4, comm=None).send("x", [0, 1], 1, kind=[0, 3])


def test_a_batch_travels_whole():
    from harness.engine.batch import Batch, pack, unpack

    rng = np.random.default_rng(3)
    n = 40
    counts = rng.integers(0, 4, n)
    b = Batch(np.arange(n), rng.integers(0, 9, n), rng.integers(0, 3, n), 8 * counts, counts,
              rng.integers(0, 100, int(counts.sum())))
    fields = ("src", "dst", "kind", "nbytes", "counts", "values")
    for a, z in [(0, n), (0, 0), (5, 17), (39, 40)]:
        want = b.select(np.arange(a, z))
        chunk = pack([("t", want)], [[0, z - a]], [[]])[0]
        if z == a:
            assert chunk == []  # nothing to send: no chunk at all
            continue
        back = unpack([b"".join(chunk)])[1]["t"]
        assert all(np.array_equal(getattr(back, f), getattr(want, f)) for f in fields)


def test_a_superstep_packs_for_every_rank_at_once():
    """One pack serves R ranks: rank r's chunk holds exactly its rows of each stream (values of any row shape
    and dtype, or none) and its object-path messages; a rank that gets nothing gets no chunk; the receiver
    joins each stream over its senders in rank order."""
    from harness.engine.batch import Batch, pack, unpack

    rng = np.random.default_rng(5)
    R = 4

    def stream(n, values):
        counts = rng.integers(0, 3, n) if values is not None else np.zeros(n, np.int64)
        v = None if values is None else values(int(counts.sum()))
        return Batch(np.arange(n), np.sort(rng.integers(0, 12, n)), rng.integers(0, 3, n), 4 * counts + 3,
                     counts, v)

    batches = [("a", stream(30, lambda m: rng.integers(-9, 9, m))),
               ("b", stream(17, lambda m: rng.random((m, 3)).astype(np.float32))),
               ("c", stream(9, None))]
    starts = np.array([0, 3, 6, 12, 12])  # rank 3 hosts no vproc: it gets nothing
    cuts = [np.searchsorted(starts[1:-1], b.dst, side="right") for _, b in batches]
    cuts = [np.searchsorted(r, np.arange(R + 1)) for r in cuts]
    objects = [[(0, 1, "balance", b"x")], [], [(2, 4, "balance", {"y": 1})], []]
    chunks = pack(batches, cuts, objects)
    assert chunks[3] == [] and all(len(c) % 8 == 0 for c in (b"".join(ch) for ch in chunks))
    for r in range(R):
        objs, got = unpack([b"".join(chunks[r])])
        assert objs == objects[r]
        for (tag, b), cut in zip(batches, cuts):
            want = b.select(np.arange(cut[r], cut[r + 1]))
            back = got.get(tag)
            if not len(want):
                assert back is None
                continue
            cols = ("src", "dst", "kind", "nbytes", "counts")
            assert all(np.array_equal(getattr(back, f), getattr(want, f)) for f in cols)
            if want.values is None:
                assert back.values is None
            else:
                assert back.values.dtype == want.values.dtype and np.array_equal(back.values, want.values)
    # objects alone (no stream this superstep)
    assert unpack([b"".join(pack([], [], [[(1, 2, "balance", [3])]])[0])]) == ([(1, 2, "balance", [3])], {})
    # from several senders: each stream joined in sender order
    objs, got = unpack([b"".join(chunks[0]), b"", b"".join(chunks[2])])
    assert objs == objects[0] + objects[2]
    want = batches[1][1].select(np.r_[cuts[1][0]:cuts[1][1], cuts[1][2]:cuts[1][3]])
    assert np.array_equal(got["b"].dst, want.dst) and np.array_equal(got["b"].values, want.values)


@pytest.mark.mpi
def test_engine_identical_on_1_2_3_4_ranks():
    P = 7
    ref = run(1, P)
    assert ref["sum"] == [21, 7] and ref["max"] == 36 and ref["supersteps"] == 5
    # a superstep with no message between ranks (each vproc to itself): delivered, the tally summed
    assert ref["self"] == {"rows": [[v, v, [[v, 2 * v]]] for v in range(P)], "tally": P}
    # messages arrive sorted by source, every one exactly once
    assert ref["inbox"]["0"]["1"][0][:2] == [0, "balance"]
    assert ref["totals"]["migration"]["messages"] == P and ref["totals"]["migration"]["bytes"] == 4 * P * 3 * 8
    # sends are counted on the sender's rank, deliveries on the receiver's: vproc (v mod 3 + step) gets the
    # application messages of v = 0, 3, 6 (three ranks at R = 4), so the most one vproc received is 3
    app = ref["stats"]["application"]
    assert app == {"supersteps": 3, "max_msgs_per_vproc": 1, "max_recv_per_vproc": 3, "messages": 3 * P,
                   "bytes": app["bytes"]}
    assert ref["stats_since_1"]["supersteps"] == 2 and ref["stats_since_1"]["messages"] == 2 * P
    assert ref["stats"]["migration"]["supersteps"] == 1
    assert ref["hosts"] is True  # Engine.hosts(v) on exactly the rank that runs v (compared at every R below)
    rows = ref["rows"]["0"]  # batches arrive by destination, then source, every message once
    assert rows == sorted(rows, key=lambda m: m[:2]) and len(rows) == 2 * P
    assert rows[:2] == [[0, 1, [[1.0, 0.0]]], [0, 4, [[4.0, 0.0]]]]  # to vproc 0: (5 src + 1 or 2) % 7 = 0
    for ranks in (2, 3, 4):
        assert run(ranks, P) == ref
    # any layout moves vprocs between ranks, never a figure: hypercube neighbours apart, round robin
    assert run(3, P, layout="interleave") == ref
    assert run(2, P, layout="roundrobin") == ref
    # more ranks than cores: every collective first waits in a nonblocking barrier, yielding the core
    assert run(3, P, cores=1, crowded=True) == ref


def test_a_senders_modelled_time_is_summed_in_send_order_across_both_paths():
    """Interleaved posts and batch sends count as if all had been posted in that order (bit-identical sums)."""
    P, m = 4, Machine.parse("grid:2:3", 4)
    mixed, posted = Engine(P, m, comm=None), Engine(P, m, comm=None)
    sizes = [1752673, 8132702, 6494157, 9127555, 5036270, 6066358, 9707428, 7294965]  # order changes the sum
    for i, nb in enumerate(sizes):
        dst = 1 + i % 3
        posted.post(0, dst, b"x" * nb, kind="migration")
        if i % 2:
            mixed.send(f"t{i % 4}", 0, dst, nbytes=nb, kind="migration")
        else:
            mixed.post(0, dst, b"x" * nb, kind="migration")
    posted.exchange()
    mixed.exchange()
    assert mixed.totals() == posted.totals()  # == on floats: the same additions in the same order


def test_one_rank_superstep_in_one_call_is_the_general_path(monkeypatch):
    """At R = 1 a superstep of batches is counted and delivered in one C call (``_engine.local``): the same
    batches (every column, values of any row shape), counts, modelled times and step statistics as the general
    path (``_count_sent``, ``deliver`` per tag, ``most``), which a tag sent twice in a superstep still takes."""
    from harness.engine.counters import Counters

    def run(general: bool) -> tuple:
        if general:
            monkeypatch.setattr(Counters, "local", lambda self, step, sends, wire: None)
        else:
            monkeypatch.undo()
        rng, P = np.random.default_rng(11), 12
        e, got = Engine(P, Machine.parse("grid:3:4", P), comm=None), []
        for step in range(6):
            for tag, shape in (("b", (2,)), ("a", ()), ("c", None)) if step % 3 else (("a", ()), ("a", ())):
                n = int(rng.integers(1, 9))
                counts = rng.integers(0, 3, n)
                values = None if shape is None else rng.integers(0, 99, (int(counts.sum()), *shape))
                e.send(tag, rng.integers(0, P, n), rng.integers(0, P, n), values,
                       counts=None if values is None else counts, nbytes=rng.integers(0, 1 << 20, n),
                       kind=rng.integers(0, 3, n))
            e.exchange(tally=step)
            got.append((e.tally, {t: [getattr(e.received(t), f) for f in ("src", "dst", "kind", "nbytes", "counts",
                                                                         "offsets", "values")] for t in "abc"}))
        return got, e.totals(), [e.step_stats(k) for k in ("balance", "migration", "application")]

    fused, general = run(False), run(True)
    for (tally, a), (tally2, b) in zip(fused[0], general[0]):
        assert tally == tally2 and a.keys() == b.keys()
        for t in a:
            assert all((x is None and y is None) or np.array_equal(x, y) for x, y in zip(a[t], b[t]))
    assert fused[1:] == general[1:]


def _spin(seconds: float) -> None:
    t = time.process_time()
    while time.process_time() - t < seconds:  # CPU work
        pass


@pytest.mark.parametrize("n", [4, 100])  # a short loop (Python) and a long one (numpy)
def test_each_charges_every_vproc_its_turn(n):
    """Engine.each charges the superstep's CPU to the vprocs it visits, each its turn's wall share (the work
    measure of balance_ranks), also when the loop is left inside a turn; vprocs it does not visit are charged
    nothing; the charges are made when read (Engine.charged) or at the next exchange, never beyond the CPU."""
    eng = Engine(n, comm=None)
    seen = []
    for p in eng.each(range(1, n, 2)):
        seen.append(p)
        if p == 3:
            _spin(0.05)
            break
    assert seen == [1, 3] and not eng._vp_cpu.any()  # timed, not charged yet
    cpu = eng.charged()
    assert not cpu[[v for v in range(n) if v not in seen]].any() and not eng._pending
    assert 0.045 <= cpu[1] + cpu[3] <= eng.busy_s() and cpu[3] > cpu[1] >= 0.0


def test_each_charges_a_loop_run_to_its_end_or_left_by_the_iterable():
    """Engine.each's C iterator: a loop run to its end charges every vproc it visited; an iterable that raises
    charges the turns that ran and the exception reaches the loop; numpy integers are vprocs too."""
    eng = Engine(8, comm=None)
    for p in eng.each(np.array([2, 5])):
        _spin(0.02)
    eng.exchange()  # the superstep's end: its turns charged
    assert eng._vp_cpu[[2, 5]].sum() >= 0.036 and eng._vp_cpu[[0, 1, 3, 4, 6, 7]].sum() == 0.0

    def vprocs():
        yield 6
        raise KeyError("gone")

    before = eng._vp_cpu.copy()
    with pytest.raises(KeyError, match="gone"):
        for p in eng.each(vprocs()):
            _spin(0.02)
    assert eng.charged()[6] - before[6] >= 0.018 and (eng._vp_cpu[:6] == before[:6]).all()
    with pytest.raises(IndexError):
        for p in eng.each([8]):
            pass


def test_each_rank_gets_its_share_of_the_cores_for_blas_threads(monkeypatch):
    """R ranks on a host of C cores: each rank's BLAS and OpenMP pools get C // R threads (at least one), a
    value the environment names is kept, and one rank alone changes nothing."""
    from harness.engine import threads

    monkeypatch.setattr(threads, "cores", lambda: 16)
    for k in threads.POOLS + ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"):
        monkeypatch.delenv(k, raising=False)
    assert threads.share(4) == {k: "4" for k in threads.POOLS}
    assert threads.share(32) == {k: "1" for k in threads.POOLS} and threads.share(2, on=6)["OMP_NUM_THREADS"] == "3"
    monkeypatch.setenv("MPI_LOCALNRANKS", "1")
    threads.share_cores()
    assert not any(k in os.environ for k in threads.POOLS)
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.setenv("MPI_LOCALNRANKS", "8")
    threads.share_cores()
    assert [os.environ[k] for k in threads.POOLS] == ["7", "2", "2"]


@pytest.mark.mpi
def test_ranks_started_by_mpirun_get_their_share_of_the_cores():
    from harness.engine.threads import POOLS, share

    # one write a rank (print(*args) writes each piece apart, and the two ranks' pieces can interleave)
    code = "import os, sys; sys.stdout.write(' '.join(str(os.environ.get(k)) for k in %r) + chr(10))" % (POOLS,)
    res = mpirun(2, "-c", code, timeout=120)
    want = " ".join(os.environ.get(k) or share(2)[k] for k in POOLS)
    assert res.returncode == 0 and res.stdout.split("\n")[:2] == [want, want], res.stderr[-500:]


def test_the_engine_refuses_what_it_cannot_count():
    """Issue 50: declared bytes past 2^53 in a level, fractional or out-of-range destinations (the value named),
    and messages never exchanged are errors, never wrapped counters or truncated vprocs."""
    eng = Engine(4, comm=None)
    with pytest.raises(ValueError, match=r"declares 2\.306e\+18 bytes.*2\^53"):
        eng.send("x", 0, 1, nbytes=2 ** 61)
    for _ in range(3):  # each send is within the bound, the level's sum is not
        eng.send("x", [0, 1], 2, nbytes=2 ** 51)
    with pytest.raises(ValueError, match=r"level's messages declare .*2\^53"):
        eng.exchange()
    with pytest.raises(ValueError, match=r"destination 0\.9 is not an integer"):
        Engine(4, comm=None).send("x", 0, np.array([1, 0.9]))
    with pytest.raises(ValueError, match=r"destination vproc 9 is out of range"):
        Engine(4, comm=None).send("x", 0, [1, 9])
    with pytest.raises(ValueError, match=r"destination 1\.5 is not an integer"):
        Engine(4, comm=None).post(0, 1.5, b"x")
    eng = Engine(4, comm=None)
    eng.send("x", 0, np.array([1.0, 2.0]))  # whole floats are vprocs
    eng.post(0, 1, b"x")
    with pytest.raises(ValueError, match=r"3 messages sent and never exchanged \(tags: x, the object path"):
        eng.drained()
    eng.exchange()
    eng.drained()
    assert eng.received("x").dst.tolist() == [1, 2]


def test_an_empty_thread_variable_counts_as_unset(monkeypatch):
    from harness.engine.threads import share

    monkeypatch.setenv("OMP_NUM_THREADS", "")
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert share(2, on=8) == {"OMP_NUM_THREADS": "4", "OPENBLAS_NUM_THREADS": "4"}


def test_layouts_place_every_vproc_on_one_rank():
    """profile (greedy on the busiest rank of each superstep) parts vprocs busy in one superstep; interleave
    parts hypercube neighbours; every rank gets a vproc; an unknown layout is one line."""
    from harness.engine.vprocs import interleave, profile_layout

    W = np.zeros((4, 8))
    W[0, :2] = 1.0  # superstep 0: vprocs 0 and 1 busy; superstep 1: vprocs 2 and 3
    W[1, 2:4] = 1.0
    rank = profile_layout(W, 2)
    assert rank[0] != rank[1] and rank[2] != rank[3] and set(rank.tolist()) == {0, 1}
    rank = interleave(16, 4)  # neighbours one bit apart on different ranks, 4 vprocs a rank
    assert all(rank[v] != rank[v ^ (1 << b)] for v in range(16) for b in range(4))
    assert np.bincount(rank).tolist() == [4, 4, 4, 4] and sorted(set(interleave(3, 3).tolist())) == [0, 1, 2]
    eng = Engine(8, comm=None, layout="interleave")
    assert list(eng.local) == list(range(8)) and eng.local_index.tolist() == list(range(8))
    with pytest.raises(ValueError, match="unknown vproc layout 'spiral'"):
        Engine(8, comm=None, layout="spiral")


def test_a_superstep_counted_after_a_refused_one_starts_from_zero():
    """The counters' per-vproc tallies live between supersteps (a superstep's counting costs its messages, not
    its rank's vprocs): a superstep refused part way (a message out of range) leaves none behind, so the next
    one's busiest sender and receiver are its own."""
    from harness.kernels import _engine

    P, i64 = 4, (lambda *x: np.array(x, np.int64))
    loc, conn, cluster = np.arange(P, dtype=np.int64), np.ones((1, 1)), np.zeros(P, np.int64)
    good = [(i64(0, 0, 0), i64(1, 1, 2), i64(2, 3, 3), i64(8, 8, 8))]
    first = _engine.counted(good, loc, P, 1e-6, 1e9, 1.0, conn, cluster)
    with pytest.raises(ValueError, match="out of range"):
        _engine.counted(good + [(i64(0, 0), i64(1, 9), i64(2, 2), i64(8, 8))], loc, P, 1e-6, 1e9, 1.0, conn, cluster)
    with pytest.raises(ValueError, match="out of range"):
        _engine.most([i64(0, 0), i64(0)], [i64(3, 3), i64(7)], loc, P)
    again = _engine.counted(good, loc, P, 1e-6, 1e9, 1.0, conn, cluster)
    assert again[0] == first[0] and first[0][0][:3] == (3, 24, 2)  # 3 messages, 24 bytes, vproc 1 sent 2
    assert _engine.most([i64(0, 0, 1)], [i64(3, 3, 2)], loc, P) == (2, 1, -1)


def test_a_sender_queues_for_every_exchange_of_the_cell():
    """``Engine.sender`` (a send in one C call, for a kernel): what it queues the next exchange delivers, at every
    superstep of the cell (the engine keeps its list of sends); arguments its call does not take it leaves to
    ``Engine.send``, queuing nothing."""
    eng, i64 = Engine(4, comm=None), (lambda *x: np.array(x, np.int64))
    send = eng.sender()
    for step in range(3):
        assert send("t", i64(0, 1), i64(3, 2), i64(step, step + 1), None, None, "balance") is None
        eng.exchange()
        got = eng.received("t")
        assert got.dst.tolist() == [2, 3] and got.values.tolist() == [step + 1, step]
    assert send("t", [0], [1], None, None, None, "balance") is False and not eng.pending()


def test_a_send_in_one_call_queues_what_the_general_path_queues():
    """``Engine.send``'s one C call (int64 columns or ints, an ndarray's rows, a kind's name) queues the same
    columns, values and row bytes as its general path (``Engine._send``: the conversions, then the checks), and
    refuses the same sends with the same line; other arguments go the general path."""
    P, i64 = 6, (lambda *x: np.array(x, np.int64))
    cases = [  # (src, dst, values, counts, nbytes, kind), the one-call path taken
        ((i64(0, 1, 2), i64(3, 4, 5), np.arange(6.0), i64(1, 2, 3), None, "migration"), True),
        ((i64(0, 1), 3, np.arange(8).reshape(4, 2), i64(1, 3), i64(8, 9), i64(0, 2)), True),
        ((2, i64(1, 2, 5), None, None, i64(7), 1), True),
        ((i64(0, 0).reshape(1, 2), i64(1, 2).reshape(2, 1), np.zeros((2, 2, 3), np.int8), None, None, "balance"),
         True),
        ((i64(), i64(), None, None, None, "application"), True),
        ((i64(0, 1), i64(2), np.zeros(3), i64(1, 1), None, "balance"), True),  # counts sum to 2, not 3
        ((i64(0), i64(6), None, None, None, "balance"), True),  # destination out of range
        ((i64(0, 1), i64(1, 2, 3), None, None, None, "balance"), True),  # lengths differ
        ((i64(0), i64(1), None, None, i64(-8), "balance"), True),  # negative bytes
        ((i64(0), i64(1), None, None, i64(2 ** 60), "balance"), True),  # past 2^53
        ((i64(0), i64(1), None, None, None, i64(3)), True),  # a kind not an index
        (([0, 1], np.array([2, 3], np.int32), None, None, None, "balance"), False),
        ((i64(0), np.array([1.0]), np.zeros(1, np.float32), None, np.array([8.0]), "balance"), False),
        ((i64(0), i64(1), [[1, 2]], None, None, "balance"), False),
        ((i64(0), i64(1), np.zeros(1, object), None, None, "balance"), False),
        ((i64(0), i64(1), np.array(3), None, None, "balance"), False),
        ((i64(0), i64(1), None, None, None, "other"), False),
        ((i64(0, 1), i64(1), np.arange(4)[::2], [1, 1], None, np.array([0, 1], np.int8)), False),
    ]
    for args, fast in cases:
        def queued(general: bool):
            eng = Engine(P, comm=None, layout="roundrobin")
            try:
                if general:
                    eng._send("t", *args)
                else:
                    eng.send("t", *args)
            except ValueError as e:
                return str(e)
            return [(t, [bytes(c) for c in cols], v, row) for t, cols, v, row in eng._sends]

        got = Engine(P, comm=None).sender()("t", *args)  # (the one call, as a kernel makes it: Engine.sender)
        assert (got is not False) == fast, args
        one, general = queued(False), queued(True)
        if isinstance(general, str):
            assert one == general, args
            continue
        assert [e[:2] + e[3:] for e in one] == [e[:2] + e[3:] for e in general], args
        for a, b in zip(one, general):  # the values as sent (an ndarray), or the general path's array of them
            assert a[2] is b[2] if isinstance(args[2], np.ndarray) else np.array_equal(a[2], b[2]), args


def test_a_delivered_batch_makes_its_rarely_read_columns_when_read():
    """The kernels' batches (``batch.Delivered``) make ``kind``, ``nbytes`` and ``counts`` when first read: the
    same columns as one Batch built from them, through ``select``, a copy and a pickle alike."""
    import copy
    import pickle

    from harness.engine.batch import Batch, Delivered

    eng = Engine(4, comm=None)
    eng.send("x", [0, 1, 2], [3, 3, 1], np.arange(12).reshape(6, 2), counts=[1, 2, 3], nbytes=[5, 6, 7],
             kind=[2, 0, 1])
    eng.exchange()
    got = eng.received("x")
    assert type(got) is Delivered and "kind" not in vars(got)
    want = Batch(np.array([2, 0, 1]), np.array([1, 3, 3]), np.array([1, 2, 0]), np.array([7, 5, 6]),
                 np.array([3, 1, 2]), np.array([[6, 7], [8, 9], [10, 11], [0, 1], [2, 3], [4, 5]]))
    for b in (got, pickle.loads(pickle.dumps(got)), copy.copy(got), got.select(np.arange(3))):
        for f in ("src", "dst", "kind", "nbytes", "counts", "values", "offsets"):
            assert np.array_equal(getattr(b, f), getattr(want, f)), f
    with pytest.raises(AttributeError):
        got.other
