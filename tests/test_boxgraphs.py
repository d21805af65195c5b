"""Box graphs are built once: kept as data in the workload cache, so a second compare on ``bl`` reuses them."""
import numpy as np

from harness.contract import forms
from harness.store import boxgraphs
from harness.run.api import compare

SMALL = dict(base=9, levels=3, steps=4, min_size=2)
FIELDS = ("xadj", "adjncy", "pwgt", "rwgt", "cwgt", "coords")


def test_second_compare_reads_the_box_graphs_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(boxgraphs, "_box_graphs", {})
    first = compare("amr-sfc,metis", workload="bl", workload_params=SMALL, P=4, out=str(tmp_path / "a"))
    files = sorted((tmp_path / "cache" / "boxgraphs").glob("*.npz"))
    assert len(files) == first["level"].nunique()

    built = []
    real = forms.boxes_to_graph
    monkeypatch.setattr(forms, "boxes_to_graph", lambda b: built.append(b) or real(b))
    monkeypatch.setattr(boxgraphs, "_box_graphs", {})  # a new process: nothing in memory
    again = compare("amr-sfc,metis", workload="bl", workload_params=SMALL, P=4, out=str(tmp_path / "b"))
    assert built == []  # no box graph rebuilt
    cols = ["algorithm", "level", "status", "maxsr", "loadimb", "post_exec_cut_pct", "owners_hash"]
    assert first[cols].equals(again[cols])


def test_cached_graph_equals_a_fresh_one_and_a_corrupt_file_is_rebuilt(tmp_path, monkeypatch):
    from harness.run import workloads

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(boxgraphs, "_box_graphs", {})
    _, _, levels = workloads.load("bl", SMALL)
    boxes = levels[-1].data
    boxgraphs.box_graph(boxes)
    path = tmp_path / "cache" / "boxgraphs" / f"{boxgraphs.box_graph_key(boxes)}.npz"
    path.write_bytes(path.read_bytes()[:100])  # truncated
    monkeypatch.setattr(boxgraphs, "_box_graphs", {})
    got, fresh = boxgraphs.box_graph(boxes), forms.boxes_to_graph(boxes)
    assert all(np.array_equal(getattr(got, f), getattr(fresh, f)) for f in FIELDS)
    monkeypatch.setattr(boxgraphs, "_box_graphs", {})
    again = boxgraphs.box_graph(boxes)  # rewritten after the corrupt one was removed: now read back
    assert all(np.array_equal(getattr(again, f), getattr(fresh, f)) for f in FIELDS)
    # other boxes, another key
    other = levels[0].data
    assert boxgraphs.box_graph_key(other) != boxgraphs.box_graph_key(boxes)


def test_piece_returning_schemes_accept_P_above_the_number_of_boxes(tmp_path):
    import pytest

    from harness.run import workloads

    _, _, levels = workloads.load("bl", SMALL)
    P = 32
    assert P > levels[0].data.n  # 19 boxes at the first step
    df = compare("amr-sfc,amr-wd", workload="bl", workload_params=SMALL, P=P, out=str(tmp_path))
    assert (df["status"] == "ok").all(), df["status"].tolist()
    cells = int(levels[0].data.cells.sum())
    with pytest.raises(ValueError, match=rf"larger than the workload's level 1 \({cells} cells\)"):
        compare("amr-sfc", workload="bl", workload_params=SMALL, P=cells + 1, out=str(tmp_path), levels=[1])
