"""The communication constants in IN_SAMPLE_FIT are what the fit to the paper's MLkP row gives on truss."""
import pytest

from harness import load_workload
from lbbench_treelb.calibrate import PAPER_MLKP_SMAX, fit
from lbbench_treelb.plugin import IN_SAMPLE_FIT


def test_calibrated_constants_reproduce_and_mlkp_within_15_percent():
    _, _, levels = load_workload("truss")
    got = fit(levels, 1.0 / sum(lv.data.n for lv in levels))
    assert got["t_setup"] == pytest.approx(IN_SAMPLE_FIT["t_setup"], abs=1e-9)
    assert got["t_c"] == pytest.approx(IN_SAMPLE_FIT["t_c"], rel=1e-6)
    for P, paper in PAPER_MLKP_SMAX.items():
        assert abs(got["smax"][P] / paper - 1) <= 0.15
