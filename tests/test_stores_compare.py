"""benchmarks/stores.py: two stores of the same command agree on every figure; a changed figure is found."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks.stores import main  # noqa: E402
from harness.run.api import compare  # noqa: E402


def test_same_command_same_figures_and_a_changed_figure_is_found(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        compare("metis,none", workload="mini", P=4, out=out)
    assert main([str(a), str(b)]) == 0                     # times differ, figures do not
    cell = sorted((b / "cells").glob("*.json"))[0]
    row = json.loads(cell.read_text())
    row["loadimb"] = row["loadimb"] + 1e-12
    cell.write_text(json.dumps(row))
    assert main([str(a), str(b)]) == 1
    assert "loadimb" in capsys.readouterr().out
    assert main([str(a)]) == 2
