"""``none``: no rebalancing, owners and data stay where they are (MinEX paper Table 4's baseline)."""
from harness import Algorithm, hookimpl, implements


@hookimpl
def register_algorithms(register):
    register(Algorithm("none", family="baseline", roles=("balance",), accepts=("graph", "boxes", "array"),
                       description="no load balancing: the previous owners stay"))


@implements("none")
def balance(ctx, state):
    return state
