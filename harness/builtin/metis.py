"""``metis``: METIS k-way from scratch each level (pymetis; pwgt and cwgt as weights), identity remap."""
from harness import Algorithm, hookimpl, implements, metis_kway


def _validate(params):
    if not 1 <= params["ufactor"] <= 1000:
        raise ValueError(f"metis: ufactor must be in [1, 1000] (thousandths), got {params['ufactor']}")


@hookimpl
def register_algorithms(register):
    register(Algorithm("metis", family="global", params={"ufactor": 30}, roles=("partition",),
                       validate=_validate, description="METIS multilevel k-way from scratch (pymetis), identity remap"))


@implements("metis")
def partition(ctx):
    return metis_kway(ctx.graph, ctx.P, seed=ctx.seed, ufactor=ctx.params["ufactor"])
