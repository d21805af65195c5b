"""lbbench hooks for Charm++'s GreedyLB, RefineLB, GreedyRefineLB and GrapevineLB (README.md).

The objects are the level's graph vertices (any workload, through the
adapters) with their measured load pwgt; pinned objects (``ctx.level.pinned``)
never move and count as background load of their processor. All four are
balancers: they start from the current owners and return where every object
goes; the data follows (the runner accounts the migration).
"""
from __future__ import annotations

import numpy as np

from harness import Algorithm, State, hookimpl, implements, registers

from . import central, grapevine, strategies

CENTRAL = {
    "greedy": ({}, "Charm++ GreedyLB: heaviest object onto the least-loaded processor (a heap), placement ignored"),
    "refine": ({"threshold": 1.003}, "Charm++ RefineLB: from the current placement, heaviest object that fits "
                                     "moved from the heaviest processor above threshold x average to the lightest"),
    "greedy-refine": ({"tolerance": 1.0}, "Charm++ GreedyRefineLB: greedy order, an object stays where it is when "
                                          "that keeps its processor within tolerance x greedy's maximum load"),
}
GRAPEVINE = {"rounds": 0, "fanout": 2, "iterations": 1, "criterion": "original", "threshold": 1.0}


def _validate(name):
    def check(p):
        for key in ("threshold", "tolerance"):
            if key in p and not 1.0 <= float(p[key]) <= 100.0:
                raise ValueError(f"{name}: {key} must be in [1, 100], got {p[key]}")
        if name != "grapevine":
            return
        if p["criterion"] not in grapevine.CRITERIA:
            raise ValueError(f"grapevine: criterion must be one of {', '.join(grapevine.CRITERIA)}, got {p['criterion']!r}")
        if p["fanout"] < 1 or p["rounds"] < 0 or p["iterations"] < 1:
            raise ValueError("grapevine: fanout >= 1, rounds >= 0 (0: ceil(log_fanout P)) and iterations >= 1")
    return check


@hookimpl
def register_algorithms(register):
    for name, (params, desc) in CENTRAL.items():
        register(Algorithm(name, family="centralized", params=dict(params), roles=("balance",),
                           validate=_validate(name), description=desc))
    register(Algorithm("grapevine", family="gossip", params=dict(GRAPEVINE), roles=("balance",),
                       validate=_validate("grapevine"),
                       description="GrapevineLB (Menon & Kale SC'13): gossip of underloaded processors over `rounds` "
                                   "rounds of `fanout` messages, CMF-random transfers under the original/relaxed criterion"))


def objects(ctx, state):
    """(load, owner, movable) of the level's objects."""
    load = np.asarray(ctx.graph.pwgt, float)
    pinned = ctx.level.pinned
    movable = np.ones(load.size, bool) if pinned is None else pinned < 0
    return load, np.asarray(state.owner, np.int64), movable


def _costs(ctx, since: int) -> dict:
    """The engine's view of what balancing cost: supersteps, messages and the busiest receiver's bytes."""
    eng = ctx.engine
    st = eng.step_stats("balance", since=since)
    recv = eng.pair_matrix("balance", "bytes").sum(axis=0)
    pwgt = np.asarray(ctx.graph.pwgt, float)  # the heaviest object over the mean load: Graham's lower bound's part
    return {"charm_balance_supersteps": st["supersteps"], "charm_balance_messages": st["messages"],
            "charm_max_recv_msgs": st["max_recv_per_vproc"], "charm_max_recv_bytes": int(recv.max(initial=0)),
            "charm_heaviest_object_rel": float(pwgt.max(initial=0) * ctx.P / pwgt.sum()) if pwgt.sum() else 0.0}


@implements(*CENTRAL, "grapevine")
def balance(ctx, state):
    if ctx.algorithm == "grapevine":
        return gossip(ctx, state)
    load, owner, movable = objects(ctx, state)
    since = ctx.engine.superstep
    with ctx.timer("selection"):
        new = central.run(ctx.engine, strategies.STRATEGIES[ctx.algorithm], load, owner, movable,
                          **{k: float(v) for k, v in ctx.params.items()})
    ctx.record.update(_costs(ctx, since))
    return State.settled(new, ctx.P)


def gossip(ctx, state):
    load, owner, movable = objects(ctx, state)
    p = ctx.params
    rounds = int(p["rounds"]) or grapevine.default_rounds(ctx.P, int(p["fanout"]))
    since = ctx.engine.superstep
    with ctx.timer("selection"):
        out = grapevine.balance(ctx.engine, load, owner, movable, rounds=rounds, fanout=int(p["fanout"]),
                                iterations=int(p["iterations"]), criterion=p["criterion"],
                                threshold=float(p["threshold"]), rng_of=ctx.rng)
    ctx.record.update(_costs(ctx, since))
    ctx.record.update({
        "charm_rounds": rounds, "charm_inform_supersteps": int(sum(out.inform_supersteps)),
        "charm_inform_max_msgs": int(max(out.inform_max_msgs, default=0)),
        "charm_informed": int(min(out.informed, default=0)),
        "charm_transfers": out.transfers, "charm_rejects": out.rejects})
    return State.settled(out.owner, ctx.P)


register_claims = registers("lbbench_charm.claims", "CLAIMS")
