"""Calibrations (``lbbench calibrate``): the fit, the defaults read back, and no claim reading a calibration cell;
a claim's cause, other reading and variants (the robustness column)."""
import math

import pandas as pd
import pytest

from harness import Calibration, Cells, Claim, ReportOptions, fitted, hookimpl
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
        if claim.paper in papers and claim.cells:  # a claim that runs no cell (a worked example) reads no table
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


def test_a_held_out_fit_is_checked_on_the_cells_it_computes():
    """A fit with ``applies`` (held out: fitted on P = 4, used at P = 2) may be fitted on cells a claim reads, as
    long as no cell is computed under it and fitted on it; without ``applies`` the global check still runs."""
    reads = Cells("sbn", "5", P=(2, 4), columns=("LoadImb",))
    claim = Claim("t-reads", "sbn", "§1", "x", ({"methods": "none", "P": 2},), lambda df: (True, ""), reads=(reads,))
    at4, at2 = (Cells("sbn", "5", P=(p,), columns=("LoadImb",)) for p in (4, 2))
    held = Calibration("t-held", "sbn", "none[x]", (at4,), (1,), lambda v, o: {}, "unused.csv", applies=(at2,))
    assert cb.overlaps([claim], [held]) == [] and cb.own_keys(held) == set()
    assert cb.calibration_keys([held]) == set()  # fidelity keeps every cell: none is computed under its own fit
    everywhere = Calibration("t-all", "sbn", "none[x]", (at4,), (1,), lambda v, o: {}, "unused.csv")
    got = cb.overlaps([claim], [everywhere])
    assert {c for _, _, c in got} == at4.keys() and cb.calibration_keys([everywhere]) == at4.keys()
    leaky = Calibration("t-leaky", "sbn", "none[x]", (at4,), (1,), lambda v, o: {}, "unused.csv",
                        applies=(reads,))  # used at P = 4 too: fitted on the cells it computes
    got = cb.overlaps([claim], [leaky])
    assert {c for n, _, c in got if n == ""} == at4.keys() and {c for n, _, c in got if n == "t-reads"} == at4.keys()
    assert cb.calibration_keys([leaky]) == at4.keys()
    with pytest.raises(ValueError, match="applies"):
        Calibration("t-bad", "sbn", "none[x]", (at4,), (1,), lambda v, o: {}, "unused.csv", applies=("P = 2",))


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
        Claim("t", "p", "§", "x", (), lambda df: (True, ""), variants=(("v", {"levels": 2}),))


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

    seeds = []

    def seeded(df):
        seeds.append(sorted(set(df["seed"].astype(int))))
        return True, ""

    claim = Claim("t-names", "testpaper", "§1", "x", ({"methods": "metis", "P": 2},), names,
                  variants=(("blocks", {"methods": {"metis": "metis[ufactor=50]"}}),))
    other_mesh = Claim("t-seed", "testpaper", "§1", "x", ({"methods": "metis", "P": 2},), seeded,
                       variants=(("another mesh", {"seed": 1}),))
    out = cl.evaluate([claim, other_mesh], ReportOptions(workload="mini", out=str(tmp_path), progress=False))
    assert got == [["metis"], ["metis"]]
    assert sorted(seeds) == [[0], [1]] and out[1].robust == "holds on 2 of 2"


# -- the commands and the fidelity summary -----------------------------------------------------------------------

LOADIMB_P2 = Cells("sbn", "5", P=(2,), rows=(1, 2, 3), columns=("LoadImb",))


def _mini_loadimb(value, opts):
    """Ours at the calibration cells: METIS's LoadImb on mini's three levels at P = 2, imbalance ``value``."""
    df = opts.compare(f"metis[ufactor={value}]", P=2, workload="mini", workload_params={})
    return {("sbn", "5", "2", str(int(r.level)), "LoadImb"): float(r.loadimb) for r in df.itertuples()}


class FitPlugin:
    def __init__(self, path):
        self.cal = Calibration("t-metis-ufactor", "testpaper", "metis[ufactor]", (LOADIMB_P2,), (1, 30, 300),
                               _mini_loadimb, path, why="a test")

    @hookimpl
    def register_calibrations(self, register):
        register(self.cal)


def test_calibrate_command_fits_and_resumes(register, tmp_path, capsys):
    from harness.present.cli import main

    path = tmp_path / "calibration" / "t.csv"
    register(FitPlugin(path), "fit-a")
    args = ["calibrate", "--name", "t-metis-ufactor", "--out", str(tmp_path / "res"), "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "t-metis-ufactor: metis[ufactor] = " in out and f"wrote {path}" in out
    df = cb.read(path)
    assert len(df) == 9 and set(df["value"].astype(int)) == {1, 30, 300}  # three candidates x three levels
    assert fitted(path, int) in (1, 30, 300)
    assert main(["calibrate", "--paper", "nosuchpaper", "--out", str(tmp_path / "res")]) == 2
    assert "no calibrations for paper 'nosuchpaper'" in capsys.readouterr().err


def test_with_paper_records_the_printed_cell_and_fidelity_counts_it():
    from harness.claims import fidelity as fd
    from harness.claims.reports import Table, paper_of, with_paper

    ref = pd.DataFrame({"paper": "sbn", "table": "5", "P": 2, "row": ["1", "2", "3"], "column": "LoadImb",
                        "value": [1.0, 2.0, 4.0]})
    ours = pd.DataFrame({"Level": [1, 2, 3], "LoadImb": [1.2, 1.0, 0.0]})
    t = Table("Table 5, P = 2", with_paper(ours, ref))
    assert t.frame.attrs["paper_cells"][(1, "LoadImb")] == ("sbn", "5", "2", "2", "LoadImb")
    pairs = fd.pairs("sbn-table5", t)
    assert pairs["within"].tolist() == [True, False, False]  # 1.2x, 0.5x, 0x
    left = fd.all_pairs({"sbn-table5": [t]}, {("sbn", "5", "2", "1", "LoadImb")})
    assert len(left) == 2 and paper_of("sbn-table5") == "sbn"
    tot = fd.totals(left)
    assert tot.to_dict("records") == [{"Paper": "sbn", "Cells": 2, "Within": 0, "Share %": 0.0}]
    assert fd.worst(left, 1)["ratio"].tolist() == [0.0]
    assert fd.cell_text(("sbn", "5", "2", "3", "LoadImb")) == "sbn Table 5, P = 2, row 3, LoadImb"


def test_fidelity_judges_a_cell_at_the_precision_the_paper_printed_it():
    from harness.claims import fidelity as fd
    from harness.claims.reference import printed_units

    ref = printed_units()
    zero = ref[(ref.paper == "sbn") & (ref.table == "8") & (ref.P == 2) & (ref.column == "Balancing Bandwidth (%)")]
    assert zero["value"].tolist() == [0.0] and zero["unit"].tolist() == [0.01]  # printed "0.00"
    assert fd.within(0.004, 0.0, 0.01) and not fd.within(0.008, 0.0, 0.01)  # [0, 0.005) x 1.5
    assert fd.within(0.0, 0.0) and not fd.within(0.001, 0.0)  # no unit: both zero only
    assert fd.within(1.5, 1.0, 0.01) and fd.within(1.507, 1.0, 0.01) and not fd.within(1.51, 1.0, 0.01)
    assert not fd.within(0.66, 1.0, 0.01) and fd.within(0.67 * 0.995, 1.0, 0.01)
