"""Reference values (SBN paper Tables 6 and 7) and the sbn-table6/7 reports."""
import pandas as pd
import pytest

from harness.claims.reference import paper_values
from harness.claims.reports import ReportOptions, render
from lbbench_plum.plugin import register_reports

COLS = ["Pre-Exec Cut%", "Post-Exec Cut%", "MaxSR", "LoadImb"]


@pytest.mark.parametrize("table,Ps", [("6", [16, 32]), ("7", [32])])
def test_transcription_averages_match_the_printed_average_rows(table, Ps):
    df = paper_values("sbn", table)
    assert sorted(df.P.unique().tolist()) == Ps and set(df.column) == set(COLS)
    for P in Ps:
        block = df[df.P == P]
        levels = block[block.row != "Average"]
        assert sorted(levels.row.astype(int).unique()) == list(range(1, 10))
        mean = levels.groupby("column").value.mean()
        avg = block[block.row == "Average"].set_index("column").value
        for c in COLS:
            assert mean[c] == pytest.approx(avg[c], abs=1.0 if c == "MaxSR" else 0.006)


def test_quoted_figures():
    """The text of §5.3 and the MinEX introduction quote these: PMeTiS 10.94% and 63,270; DMeTiS 20.22%, 62,542."""
    t6, t7 = paper_values("sbn", "6"), paper_values("sbn", "7")
    pick = lambda t, c: t[(t.P == 32) & (t.row == "Average") & (t.column == c)].value.item()
    assert (pick(t6, "Post-Exec Cut%"), pick(t6, "MaxSR"), pick(t6, "LoadImb")) == (10.94, 63270, 1.04)
    assert (pick(t7, "Post-Exec Cut%"), pick(t7, "MaxSR"), pick(t7, "LoadImb")) == (20.22, 62542, 1.59)


def test_reports_are_shaped_like_the_paper(tmp_path):
    reps = {}
    register_reports(register=lambda r: reps.setdefault(r.name, r))  # the hook the harness calls
    assert sorted(reps) == ["sbn-table6", "sbn-table7"]
    opts = ReportOptions(P=[4, 32], workload="mini", out=str(tmp_path), progress=False)
    tables = reps["sbn-table7"].build(opts)
    assert [t.title for t in tables] == [f"Table 7: mesh adaptation results using DMeTiS under PLUM, P = {P}"
                                         for P in (4, 32)]
    t4, t32 = tables[0].frame, tables[1].frame
    assert list(t4.columns) == ["Adaptation Level", *COLS]
    assert "no P = 4 block" in tables[0].note
    assert list(t32.columns) == ["Adaptation Level", "Pre-Exec Cut%", "Pre-Exec Cut% (paper)", "Post-Exec Cut%",
                                 "Post-Exec Cut% (paper)", "MaxSR", "MaxSR (paper)", "LoadImb", "LoadImb (paper)"]
    assert t32["Adaptation Level"].tolist() == ["1", "2", "3", "Average"]
    assert t32["MaxSR (paper)"].tolist() == [5047, 17393, 44413, 62542]
    assert pd.notna(t32["MaxSR"]).all()
    assert "Table 7" in render(tables, "github")
    assert [t.title for t in reps["sbn-table6"].build(ReportOptions(P=[16], workload="mini", out=str(tmp_path),
                                                                    progress=False))] == \
        ["Table 6: mesh adaptation results using PMeTiS under PLUM, P = 16"]
