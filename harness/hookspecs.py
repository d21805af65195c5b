"""The lbbench hook specifications (DESIGN.md, "Hooks").

Dispatch follows pytest's idiom: the ``firstresult`` hooks receive the
algorithm's name and return ``None`` when the algorithm is not theirs.
Every hook receives a :class:`harness.context.Context` (``ctx``) carrying the
level's graph, the state before, the machine, the engine, the parameters, the
seed and a ``record`` dict for extra per-level figures.
"""
import pluggy

hookspec = pluggy.HookspecMarker("lbbench")
hookimpl = pluggy.HookimplMarker("lbbench")


@hookspec
def register_algorithms(register):
    """Declare algorithms: call ``register(Algorithm(...))`` once for each."""


@hookspec
def register_reports(register):
    """Declare named reports: call ``register(Report(...))`` once for each."""


@hookspec(firstresult=True)
def partition(algorithm, ctx):
    """Return a new assignment of vertices to ``ctx.P`` parts (int array, one per vertex), or None."""


@hookspec(firstresult=True)
def remap(algorithm, ctx, parts):
    """Return ``proc[part]`` mapping the parts of ``parts`` to processors, or None (identity)."""


@hookspec(firstresult=True)
def accept(algorithm, ctx, proposed):
    """Return True to adopt the proposed State, False to keep the old one, or None (accept)."""


@hookspec(firstresult=True)
def balance(algorithm, ctx, state):
    """Run the dynamic balancer through one adaptation level; return the new State, or None."""


@hookspec
def metrics(ctx, before, after):
    """Return a dict of named figures for one level; every implementation contributes."""
