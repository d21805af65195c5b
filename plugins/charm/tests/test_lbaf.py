"""lbaf-iat, LBAF's InformAndTransfer: the inform stage on the engine, the order strategies, the two criteria."""
import numpy as np
import pytest

from harness import Engine, Graph
from lbbench_charm import _loops, clustering, lbaf, work


def rngs(seed=0):
    return lambda stream: np.random.default_rng([seed, *map(ord, stream)])


def problem(P=32, n_per=24, seed=4):
    rng = np.random.default_rng(seed)
    owner = np.repeat(np.arange(P), n_per)
    load = (1 + 4 * (owner < P // 4)) * rng.lognormal(0, 0.3, owner.size)
    return load, owner


def run(load, owner, graph=None, movable=None, self_comm=None, entity=None, **kw):
    P = int(owner.max()) + 1
    args = dict(criterion="tempered", order="decreasing_loads", iterations=4, rounds=3, fanout=2, max_objects=1,
                deterministic=False, rng_of=rngs())
    args.update(kw)
    eng = Engine(P, comm=None)
    movable = np.ones(load.size, bool) if movable is None else movable
    graph = graph or Graph.from_edges(load.size, np.empty(0, int), np.empty(0, int))
    on = lbaf.partners(graph, np.zeros(load.size, bool) if self_comm is None else self_comm)
    return eng, lbaf.balance(eng, load, owner, movable, on, np.arange(load.size) if entity is None else entity,
                             **args)


def test_inform_stage_is_engine_traffic():
    """Round 0: every rank sends its id to `fanout` others; then `rounds` - 1 rounds to at most `fanout` known
    peers (fewer when it knows fewer); one superstep each."""
    load, owner = problem()
    eng, _ = run(load, owner, iterations=1, rounds=1)
    assert eng.step_stats("balance")["messages"] == 32 * 2
    eng, _ = run(load, owner, iterations=1, rounds=3)
    st = eng.step_stats("balance")
    assert st["supersteps"] == 3 and st["max_msgs_per_vproc"] == 2
    assert 2 * 32 * 2 < st["messages"] < 3 * 32 * 2
    known = lbaf.inform(Engine(32, comm=None), 3, 2, rngs())
    assert all(p in k for p, k in enumerate(known)) and min(k.size for k in known) >= 3


class Pick:
    """A stand-in generator whose ``choice`` returns one given target (which must be among the peers)."""

    def __init__(self, target):
        self.target = target

    def choice(self, peers, size, replace):
        assert self.target in peers and size == 1 and not replace
        return np.array([self.target])


def test_inform_messages_carry_the_senders_live_set():
    """LBAF's Message holds a reference to its sender's known set. Round 0: p -> p + 1 (mod 4), so rank p knows
    {p - 1, p}; round 1: p -> p - 1. Receivers are processed in the order first sent to: 3, 0, 1, 2. Rank 3 takes
    {0, 3} from 0, so when rank 2 is processed, 3's set is {0, 2, 3}: rank 2 knows everyone (a snapshot taken at
    sending would have given it {1, 2, 3})."""
    to = lambda s: Pick((int(s.split("/")[1]) + (1 if s.startswith("0/") else -1)) % 4)
    known = lbaf.inform(Engine(4, comm=None), 2, 1, to)
    assert [k.tolist() for k in known] == [[0, 1, 3], [0, 1, 2], [0, 1, 2, 3], [0, 2, 3]]


def test_inform_reaches_as_many_peers_as_lbafs():
    """Mean peers known at P = 64, fanout 2 over 10 seeds: LBAF (9615e7ab, __execute_information_stage on a
    64-rank trace, seeds 0-9) 9.98 with 2 rounds, 50.5 with 4."""
    for rounds, lbafs in ((2, 9.98), (4, 50.5)):
        mean = np.mean([[k.size - 1 for k in lbaf.inform(Engine(64, comm=None), rounds, 2, rngs(s))]
                        for s in range(10)])
        assert abs(mean - lbafs) < 0.05 * lbafs, (rounds, mean)


def test_tempered_moves_a_zero_load_object_off_the_lightest_rank():
    """Rank 0 (objects of load 0 and 1) is lighter than its target (5, pinned): the zero-load object's tempered
    value is max(1, 5) - max(1, 5) = 0, not negative, so LBAF moves it; the object of load 1 is rejected."""
    load, owner = np.array([0.0, 1.0, 5.0]), np.array([0, 0, 1])
    _, out = run(load, owner, movable=np.array([True, True, False]), iterations=1, rounds=1, fanout=1,
                 deterministic=True)
    assert out["owner"].tolist() == [1, 0, 1] and out["transfers"] == 1 and out["rejects"] == 1


def test_strict_never_moves_an_object_that_messages_itself():
    """StrictLocalizingCriterion: an object is its own communication partner when it messages itself, and it is
    on the source rank: -1, so it stays; the same objects without self-messages move."""
    load, owner = problem(P=8, n_per=8)
    talk = np.zeros(load.size, bool)
    talk[owner < 2] = True
    _, free = run(load, owner, criterion="strict")
    _, pinned = run(load, owner, criterion="strict", self_comm=talk)
    assert not np.array_equal(free["owner"][talk], owner[talk])
    assert np.array_equal(pinned["owner"][talk], owner[talk]) and pinned["rejects"] > 0


def test_tempered_transfers_never_raise_the_maximum_and_balance():
    load, owner = problem()
    before = np.bincount(owner, weights=load, minlength=32)
    for deterministic in (False, True):
        _, out = run(load, owner, deterministic=deterministic, max_objects=4)
        after = np.bincount(out["owner"], weights=load, minlength=32)
        assert out["transfers"] > 0 and after.max() < 0.5 * before.max()
        assert np.isclose(after.sum(), before.sum())


def test_order_strategies_pop_from_the_end():
    load = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    objs = np.arange(5)
    entity = np.array([3, 0, 4, 1, 2])  # each task's place in entity id order
    ordered = lambda order, avg: lbaf.ordered(order, objs, load, avg, entity).tolist()
    assert ordered("decreasing_loads", 0.0)[-1] == 1  # lightest is popped first
    assert ordered("increasing_loads", 0.0) == [1, 3, 2, 4, 0]
    # excess over an average of 10: 5; loads <= 5 descending, then > 5 ascending
    assert ordered("fewest_migrations", 10.0) == [0, 4, 2, 3, 1]
    # ascending cumulative 1, 3, 6, ...: bisect(.., 5) + 1 = 3 -> the 3 smallest descending, then the rest
    assert ordered("small_objects", 10.0) == [2, 3, 1, 4, 0]
    assert ordered("element_id", 0.0) == [1, 3, 4, 0, 2] and ordered("arbitrary", 0.0) == [0, 1, 2, 3, 4]


def test_strict_criterion_keeps_communicating_pairs_together():
    """Pairs of objects that talk, both on one rank: strict never separates them, tempered does."""
    load, owner = problem(P=8, n_per=8)
    u = np.arange(0, load.size, 2)
    g = Graph.from_edges(load.size, u, u + 1)
    _, strict = run(load, owner, g, criterion="strict", max_objects=8)
    _, tempered = run(load, owner, g, criterion="tempered")
    assert np.array_equal(strict["owner"], owner) and strict["rejects"] > 0
    assert not np.array_equal(tempered["owner"], owner)


def test_pinned_objects_stay_and_same_streams_same_result():
    load, owner = problem()
    movable = np.arange(load.size) % 3 != 0
    a = run(load, owner, movable=movable)[1]["owner"]
    assert np.array_equal(a[~movable], owner[~movable])
    assert np.array_equal(a, run(load, owner, movable=movable)[1]["owner"])


# ------------------------------------------------------------------ transfer=clustering (LBAF's ClusteringTransferStrategy)

def cluster_run(load, owner, shared, movable=None, **kw):
    """lbaf-iat with transfer=clustering at LBAF's defaults (deterministic, P = 2: both ranks know each other)."""
    params = dict(crit="tempered", deterministic=True, max_objects=8, rtol=0.05, max_subclusters=10**6,
                  threshold=0.0, min_improvement=0.0, separate=False)
    params.update(kw)
    movable = np.ones(load.size, bool) if movable is None else movable
    graph = Graph.from_edges(load.size, np.empty(0, int), np.empty(0, int))
    on = lbaf.partners(graph, np.zeros(load.size, bool))
    stage = clustering.stage(load, movable, np.asarray(shared), on, **params)
    P = int(owner.max()) + 1
    return lbaf.balance(Engine(P, comm=None), load, owner, movable, on, np.arange(load.size), criterion=params["crit"],
                        order="arbitrary",
                        iterations=4, rounds=1, fanout=1, max_objects=params["max_objects"],
                        deterministic=params["deterministic"], rng_of=rngs(), stage=stage)


def test_clusters_swap_whole():
    """Rank 0: clusters A (objects 0, 1: 3 + 3) and B (2, 3: 2 + 2); rank 1: C (4: 1). Rank 0's A moves alone to
    rank 1 (its criterion 10 - 7 = 3 above 5% of 6), then rank 1 swaps A for B (7 - 6 = 1 above 0.3):
    loads 6 and 5, no subcluster can then move without dropping a rank below 95% of the average."""
    load = np.array([3.0, 3.0, 2.0, 2.0, 1.0])
    out = cluster_run(load, np.array([0, 0, 0, 0, 1]), [10, 10, 20, 20, 30])
    assert out["owner"].tolist() == [0, 0, 1, 1, 1] and out["transfers"] == 2 + 4


def test_subclusters_move_part_of_a_cluster():
    """One cluster of 4 + 3 + 2 + 1 on rank 0, one of 2 on rank 1 (average 6): no swap helps; the subclusters
    leaving rank 0 at 6 or more, lightest first ((0,) and (1, 3) both reach 6: (0,) enumerated first), so object 0
    moves and the loads are 6 and 6. Without subclustering nothing moves; objects without a block never do."""
    load = np.array([4.0, 3.0, 2.0, 1.0, 2.0])
    owner = np.array([0, 0, 0, 0, 1])
    assert cluster_run(load, owner, [5, 5, 5, 5, 9])["owner"].tolist() == [1, 0, 0, 0, 1]
    assert cluster_run(load, owner, [5, 5, 5, 5, 9], max_subclusters=0)["owner"].tolist() == owner.tolist()
    assert cluster_run(load, owner, [-1, -1, -1, -1, 9])["owner"].tolist() == owner.tolist()


def test_clustering_balances_and_keeps_blocks_whole_without_subclusters():
    """32 ranks, 4 blocks each: swaps alone keep every block on one rank; with subclusters it balances further;
    pinned and block-less objects stay; the same streams give the same owners."""
    load, owner = problem()
    shared = owner * 4 + np.arange(owner.size) % 4
    shared[::7] = -1
    movable = np.arange(load.size) % 5 != 0
    before = np.bincount(owner, weights=load).max()
    for det in (True, False):
        whole = cluster_run(load, owner, shared, movable, deterministic=det, max_subclusters=0)["owner"]
        assert all(np.unique(whole[(shared == b) & movable]).size == 1 for b in np.unique(shared[shared >= 0]))
        sub = cluster_run(load, owner, shared, movable, deterministic=det)
        for o in (whole, sub["owner"]):
            assert np.array_equal(o[(shared < 0) | ~movable], owner[(shared < 0) | ~movable])
        after = [np.bincount(o, weights=load, minlength=32).max() for o in (whole, sub["owner"])]
        assert after[1] <= after[0] < 0.8 * before
        assert np.array_equal(sub["owner"], cluster_run(load, owner, shared, movable, deterministic=det)["owner"])


def test_deterministic_subclusters_that_would_not_finish_are_refused():
    load = np.ones(60)
    with pytest.raises(ValueError, match="more than 1048576 subclusters of at most 30 objects"):
        cluster_run(load, np.repeat([0, 1], 30), np.repeat([0, 1], 30), max_objects=30)


@pytest.mark.mpi
def test_clustering_is_the_same_under_mpiexec(tmp_path):
    """transfer=clustering on a trace with shared blocks and pinned tasks: identical owners and figures at R = 1
    and under mpiexec -n 2 (the deterministic and the random strategy, and work_model=affine with homing and a
    memory bound that binds); so are the recursive transfer (its C walk), grapevine and refine."""
    import io

    import pandas as pd

    from harness import compare
    from harness.check.conformance import FIGURES
    from harness.engine.launch import mpirun

    methods = ("lbaf-iat[transfer=clustering,max_objects_per_transfer=4],"
               "lbaf-iat[transfer=clustering,deterministic=false,iterations=3],"
               "lbaf-iat[transfer=clustering,max_objects_per_transfer=4,work_model=affine,delta=1e-9,"
               "max_memory_usage=5500000],lbaf-iat,grapevine,refine")  # 1 MiB blocks: at most 5 on a rank
    wl = "vt-synthetic[ranks=8,phases=2,tasks=24,pinned=0.1,blocks=4,amp=8]"
    res = mpirun(2, "-m", "harness.present.cli", "compare", "--plugins", methods, "-w", wl, "--format", "csv",
                 "--no-cache", "-q", "--out", str(tmp_path / "mpi"), env={"LBBENCH_CACHE": str(tmp_path / "c2")})
    assert res.returncode == 0, res.stderr
    two = pd.read_csv(io.StringIO(res.stdout), dtype={"owners_hash": str})
    one = compare(methods, workload="vt-synthetic", workload_params=dict(ranks=8, phases=2, tasks=24, pinned=0.1,
                  blocks=4, amp=8), P=None, out=str(tmp_path / "one"), progress=False, cache=False)
    assert (one["status"] == "ok").all() and (two["status"] == "ok").all()
    assert list(one["owners_hash"]) == list(two["owners_hash"])
    assert np.array_equal(one[FIGURES].to_numpy(float), two[FIGURES].to_numpy(float))
    assert (one["charm_transfers"][one["algorithm"] != "refine"] > 0).all()


def test_the_swap_count_carries_over_iterations():
    """ClusteringTransferStrategy's __n_swaps is set in its constructor and never reset: with
    separate_subclustering and random transfers, once an iteration swapped, no later one subclusters. Rank 0
    holds a block of 4 + 3 + 2 + 1, rank 1 one of 2: no swap helps, a fresh strategy moves a subcluster; after
    an iteration that swapped (rank 1 empty: a block moves there), the same call moves nothing."""
    load, shared = np.array([4.0, 3, 2, 1, 2]), np.array([5, 5, 5, 5, 9])
    on = lbaf.partners(Graph.from_edges(5, np.empty(0, int), np.empty(0, int)), np.zeros(5, bool))
    params = dict(crit="tempered", deterministic=False, max_objects=8, rtol=0.05, max_subclusters=10**6,
                  threshold=0.0, min_improvement=0.0, separate=True)
    known = [np.array([0, 1])] * 2

    def moved(stage, owner):
        stage(known, owner, np.random.default_rng(1))
        return int((owner != [0, 0, 0, 0, 1]).sum())

    assert moved(clustering.stage(load, np.ones(5, bool), shared, on, **params), np.array([0, 0, 0, 0, 1])) == 1
    stage = clustering.stage(load, np.ones(5, bool), shared, on, **params)
    stage(known, np.zeros(5, np.int64), np.random.default_rng(1))
    assert moved(stage, np.array([0, 0, 0, 0, 1])) == 0


# ------------------------------------------------------------------ work_model=affine (LBAF's AffineCombination)

def test_affine_combination_by_hand():
    """AffineCombinationWorkModel.compute, alpha 2, beta 0.25, gamma 1, delta 0.5, max_memory_usage 29. Rank 0:
    objects 0 (load 4, block A, working 3) and 1 (2, B, working 2); rank 1: object 2 (1, C homed there, working 1);
    blocks of 10 bytes, footprints 1, rank working bytes 4 and 5; object 0 sends 8 bytes to 2, 2 sends 4 to 1, 1
    sends 0 to 0. Now: rank 0 2 x 6 + 0.25 x max(4, 8) + 1 = 15, rank 1 2 + 0.25 x 8 + 1 = 5, memory 4 + 20 + 2 + 3
    = 29 and 17. Object 1 to rank 1: 2 x 4 + 2 + 1 = 11 and 2 x 3 + 0.25 x 8 + 1 + 0.5 x 10 (B is homed on 0) = 14,
    memory 5 + 20 + 2 + 2 = 29: tempered 15 - 14 = 1. Object 0 to rank 1: memory 5 + 20 + 2 + 3 = 30 > 29: work
    inf, tempered -inf (without the bound 2 x 5 + 1 + 1 + 5 = 17, and 6 for rank 0). Swapping object 1 for 2:
    rank 0 2 x 5 + 0.25 x 4 + 1 + 0.5 x 10 = 17, rank 1 4 + 1 + 1 + 5 = 11."""
    from lbbench_charm import work

    load, owner = np.array([4.0, 2.0, 1.0]), np.array([0, 0, 1])
    comm = (np.array([0, 2, 1]), np.array([2, 1, 0]), np.array([8.0, 4.0, 0.0]))
    kw = dict(alpha=np.array([2.0, 2.0]), beta=0.25, gamma=1.0, delta=0.5, footprint=np.ones(3),
              overhead=np.array([3.0, 2.0, 1.0]), rank_bytes=np.array([4.0, 5.0]), block=np.arange(3),
              block_size=np.full(3, 10.0), block_home=np.array([0, 0, 1]), comm=comm)
    m = work.Affine(load, owner.copy(), 2, max_memory=29.0, **kw)
    assert m.work(np.array([0, 1])).tolist() == [15.0, 5.0]
    assert [np.ravel(x).tolist() for x in m.after(0, [1], np.array([1]))] == [[11.0], [14.0]]
    assert [np.ravel(x).tolist() for x in m.after(0, [0], np.array([1]))] == [[6.0], [np.inf]]
    assert lbaf.criterion("tempered", m, 0, np.array([1, 1]), [1], False).tolist() == [1.0, 1.0]
    assert lbaf.criterion("tempered", m, 0, np.array([1]), [0], False).tolist() == [-np.inf]
    assert [np.ravel(x).tolist() for x in m.after(0, [1], np.array([1]), back=[2])] == [[17.0], [11.0]]
    free = work.Affine(load, owner.copy(), 2, max_memory=0.0, **kw)
    assert [np.ravel(x).tolist() for x in free.after(0, [0], np.array([1]))] == [[6.0], [17.0]]
    m.move([1], 0, 1)
    assert m.work(np.array([0, 1])).tolist() == [11.0, 14.0] and m.owner.tolist() == [0, 1, 1]
    # the deterministic pick skips -inf and nan (LBAF's c_try > c_dst from -inf); none: -1
    assert lbaf.select(np.array([np.nan, -np.inf, 2.0, 2.0]), True, None) == 2
    assert lbaf.select(np.array([np.nan, -np.inf]), True, None) == -1


def test_strict_sees_zero_byte_partners():
    """LBAF counts every SendRecv pair, zero bytes included: with meta["comm"]'s pairs, strict keeps a pair
    that exchanged 0 bytes together (it is no graph edge)."""
    load, owner = problem(P=8, n_per=8)
    u = np.arange(0, load.size, 2)
    none = Graph.from_edges(load.size, np.empty(0, int), np.empty(0, int))
    on = lbaf.partners(none, np.zeros(load.size, bool), (u, u + 1, np.zeros(u.size)))
    out = lbaf.balance(Engine(8, comm=None), load, owner, np.ones(load.size, bool), on, np.arange(load.size),
                       criterion="strict", order="decreasing_loads", iterations=4, rounds=3, fanout=2, max_objects=8,
                       deterministic=False, rng_of=rngs())
    assert np.array_equal(out["owner"], owner) and out["rejects"] > 0


def test_vt_reader_keeps_what_lbaf_reads(tmp_path):
    """A two-rank LBDatafile: a -> b with 0 bytes, b -> c with 8, c -> b with 2, a -> a with 3. The graph keeps
    one edge (b, c: 10 bytes), as before, so every partitioner sees what it saw; meta["comm"] keeps the three
    ordered pairs of distinct tasks, zero bytes included (LBAF's SendRecv pairs), and strict (lbaf-iat) keeps a
    and b together. The memory fields and metadata.rank_alpha are read for work_model=affine."""
    import json

    from workloads import vt

    def task(i, node, **ud):
        return {"entity": {"id": i, "home": node, "migratable": True, "type": "object"}, "node": node,
                "resource": "cpu", "time": 1.0 + i, "user_defined": ud}

    def comm(a, b, nbytes):
        return {"type": "SendRecv", "from": {"type": "object", "id": a}, "to": {"type": "object", "id": b},
                "bytes": nbytes, "messages": 1}
    mem = dict(task_footprint_bytes=64.0, task_working_bytes=5.0, rank_working_bytes=100.0)
    docs = [{"type": "LBDatafile", "metadata": {"rank": 0, "rank_alpha": 2.0},
             "phases": [{"id": 0, "tasks": [task(1, 0, **mem), task(2, 0, **mem)],
                         "communications": [comm(1, 2, 0.0), comm(2, 3, 8.0), comm(1, 1, 3.0)]}]},
            {"type": "LBDatafile", "metadata": {"rank": 1},
             "phases": [{"id": 0, "tasks": [task(3, 1, **{**mem, "rank_working_bytes": 7.0})],
                         "communications": [comm(3, 2, 2.0)]}]}]
    for r, doc in enumerate(docs):
        (tmp_path / f"app.{r}.json").write_text(json.dumps(doc))
    lv = vt.generate(path=str(tmp_path))[0]
    assert lv.data.nedges == 1 and int(lv.data.cwgt.sum()) == 2 * 10  # one edge, both directions' bytes
    src, dst, nbytes = lv.meta["comm"]
    assert sorted(zip(src.tolist(), dst.tolist(), nbytes.tolist())) == [(0, 1, 0.0), (1, 2, 8.0), (2, 1, 2.0)]
    assert lv.meta["self_comm"].tolist() == [True, False, False]
    assert lv.meta["rank_working_bytes"].tolist() == [100.0, 7.0] and lv.meta["working_bytes"].tolist() == [5.0] * 3
    assert lv.meta["footprint_bytes"].tolist() == [64.0] * 3 and np.isnan(lv.meta["rank_alpha"]).tolist() == [False, True]
    on = lbaf.partners(lv.data, lv.meta["self_comm"], lv.meta["comm"])
    assert on(np.array([0, 0, 1]), [1], 0) and not lbaf.partners(lv.data, np.zeros(3, bool))(np.array([0, 0, 1]), [1], 0)


@pytest.mark.parametrize("order", ["element_id", "decreasing_loads", "fewest_migrations"])
def test_the_c_walk_decides_as_the_python_reference(order):
    """LoadOnly's deterministic tempered transfers walk each rank's objects in C (``fast``); every object
    through criterion and select in Python is the reference: the same owners and counts, zero loads included."""
    load, owner = problem(P=64, n_per=40, seed=7)
    load[::9] = 0.0
    entity = np.random.default_rng(3).permutation(load.size)
    movable = np.arange(load.size) % 11 != 0
    runs = [run(load, owner, movable=movable, entity=entity, order=order, deterministic=True, iterations=6,
                rounds=2, max_objects=8, fast=fast)[1] for fast in (True, False)]
    assert runs[0]["transfers"] > 100 and runs[0]["rejects"] > 100
    assert np.array_equal(runs[0]["owner"], runs[1]["owner"])
    assert (runs[0]["transfers"], runs[0]["rejects"]) == (runs[1]["transfers"], runs[1]["rejects"])


def test_the_c_walk_leaves_a_rounding_negative_to_the_extended_search():
    """w <= L_src - L_dst, yet L_dst + w rounds above L_src: tempered is -2.2e-16, so the walk stops before the
    object and Python's extended search draws (and rejects); the other object then moves, on both paths."""
    ls, lo, w = 1.093859586774235, 0.02834747652200631, 1.0655121102522287
    load, owner = np.array([0.5, w]), np.array([0, 0])
    loads = np.array([ls, lo])
    assert _loops.walk(np.array([0, 1]), 2, load, loads.copy(), owner.copy(), np.array([1]), 0) == (2, 0, 0)
    out = []
    for fast in (True, False):
        own = owner.copy()

        def model_of(o):
            m = work.LoadOnly(load, o, 2)
            m.loads[:] = loads
            return m
        out.append((lbaf.transfer(load, own, np.ones(2, bool), [np.array([0, 1])] * 2, None, np.arange(2),
                                  crit="tempered", order="arbitrary", deterministic=True, max_objects=8,
                                  rng=np.random.default_rng(0), model_of=model_of, fast=fast), own.tolist()))
    assert out[0] == out[1] == ((1, 1), [1, 0])
