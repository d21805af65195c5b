"""``lbbench test plum``: the conformance checks every algorithm must pass (the ``conformance`` fixture)."""
import pytest


@pytest.mark.mpi
def test_plum_conforms(conformance):
    conformance("plum")
