"""lbbench hooks for ``mlb``: Quinlan & Berndt's Multilevel Load Balancer on Gray-coded hypercube processors.

``partition`` (the array-form path) predicts where every cell goes: the
outcome of Phases 1-2 and the Phase 4 rounding, computed on every rank from the
level's array (1-D on the array in C or Hilbert order, or the §5 n-D extension
on a processor mesh). ``balance`` runs the four phases on the engine's virtual
processors (``execute.py``; in 1-D from a rank-ordered start, Phase 4 is the
paper's loan-variable procedure and decides the destinations itself) and
records the per-level figures of the paper's claims, the step and message
counts read from ``engine.step_stats``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import Algorithm, LoadArray, State, hilbert_order, hookimpl, implements, registers

from . import execute
from .hypercube import Cube, log2_exact
from .ndim import is_boxes, is_contiguous, nd_destinations, one_box_each, parse_mesh
from .phases import REMAINDERS, ROUNDINGS, bounds, bounds_from, desired, destinations

DEFAULTS = {
    "dims": "1",
    "order": "c",
    "mesh": "auto",
    "rounding": "midpoint",
    "remainder": "left",
}


def validate(params: dict) -> None:
    if str(params["dims"]) not in ("1", "auto"):
        raise ValueError(f"mlb: dims must be 1 or auto, got {params['dims']!r}")
    if params["order"] not in ("c", "hilbert"):
        raise ValueError(f"mlb: order must be c or hilbert, got {params['order']!r}")
    if params["rounding"] not in ROUNDINGS:
        raise ValueError(f"mlb: rounding must be one of {', '.join(ROUNDINGS)}, got {params['rounding']!r}")
    if params["remainder"] not in REMAINDERS:
        raise ValueError(f"mlb: remainder must be one of {', '.join(REMAINDERS)}, got {params['remainder']!r}")
    mesh = str(params["mesh"])
    if mesh != "auto":
        if str(params["dims"]) != "auto":
            raise ValueError("mlb: mesh is for dims=auto (the n-D extension)")
        parts = mesh.lower().split("x")
        if not all(x.isdigit() and int(x) > 0 and int(x) & (int(x) - 1) == 0 for x in parts):
            raise ValueError(f"mlb: mesh must be 'auto' or powers of two like '4x8', got {mesh!r}")


@dataclass
class Layout:
    """How one level is cut: the hypercube, the linear order (1-D mode) or the mesh (n-D mode), and D."""

    cube: Cube
    load: np.ndarray          # the array's loads (its own shape)
    order: np.ndarray | None  # 1-D mode: items along the line
    owner: np.ndarray         # MLB's destination of every item (C order of the array)
    D: np.ndarray             # desired loads per rank
    biggest: int              # largest element of the (last) 1-D pass


def layout(ctx) -> Layout:
    """Phases 1-2 and the Phase 4 rounding, on every rank alike (MLB §3.1, §3.2, §3.4; §5 for n-D)."""
    prm, P = ctx.params, ctx.P
    d = log2_exact(P)
    if not isinstance(ctx.data, LoadArray):
        raise ValueError(f"mlb: expects the level as a load array, got a {type(ctx.data).__name__}")
    load = np.asarray(ctx.data.load, np.int64)
    if load.ndim == 0:
        load = load.reshape(1)
    if str(prm["dims"]) == "auto":
        mesh = parse_mesh(str(prm["mesh"]), P, load.ndim)
        if load.ndim > 1:
            owner, D, biggest, _ = nd_destinations(load, mesh, prm["rounding"], prm["remainder"])
            return Layout(Cube(mesh), load, None, owner.reshape(-1), D, biggest)
    if load.ndim > 1 and prm["order"] == "hilbert":
        order = hilbert_order(np.stack(np.unravel_index(np.arange(load.size), load.shape), axis=1))
    else:
        order = np.arange(load.size, dtype=np.int64)
    line = load.reshape(-1)[order]
    D = desired(line.sum(), d, prm["remainder"])
    owner = np.empty(load.size, np.int64)
    owner[order] = destinations(line, D, prm["rounding"])
    return Layout(Cube((P,)), load, order, owner, D, int(line.max()) if line.size else 0)


def mlb_shaped(lay: Layout, owner: np.ndarray) -> bool:
    """Is ``owner`` (per item) an MLB distribution: rank-contiguous along the line, or boxes with through cuts?"""
    if lay.order is not None:
        return is_contiguous(owner[lay.order])
    return is_boxes(owner.reshape(lay.load.shape), lay.cube.P, lay.cube.shape[0])


@hookimpl
def register_algorithms(register):
    register(Algorithm(
        "mlb", family="geometric", params=dict(DEFAULTS), accepts=("array",), roles=("partition", "balance"),
        description="MLB: multilevel load balancing of a load array on 2^d Gray-coded processors with a "
                    "log p-step e-cube schedule (Quinlan, Berndt); dims=auto: the §5 n-D extension",
        validate=validate))


@implements("mlb")
def partition(ctx):
    return layout(ctx).owner


@implements("mlb")
def balance(ctx, state):
    lay = layout(ctx)
    cube, eng = lay.cube, ctx.engine
    items = np.asarray(ctx.cells(), np.int64)
    dest = np.asarray(state.owner)[items]
    if not mlb_shaped(lay, dest):
        shape = "rank-contiguous along the array order" if lay.order is not None else \
            "one box per processor with through-going axis-0 cuts"
        raise ValueError(f"mlb: the target is not an MLB distribution (not {shape})")
    home = np.asarray(state.home)[items]
    load = lay.load.reshape(-1)
    rwgt = np.asarray(ctx.graph.rwgt)[items]
    nd = lay.order is None
    remainder = ctx.params["remainder"]

    def phase2(T, p):
        return bounds_from(lay.D, p, cube.d) if nd else bounds(T, p, cube.d, remainder)

    with ctx.timer("mlb_schedule"):
        out, steps = execute.run(eng, cube, load, rwgt, home, phase2, lay.order, dest, ctx.params["rounding"])
    # figures of the claims (MLB §3, §4; README: M1-M13)
    moved = int(rwgt[home != out.dest].sum())
    sent = int(out.sent_rwgt.sum())
    dev = int(np.abs(out.L - out.D).max()) if cube.P else 0
    contiguous = mlb_shaped(lay, out.dest)
    rect = contiguous if lay.load.ndim == 1 else one_box_each(out.dest.reshape(lay.load.shape), cube.P)
    ctx.record.update({
        "mlb_d": cube.d,
        "mlb_mesh": "x".join(map(str, cube.shape)),
        "mlb_phase1_supersteps": steps["phase1"],
        "mlb_phase1_messages": steps["phase1_messages"],
        "mlb_phase3_supersteps": steps["phase3"],
        "mlb_phase3_messages": steps["phase3_messages"],
        "mlb_phase4_supersteps": steps["phase4"],
        "mlb_phase4_messages": steps["phase4_messages"],
        "mlb_schedule_steps": steps["schedule"],
        "mlb_max_msgs_per_vproc_step": steps["max_msgs"],
        "mlb_max_recv_per_vproc_step": steps["max_recv"],
        "mlb_loan_procedure": out.loan_procedure,
        "mlb_as_predicted": bool(np.array_equal(out.dest, dest)),
        "mlb_total": out.T,
        "mlb_desired_spread": int(out.D.max() - out.D.min()),
        "mlb_max_dev": dev,
        "mlb_max_element": lay.biggest,
        "mlb_dev_ratio": dev / lay.biggest if lay.biggest else 0.0,
        "mlb_contiguous": bool(contiguous),
        "mlb_rectangles": bool(rect),
        "mlb_sent_weight": sent,
        "mlb_passthrough_weight": sent - moved,
        "mlb_loan_max": int(np.abs(out.loans).max()),
    })
    owner = np.array(state.owner, np.int64, copy=True)
    owner[items] = out.dest
    return State.settled(owner, state.P)


register_reports = registers("lbbench_mlb.reports", "REPORTS")
register_claims = registers("lbbench_mlb.claims", "CLAIMS")
