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
the algorithm is not theirs; :func:`harness.contract.plugins.implements` writes that
check for you. ``ctx`` is a :class:`harness.contract.context.Context`.
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
    """Declare algorithms: call ``register(Algorithm(...))`` once for each (at discovery).

    Args:
        register: call it once per item.
    """


@hookspec
def register_reports(register: Callable) -> None:
    """Declare named reports: call ``register(Report(...))`` once for each.

    Args:
        register: call it once per item.
    """


@hookspec
def register_claims(register: Callable) -> None:
    """Declare a paper's claims: call ``register(Claim(...))`` once for each (``lbbench claims``).

    Args:
        register: call it once per item.
    """


@hookspec
def register_calibrations(register: Callable) -> None:
    """Declare fitted parameters: call ``register(Calibration(...))`` once for each (``lbbench calibrate``).

    Args:
        register: call it once per item.
    """


@hookspec
def register_workloads(register: Callable) -> None:
    """Declare workloads: call ``register(Workload(...))`` once for each.

    Args:
        register: call it once per item.
    """


@hookspec
def register_latency_models(register: Callable) -> None:
    """Declare latency models (MinEX §3.2): call ``register(name, f)`` with ``f(wgt, comm, remap) -> qwgt``.

    Args:
        register: ``register(name, f)``, once per model.
    """


@hookspec
def register_references(register: Callable) -> None:
    """Declare paper values: call ``register(path)`` with a CSV (``paper,table,P,row,column,value``) or a directory of them.

    The columns' meaning (what ``row`` and ``column`` must match) is in :func:`harness.paper_values`'s
    module and :func:`harness.with_paper`.

    Args:
        register: ``register(path)``, once per file or directory.
    """


@hookspec(firstresult=True)
def partition(algorithm: str, ctx: "Context") -> "np.ndarray | BoxPieces | None":
    """Assign the level's items to parts; called at each level for the algorithm with role ``partition``.

    ``ctx.state`` is the state before (carried from the previous level). Do
    not move data: the runner does. Write it with ``@implements("name")`` and
    without the ``algorithm`` argument.

    Args:
        algorithm: the name of the algorithm being run (``@implements`` checks it for you).
        ctx: the :class:`harness.Context`.

    Returns:
        One part per item of ``ctx.data``: an integer-dtype array (a float array is refused), parts in
        ``[0, P)``, or in ``[0, P * F)`` when a ``remap`` follows; for an array-form algorithm one per
        cell of the array (the runner maps cells back to graph vertices); or a ``BoxPieces`` for a
        boxes-form level.

    Example:
        >>> @implements("halves")
        ... def partition(ctx):
        ...     return (np.arange(ctx.graph.n) * ctx.P) // ctx.graph.n
    """


@hookspec(firstresult=True)
def remap(algorithm: str, ctx: "Context", parts: "np.ndarray") -> "np.ndarray | None":
    """Map parts to processors (PLUM §4.3); called after ``partition`` for role ``remap``.

    Args:
        algorithm: the algorithm's name (``@implements`` checks it).
        ctx: the :class:`harness.Context`.
        parts: the partition, one part per graph vertex.

    Returns:
        ``proc`` with ``proc[part]`` in ``[0, P)`` (integers), or None for the identity.

    Example:
        >>> @implements("mine")
        ... def remap(ctx, parts):
        ...     return np.arange(parts.max() + 1) % ctx.P
    """


@hookspec(firstresult=True)
def accept(algorithm: str, ctx: "Context", proposed: "State") -> "bool | None":
    """Adopt the proposed assignment (True) or keep the state before (False); role ``accept`` (PLUM §4.4).

    Args:
        algorithm: the algorithm's name (``@implements`` checks it).
        ctx: the :class:`harness.Context` (``ctx.state`` is the state before).
        proposed: the proposed :class:`harness.State`: new owners, old homes (nothing moved yet).

    Returns:
        True to adopt it, False to keep ``ctx.state``.

    Example:
        >>> @implements("mine")
        ... def accept(ctx, proposed):
        ...     return loadimb_of(ctx.graph, proposed, ctx.machine) < loadimb_of(ctx.graph, ctx.state, ctx.machine)
    """


@hookspec(firstresult=True)
def balance(algorithm: str, ctx: "Context", state: "State") -> "State | None":
    """Run the dynamic balancer through the level; role ``balance``. Return the State after it.

    The algorithm may post ``migration`` messages as it moves data (lazy
    migration); the runner derives the accounting from the homes either way.
    A balancer that processes work during the level (SBN) declares what ran
    with ``ctx.executed(on, costs)``.

    Args:
        algorithm: the algorithm's name (``@implements`` checks it).
        ctx: the :class:`harness.Context` (``ctx.state`` is the state before partition/remap/accept).
        state: the state after partition/remap/accept (or ``ctx.state`` for a balancer alone).

    Returns:
        The :class:`harness.State` after the level (integer owners and homes in ``[0, P)``).

    Example:
        >>> @implements("mine", "mine-lazy")
        ... def balance(ctx, state):
        ...     owner = my_owner(ctx.graph, state, ctx.P)
        ...     if ctx.algorithm == "mine-lazy":
        ...         return State(owner, state.home, ctx.P)   # data stays: moves later
        ...     return State.settled(owner, ctx.P)
    """


@hookspec
def metrics(ctx: "Context", before: "State", after: "State") -> "dict | None":
    """Extra columns for the cell's row; every implementation contributes (prefix them with your name).

    Under MPI it runs on one rank, vproc 0's, and its row goes to every rank: call no engine collective.

    Args:
        ctx: the :class:`harness.Context` (``ctx.algorithm`` is the method's last algorithm).
        before: the state before the level.
        after: the state after it.

    Returns:
        A dict of column -> number or string, or None.

    Example:
        >>> @hookimpl
        ... def metrics(ctx, before, after):
        ...     return {"mine_boundary": int((after.owner[ctx.graph.src] != after.owner[ctx.graph.adjncy]).sum())}
    """
