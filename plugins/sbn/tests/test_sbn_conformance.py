"""``lbbench test sbn``: the conformance checks every algorithm must pass (the ``conformance`` fixture)."""
import pytest


@pytest.mark.mpi
def test_sbn_conforms(conformance):
    conformance("sbn")
