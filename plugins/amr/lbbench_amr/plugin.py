"""Hook implementations of the ``amr`` plugin: six boxes-form partitioners returning box pieces.

The paper's partitioning module is sequential ("fed to a partitioning module
that partitioned the boxes across the required number of processor", §5): every
rank computes the same pieces from the step's boxes (no randomness, ties by id),
so figures are identical for any number of MPI ranks. The runner moves the data
(eager migration of the changed-owner overlaps) and computes the ``amr_*``
figures.
"""
from __future__ import annotations

import numpy as np

from harness import Algorithm, BoxPieces, check_params, hookimpl, implements, registers

from .itb import itb
from .ops import operations
from .schemes import cgd, igd, ild, pieces_of, sfc
from .wd import wd


def _check(name, allowed):
    def validate(params):
        for key, values in allowed.items():
            v = params[key]
            if isinstance(values, tuple) and v not in values:
                raise ValueError(f"{name}: {key} must be one of {', '.join(map(str, values))}, got {v!r}")
            if values == ">=0" and v < 0:
                raise ValueError(f"{name}: {key} must be >= 0, got {v}")
            if values == ">=1" and v < 1:
                raise ValueError(f"{name}: {key} must be >= 1, got {v}")
        check_params(name, params, {k: b for k, b in BOUNDS.items() if k in params})
    return validate


# upper bounds from what can finish (a block of 1024^3 cells, 100,000 balancing sweeps, finite weights)
BOUNDS = {"block": (1, 1024), "itb_iters": (0, 100_000), "tol": (0.0, 1e6), "w_inter": (0.0, 1e6),
          "w_intra": (0.0, 1e6), "w_move": (0.0, 1e6), "size_threshold": (0.0, 1e6)}


SCHEMES = {
    "amr-sfc": (dict(block=1, coalesce=True), {"block": ">=1"},
                "space-filling-curve composite distribution (§4.1): Hilbert-ordered composite blocks cut into P "
                "equal-work chunks"),
    "amr-igd": (dict(igd_split="full", igd_deal="greedy"), {"igd_split": ("full", "slabs"),
                                                          "igd_deal": ("rotate", "greedy")},
                "independent grid distribution (§4.2): every box split over min(P, cells) processors"),
    "amr-cgd": (dict(split="planes"), {"split": ("planes", "none")},
                "combined grid distribution (§4.3): the levels' boxes abutted into one list, cut into P equal loads"),
    "amr-ild": (dict(ild_split="none"), {"ild_split": ("planes", "none")},
                "independent level distribution (§4.4): each level's load cut into P equal parts"),
    "amr-itb": (dict(itb_iters=10, tol=0.01), {"itb_iters": ">=0", "tol": ">=0"},
                "iterative tree balancing (§4.5, reconstruction): BFS over neighbours and children, cut, "
                "boundary moves"),
    "amr-wd": (dict(w_inter=1.0, w_intra=1.0, w_move=1.0, tol=0.05, size_threshold=0.25, affinity="indicator"),
               {"w_inter": ">=0", "w_intra": ">=0", "w_move": ">=0", "tol": ">=0", "size_threshold": ">=0",
                "affinity": ("indicator", "volume")},
               "weighted distribution (§4.6, reconstruction): affinity to parents', neighbours' and previous "
               "processors"),
}


@hookimpl
def register_algorithms(register):
    for name, (params, allowed, text) in SCHEMES.items():
        register(Algorithm(name, family="amr", params=dict(params), accepts=("boxes",), roles=("partition",),
                           description=text, validate=_check(name, allowed)))


def distribute(name: str, boxes, P: int, params: dict, previous: BoxPieces | None = None) -> BoxPieces:
    """The pieces of scheme ``name`` for one step's ``Boxes`` on P processors (usable without the runner)."""
    p = {**SCHEMES[name][0], **params}
    _check(name, SCHEMES[name][1])(p)
    if name == "amr-sfc":
        return sfc(boxes, P, int(p["block"]), bool(p["coalesce"]))
    if name == "amr-igd":
        return igd(boxes, P, p["igd_split"], p["igd_deal"])
    if name == "amr-cgd":
        return cgd(boxes, P, p["split"])
    if name == "amr-ild":
        return ild(boxes, P, p["ild_split"])
    if name == "amr-itb":
        return pieces_of(boxes, *itb(boxes, P, int(p["itb_iters"]), float(p["tol"]), previous))
    if name == "amr-wd":
        return pieces_of(boxes, *wd(boxes, P, previous, float(p["w_inter"]), float(p["w_intra"]),
                                    float(p["w_move"]), float(p["tol"]), float(p["size_threshold"]),
                                    p["affinity"]))
    raise ValueError(f"unknown AMR scheme {name!r}")


def previous_pieces(ctx) -> BoxPieces | None:
    """The previous step's pieces (WD's "original location"): the carried pieces, else one piece per box
    on the carried owner (the initial distribution)."""
    st = ctx.state
    if getattr(st, "pieces", None) is not None:
        return st.pieces
    if st is not None and st.owner.size == ctx.original.n:
        return BoxPieces.whole(ctx.original, st.owner)
    return None


@implements(*SCHEMES)
def partition(ctx):
    prev = previous_pieces(ctx) if ctx.algorithm in ("amr-itb", "amr-wd") else None
    return distribute(ctx.algorithm, ctx.original, ctx.P, ctx.params, prev)


def counts(name: str, boxes, previous: BoxPieces | None, pieces: BoxPieces, graph, params: dict) -> dict:
    """The operation counts of scheme ``name``'s distribution at one regrid (``amr_ops_*``, :mod:`.ops`);
    ``graph``: the boxes' graph."""
    p = {**SCHEMES[name][0], **params}
    return operations(name, boxes, previous, pieces, np.bincount(graph.src, minlength=boxes.n),
                      int(p.get("block", 1)))


@hookimpl
def metrics(ctx, before, after):
    """The operation counts of the regrid's distribution, for the six schemes."""
    if ctx.algorithm not in SCHEMES or after.pieces is None:
        return None
    return counts(ctx.algorithm, ctx.original, before.pieces, after.pieces, ctx.graph, ctx.params)


register_reports = registers("lbbench_amr.reports", "REPORTS")
register_claims = registers("lbbench_amr.claims", "CLAIMS")

