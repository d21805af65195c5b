"""lbbench hooks for ``sbn``: the SBN pre-partitioner (role ``partition``) and balancer (role ``balance``).

``sbn[prepartition=true]`` runs the §3.7 pre-partitioner before each level
(SBN paper Table 4); ``sbn`` (default ``prepartition=false``) starts from the
carried assignment (Table 5). In a composition ``metis/sbn`` the mapper's
partition is the starting point and only the balancer is SBN's.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from harness import Algorithm, State, check_params, cut_pct, hookimpl, implements, registers, vertex_costs

from .balancer import LevelRun, Params
from .fits import fitted_checks, fitted_subset
from .outcome import executed, share
from .prepartition import prepartition
from .topology import Trees

DEFAULTS = {
    "prepartition": False,
    "checks": fitted_checks(),  # fitted to Tables 4 and 5 LoadImb at P = 16 (fits.py, README "Calibration")
    "f": 60.0,
    "const_s": 0.1,
    "minth": "const",
    "maxth": "exp",
    "subset": fitted_subset(),  # |R| of §3.4, fitted to Table 4 at cells no claim reads (fits.py, README)
    "subset_from": "queue",  # §3.4: R from the whole local queue; "receiver": our variant (README)
    "fetch_adjacent": True,
    "carry_thresholds": True,
    "itnum": 4,
    "kl_threshold": 1.75,
}

TIMERS = ("balance", "migration", "selection", "processing")


@dataclass
class SbnMemory:
    """What the balancer carries from level to level: it runs "forever" (Fig. 4), so every processor's
    (WSysLL, MinTh, MaxTh) at the end of a level is where the next level starts."""

    thresholds: list[tuple[float, float, float]] | None = None  # (WSysLL, MinTh, MaxTh) per processor


# upper bounds from what can finish (checks and subset beyond a million, itnum beyond 1000 passes run on)
BOUNDS = {"checks": (1, 1_000_000), "subset": (1, 1_000_000), "itnum": (1, 1000), "f": (0.0, 1e6),
          "const_s": (0.0, 1e6), "kl_threshold": (0.0, 1e6)}


def _validate(p: dict) -> None:
    _params(p).validate()
    if int(p["itnum"]) < 1 or float(p["kl_threshold"]) <= 0:
        raise ValueError("sbn: itnum must be >= 1 and kl_threshold > 0")
    check_params("sbn", p, BOUNDS)


@lru_cache(maxsize=8)
def trees(P: int) -> Trees:
    return Trees(P)


def _params(p: dict) -> Params:
    return Params(checks=int(p["checks"]), f=float(p["f"]), const_s=float(p["const_s"]), minth=str(p["minth"]),
                  maxth=str(p["maxth"]), subset=int(p["subset"]), subset_from=str(p["subset_from"]),
                  fetch_adjacent=bool(p["fetch_adjacent"]))


def projected_cut(g, owner, m) -> float:
    """Cut% (harness.measure.metrics.cut_pct) of an assignment once every vertex's data is on its owner."""
    return cut_pct(g, vertex_costs(g, State.settled(np.asarray(owner), m.P), m))


@hookimpl
def register_algorithms(register):
    register(Algorithm(
        "sbn", family="dynamic", params=dict(DEFAULTS), accepts=("graph",), roles=("partition", "balance"),
        memory=SbnMemory, validate=_validate,
        description="SBN: symmetric-broadcast-network dynamic balancer with lazy redistribution "
                    "(Das, Harvey, Biswas); prepartition=true adds the §3.7 QWgt pre-partitioner"))


@implements("sbn")
def partition(ctx):
    if not ctx.params["prepartition"]:
        return np.asarray(ctx.state.owner).copy()
    itnum, klt = int(ctx.params["itnum"]), float(ctx.params["kl_threshold"])
    owner, figs = prepartition(ctx.graph, ctx.state, ctx.machine, ctx.rng("prepartition"), itnum=itnum,
                               kl_threshold=klt, subset=int(ctx.params["subset"]))
    ctx.record.update(figs)
    return owner


def _cuts(ctx, state) -> dict:
    """The Cut% figures of the assignments SBN starts from, computed on vproc 0's rank only and sent to the
    others (one collective under MPI: every rank's record the same, the level's graph walked once, not R times)."""
    eng, g, m = ctx.engine, ctx.graph, ctx.machine
    got = None
    if eng.hosts(0):
        cut = projected_cut(g, ctx.state.owner, m)
        same = np.array_equal(state.owner, ctx.state.owner)  # no pre-partitioning: the same assignment
        # the other reading of Pre-Exec Cut% (README "Choices"): "immediately before processing" (§5.2) the data
        # has not moved (§3.7) and Comm_p^v counts the neighbours "whose data sets are not local to p" (§3.1)
        got = {"pre_part_cut_pct": cut, "sbn_pre_exec_cut_pct": cut if same else projected_cut(g, state.owner, m),
               "sbn_pre_exec_data_cut_pct": cut if same else cut_pct(g, vertex_costs(g, state, m))}
    return eng.bcast(got, what="sbn-cuts")


@implements("sbn")
def balance(ctx, state):
    g, m = ctx.graph, ctx.machine
    prm = _params(ctx.params)
    ctx.record.update(_cuts(ctx, state))
    # the balancer runs "forever" (Fig. 4): thresholds carry over from the previous level
    carried = ctx.memory.thresholds if ctx.params["carry_thresholds"] else None
    if carried is not None and len(carried) != m.P:
        carried = None
    run = LevelRun(g, m, ctx.engine, state, prm, lambda p: ctx.rng(f"vp{p}"), trees=trees(m.P),
                   init_thresholds=carried, fixed=None if ctx.level.pinned is None else ctx.level.pinned >= 0)
    after = run.run()
    ctx.memory.thresholds = run.thresholds()
    figs, seconds, mine = run.figures(), run.timer.seconds, share(run)
    # under MPI, SBN's per-vertex arrays of the whole level go before vproc 0's rank puts what ran together (issue
    # 52): the run's processors refer back to it and the runner pauses the cyclic collector in a level, so the run
    # drops its attributes (every cycle through it) and goes by reference counting: no collection walks the level's
    # objects in the hook, on any rank (one rank's share is the run's own arrays, kept by the share)
    run.release()
    del run
    ran = executed(mine)  # LoadImb of what each processor processed (§5.2), on the metrics' rank only
    if ran is not None:
        ctx.executed(*ran)
    ctx.record.update(figs)
    tot = ctx.engine.totals()
    span = max(figs["sbn_makespan_s"], 1e-12)
    for kind in ("balance", "migration"):
        ctx.record[f"sbn_{kind}_bw_pct"] = 100.0 * tot[kind]["bytes"] / (m.bandwidth * span)
    # Table 8's migration messages as §3.5 sends them: the data, each request and each moved set's locate broadcast
    ctx.record["sbn_migration_message_bytes"] = (
        tot["migration"]["bytes"] - figs["sbn_fetch_bytes"] - figs["sbn_locate_bytes"]
        + figs["sbn_request_broadcast_bytes"] + figs["sbn_locate_broadcast_bytes"])
    nlocal = max(len(ctx.engine.local), 1)
    for cat in TIMERS:
        secs = ctx.engine.rank_max(seconds.get(cat, 0.0))
        ctx.record[f"time_sbn_{cat}_s"] = secs
        # Table 9: wall seconds per processor as a share of the level's modelled execution time
        per_proc = ctx.engine.rank_max(seconds.get(cat, 0.0) / nlocal)
        ctx.record[f"sbn_{cat}_overhead_pct"] = 100.0 * per_proc / span
    return after


register_reports = registers("lbbench_sbn.reports", "REPORTS")
register_claims = registers("lbbench_sbn.claims", "CLAIMS")
register_calibrations = registers("lbbench_sbn.fits", "CALIBRATIONS")
