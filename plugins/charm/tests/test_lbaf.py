"""lbaf-iat, LBAF's InformAndTransfer: the inform stage on the engine, the order strategies, the two criteria."""
import numpy as np
import pytest

from harness import Engine, Graph
from lbbench_charm import clustering, lbaf


def rngs(seed=0):
    return lambda stream: np.random.default_rng([seed, *map(ord, stream)])


def problem(P=32, n_per=24, seed=4):
    rng = np.random.default_rng(seed)
    owner = np.repeat(np.arange(P), n_per)
    load = (1 + 4 * (owner < P // 4)) * rng.lognormal(0, 0.3, owner.size)
    return load, owner


def run(load, owner, graph=None, movable=None, **kw):
    P = int(owner.max()) + 1
    args = dict(criterion="tempered", order="decreasing_loads", iterations=4, rounds=3, fanout=2, max_objects=1,
                deterministic=False, rng_of=rngs())
    args.update(kw)
    eng = Engine(P, comm=None)
    movable = np.ones(load.size, bool) if movable is None else movable
    graph = graph or Graph.from_edges(load.size, np.empty(0, int), np.empty(0, int))
    return eng, lbaf.balance(eng, load, owner, movable, graph, **args)


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
    assert lbaf.ordered("decreasing_loads", objs, load, 0.0).tolist()[-1] == 1  # lightest is popped first
    assert lbaf.ordered("increasing_loads", objs, load, 0.0).tolist() == [1, 3, 2, 4, 0]
    # excess over an average of 10: 5; loads <= 5 descending, then > 5 ascending
    assert lbaf.ordered("fewest_migrations", objs, load, 10.0).tolist() == [0, 4, 2, 3, 1]
    # ascending cumulative 1, 3, 6, ...: bisect(.., 5) + 1 = 3 -> the 3 smallest descending, then the rest
    assert lbaf.ordered("small_objects", objs, load, 10.0).tolist() == [2, 3, 1, 4, 0]


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
    stage = clustering.stage(load, movable, np.asarray(shared), graph, **params)
    P = int(owner.max()) + 1
    return lbaf.balance(Engine(P, comm=None), load, owner, movable, graph, criterion=params["crit"], order="arbitrary",
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
    and under mpiexec -n 2 (the deterministic and the random strategy)."""
    import io

    import pandas as pd

    from harness import compare
    from harness.check.conformance import FIGURES
    from harness.engine.launch import mpirun

    methods = ("lbaf-iat[transfer=clustering,max_objects_per_transfer=4],"
               "lbaf-iat[transfer=clustering,deterministic=false,iterations=3]")
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
    assert (one["charm_transfers"] > 0).all()
