"""lbbench hooks for Charm++'s GreedyLB, RefineLB, TreeLB's RefineA and GreedyRefine, GrapevineLB (DistributedLB)
and LBAF's InformAndTransfer (README.md).

The objects are the level's graph vertices (any workload, through the
adapters) with their measured load pwgt; pinned objects (``ctx.level.pinned``)
never move and count as background load of their processor. All are
balancers: they start from the current owners and return where every object
goes; the data follows (the runner accounts the migration).
"""
from __future__ import annotations

import numpy as np

from harness import Algorithm, State, check_params, hookimpl, implements, registers

from . import central, clustering, grapevine, lbaf, strategies, work

CENTRAL = {
    "greedy": ({}, "Charm++ GreedyLB: heaviest object onto the least-loaded processor (a heap), placement ignored"),
    "refine": ({"threshold": 1.05}, "Charm++ RefineLB (Refiner.C): from the current placement, the heaviest processor "
                                    "above threshold x average gives its largest object that fits to the first light "
                                    "processor where it fits; multirefine's search of the lowest overload that works"),
    "refine-treelb": ({}, "Charm++ TreeLB RefineA (refine.h; what +balancer RefineLB runs today): binary search of the "
                          "bound between greedy's maximum load and 1.5x it; heaviest object that fits on the lightest "
                          "light processor goes to the first light processor where it fits"),
    "greedy-refine": ({"tolerance": 1.0}, "Charm++ TreeLB GreedyRefine (greedy.h): greedy order, an object stays where "
                                          "it is while its processor stays within M = tolerance x greedy's maximum "
                                          "load; M rises with every assignment above it"),
}
GRAPEVINE = {"rounds": 0, "fanout": 2, "target_ratio": 1.05, "max_phases": 10, "iterations": 1}
# upper bounds of the integer parameters: what a run can finish (each gossip send and phase costs supersteps)
LIMITS = {"rounds": 1024, "fanout": 1024, "max_phases": 1000, "iterations": 100}
# LBAF's config/conf.yaml; the clustering strategy's parameters at LBAF's defaults (max_subclusters: LBAF's inf,
# which only caps min(n, max_subclusters) with n <= max_objects_per_transfer <= 10^6)
LBAF_IAT = {"criterion": "tempered", "transfer": "recursive", "order": "element_id", "iterations": 8, "rounds": 2,
            "fanout": 2, "max_objects_per_transfer": 8, "deterministic": True, "cluster_swap_rtol": 0.05,
            "max_subclusters": 10**6, "separate_subclustering": False, "subclustering_threshold": 0.0,
            "subclustering_minimum_improvement": 0.0, "work_model": "load_only", "alpha": 1.0, "beta": 0.0,
            "gamma": 0.0, "delta": 0.0, "max_memory_usage": 0.0}
WORK_MODELS = ("load_only", "affine")  # LBAF's LoadOnly and AffineCombination (work.py)
LBAF_LIMITS = {"iterations": 100, "rounds": 64, "fanout": 1024, "max_objects_per_transfer": 10**6,
               "max_subclusters": 10**6}
# the work of one level grows with iterations x rounds x fanout x max_objects_per_transfer (gossip sends per
# iteration, transfers tried per rank): at most 2^20, 4,096 times LBAF's defaults (8 x 2 x 2 x 8 = 256)
LBAF_WORK = (("iterations", "rounds", "fanout", "max_objects_per_transfer"), 2**20)
LBAF_REALS = {"cluster_swap_rtol": (False, 1e6), "subclustering_threshold": (True, 1e6),
              "subclustering_minimum_improvement": (True, 1e6), "alpha": (True, 1e12), "beta": (True, 1e12),
              "gamma": (True, 1e12), "delta": (True, 1e12),
              "max_memory_usage": (True, 1e18)}  # (0 allowed, upper bound): LBAF's > 0 / >= 0; 0 bytes: no bound


def _validate(name):
    def check(p):
        for key in ("threshold", "tolerance"):
            if key in p and not 1.0 <= float(p[key]) <= 100.0:
                raise ValueError(f"{name}: {key} must be in [1, 100], got {p[key]}")
        if name == "lbaf-iat":
            return _validate_lbaf(p)
        if name != "grapevine":
            return
        if not 1.0 <= float(p["target_ratio"]) <= 100.0:
            raise ValueError(f"grapevine: target_ratio must be in [1, 100], got {p['target_ratio']}")
        low = {"rounds": 0, "fanout": 1, "max_phases": 1, "iterations": 1}
        for key, hi in LIMITS.items():
            if int(p[key]) != float(p[key]) or not low[key] <= int(p[key]) <= hi:
                raise ValueError(f"grapevine: {key} must be an integer in [{low[key]}, {hi}]"
                                 f"{' (0: 2 log2 P)' if key == 'rounds' else ''}, got {p[key]}")
    return check


def _validate_lbaf(p):
    for key, names in (("criterion", lbaf.CRITERIA), ("order", lbaf.ORDERS)):
        if p[key] not in names:
            raise ValueError(f"lbaf-iat: {key} must be one of {', '.join(names)}, got {p[key]!r}")
    if p["work_model"] not in WORK_MODELS:
        raise ValueError(f"lbaf-iat: work_model must be load_only or affine, got {p['work_model']!r}")
    if p["transfer"] not in lbaf.TRANSFERS:
        raise ValueError(f"lbaf-iat: transfer must be recursive or clustering, got {p['transfer']!r}")
    for key, hi in LBAF_LIMITS.items():
        lo = 0 if key == "max_subclusters" else 1
        if int(p[key]) != float(p[key]) or not lo <= int(p[key]) <= hi:
            raise ValueError(f"lbaf-iat: {key} must be an integer in [{lo}, {hi}], got {p[key]}")
    for key, (zero, hi) in LBAF_REALS.items():
        if not (0.0 <= float(p[key]) <= hi and (zero or float(p[key]) > 0.0)):
            raise ValueError(f"lbaf-iat: {key} must be a number in {'[' if zero else '('}0, {hi:g}], got {p[key]}")
    for key in ("deterministic", "separate_subclustering"):
        if str(p[key]).lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"lbaf-iat: {key} must be true or false, got {p[key]!r}")
    check_params("lbaf-iat", {k: int(p[k]) for k in LBAF_WORK[0]}, {}, work=LBAF_WORK)


@hookimpl
def register_algorithms(register):
    for name, (params, desc) in CENTRAL.items():
        register(Algorithm(name, family="centralized", params=dict(params), roles=("balance",),
                           validate=_validate(name), description=desc))
    register(Algorithm("grapevine", family="gossip", params=dict(GRAPEVINE), roles=("balance",),
                       validate=_validate("grapevine"),
                       description="GrapevineLB as Charm++'s DistributedLB: gossip of underloaded (pe, load) to `fanout` "
                                   "random PEs per receipt, at most `rounds` sends; smallest objects first to CMF-drawn "
                                   "PEs that accept or refuse; threshold relaxed per phase towards `target_ratio` x avg"))
    register(Algorithm("lbaf-iat", family="gossip", params=dict(LBAF_IAT), roles=("balance",),
                       validate=_validate("lbaf-iat"),
                       needs=lambda p: ("shared_id",) if p["transfer"] == "clustering" else (),
                       description="LBAF's InformAndTransfer, a centralised simulation of a distributed algorithm: "
                                   "gossip of rank ids (engine messages), then transfers on live loads under the "
                                   "tempered or strict criterion, object by object (recursive) or of clusters "
                                   "of objects sharing a memory block (clustering)"))


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


@implements(*CENTRAL, "grapevine", "lbaf-iat")
def balance(ctx, state):
    if ctx.algorithm == "grapevine":
        return gossip(ctx, state)
    if ctx.algorithm == "lbaf-iat":
        return inform_and_transfer(ctx, state)
    load, owner, movable = objects(ctx, state)
    since = ctx.engine.superstep
    with ctx.timer("selection"):
        new = central.run(ctx.engine, strategies.STRATEGIES[ctx.algorithm], load, owner, movable,
                          ctx.machine.proc_of, **{k: float(v) for k, v in ctx.params.items()})
    ctx.record.update(_costs(ctx, since))
    return State.settled(new, ctx.P)


def gossip(ctx, state):
    load, owner, movable = objects(ctx, state)
    p = ctx.params
    rounds = int(p["rounds"]) or grapevine.default_rounds(ctx.P)
    since = ctx.engine.superstep
    with ctx.timer("selection"):
        out = grapevine.balance(ctx.engine, load, owner, movable, rounds=rounds, fanout=int(p["fanout"]),
                                target_ratio=float(p["target_ratio"]), max_phases=int(p["max_phases"]),
                                iterations=int(p["iterations"]), rng_of=ctx.rng,
                                second=1.0 / ctx.level.meta.get("time_unit_s", 1.0))
    ctx.record.update(_costs(ctx, since))
    ctx.record.update({
        "charm_rounds": rounds, "charm_gossip_supersteps": out.gossip_supersteps,
        "charm_gossip_max_sends": out.gossip_max_sends, "charm_informed": out.informed,
        "charm_phases": out.phases, "charm_transfers": out.transfers, "charm_refusals": out.refusals})
    return State.settled(out.owner, ctx.P)


def _true(v) -> bool:
    return str(v).lower() in ("true", "1")


def inform_and_transfer(ctx, state):
    load, owner, movable = objects(ctx, state)
    p = ctx.params
    since = ctx.engine.superstep
    det, max_objects = _true(p["deterministic"]), int(p["max_objects_per_transfer"])
    meta = ctx.level.meta  # a vt trace's self-communications and entity id order (workloads/vt.py)
    on = lbaf.partners(ctx.graph, np.asarray(meta.get("self_comm", np.zeros(load.size, bool)), bool), meta.get("comm"))
    model_of = None
    if p["work_model"] == "affine":  # LBAF's loads are seconds: its criterion's values and loads compare
        load = load * meta.get("time_unit_s", 1.0)
        node = np.asarray(meta.get("node", owner))  # a block's home: the rank the trace recorded it on
        model_of = work.affine(load, ctx.P, meta, ctx.level.shared_id, node,
                               **{k: float(p[k]) for k in ("alpha", "beta", "gamma", "delta")},
                               max_memory=float(p["max_memory_usage"]))
    stage = None
    if p["transfer"] == "clustering":
        shared = ctx.level.shared_id
        stage = clustering.stage(
            load, movable, np.full(load.size, -1) if shared is None else shared, on,
            separate=_true(p["separate_subclustering"]), crit=p["criterion"], deterministic=det,
            max_objects=max_objects, rtol=float(p["cluster_swap_rtol"]), max_subclusters=int(p["max_subclusters"]),
            threshold=float(p["subclustering_threshold"]), min_improvement=float(p["subclustering_minimum_improvement"]),
            model_of=model_of)
    with ctx.timer("selection"):
        entity = np.asarray(meta.get("entity_order", np.arange(load.size)))
        out = lbaf.balance(ctx.engine, load, owner, movable, on, entity,
                           criterion=p["criterion"], order=p["order"], iterations=int(p["iterations"]),
                           rounds=int(p["rounds"]), fanout=int(p["fanout"]),
                           max_objects=max_objects, deterministic=det, rng_of=ctx.rng, stage=stage, model_of=model_of)
    ctx.record.update(_costs(ctx, since))
    ctx.record.update({"charm_transfers": out["transfers"], "charm_refusals": out["rejects"]})
    return State.settled(out["owner"], ctx.P)


register_claims = registers("lbbench_charm.claims", "CLAIMS")
