"""MLB through the harness's levels (the runner's array-form path): the paper's claims per level (spec §5)."""
import math

import numpy as np
import pytest

from harness import ReportOptions, block_owner, load_workload
from harness.testing import conformance  # noqa: F401  (the fixture)

from lbbench_mlb.phases import desired, destinations


def _run(tmp_path, method, P, initial="block", workload="arrays", **wp):
    opts = ReportOptions(workload=workload, workload_params=wp, out=str(tmp_path), cache=False, progress=False,
                         initial=initial)
    return opts.compare(method, P=P)


@pytest.mark.parametrize("kind", ["uniform", "random", "peaks"])
@pytest.mark.parametrize("P", [1, 2, 8, 64])
def test_claims_per_level_1d(tmp_path, kind, P):
    df = _run(tmp_path, "mlb", P, kind=kind, dims=1, size=1024, steps=3)
    assert (df["status"] == "ok").all(), df["status"].tolist()
    d = int(math.log2(P))
    assert (df["mlb_d"] == d).all()
    assert (df["mlb_phase1_supersteps"] == d).all()                  # M2
    assert (df["mlb_phase3_supersteps"] == d * (d - 1) // 2).all()   # M5 (§4's count)
    assert (df["mlb_phase4_supersteps"] == d).all()                  # M1, M9
    assert df["mlb_loan_procedure"].all() and df["mlb_as_predicted"].all()  # §3.4 ran, reached the rounding rule
    assert (df["mlb_phase1_messages"] == d * P).all() and (df["mlb_phase4_messages"] <= d * P).all()
    assert (df["mlb_schedule_steps"] <= d).all()
    assert (df["mlb_max_msgs_per_vproc_step"] <= 1).all()
    assert (df["mlb_desired_spread"] <= 1).all()                     # M4
    assert (df["mlb_max_dev"] <= df["mlb_max_element"]).all()        # rounding bound
    assert df["mlb_contiguous"].all() and df["mlb_rectangles"].all()  # M8, M11
    assert (df["mlb_sent_weight"] >= df["moved_weight"]).all()
    assert (df["mlb_passthrough_weight"] == df["mlb_sent_weight"] - df["moved_weight"]).all()
    assert (df["wire_migration_bytes"] >= df["migration_bytes"]).all()
    if kind == "uniform":                                            # M6: constant loads are balanced exactly
        T = 1024
        assert (df["mlb_max_dev"] == 0).all()
        assert np.allclose(df["work_loadimb"], math.ceil(T / P) / (T / P))
        assert (df.sort_values("level")["moved_weight"].iloc[1:] == 0).all()


def test_incremental_moves_the_minimum(tmp_path):
    """From a rank-contiguous start, moved weight = T - sum_r |old segment r ∩ new segment r| (in load units)."""
    P, wp = 16, dict(kind="peaks", dims=1, size=2048, steps=4)
    df = _run(tmp_path, "mlb", P, **wp).sort_values("level")
    _, _, levels = load_workload("arrays", wp, 0)
    old = block_owner(levels[0], P)
    for lv, (_, row) in zip(levels, df.iterrows()):
        load = lv.data.load
        new = destinations(load, desired(load.sum(), 4))
        pre = np.concatenate([[0], np.cumsum(load)])
        lo_o, hi_o = np.searchsorted(old, np.arange(P), "left"), np.searchsorted(old, np.arange(P), "right")
        lo_n, hi_n = np.searchsorted(new, np.arange(P), "left"), np.searchsorted(new, np.arange(P), "right")
        a, b = np.maximum(lo_o, lo_n), np.minimum(hi_o, hi_n)
        kept = np.where(b > a, pre[np.maximum(b, a)] - pre[a], 0).sum()
        assert row["moved_weight"] == load.sum() - kept
        assert row["mlb_sent_weight"] >= row["moved_weight"]
        old = new
    assert df["mlb_passthrough_weight"].sum() >= 0


def test_not_a_power_of_two_fails_the_cell(tmp_path):
    df = _run(tmp_path, "mlb", 12, kind="uniform", dims=1, size=256, steps=1)
    (status,) = df["status"].tolist()
    assert status.startswith("failed") and "mlb: P = 12 is not a power of two (MLB §3)" in status


def test_refuses_a_target_that_is_not_mlb_shaped(tmp_path):
    df = _run(tmp_path, "metis/mlb", 8, kind="peaks", dims=2, size=32, steps=1)
    status = df["status"].iloc[0]
    assert status.startswith("failed") and "mlb: the target is not an MLB distribution" in status


def test_bad_parameter_is_one_line_error(tmp_path):
    with pytest.raises(ValueError, match="mlb: dims must be 1 or auto"):
        _run(tmp_path, "mlb[dims=2]", 4, kind="uniform", dims=1, size=64, steps=1)
    with pytest.raises(ValueError, match="mlb: mesh is for dims=auto"):
        _run(tmp_path, "mlb[mesh=2x2]", 4, kind="uniform", dims=1, size=64, steps=1)


@pytest.mark.parametrize("method", ["mlb", "mlb[order=hilbert]", "mlb[dims=auto]", "mlb[dims=auto,mesh=2x8]",
                                    "mlb[rounding=up,remainder=right]", "mlb[rounding=up]"])
def test_modes_on_2d_arrays(tmp_path, method):
    df = _run(tmp_path, method, 16, initial="metis", kind="peaks", dims=2, size=32, steps=2)
    assert (df["status"] == "ok").all(), df["status"].tolist()
    assert df["mlb_contiguous"].all() and (df["mlb_max_msgs_per_vproc_step"] <= 1).all()
    assert (df["mlb_phase4_supersteps"] == 4).all()
    if "dims=auto" in method:                                        # M11, M12: boxes with through cuts
        assert df["mlb_rectangles"].all()
        assert (df["mlb_phase3_supersteps"] == 6).all()
        assert (df["mlb_max_dev"] <= df["mlb_max_element"]).all()
    else:
        assert (df["mlb_desired_spread"] <= 1).all() and (df["mlb_max_dev"] <= df["mlb_max_element"]).all()
    if "dims=auto" not in method:                                    # from the level-1 result on: rank-ordered
        assert df.sort_values("level")["mlb_loan_procedure"].iloc[1:].all()


def test_graph_workload_through_the_hilbert_array(tmp_path):
    df = _run(tmp_path, "mlb", 8, initial="block", workload="mini")
    assert (df["status"] == "ok").all(), df["status"].tolist()
    assert df["mlb_contiguous"].all() and (df["mlb_max_dev"] <= df["mlb_max_element"]).all()


def test_conformance(conformance):
    conformance("mlb")
