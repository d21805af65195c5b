"""``lbbench test amr-*``: the conformance checks on the default boxes workload (the small bl), with the
identity check under mpiexec -n 2 for every scheme."""
import pytest

from harness.testing import conformance  # noqa: F401  (the fixture)
from lbbench_amr.plugin import SCHEMES


@pytest.mark.parametrize("name", list(SCHEMES))
def test_conformance(conformance, name):
    rows = conformance(name)
    assert any("bl[" in check for check, _, _ in rows)  # the default workload follows `accepts`
