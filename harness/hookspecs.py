"""The lbbench hook specifications: the reference of the plugin contract (docs/plugins.md).

One cell is one (method, level). The runner calls, in this order:

1. ``partition`` -> ``remap`` -> ``accept`` for the algorithm playing those
   roles (the mapper of ``mapper/balancer``);
2. ``balance`` for the algorithm playing that role;
3. the runner's own accounting: the data movement (``moved_weight``,
   ``migration_bytes``, ...) is derived from the homes before and after; if
   the data moved and the algorithm posted no ``migration`` messages, the
   runner sends them;
4. ``metrics`` of every plugin (the core metrics are one of them).

The ``firstresult`` hooks receive the algorithm's name and return None when
the algorithm is not theirs; :func:`harness.plugins.implements` writes that
check for you. ``ctx`` is a :class:`harness.context.Context`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import pluggy

if TYPE_CHECKING:
    import numpy as np

    from .context import Context
    from .model import State
    from .pieces import BoxPieces

hookspec = pluggy.HookspecMarker("lbbench")
hookimpl = pluggy.HookimplMarker("lbbench")


@hookspec
def register_algorithms(register: Callable) -> None:
    """Declare algorithms: call ``register(Algorithm(...))`` once for each (at discovery)."""


@hookspec
def register_reports(register: Callable) -> None:
    """Declare named reports: call ``register(Report(...))`` once for each."""


@hookspec
def register_claims(register: Callable) -> None:
    """Declare a paper's claims: call ``register(Claim(...))`` once for each (``lbbench claims``)."""


@hookspec
def register_workloads(register: Callable) -> None:
    """Declare workloads: call ``register(Workload(...))`` once for each."""


@hookspec
def register_latency_models(register: Callable) -> None:
    """Declare latency models (MinEX §3.2): call ``register(name, f)`` with ``f(wgt, comm, remap) -> qwgt``."""


@hookspec
def register_references(register: Callable) -> None:
    """Declare paper values: call ``register(path)`` with a CSV (``paper,table,P,row,column,value``) or a directory of them."""


@hookspec(firstresult=True)
def partition(algorithm: str, ctx: "Context") -> "np.ndarray | BoxPieces | None":
    """Assign the level's items to parts; called at each level for the algorithm with role ``partition``.

    Return one part in ``[0, P * F)`` per item of ``ctx.data`` (an integer
    array; for an array-form algorithm, per cell of the array: the runner maps
    cells back to graph vertices), or a ``BoxPieces`` for a boxes-form level.
    ``ctx.state`` is the state before (carried from the previous level). Do
    not move data: the runner does.
    """


@hookspec(firstresult=True)
def remap(algorithm: str, ctx: "Context", parts: "np.ndarray") -> "np.ndarray | None":
    """Map parts to processors (PLUM §4.3); called after ``partition`` for role ``remap``.

    ``parts`` is per graph vertex. Return ``proc`` with ``proc[part]`` in
    ``[0, P)``, or None for the identity.
    """


@hookspec(firstresult=True)
def accept(algorithm: str, ctx: "Context", proposed: "State") -> "bool | None":
    """Adopt the proposed assignment (True) or keep the state before (False); role ``accept`` (PLUM §4.4).

    ``proposed`` has the new owners and the old homes (nothing moved yet).
    """


@hookspec(firstresult=True)
def balance(algorithm: str, ctx: "Context", state: "State") -> "State | None":
    """Run the dynamic balancer through the level; role ``balance``. Return the State after it.

    ``state`` is the state after partition/remap/accept (``ctx.state`` before
    them). The algorithm may post ``migration`` messages as it moves data
    (lazy migration); the runner derives the accounting from the homes either
    way. A balancer that processes work during the level (SBN) declares what
    ran with ``ctx.executed(on, costs)``.
    """


@hookspec
def metrics(ctx: "Context", before: "State", after: "State") -> "dict | None":
    """Extra columns for the cell's row; every implementation contributes (prefix them with your name)."""
