"""shock's default cylinder, version 6 (workloads/README.md, "shock: the wake (version 6)"): the statements of
SBN §5.1 / MinEX §2.1 it meets, the search's figures (workloads.shock.profile) against the generator, and version 5
kept as the preset workloads.shock.V5 with its parameters and levels."""
import dataclasses

import numpy as np
import pytest

from harness.run import workloads
from workloads import shock

# the default's (version 6) and version 5's per-level sum of pwgt and coarsened vertices (seed 0; workloads/README.md)
DEFAULT_SUMS = [115_798, 408_971, 1_683_187, 1_781_166, 1_800_639, 1_796_132, 1_812_229, 1_817_480, 1_835_040]
DEFAULT_COARSENED = [0, 3792, 2690, 6683, 5710, 8961, 8868, 8931, 8865]
V5_SUMS = [54_676, 81_621, 249_254, 497_126, 792_870, 1_109_715, 1_419_635, 1_677_780, 1_838_124]
V5_COARSENED = [0, 0, 0, 0, 0, 28, 296, 684, 1264]


@pytest.fixture(scope="module")
def mesh():
    return shock.search_mesh(1.0, 0)


def test_the_default_is_version_6_and_v5_keeps_its_parameters_and_key():
    wl = workloads.get("shock")
    params = workloads.resolve_params(wl, {})
    assert wl.version == "6" and params == shock.DEFAULTS
    assert {k: params[k] for k in shock.WAKE} == shock.WAKE  # the default cylinder is the wake preset
    assert workloads.cache_key(wl, params, 0) == "99081852df18890714db"
    # version 5 is the preset V5: under version 5's name its resolved parameters give version 5's key
    v5 = workloads.resolve_params(wl, shock.V5)
    assert workloads.cache_key(dataclasses.replace(wl, version="5"), v5, 0) == "09992b2f22e8acf310be"


def test_profile_is_the_generators_pwgt():
    """The search's figures come from the same split bits and closure as the levels' pwgt."""
    params = dict(scale=0.05, levels=4, radius=0.4, speed=0.2, start=0.5)
    levels = shock.generate(seed=0, **params)
    small = shock.search_mesh(0.05, 0)
    p = shock.profile(small, params["radius"], params["speed"], params["start"], levels=4)
    assert p["sums"] == [int(lv.data.pwgt.sum()) for lv in levels]
    prev = np.ones(levels[0].data.n, np.int64)
    for lv, down in zip(levels, p["coarsened"]):
        assert down == np.count_nonzero(lv.data.pwgt < prev)
        prev = lv.data.pwgt


def test_version_5_has_no_wake_in_the_domain_before_level_6(mesh):
    p = shock.profile(mesh, **shock.V5)
    assert p["sums"] == V5_SUMS and p["coarsened"] == V5_COARSENED
    m = shock.meets(p)
    assert not m["wake"] and not m["wake_flanks"] and m["increased_each"]


def test_the_default_meets_the_papers_text(mesh):
    """SBN §5.1: "refining all elements within a cylindrical volume moving left to right across the domain with
    constant velocity, while coarsening previously-refined elements in its wake"; "increased from 50,000 to
    1,833,730 over the nine levels" (as no level more than 2% above level 9; not level over level)."""
    p = shock.profile(mesh, **shock.WAKE)
    assert p["sums"] == DEFAULT_SUMS and p["coarsened"] == DEFAULT_COARSENED
    m = shock.meets(p)
    assert m["wake"] and m["increased"] and m["left_to_right"]
    assert not m["increased_each"]  # the strict reading is not met (workloads/README.md)
    assert all(c > 100 for c in p["coarsened"][1:])  # a wake behind the trailing edge at every level from 2
    assert abs(m["initial"]) < 0.02 and abs(m["final"]) < 0.02
    assert shock.score(p) == pytest.approx(abs(m["level_sum"]))
    # the level sum MinEX's tables imply is not met: a cylinder inside the domain is refined to full depth by
    # level 3 and then only moves (workloads/README.md)
    assert m["level_sum"] > 0.5
