"""The MinEX calibrations (fits.py): ThroTtle's unit and the cost of a leaf face, and what they leave alone."""
import numpy as np

from harness import Machine, initial_state, load_workload
from harness.builtin.mini import generate
from harness.claims.calibrate import calibration_keys, overlaps, read
from lbbench_minex import fits
from lbbench_minex import minex as mx
from lbbench_minex.claims import CLAIMS
from lbbench_minex.plugin import PARAMS


def test_defaults_are_the_fits():
    for cal in fits.CALIBRATIONS:
        df = read(cal.path)
        chosen = df[df["chosen"].astype(str) == "True"]
        assert len(chosen) and set(chosen["value"]) == {chosen["value"].iloc[0]}  # one value, written by fit
        assert set(df["value"].astype(float)) == {float(v) for v in cal.candidates}  # every candidate tried
    assert PARAMS["unit"] == fits.throttle_unit()


def test_no_claim_reads_a_calibration_cell():
    assert calibration_keys(fits.CALIBRATIONS)
    assert overlaps(CLAIMS, fits.CALIBRATIONS) == []


def test_unit_is_the_normalisation_scale():
    """unit = P with normalize="total" is normalize="mean" (§3.3's gate in loads of Q0/P)."""
    levels = generate(seed=0, points=600, levels=2)
    P = 8
    start = initial_state(levels[0], P, 0)
    m = Machine.parse("grid:2:3", P)
    g = levels[1].data
    a, _ = mx.minex(g, start.owner, start.owner, m, seed=1, throttle=4.0, latency="max", unit=float(P))
    b, _ = mx.minex(g, start.owner, start.owner, m, seed=1, throttle=4.0, latency="max", normalize="mean")
    assert np.array_equal(a, b)


def test_cwgt_unit_scales_cwgt_only():
    """shock[cwgt_unit=k] multiplies every cwgt by k and leaves pwgt, rwgt and the graph alone; the default (1) is
    the SBN tables' shock."""
    wl, _, base = load_workload("shock", {"scale": 0.05, "levels": 2})
    three = load_workload("shock", {"scale": 0.05, "levels": 2, "cwgt_unit": 3})[2]
    assert wl.params["cwgt_unit"] == 1
    for a, b in zip(base, three):
        assert np.array_equal(a.data.adjncy, b.data.adjncy)
        assert np.array_equal(a.data.pwgt, b.data.pwgt) and np.array_equal(a.data.rwgt, b.data.rwgt)
        assert np.array_equal(3 * a.data.cwgt, b.data.cwgt)
