"""Plugin author kit 1.1 (issue 23): the faults a third-party author hit, each pinned by a test."""
import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from harness import Algorithm, State, hookimpl, implements

from harness.contract import plugins
from harness.run.api import compare
from harness.present.cli import comparison_tables, main
from harness.claims.reports import Table, render, with_paper
from harness.present.site import level_plots, table_html
from harness.check.conformance import FAIL, check_algorithm
from harness.testing import mpirun

ROOT = Path(__file__).resolve().parents[1]
DIVERGE = str(ROOT / "tests" / "scripts" / "diverge.py")


# -- fault 1: --mpi must not reuse single-process cells ---------------------------------------------------

@pytest.mark.mpi
def test_mpi_after_a_single_process_run_catches_a_rank_dependent_plugin(tmp_path):
    one = subprocess.run([sys.executable, DIVERGE, str(tmp_path), "cache"], capture_output=True, text=True,
                         timeout=120)
    assert one.returncode == 0, one.stderr
    assert set(one.stdout.split("\n")) - {""} == {"ranks=1 ok"}  # one process: rank 0's owners, valid
    two = mpirun(2, DIVERGE, str(tmp_path), "cache", timeout=120)
    assert two.returncode == 0, two.stderr
    lines = [ln for ln in two.stdout.splitlines() if ln]
    assert lines and all(ln.startswith("ranks=2 failed: ranks computed different owners") for ln in lines), lines
    # and the single-process cells are still there for a single-process run
    again = subprocess.run([sys.executable, DIVERGE, str(tmp_path), "cache"], capture_output=True, text=True,
                           timeout=120)
    assert set(again.stdout.split("\n")) - {""} == {"ranks=1 ok"}


# -- faults 2, 4, 5: failure messages whole, located in the plugin, one dtype rule -------------------------

def _faulty_algorithms(register):
    for name in ("long-msg", "long-path", "float-owners", "float-parts"):
        register(Algorithm(name, "test", roles=("balance",) if name != "float-parts" else ("partition",)))


def _line_of(fn, text: str) -> int:
    src, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(src) if text in line)


def Faulty():
    @implements("long-msg", "long-path", "float-owners")
    def balance(ctx, state):
        if ctx.algorithm == "long-msg":
            raise ValueError("bad input: " + "x" * 600 + " END")
        if ctx.algorithm == "long-path":
            open("y" * 5000)  # OSError: File name too long
        return State.settled(np.zeros(ctx.graph.n), ctx.P)  # whole values, float dtype

    @implements("float-parts")
    def partition(ctx):
        return np.zeros(ctx.graph.n)

    return SimpleNamespace(register_algorithms=hookimpl(_faulty_algorithms), balance=balance, partition=partition), \
        balance.implementation


def test_failure_messages_are_whole_and_name_the_plugins_line(register, tmp_path):
    plugin, fn = Faulty()
    register(plugin, "faulty")
    here = Path(__file__).name
    df = compare("long-msg,long-path,float-owners", workload="mini", P=2, levels=[1], out=tmp_path)
    long_msg, long_path, float_owners = df["status"]
    assert ("x" * 600 + " END") in long_msg                                    # fault 2: not cut at ~400
    assert long_msg.endswith(f"({here}:{_line_of(fn, 'bad input')})")
    assert "File name too long" in long_path and long_path.endswith(f"({here}:{_line_of(fn, 'open(')})")
    assert "characters] ..." in long_path and len(long_path) < 2200             # 5000 characters: middle left out
    assert float_owners.endswith(f"({here}:{_line_of(fn, 'State.settled')})")  # fault 4: the plugin's line
    assert "model.py" not in float_owners


def test_one_dtype_rule_for_owners_from_balancers_and_partitions(register, tmp_path):
    register(Faulty()[0], "faulty")
    df = compare("float-owners,float-parts", workload="mini", P=2, levels=[1], out=tmp_path)
    for status in df["status"]:                                                # fault 5: both refused, same words
        assert status.startswith("failed: float-") and "has dtype float64, expected integers" in status
    with pytest.raises(ValueError, match="owner has dtype float64, expected integers"):
        State.settled(np.array([0.0, 1.0]), 2)
    assert State.settled(np.array([0, 1], np.int32), 2).owner.dtype == np.int64


# -- fault 3: @implements("misspel") for a registered "misspell" ------------------------------------------

def _misspell_algorithms(register):
    register(Algorithm("misspell", "test", roles=("balance",)))


def test_implements_naming_an_unregistered_algorithm_is_caught_at_load(register, capsys):
    @implements("misspel")
    def balance(ctx, state):
        return state

    register(SimpleNamespace(register_algorithms=hookimpl(_misspell_algorithms), balance=balance), "speller")
    try:
        assert "misspell" not in plugins.algorithms()
        why = plugins.broken()["speller"]
        assert "@implements('misspel') on balance" in why and "did you mean 'misspell'?" in why
        assert f"{Path(__file__).name}:" in why                       # where the decorator is
        rows = check_algorithm("misspell", ranks=0)
        assert rows[0][:2] == ("declaration is well-formed", FAIL) and "misspel" in rows[0][2]
        assert main(["test", "misspell", "--ranks", "0"]) == 1
        assert "declaration is well-formed" in capsys.readouterr().out
        with pytest.raises(LookupError, match="belongs to the broken plugin 'speller'"):
            compare("misspell", workload="mini", P=2, levels=[1])
    finally:
        plugins._broken.pop("speller", None)


def test_a_declared_role_without_an_implementation_fails_the_declaration_check(register):
    @implements("idle-role")
    def partition(ctx):
        return np.zeros(ctx.graph.n, np.int64)

    register(SimpleNamespace(register_algorithms=hookimpl(
        lambda register: register(Algorithm("idle-role", "test", roles=("partition", "balance")))),
        partition=partition), "idle")
    rows = check_algorithm("idle-role", ranks=0)
    assert rows[0] == ("declaration is well-formed", FAIL,
                       "role 'balance' is declared but no balance hook implements 'idle-role'")


# -- fault 6: the summary's wording, an all-failed method's Moved weight, level plots' titles -------------

def test_summary_says_what_is_summed_and_leaves_a_failed_methods_moved_weight_blank(register, tmp_path):
    register(Faulty()[0], "faulty")
    df = compare("metis,long-msg", workload="mini", P=2, out=tmp_path)
    summary = comparison_tables(df)[-1]
    assert "Moved weight and Total time are sums" in summary.title and "averages" in summary.title
    ok, failed = summary.frame.to_dict("records")
    assert ok["Levels ok"] == "3/3" and ok["Moved weight"] == df[df.algorithm == "metis"]["moved_weight"].sum()
    assert failed["Levels ok"] == "0/3" and np.isnan(failed["Moved weight"])
    lines = render([summary]).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Algorithm") and "Moved weight" in line)
    start = lines[header].index("Moved weight")
    end = lines[header + 1].find(" ", start)  # the column's dashes under its header
    end = len(lines[header + 1]) if end < 0 else end
    failed_line = next(line for line in lines if "0/3" in line)
    assert failed_line[start:end].strip() == "", failed_line  # blank, not 0.00, on the failed row
    ok_line = next(line for line in lines if "3/3" in line)
    assert ok_line[start:end].strip() != ""


def test_level_plot_titles_fit_the_picture(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    rows = pd.DataFrame([dict(workload="bl", workload_params='{"base": 9, "levels": 3, "steps": 4, "min_size": 2, '
                              '"refine": 0.25, "ratio": 2, "flagging_threshold": 0.125, "buffer_cells": 2, '
                              '"nesting": "proper", "long_parameter_name": "a long value", "another": "value"}', P=8,
                              machine="grid:4:10", initial="metis[ufactor=10]", seed=12345, level=lv, algorithm=m,
                              status="ok", loadimb=1.1, post_exec_cut_pct=3.0, maxsr=10.0, lt_none_maxqwgt=5.0,
                              _mtime=1.0) for lv in (1, 2) for m in ("sbn", "metis")])
    seen = []
    save = Figure.savefig

    def check(fig, *a, **kw):
        box = fig.bbox
        ext = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
        seen.append((ext.x0 >= box.x0 and ext.x1 <= box.x1 and ext.y1 <= box.y1, fig._suptitle.get_text()))
        return save(fig, *a, **kw)

    monkeypatch.setattr(Figure, "savefig", check)
    assert level_plots(rows, tmp_path)
    assert seen and all(inside for inside, _ in seen), seen
    assert "seed 12345" in seen[0][1]


# -- fault 7: paper values beside any table, keyed by any columns; the site colours it ---------------------

PAPER = pd.DataFrame({"paper": "mine", "table": "1", "P": [8.0, 32.0, 8.0, float("nan")],
                      "row": ["a", "a", "b", "Average"], "column": ["Cut%", "Cut%", "Cut%", "MaxSR"],
                      "value": [1.05, 2.5, 30.0, 7.0]})


def test_with_paper_joins_on_any_columns_the_author_names():
    ours = pd.DataFrame({"Method": ["a", "a", "b"], "P": [8, 32.0, 8], "Cut%": [1.0, 2.0, 3.0]})
    both = with_paper(ours, PAPER, key={"Method": "row", "P": "P"})
    assert list(both.columns) == ["Method", "P", "Cut%", "Cut% (paper)", "MaxSR (paper)"]
    assert both["Cut% (paper)"].tolist() == [1.05, 2.5, 30.0] and both["MaxSR (paper)"].isna().all()
    # the default key is our first column, whatever its name (was KeyError: 'Adaptation Level')
    by_method = with_paper(pd.DataFrame({"Method": ["Average"], "MaxSR": [6.0]}), PAPER)
    assert by_method["MaxSR (paper)"].tolist() == [7.0]
    # several key columns matched against `row`, joined by " / "
    joined = PAPER.assign(row=PAPER["row"] + " / " + PAPER["P"].map(lambda p: "" if p != p else f"{p:.0f}"))
    two = with_paper(ours, joined, key=["Method", "P"])
    assert two["Cut% (paper)"].tolist() == [1.05, 2.5, 30.0]
    with pytest.raises(KeyError, match="'Level' is not a column of the table"):
        with_paper(ours, PAPER, key="Level")


def test_the_site_colours_any_table_with_paper_values():
    ours = pd.DataFrame({"Method": ["a", "a", "b"], "P": [8, 32, 8], "Cut%": ["1.00%", "2.00%", "3.00%"]})
    html = table_html(Table("keyed by method and P", with_paper(ours, PAPER, key={"Method": "row", "P": "P"})))
    classes = re.findall(r'<td class="([^"]*)">([^<]*)</td>', html)
    assert [c for c, v in classes if v.endswith("%")] == ["good", "mid", "bad"]
