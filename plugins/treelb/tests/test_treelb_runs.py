"""Through the runner: the conformance checks (lbbench test NAME) and the mapper-first composites."""
import numpy as np
import pytest

from harness import ReportOptions
from harness.testing import conformance  # noqa: F401  (the fixture)


@pytest.mark.mpi
@pytest.mark.parametrize("name", ["mcstlb", "btlb", "cbtlb", "ae-orb", "ae-mc", "mlkp"])
def test_conformance(conformance, name):
    conformance(name)


def test_mapper_first_composite_and_bad_parameter(tmp_path):
    opts = ReportOptions(workload="mini", out=str(tmp_path), progress=False)
    df = opts.compare(["ae-orb/cbtlb", "ae-orb"], P=4)
    assert (df["status"] == "ok").all()
    comp = df[df["algorithm"] == "ae-orb/cbtlb"].sort_values("level")
    # level 1: AE/ORB's initial mapping (no balancer); later levels: CBTLB only
    assert np.isnan(comp["tree_schedule_steps"].iloc[0]) and (comp["tree_schedule_steps"].iloc[1:] >= 0).all()
    assert (comp["work_loadimb"].iloc[1:] < 1.01).all()
    with pytest.raises(ValueError, match="rounding"):
        opts.compare("mcstlb[rounding=up]", P=4)
