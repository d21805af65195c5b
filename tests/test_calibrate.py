"""Calibrations (``lbbench calibrate``): the fit, the defaults read back, and no claim reading a calibration cell;
a claim's cause, other reading and variants (the robustness column)."""
import math

import pandas as pd
import pytest

from harness import Calibration, Cells, Claim, ReportOptions, fitted
from harness.claims import calibrate as cb
from harness.claims import claim as cl
from harness.contract import plugins

# the papers whose free parameters are fitted: every claim of theirs lists the printed cells it reads
CALIBRATED = ("sbn", "tree", "minex")


def test_no_claim_reads_a_calibration_cell():
    claims, cals = plugins.claims().values(), plugins.calibrations().values()
    assert cb.overlaps(claims, cals) == []
    for cal in cals:  # every calibration fits on printed cells
        assert cb.paper_figures(cal), cal.name


def test_claims_of_calibrated_papers_list_what_they_read():
    papers = {c.paper for c in plugins.calibrations().values()}
    for claim in plugins.claims().values():
        if claim.paper in papers:
            assert claim.reads and all(isinstance(b, Cells) for b in claim.reads), claim.name


def test_the_defaults_are_the_fits():
    for cal in plugins.calibrations().values():
        df = cb.read(cal.path)
        assert len(df), f"{cal.path} missing: run 'lbbench calibrate --paper {cal.paper}'"
        assert set(df["calibration"]) == {cal.name}
        chosen = df[df["chosen"].astype(str) == "True"]
        assert chosen["value"].nunique() == 1, cal.name
        # the chosen candidate has the lowest residual of the fit
        best = df.groupby("value", sort=False)["residual"].first().astype(float)
        assert math.isclose(best[chosen["value"].iloc[0]], best.min()), cal.name


def test_overlap_is_found():
    block = Cells("sbn", "5", P=(2,), columns=("LoadImb",))
    claim = Claim("t-reads", "sbn", "§1", "x", ({"methods": "none", "P": 2},), lambda df: (True, ""), reads=(block,))
    cal = Calibration("t-cal", "sbn", "none[x]", (Cells("sbn", "5", P=(2, 4), columns=("LoadImb",)),), (1,),
                      lambda v, o: {}, "unused.csv")
    got = cb.overlaps([claim], [cal])
    assert got and {c for _, _, c in got} == block.keys() and len(block.keys()) == 10  # nine levels and the Average at P = 2


def test_fit_writes_every_candidate_and_picks_the_least_residual(tmp_path):
    cells = (Cells("sbn", "5", P=(2,), columns=("LoadImb",)),)
    paper = cb.paper_figures(Calibration("t", "sbn", "p", cells, (1,), None, tmp_path / "x.csv"))
    assert len(paper) == 10

    def measure(value, opts):  # ours = the paper's times value: 1.0 fits exactly
        return {k: v * value for k, v in paper.items()}

    cal = Calibration("t-fit", "sbn", "none[scale]", cells, (0.5, 1.0, 2.0), measure, tmp_path / "cal" / "t.csv")
    df = cb.fit(cal, ReportOptions(progress=False))
    assert len(df) == 30 and set(df.columns) == set(cb.FIT_COLUMNS)
    assert fitted(tmp_path / "cal" / "t.csv") == 1.0
    s = cb.summary(cb.read(cal.path))
    assert s.loc[s["chosen"], "residual"].item() == 0.0
    assert s.loc[s["value"].astype(float) == 2.0, "median ours/paper"].item() == pytest.approx(2.0)
    with pytest.raises(LookupError, match="lbbench calibrate"):
        fitted(tmp_path / "none.csv")


def test_a_bad_cause_or_variant_is_refused():
    with pytest.raises(ValueError, match="cause"):
        Claim("t", "p", "§", "x", (), lambda df: (True, ""), cause=("bad luck", "x"))
    with pytest.raises(ValueError, match="variant"):
        Claim("t", "p", "§", "x", (), lambda df: (True, ""), variants=(("v", {"seed": 2}),))


CELLS = ({"methods": "none,metis", "P": (2, 4)},)


def _moved_less(df):
    a, b = Claim.total(df, "none", "moved_weight"), Claim.total(df, "metis", "moved_weight")
    return a < b, f"none {Claim.num(a)}, metis {Claim.num(b)}"


def test_variants_other_reading_and_cause(tmp_path):
    seen = []

    def at_most_one_p(df):
        seen.append(sorted(set(df["P"].astype(int))))
        return df["P"].nunique() <= 1, f"{df['P'].nunique()} P"

    claim = Claim("t-var", "testpaper", "§1", "x", CELLS, at_most_one_p,
                  cause=(cl.READING, "one P is asked, two are run"),
                  other=("plain", _moved_less),
                  variants=(("P = 4", {"P": (4,)}), ("metis as none", {"methods": {"metis": "none"}})))
    o, = cl.evaluate([claim], ReportOptions(workload="mini", out=str(tmp_path), progress=False))
    assert o.verdict == cl.FAILS and o.why == "the reading: one P is asked, two are run"
    assert o.other.startswith("plain: holds (none 0.00, metis ")
    assert o.robust == "holds on 1 of 3"  # the P = 4 variant holds; the method rename still runs two P
    assert [2, 4] in seen and [4] in seen
    row = cl.table([o], "csv").iloc[0]
    assert row["Why"].startswith("the reading") and row["Robustness"] == "holds on 1 of 3"
    assert "other reading, plain: holds" in row["Ours"]


def test_method_variant_keeps_the_predicates_names(tmp_path):
    got = []

    def names(df):
        got.append(sorted(set(df["algorithm"])))
        return True, ""

    claim = Claim("t-names", "testpaper", "§1", "x", ({"methods": "metis", "P": 2},), names,
                  variants=(("blocks", {"methods": {"metis": "metis[ufactor=50]"}}),))
    cl.evaluate([claim], ReportOptions(workload="mini", out=str(tmp_path), progress=False))
    assert got == [["metis"], ["metis"]]
