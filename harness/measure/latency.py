"""Latency tolerance of the application (MinEX paper §3.2, §4): how much of a
processor's communication and redistribution time its processing can hide.

A latency model is a user-definable function ``f(wgt, comm, remap) -> qwgt``
of one processor's three cost totals of a level (MinEX §2.3: ``Wgt``, ``Comm``
and ``Remap`` summed over the vertices it computes). It must work element-wise
on numpy arrays and on Python floats, be non-decreasing in each argument and
satisfy ``max(w, c + r) <= f(w, c, r) <= w + c + r``.

The paper's two extremes (§4):

``none``  no latency tolerance, the pessimistic view:
          ``Qwgt_p = Wgt_p + Comm_p + Remap_p`` (the definition of §2.3).

``max``   maximum latency tolerance, the optimistic view:
          ``Qwgt_p = max(Wgt_p, Comm_p + Remap_p)``.

The paper gives no formula for ``max``. Ours follows the six steps of §3.2.
Steps 1 and 2 start every send (remapped data sets, then communication data)
before any processing. Step 3 processes every vertex that waits for no
incoming data, while the messages are in flight. Steps 4 and 5 receive and
unpack remapped and communication data. Step 6 repeats 2-5, so each waiting
vertex is processed as soon as its data arrives. Processing never waits in
the optimistic limit: transfers overlap processing completely and a
processor is busy until both its processing, ``Wgt_p``, and its transfers,
``Comm_p + Remap_p``, are done. The transfers of one processor are counted
one after another, because §2.3 charges them to p, whose interface sends and
unpacks them. So p needs ``max(Wgt_p, Comm_p + Remap_p)``: processing hides
all communication and redistribution up to the processing time, and nothing
beyond it. This is the least a processor can need under §2.3's costs with
any amount of overlap, so it is the right lower extreme.

Between the extremes, ``overlap:f`` (0 <= f <= 1) hides the fraction f of
what ``max`` hides: ``W + X - f * min(W, X)`` with ``X = Comm + Remap``
(f = 0 is ``none``, f = 1 is ``max``). Any other function is named by
``module:function`` or registered with :func:`register`.

:func:`processor_costs` gives the three totals of one level. Vertex v is
computed on ``owner[v]``. Its communication cost looks at where its
neighbours' data lives during the level (``home_during``; equal to the owner
after eager migration). Its redistribution cost is charged when v's data
moves this level (``home_before[v] != home_during[v]``). Everything is done
in one pass in C (:func:`harness.measure.metrics.scan`; :func:`numpy_costs` is the same with
:func:`harness.measure.metrics.vertex_costs`, the reference). :func:`level_figures` turns the
totals into MaxQwgt, MinQwgt, QwgtTot and LoadImb under each model, with
the one definition of :func:`harness.measure.metrics.load_figures`.
"""
from __future__ import annotations

import importlib
from typing import Callable

import numpy as np

from ..contract.model import Graph, Machine, State
from ..contract.plugins import latency_models
from .metrics import load_figures, remap_costs, scan, vertex_costs

LatencyModel = Callable  # f(wgt, comm, remap) -> qwgt, element-wise


def no_tolerance(w, c, r):
    """``none``: Qwgt = Wgt + Comm + Remap (MinEX §2.3, §4's pessimistic extreme)."""
    return w + c + r


def max_tolerance(w, c, r):
    """``max``: Qwgt = max(Wgt, Comm + Remap) (§4's optimistic extreme; see the module docstring)."""
    x = c + r
    if isinstance(w, np.ndarray) or isinstance(x, np.ndarray):
        return np.maximum(w, x)
    return w if w >= x else x


def overlap(fraction: float) -> LatencyModel:
    """``overlap:f``: W + X - f * min(W, X) with X = Comm + Remap; f = 0 is ``none``, f = 1 is ``max``."""
    f = float(fraction)
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"latency overlap fraction must be in [0, 1], got {fraction}")

    def model(w, c, r):
        x = c + r
        if isinstance(w, np.ndarray) or isinstance(x, np.ndarray):
            return w + x - f * np.minimum(w, x)
        return w + x - f * (w if w < x else x)

    model.__name__ = f"overlap_{f:g}"
    model.fraction = f
    return model


MODELS: dict[str, LatencyModel] = {"none": no_tolerance, "max": max_tolerance}


def register(name: str, model: LatencyModel) -> None:
    """Make a latency model available by name (e.g. to ``minex[latency=name]``)."""
    if not callable(model):
        raise ValueError(f"latency model {name!r} is not callable")
    MODELS[name] = model


def get(spec) -> LatencyModel:
    """A latency model from a name (``none``, ``max``), ``overlap:f``, ``module:function`` or a callable."""
    if callable(spec):
        return spec
    spec = str(spec)
    if spec in MODELS:
        return MODELS[spec]

    registered = latency_models()
    if spec in registered:
        return registered[spec]
    head, sep, tail = spec.partition(":")
    if sep and head == "overlap":
        try:
            return overlap(float(tail))
        except ValueError as exc:
            raise ValueError(f"latency model {spec!r}: {exc}") from None
    if sep and head and tail:
        try:
            fn = getattr(importlib.import_module(head), tail)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"latency model {spec!r} cannot be loaded: {exc}") from None
        if not callable(fn):
            raise ValueError(f"latency model {spec!r} is not callable")
        return fn
    raise ValueError(f"unknown latency model {spec!r} (use {', '.join(MODELS)}, overlap:f or module:function)")


def processor_costs(g: Graph, m: Machine, owner, home_before, home_during=None):
    """Per-processor totals (Wgt, Comm, Remap) of one level (MinEX §2.3), as float arrays of length P.

    ``home_during`` defaults to ``owner`` (data migrated eagerly to where it is computed). One pass over the
    graph in C (:func:`harness.measure.metrics.scan`): the sums of :func:`numpy_costs` (the reference), term for
    term in the same order, so the same floats bit for bit.
    """
    owner = np.ascontiguousarray(owner, np.int64)
    sums = scan(g, m, owner, home_before, owner, owner if home_during is None else home_during)[2]
    _, W, C, R = np.frombuffer(sums, np.float64).reshape(-1, m.P)[:4]
    return W, C, R


def numpy_costs(g: Graph, m: Machine, owner, home_before, home_during=None):
    """:func:`processor_costs` with the numpy functions (:func:`harness.measure.metrics.vertex_costs`,
    ``remap_costs``, bincount per processor): the reference of its C pass (tests)."""
    # copies: harness.contract.model.State freezes the int64 arrays it is given (setflags(write=False)) in place
    owner = np.array(owner, dtype=np.int64)
    home_before = np.array(home_before, dtype=np.int64)
    home_during = owner if home_during is None else np.array(home_during, dtype=np.int64)
    run = vertex_costs(g, State(owner, home_during, m.P), m)  # Wgt and Comm during the level
    moved = State(home_during, home_before, m.P)  # Remap: data moved home_before -> home_during
    remap = remap_costs(g, m, moved.home, moved.owner)
    P = m.P
    W = np.bincount(owner, weights=run.wgt, minlength=P)
    C = np.bincount(owner, weights=run.comm, minlength=P)
    R = np.bincount(owner, weights=remap, minlength=P)
    return W, C, R


def qwgt(W, C, R, model="none") -> np.ndarray:
    """Qwgt of every processor under a latency model."""
    return np.asarray(get(model)(np.asarray(W, float), np.asarray(C, float), np.asarray(R, float)), float)


def level_figures(g: Graph, before: State, after: State, m: Machine, models=("none", "max")) -> dict:
    """MinEX §2.3 figures of one level under each latency model, keys ``lt_<model>_<figure>``.

    Vertex v is computed on ``after.owner``; its data moved from ``before.home`` to ``after.home``.
    """
    return totals_figures(*processor_costs(g, m, after.owner, before.home, after.home), models)


def totals_figures(W, C, R, models=("none", "max")) -> dict:
    """:func:`level_figures` from the per-processor totals (Wgt, Comm, Remap) of :func:`processor_costs`."""
    out = {}
    for name in models:
        label = name if isinstance(name, str) else getattr(name, "__name__", "model")
        label = label.replace(":", "_").replace(".", "_")
        figs = load_figures(qwgt(W, C, R, name), f"lt_{label}_")
        for k in ("maxqwgt", "minqwgt", "qwgttot", "loadimb"):
            out[f"lt_{label}_{k}"] = figs[f"lt_{label}_{k}"]
    return out
