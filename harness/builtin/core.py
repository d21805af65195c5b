"""The core metrics (DESIGN.md "Metrics") as a ``metrics`` hook implementation."""
from harness import hookimpl
from harness.metrics import core_metrics


@hookimpl
def metrics(ctx, before, after):
    return core_metrics(ctx.graph, before, after, ctx.machine)
