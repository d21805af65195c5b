"""The baselines report at tiny size: one table per (workload, P), every method a row, best per column marked."""
from harness import ReportOptions
from lbbench_partitioners.reports import MARK, baselines, methods_for


def test_report_tiny(tmp_path):
    opts = ReportOptions(P=[4], methods="none,greedy,refine,kahip,rcb", workload="mini", levels=[1, 2],
                         out=str(tmp_path), progress=False)
    (table,) = baselines(opts)
    df = table.frame
    assert list(df["Method"]) == ["none", "greedy", "refine", "kahip", "rcb"]
    assert (df["Levels ok"] == "2/2").all()
    for col in ("Cut%", "work_loadimb", "loadimb", "Moved weight", "MaxSR", "Time (s)"):
        marked = df[df[col].str.endswith(MARK)]
        assert len(marked) >= 1 and "none" not in set(marked["Method"]), col
    # greedy ignores the placement: the best balance; kahip: the lowest cut of these
    assert df.set_index("Method").loc["greedy", "work_loadimb"].endswith(MARK)
    assert df.set_index("Method").loc["kahip", "Cut%"].endswith(MARK)


def test_every_form_reaches_the_right_methods():
    graph = methods_for(ReportOptions(), ("graph",))
    boxes = methods_for(ReportOptions(), ("boxes",))
    assert "greedy" in graph and "kahip" in graph and not any(m.startswith("amr-") for m in graph)
    assert "greedy" in boxes and any(m.startswith("amr-") for m in boxes)


def test_a_full_reproduction_runs_the_small_report_and_the_site_shows_it():
    from harness.present import reproduce as rp
    from lbbench_partitioners.reports import SMALL

    assert "baselines-small" in rp.chosen(None)[0] and "baselines" not in rp.chosen(None)[0]
    assert "baselines-small" not in rp.chosen(["sbn"])[0]
    assert {(w, P) for w, _, P, _ in SMALL} == {("shock", 32), ("truss", 32), ("vt-synthetic", 32), ("vt-synthetic", 256)}
