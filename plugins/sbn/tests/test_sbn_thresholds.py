"""UpdateLoad (SBN paper Fig. 4) and the MinTh bound of §5.4."""
import math

import pytest

from lbbench_sbn import thresholds as th


def test_heavy_load_minth_is_const_and_maxth_grows_as_a_power():
    t = th.update_load(400, 4, const=10)  # WSysLL = 100 > Const
    assert (t.wsysll, t.minth, t.maxth) == (100, 10, 100 + 2 ** 10)
    lin = th.update_load(400, 4, const=10, maxth="linear")
    assert lin.maxth == 100 + 2 * 10


def test_light_load_minth_never_above_const():
    t = th.update_load(20, 4, const=10)  # WSysLL = 5 <= Const
    assert t.wsysll == 5 and t.minth == 0 and t.maxth == 5 + 1
    t = th.update_load(52, 4, const=10)  # WSysLL = 13 > Const
    assert t.minth == 10 and t.maxth == 13 + 2


def test_example_values():
    """§3.6: GWLen = 94 on four processors gives WSysLL = ceil(94 / 4) = 24."""
    assert th.update_load(94, 4, const=10).wsysll == 24
    assert th.update_load(86, 4, const=10).wsysll == 22


def test_minth_bound_paper_example():
    """§5.4: P = 32, f = 60 checks/s, J_avg = 1000 jobs/s gives MinTh >= 500."""
    assert th.minth_bound(32, 1000, 60) == 500
    t = th.update_load(32 * 5000, 32, const=100, floor_minth=500)
    assert t.minth == 500


def test_initial_and_huge_exponent():
    t = th.initial(10)
    assert t.wsysll is None and t.minth == 10 and t.maxth == math.inf
    assert th.update_load(1e9, 1, const=1).maxth == math.inf


def test_bad_input():
    with pytest.raises(ValueError):
        th.update_load(10, 4, const=0)
    with pytest.raises(ValueError):
        th.update_load(10, 4, const=1, maxth="cubic")


def test_update_load_in_c_is_the_reference():
    """The balancing operations' C state (_opstate) applies UpdateLoad itself: the same thresholds, bit for bit, as
    update_load (light and heavy load, MaxTh past 2^60, linear MaxTh, the §5.4 floor, a GWLen of 0)."""
    from lbbench_sbn import _opstate

    for gw in (0.0, 1e-12, 3.0, 20.0, 52.0, 94.0, 400.0, 1234.567, 1e6, 7.5e9, 1e300):
        for P in (1, 4, 32, 100):
            for const, maxth, floor in ((10.0, "exp", 0.0), (10.0, "linear", 0.0), (0.37, "exp", 0.0),
                                        (10.0, "exp", 25), (3.0, "linear", 2.5)):
                t = th.update_load(gw, P, const, maxth, floor)
                got = _opstate.update_load(gw, P, const, maxth == "exp", floor)
                assert [math.copysign(1, x) for x in got] == [math.copysign(1, x) for x in
                                                              (t.wsysll, t.minth, t.maxth)]
                assert got == (t.wsysll, t.minth, t.maxth), (gw, P, const, maxth, floor)
