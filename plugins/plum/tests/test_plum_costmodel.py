"""The remap cost model gamma * MaxSR + O and PLUM's accept rule (SBN paper §4.4)."""
import numpy as np
import pytest

from harness import Machine
from harness.run.api import compare
from lbbench_plum import costmodel


def test_least_squares_recovers_gamma_and_O():
    m = Machine.uniform(8)
    pairs = [(x, 3e-7 * x + 2e-3) for x in (1000, 5000, 20000, 7000)]
    model = costmodel.fit(pairs, m)
    assert model.source == "fit"
    assert model.gamma == pytest.approx(3e-7) and model.overhead == pytest.approx(2e-3)
    assert model.cost(10000) == pytest.approx(5e-3)
    assert model.cost(0) == 0.0  # nothing moves, nothing to pay


def test_prior_until_two_distinct_maxsr_and_per_machine():
    m = Machine.uniform(8)
    assert costmodel.fit([], m).source == "prior"
    assert costmodel.fit([(100, 1.0), (100, 2.0)], m).source == "prior"
    slow = Machine.grid(8, 2, 10.0)
    assert costmodel.prior(slow).gamma == pytest.approx(10 * costmodel.prior(m).gamma)


def test_nonnegative_fit():
    model = costmodel.fit([(1000, 5.0), (2000, 1.0), (3000, 0.5)], Machine.uniform(4))
    assert model.gamma >= 0 and model.overhead >= 0


def test_accept_only_when_gain_exceeds_cost():
    assert costmodel.gain(120.0, 100.0, iterations=10, work_s=1e-3) == pytest.approx(0.2)
    assert costmodel.decide(0.2, 0.1) and not costmodel.decide(0.1, 0.2) and not costmodel.decide(0.1, 0.1)




def test_rejected_levels_keep_the_old_assignment(tmp_path):
    df = compare("plum[iterations=0],none,plum[iterations=100000],plum[gamma=1.0,overhead=0.0,iterations=1]",
                 workload="mini", P=4, out=tmp_path)
    assert (df.status == "ok").all()
    never = df[df.algorithm == "plum[iterations=0]"]
    assert not never.plum_accepted.any() and (never.moved_weight == 0).all() and (never.maxsr == 0).all()
    # rejected: every figure equals the no-balancing baseline's
    base = df[df.algorithm == "none"]
    assert np.allclose(never.loadimb.to_numpy(), base.loadimb.to_numpy())
    always = df[df.algorithm == "plum[iterations=100000]"]
    assert always.plum_accepted.all() and (always.moved_weight > 0).all()
    assert (always.plum_gain_s > always.plum_cost_s).all()
    assert (always.loadimb.to_numpy() < base.loadimb.to_numpy()).all()
    # given gamma = 1 s per element: far too expensive to remap
    given = df[df.algorithm == "plum[gamma=1.0,overhead=0.0,iterations=1]"]
    assert not given.plum_accepted.any()
    assert np.allclose(given.plum_cost_s, given.plum_maxsr_proposed * 1.0)


def test_cost_model_is_fitted_from_the_engine_migrations(tmp_path):
    df = compare("plum-pmetis,plum-dmetis", workload="mini", P=8, out=tmp_path)
    seen = set()
    for name, runs in df.groupby("algorithm"):
        assert runs.plum_model.tolist() == ["prior", "prior", "fit"]  # two distinct (MaxSR, time) pairs by level 3
        # level 3's model is the non-negative least-squares line through levels 1 and 2's (MaxSR, modelled
        # time of the runner's real migration), read from the previous rows
        x, y = runs.maxsr.to_numpy()[:2], runs.modelled_migration_s.to_numpy()[:2]
        slope = (y[1] - y[0]) / (x[1] - x[0])
        intercept = y[0] - slope * x[0]
        if slope >= 0 and intercept >= 0:
            seen.add("line")
            expect = (slope, intercept)
        else:  # O clamps to 0: least squares through the origin
            seen.add("origin")
            expect = (x @ y / (x @ x), 0.0)
        assert runs.plum_gamma.iloc[2] == pytest.approx(expect[0])
        assert runs.plum_overhead_s.iloc[2] == pytest.approx(expect[1], abs=1e-12)
        assert runs.plum_cost_s.iloc[2] == pytest.approx(expect[0] * runs.plum_maxsr_proposed.iloc[2] + expect[1])
    assert seen == {"line", "origin"}  # both cases are exercised on mini at P = 8


def test_bad_parameters_are_refused_before_any_cell_runs(tmp_path):
    with pytest.raises(ValueError, match="partitioner='chaco' is not one of pmetis, dmetis"):
        compare("plum[partitioner=chaco]", workload="mini", P=4, levels=[1], out=tmp_path)
    with pytest.raises(ValueError, match="give both gamma and overhead"):
        compare("plum[gamma=1.0]", workload="mini", P=4, levels=[1], out=tmp_path)


def test_wall_timing_fits_the_measured_migration_time(tmp_path):
    df = compare("plum[timing=wall]", workload="mini", P=4, out=tmp_path)
    assert (df.time_migration_s > 0).all()  # the runner's timed migration, max over ranks, is what is fitted
    assert df.plum_model.iloc[-1] == "fit"
