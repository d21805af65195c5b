"""``metis``: METIS k-way from scratch each level (pymetis; pwgt and cwgt as weights), identity remap."""
from harness import Algorithm, hookimpl
from harness.partitioners import metis_kway


@hookimpl
def register_algorithms(register):
    register(Algorithm("metis", family="global", params={"ufactor": 30}, roles=("partition",),
                       description="METIS multilevel k-way from scratch (pymetis), identity remap"))


@hookimpl
def partition(algorithm, ctx):
    if algorithm == "metis":
        return metis_kway(ctx.graph, ctx.P, seed=ctx.seed, ufactor=ctx.params["ufactor"])
