"""pluggy hook implementations: the ``minex`` algorithm, latency figures, the MinEX reports."""
from __future__ import annotations

from harness import (Algorithm, Report, check_params as bounded, hookimpl, implements, latency_figures, latency_model,
                     registers)

from . import __version__
from .fits import throttle_unit
from .minex import check_params, minex

PARAMS = {
    "throttle": 64.0,  # ThroTtle of §3.3 (inf allowed)
    "latency": "none",  # latency model of §3.2: none, max, overlap:f, module:function
    "coarse": 8,  # contract to at most coarse * P vertices (§3.5)
    "sample": 1,  # active vertices drawn for each contraction's random set of pairs (§3.5)
    "passes": 8,  # sweeps over the contracted graph's border vertices (§3.6)
    "gain": "sum",  # Gain = change of §2.3's additive QwgtTot (sum) or of the latency model's (model)
    "normalize": "total",  # loads in the ThroTtle gate: fractions of QwgtTot (total), of the mean, or raw
    "unit": throttle_unit(),  # ThroTtle's unit: loads in units of Q0/unit (fitted: calibration/minex-model.csv)
    "impl": "auto",  # c, python or auto
}


BOUNDS = {"coarse": (1, 1_000_000), "sample": (1, 1_000_000), "passes": (0, 10_000)}  # what can finish


def _validate(p: dict) -> None:
    check_params(float(p["throttle"]), p["latency"], p["coarse"], p["sample"], p["passes"], p["normalize"], p["impl"],
                 p["gain"], float(p["unit"]))
    bounded("minex", p, BOUNDS)


@hookimpl
def register_algorithms(register):
    register(Algorithm(
        "minex", family="diffusive multilevel", params=dict(PARAMS), accepts=("graph",), roles=("partition",),
        validate=_validate,
        description="MinEX (Das, Harvey, Biswas 2002): latency-tolerant diffusive multilevel partitioner "
                    "minimizing MaxQwgt = max(Wgt + Comm + Remap) on a machine of clusters"))


@implements("minex")
def partition(ctx):
    p = ctx.params
    seed = int(ctx.rng("contract").integers(0, 2**63 - 1))
    parts, stats = minex(ctx.graph, ctx.state.owner, ctx.state.home, ctx.machine, seed,
                         throttle=float(p["throttle"]), latency=p["latency"], coarse=int(p["coarse"]),
                         sample=int(p["sample"]), passes=int(p["passes"]), normalize=p["normalize"],
                         impl=p["impl"], gain=p["gain"], pinned=ctx.level.pinned, unit=float(p["unit"]))
    ctx.record.update({
        "minex_coarse_vertices": stats.coarse_vertices,
        "minex_merges": stats.merges,
        "minex_coarse_moves": stats.coarse_moves,
        "minex_expand_moves": stats.expand_moves,
        "minex_passes": stats.passes,
        "minex_kernel_c": int(stats.impl == "c"),
    })
    return parts


@hookimpl
def metrics(ctx, before, after):
    """For a minex run with a latency model that is neither extreme, ``lt_model_*`` under its own model
    (the core metrics already give ``lt_none_*`` and ``lt_max_*`` for every algorithm, MinEX §2.3)."""
    if ctx.algorithm == "minex" and str(ctx.params.get("latency", "none")) not in ("none", "max"):
        own = latency_figures(ctx.graph, before, after, ctx.machine, models=(latency_model(ctx.params["latency"]),))
        return {"lt_model_" + k.split("_", 2)[2]: v for k, v in own.items()}


@hookimpl
def register_reports(register):
    from . import reports

    for name, (build, title, desc) in reports.REPORTS.items():
        register(Report(name, build, title=title, description=desc))


__all__ = ["PARAMS", "__version__"]


@hookimpl
def register_claims(register):
    from .claims import CLAIMS

    for claim in CLAIMS:
        register(claim)


register_calibrations = registers("lbbench_minex.fits", "CALIBRATIONS")
