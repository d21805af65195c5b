"""``lbbench test minex``: the conformance checks every algorithm must pass (the ``conformance`` fixture)."""
import pytest


@pytest.mark.mpi
def test_minex_conforms(conformance):
    conformance("minex")
