"""The runner's States hold one array where owners and homes agree (issue 52, item 3): figures unchanged."""
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, State, hookimpl, implements, load_workload
from harness.contract import plugins
from harness.contract.context import Context
from harness.contract.model import Level, Machine
from harness.contract.spec import parse_method
from harness.engine.vprocs import Engine
from harness.run.runner import carry, graph_of, plan, run_level

SEEN = {}


@hookimpl
def register_algorithms(register):
    register(Algorithm("keeps", "test", roles=("partition", "balance")))


@implements("keeps")
def partition(ctx):
    return np.asarray(ctx.state.owner).copy()  # the same owners, in a new array


@implements("keeps")
def balance(ctx, state):
    SEEN["shared"] = state.owner is ctx.state.owner
    owner = np.asarray(state.owner).copy()
    return State(owner, owner.copy(), ctx.P)  # homes equal to owners, in two arrays


def test_unchanged_owners_and_settled_homes_are_one_array(register):
    register(SimpleNamespace(register_algorithms=register_algorithms, partition=partition, balance=balance), "keeps")
    lv = load_workload("mini")[2][0]
    g, P = graph_of(lv), 4
    before = State.settled(np.arange(g.n) % P, P)
    ctx = Context(level=lv, graph=g, state=before, machine=Machine.uniform(P), engine=Engine(P, comm=None),
                  params={}, seed=0, original=lv.data)
    after = run_level(plan(parse_method("keeps"), plugins.algorithms()).first, ctx, before, {})
    assert SEEN["shared"]  # the partition changed nothing: the balancer got the start's own array
    assert after.home is after.owner and np.array_equal(after.owner, before.owner)


def test_a_settled_state_carries_as_one_array():
    parent = np.array([0, 0, 1, 2, -1])
    lv = Level(1, None, parent=parent, meta={"home": np.array([0, 0, 0, 0, 3])})
    got = carry(State.settled(np.array([1, 2, 3]), 4), lv)
    assert got.home is got.owner and got.owner.tolist() == [1, 1, 2, 3, 3]
    lazy = carry(State(np.array([1, 2, 3]), np.array([0, 2, 3]), 4), lv)
    assert lazy.owner.tolist() == [1, 1, 2, 3, 3] and lazy.home.tolist() == [0, 0, 2, 3, 3]
