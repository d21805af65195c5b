"""lbbench hooks for the tree-LB paper (Liao & Chung): balancers ``mcstlb``, ``btlb``, ``cbtlb`` and the
mappers ``ae-orb``, ``ae-mc``, ``mlkp``.

The balancers declare ``mapper="first"``: ``ae-orb/mcstlb`` is the paper's
AE/ORB/MCSTLB (AE/ORB maps the first level, MCSTLB balances every later one).
A balancer returns the settled state: the data moved with the transfers it
posted (``migration`` messages, one superstep per schedule step).
"""
from __future__ import annotations

from harness import (Algorithm, State, app_figures, app_terms, check_params, hookimpl, implements, metis_kway,
                     registers)

from . import balancers, fits, mappers
from .procgraph import EDGE_WEIGHTS
from .twa import ROUNDINGS

BALANCER_PARAMS = {"edge_weight": "cut_edges", "rounding": "nearest"}
MAPPERS = ("ae-orb", "ae-mc", "mlkp")


def _validate_balancer(params):
    if params["edge_weight"] not in EDGE_WEIGHTS:
        raise ValueError(f"edge_weight must be one of {', '.join(EDGE_WEIGHTS)}, got {params['edge_weight']!r}")
    if params["rounding"] not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {', '.join(ROUNDINGS)}, got {params['rounding']!r}")
    if "max_degree" in params and params["max_degree"] < 3:
        raise ValueError(f"max_degree must be >= 3 (a binary tree), got {params['max_degree']}")
    if "max_degree" in params:
        check_params("treelb", params, {"max_degree": (3, 1024)})


def _validate_passes(params):
    if params["passes"] < 0:
        raise ValueError(f"passes must be >= 0 (0 = until no gain), got {params['passes']}")
    if params["window"] < 0:
        raise ValueError(f"window must be >= 0 (0 = classic full FM passes), got {params['window']}")
    check_params("ae-mc", params, {"passes": (0, 10_000), "window": (0, 10_000_000)})


def _validate_ufactor(params):
    if not 1 <= params["ufactor"] <= 1000:
        raise ValueError(f"ufactor must be in [1, 1000] (thousandths), got {params['ufactor']}")


@hookimpl
def register_algorithms(register):
    desc = {"mcstlb": "maximum cost spanning tree load balancing (TWA on a max-cost spanning tree of G)",
            "btlb": "binary tree load balancing (TWA on a degree-3 spanning tree of G)",
            "cbtlb": "condensed binary tree load balancing (hypercube metaprocessors, TWA on a binary tree "
                     "of G_c, dimension exchange inside each)"}
    extra = {"mcstlb": {}, "btlb": {"max_degree": 3}, "cbtlb": {"max_degree": 3}}
    for name in balancers.METHODS:
        register(Algorithm(name, family="tree", params={**BALANCER_PARAMS, **extra[name]}, accepts=("graph",),
                           roles=("balance",), mapper="first", validate=_validate_balancer,
                           description=f"Liao & Chung §3: {desc[name]}"))
    register(Algorithm("ae-orb", family="geometric", accepts=("graph",), roles=("partition",),
                       description="AE/ORB (reconstruction): recursive coordinate bisection, identity remap"))
    register(Algorithm("ae-mc", family="min-cut", params={"passes": 0, "window": mappers.FM_WINDOW},
                       accepts=("graph",), roles=("partition",), validate=_validate_passes,
                       description="AE/MC (reconstruction): recursive bisection refined by FM min-cut passes"))
    register(Algorithm("mlkp", family="multilevel", params={"ufactor": 30}, accepts=("graph",),
                       roles=("partition",), validate=_validate_ufactor,
                       description="MLkP: Karypis-Kumar multilevel k-way (METIS through pymetis)"))


@implements("mcstlb", "btlb", "cbtlb")
def balance(ctx, state):
    eng = ctx.engine
    since = eng.superstep
    method = ctx.algorithm
    with ctx.timer("selection"):
        owner, rec, _ = balancers.run(method, ctx.graph, state.owner, ctx.P, eng,
                                      rounding=ctx.params["rounding"], edge_weight=ctx.params["edge_weight"],
                                      max_degree=int(ctx.params.get("max_degree", 3)), pinned=ctx.level.pinned)
    mig = eng.step_stats("migration", since=since)
    bal = eng.step_stats("balance", since=since)
    rec["tree_schedule_steps_planned"] = rec.pop("tree_schedule_steps")
    rec.update(tree_schedule_steps=mig["supersteps"], tree_max_msgs_per_vproc=mig["max_msgs_per_vproc"],
               tree_twa_supersteps_engine=bal["supersteps"])
    ctx.record.update(rec)
    return State.settled(owner, ctx.P)


@implements(*MAPPERS)
def partition(ctx):
    """The mapping, with its node visits as ``tree_node_visits`` (mappers.py)."""
    tally = [0]
    if ctx.algorithm == "ae-orb":
        parts = mappers.orb(ctx.graph, ctx.P, tally)
    elif ctx.algorithm == "ae-mc":
        parts = mappers.min_cut(ctx.graph, ctx.P, int(ctx.params["passes"]), int(ctx.params["window"]), tally)
    else:
        parts = metis_kway(ctx.graph, ctx.P, seed=ctx.seed, ufactor=ctx.params["ufactor"])
        tally[0] = mappers.multilevel_visits(ctx.graph.n, ctx.P)
    ctx.record["tree_node_visits"] = tally[0]
    return parts


@hookimpl
def metrics(ctx, before, after):
    """The per-processor terms of Eqs. 2-3 (``treelb_app_terms``, what ``lbbench calibrate`` fits on) and Eq. 5
    per level under the constants fitted held out at this P (``treelb_app_*``, the main reading: fits.py; left
    out until ``lbbench calibrate --paper tree`` has written the fit); the core's ``app_*`` use the Machine's
    latency and bandwidth (the SP2's in the reports: the other reading)."""
    if ctx.level.form != "graph" or ctx.algorithm not in (*balancers.METHODS, *MAPPERS):
        return {}  # the paper's twelve methods only: the core's app_* are there for every method
    out = {"treelb_app_terms": fits.terms_text(app_terms(ctx.graph, after.owner, ctx.P))}
    try:
        constants = fits.constants(ctx.P)
    except LookupError:  # not fitted yet: the calibration's own cells need only the terms
        return out
    f = app_figures(ctx.graph, after, ctx.machine, **constants)
    return {**out, **{f"treelb_{k}": f[k] for k in ("app_iter_s", "app_seq_iter_s", "app_comp_max_s",
                                                     "app_comm_max_s")}}


register_reports = registers("lbbench_treelb.reports", "REPORTS")
register_claims = registers("lbbench_treelb.claims", "CLAIMS")
register_calibrations = registers("lbbench_treelb.fits", "CALIBRATIONS")
