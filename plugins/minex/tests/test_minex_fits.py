"""The MinEX calibrations (fits.py): ThroTtle's unit and the cost of a leaf face, and what they leave alone."""
import numpy as np

from harness import Machine, initial_state, load_workload
from harness.builtin.mini import generate
from harness.claims.calibrate import calibration_keys, overlaps, read
from lbbench_minex import fits
from lbbench_minex import minex as mx
from lbbench_minex.claims import CLAIMS
from lbbench_minex.plugin import PARAMS
from workloads import shock


def test_defaults_are_the_fits():
    for cal in fits.CALIBRATIONS:
        df = read(cal.path)
        chosen = df[df["chosen"].astype(str) == "True"]
        assert len(chosen) and set(chosen["value"]) == {chosen["value"].iloc[0]}  # one value, written by fit
        assert set(df["value"].astype(str)) == {str(v) for v in cal.candidates}  # every candidate tried
    assert PARAMS["unit"] == fits.throttle_unit()
    assert fits.model() == {"core": fits.spread_core(), "unit": fits.throttle_unit(), "cwgt_unit": fits.cwgt_unit()}


def test_the_joint_fit_is_the_lowest_residual_on_its_grid():
    """minex-model tries every (core, unit, cost) of the grid once and keeps the lowest mean |log(ours/paper)|."""
    df = read(fits.MODEL_PATH)
    per = df.groupby("value")["residual"].first()
    assert len(per) == len(fits.CORES) * len(fits.UNITS) * len(fits.CWGTS)
    chosen = df.loc[df["chosen"].astype(str) == "True", "value"].iloc[0]
    assert per[chosen] == per.min()
    assert fits.neighbours(fits.UNITS, fits.UNITS[0]) == (fits.UNITS[1],)


def test_slabs_start_cuts_along_x():
    """--initial slabs: P slabs of equal vertex count along the first coordinate, every slab's x range
    disjoint from the next one's (the fitted start of the MinEX cells)."""
    level = generate(seed=0, points=600, levels=1)[0]
    st = initial_state(level, 4, 0, "slabs")
    x = level.data.coords[:, 0]
    n = level.data.n
    assert np.bincount(st.owner, minlength=4).tolist() == np.bincount(np.arange(n) * 4 // n).tolist()
    assert all(x[st.owner == p].max() <= x[st.owner == p + 1].min() for p in range(3))


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


def test_core_spreads_the_refinement_only_when_below_one():
    """shock[core=c] caps the depth at 2 outside the inner c x radius of the cylinder: never more weight per
    vertex than shock's own cylinder, less in all; core = 1 (the default) is shock's mesh, bit for bit."""
    small = {"scale": 0.05, "levels": 4, "radius": 0.4}
    wl, _, base = load_workload("shock", small)
    assert wl.params["core"] == 1.0
    one = load_workload("shock", {**small, "core": 1.0})[2]
    half = load_workload("shock", {**small, "core": 0.5})[2]
    for a, b, c in zip(base, one, half):
        assert np.array_equal(a.data.pwgt, b.data.pwgt) and np.array_equal(a.data.cwgt, b.data.cwgt)
        assert (c.data.pwgt <= a.data.pwgt).all() and (c.data.rwgt <= a.data.rwgt).all()
    assert half[-1].data.pwgt.sum() < base[-1].data.pwgt.sum()


def test_minex_cylinders_follow_one_rule():
    """Every core of the fit's grid has its cylinder (fits.CYLINDERS): the speed SPEED and the trailing edge at
    x = TRAIL2 at level 2 (shock's wake variant's), the radius its own."""
    assert set(fits.CYLINDERS) == set(fits.CORES)
    for cyl in fits.CYLINDERS.values():
        assert cyl["speed"] == fits.SPEED
        assert abs(cyl["start"] + cyl["speed"] - cyl["radius"] - fits.TRAIL2) < 1e-9


def test_minex_shock_meets_the_papers_statements():
    """The MinEX cells' shock (the fitted core and its cylinder) meets what SBN §5.1 and MinEX §2.1 say of the
    test case (workloads.shock.meets): elements coarsened behind the cylinder at every level from 2, a positive
    speed with the cylinder in the domain, "from 50,000 elements to 1,833,730 elements" within 2%, no level more
    than 2% above level 9 (shock.profile's figures, from the generated levels)."""
    p = fits.shock_params()
    pw = [lv.data.pwgt for lv in load_workload("shock", p)[2]]
    centres = [p["start"] + t * p["speed"] for t in range(len(pw))]
    sums = [int(w.sum()) for w in pw]
    met = shock.meets({"elements": pw[0].size, "sums": sums, "level_sum": sum(sums), "speed": p["speed"],
                       "coarsened": [int((w < q).sum()) for q, w in zip([np.ones_like(pw[0]), *pw], pw)],
                       "trailing": [c - p["radius"] for c in centres], "leading": [c + p["radius"] for c in centres]})
    assert met["wake"] and met["increased"] and met["left_to_right"]
    assert abs(met["initial"]) < 0.02 and abs(met["final"]) < 0.02


def test_minex_cells_name_the_fitted_shock():
    """Reports and claims run on the same shock: the fitted cost, core and radius (fits.shock_params)."""
    from harness import ReportOptions
    from lbbench_minex.reports import minex_shock, workload_params

    assert workload_params(ReportOptions()) == fits.shock_params()
    assert minex_shock().startswith(f"shock[cwgt_unit={fits.cwgt_unit()}")
    assert workload_params(ReportOptions(workload_params={"radius": 0.3})) == {"cwgt_unit": fits.cwgt_unit(),
                                                                             "radius": 0.3}
