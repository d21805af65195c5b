"""The charm balancers through their hook: pinned objects, the engine's message pattern, conformance."""
import numpy as np
import pytest

from harness import Context, Engine, Graph, Level, Machine, State
from lbbench_charm import plugin

NAMES = ("greedy", "refine", "refine-treelb", "greedy-refine", "grapevine", "lbaf-iat")


def ctx_for(name, P=16, n=600, pinned=True, seed=2):
    rng = np.random.default_rng(seed)
    u = np.arange(n - 1)
    g = Graph.from_edges(n, u, u + 1, pwgt=rng.integers(1, 40, n))
    pin = np.full(n, -1)
    if pinned:
        pin[::7] = rng.integers(0, P, pin[::7].size)
    owner = np.where(pin >= 0, pin, rng.integers(0, P // 4, n))
    defaults = {"greedy": {}, "refine": {"threshold": 1.05}, "refine-treelb": {}, "greedy-refine": {"tolerance": 1.0},
                "grapevine": dict(plugin.GRAPEVINE), "lbaf-iat": dict(plugin.LBAF_IAT)}[name]
    state = State.settled(owner, P)
    ctx = Context(Level(1, g, pinned=pin), g, state, Machine.uniform(P), Engine(P, comm=None), defaults, seed,
                  algorithm=name)
    return ctx, state, pin


@pytest.mark.parametrize("name", NAMES)
def test_pinned_objects_never_move(name):
    ctx, state, pin = ctx_for(name)
    after = plugin.balance.implementation(ctx, state)
    p = pin >= 0
    assert np.array_equal(after.owner[p], pin[p]) and np.array_equal(after.home[p], pin[p])
    before = np.bincount(state.owner, weights=ctx.graph.pwgt, minlength=ctx.P).max()
    assert np.bincount(after.owner, weights=ctx.graph.pwgt, minlength=ctx.P).max() < before


@pytest.mark.parametrize("name", ("greedy", "refine", "refine-treelb", "greedy-refine"))
def test_centralized_message_pattern(name):
    """Two balance supersteps: P statistics messages into the root, P decisions out of it."""
    ctx, state, _ = ctx_for(name, pinned=False)
    plugin.balance.implementation(ctx, state)
    assert ctx.record["charm_balance_supersteps"] == 2
    assert ctx.record["charm_balance_messages"] == 2 * ctx.P
    assert ctx.record["charm_max_recv_msgs"] == ctx.P


def test_bad_parameters_are_one_line_errors():
    from harness import available_algorithms

    algs = available_algorithms()
    with pytest.raises(ValueError, match="target_ratio"):
        algs["grapevine"].validate({**plugin.GRAPEVINE, "target_ratio": 0.5})
    for key in ("iterations", "rounds", "max_phases", "fanout"):
        with pytest.raises(ValueError, match=key):
            algs["grapevine"].validate({**plugin.GRAPEVINE, key: 10**9})
    for key in ("iterations", "rounds", "fanout", "max_objects_per_transfer", "max_subclusters"):
        with pytest.raises(ValueError, match=key):
            algs["lbaf-iat"].validate({**plugin.LBAF_IAT, key: 10**9})
    algs["lbaf-iat"].validate({**plugin.LBAF_IAT, "transfer": "clustering", "max_subclusters": 0})
    for key, bad in (("transfer", "greedy"), ("cluster_swap_rtol", 0.0), ("subclustering_threshold", -1.0),
                     ("subclustering_minimum_improvement", float("nan")), ("separate_subclustering", "maybe")):
        with pytest.raises(ValueError, match=key):
            algs["lbaf-iat"].validate({**plugin.LBAF_IAT, key: bad})
    with pytest.raises(ValueError, match="threshold"):
        algs["refine"].validate({"threshold": 0.5})
    # each integer within its bound, their product (the work of one level) not: refused in one line
    with pytest.raises(ValueError, match="the work of one level"):
        algs["lbaf-iat"].validate({**plugin.LBAF_IAT, "iterations": 100, "rounds": 64, "fanout": 1024})
    # clustering moves shared blocks: a workload without them is refused before any cell
    assert algs["lbaf-iat"].needs({**plugin.LBAF_IAT, "transfer": "clustering"}) == ("shared_id",)
    assert algs["lbaf-iat"].needs(plugin.LBAF_IAT) == ()


@pytest.mark.mpi
@pytest.mark.parametrize("name", NAMES)
def test_conformance(conformance, name):
    conformance(name)
