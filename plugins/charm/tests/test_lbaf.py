"""lbaf-iat, LBAF's InformAndTransfer: the inform stage on the engine, the order strategies, the two criteria."""
import numpy as np
import pytest

from harness import Engine, Graph
from lbbench_charm import lbaf


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
