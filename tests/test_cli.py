import io
import subprocess
import sys

import pandas as pd
import pytest

from harness.testing import mpirun

LBBENCH = [sys.executable, "-m", "harness.present.cli"]
METRICS = ["level", "algorithm", "P", "status", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb",
           "maxqwgt", "moved_weight", "moved_vertices", "edge_cut", "migration_bytes", "migration_messages"]


def lbbench(*args, check=True):
    res = subprocess.run(LBBENCH + list(args), capture_output=True, text=True, timeout=300)
    if check:
        assert res.returncode == 0, res.stderr
    return res


def test_list_shows_plugins_algorithms_and_params():
    out = lbbench("list").stdout
    assert "metis" in out and "ufactor=30" in out and "baseline" in out and "lbbench" in out


def test_workloads_list_and_show_csv():
    assert "mini" in lbbench("workloads").stdout
    df = pd.read_csv(io.StringIO(lbbench("workloads", "show", "mini", "--format", "csv").stdout))
    assert list(df.columns) == ["level", "vertices", "edges", "sum_pwgt", "sum_rwgt", "sum_cwgt"]
    assert list(df["level"]) == [1, 2, 3] and (df["sum_rwgt"] >= df["sum_pwgt"]).all()


def test_compare_text_blocks_and_summary(tmp_path):
    out = lbbench("compare", "--plugins", "none,metis", "-P", "8", "--workload", "mini", "--out", str(tmp_path)).stdout
    for head in ("Adaptation Level", "Pre-Exec Cut%", "Post-Exec Cut%", "MaxSR", "LoadImb", "Average", "Summary"):
        assert head in out
    assert out.count("Average") == 2
    gh = lbbench("compare", "--plugins", "metis", "-P", "8", "-w", "mini", "--out", str(tmp_path),
                 "--format", "github").stdout
    assert "| Adaptation Level" in gh
    tex = lbbench("compare", "--plugins", "metis", "-P", "8", "-w", "mini", "--out", str(tmp_path),
                  "--format", "latex").stdout
    assert "\\toprule" in tex


def csv_of(res):
    return pd.read_csv(io.StringIO(res.stdout))


@pytest.mark.mpi
def test_identical_metrics_on_1_2_4_ranks(tmp_path):
    args = ["compare", "--plugins", "none,metis", "-P", "8", "-w", "mini", "--format", "csv", "--no-cache", "-q",
            "--out", str(tmp_path)]
    one = csv_of(lbbench(*args))
    assert list(one.columns[:11]) == ["workload", "workload_version", "level", "algorithm", "params", "P", "ranks",
                                      "machine", "initial", "seed", "status"]
    assert (one["status"] == "ok").all() and len(one) == 6
    for ranks in (2, 4):
        res = mpirun(ranks, "-m", "harness.present.cli", *args)
        assert res.returncode == 0, res.stderr
        many = csv_of(res)
        assert (many["ranks"] == ranks).all()
        pd.testing.assert_frame_equal(one[METRICS], many[METRICS])


@pytest.mark.mpi
def test_worked_example_form_under_two_ranks(tmp_path):
    """The README's worked example (SBN, a scaled shock, one level, two ranks) at a size a test can run:
    the same figures as one process."""
    args = ["compare", "--plugins", "sbn", "-w", "shock[scale=0.1]", "-P", "64", "--levels", "1", "--format", "csv",
            "--no-cache", "-q", "--out", str(tmp_path)]
    one = csv_of(lbbench(*args))
    res = mpirun(2, "-m", "harness.present.cli", *args)
    assert res.returncode == 0, res.stderr
    two = csv_of(res)
    assert (one["status"] == "ok").all() and (two["ranks"] == 2).all()
    cols = METRICS + ["balance_messages", "balance_bytes", "wire_migration_bytes", "sbn_supersteps"]
    pd.testing.assert_frame_equal(one[cols], two[cols])


@pytest.mark.mpi
def test_mpi_flag_relaunches_with_three_ranks(tmp_path):
    res = lbbench("compare", "--plugins", "metis", "-P", "8", "-w", "mini", "--levels", "1-2", "--format", "csv",
                  "-q", "--mpi", "3", "--out", str(tmp_path))
    assert set(csv_of(res)["ranks"]) == {3}


@pytest.mark.parametrize("args, msg", [
    (["compare", "--plugins", "nosuch", "-w", "mini"], "unknown algorithm 'nosuch'"),
    (["compare", "--plugins", "none", "-w", "nosuch"], "unknown workload 'nosuch'"),
    (["compare", "--plugins", "none", "-w", "mini", "-P", "0"], "-P 0: must be a positive number"),
    (["compare", "--plugins", "none", "-w", "mini", "-P", "100000"], "larger than the graph of the workload's level 1"),
        (["compare", "--plugins", "none", "-w", "mini", "-P", "99999999999999999999"], "P = 99999999999999999999 is larger"),
        (["compare", "--plugins", "metis,metis", "-w", "mini", "-P", "4"], "method 'metis' is given twice"),
        (["compare", "--plugins", "plum[partitioner=../../etc]", "-w", "mini", "-P", "4"], "partitioner='../../etc'"),
        (["compare", "--plugins", "none", "-w", "mini[points=-5]", "-P", "4"], "points=-5"),
        (["compare", "--plugins", "none", "-w", "mini", "-P", "4", "--seed", "-5"], "--seed -5"),
        (["compare", "--plugins", "none", "-w", "mini", "-P", "4", "--timeout", "1e10"], "--timeout 1e+10"),
        (["report", "levels", "--plugins", "none", "-w", "mini", "-P", "2,-4"], "-P -4"),
    (["compare", "--plugins", "metis[ufactor]", "-w", "mini"], "malformed parameter"),
    (["compare", "--plugins", "metis[ufactor=x]", "-w", "mini"], "not a valid int"),
    (["compare", "--plugins", "none", "-w", "mini", "--levels", "3-1"], "--levels"),
    (["compare", "--plugins", "none", "-w", "mini", "--machine", "cray"], "unknown machine"),
    (["compare", "--plugins", "none", "-w", "mini[size=3]"], "has no parameter 'size'"),
    (["report", "nosuch"], "unknown report 'nosuch'"),
    (["compare", "-w", "mini"], "Missing option"),
])
def test_bad_input_is_one_line_exit_2(args, msg, tmp_path):
    res = lbbench(*args, "--out", str(tmp_path), check=False) if args[0] != "report" else lbbench(*args, check=False)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lbbench: error:") and msg in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_unreadable_results_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    res = lbbench("compare", "--plugins", "none", "-w", "mini", "--out", str(blocker), "-q", check=False)
    # nothing can be stored there: one warning line, and the comparison still runs and prints
    warnings = [line for line in res.stderr.splitlines() if "results directory" in line]
    assert res.returncode == 0 and len(warnings) == 1 and "Summary" in res.stdout


@pytest.mark.parametrize("args,needle", [
    (["--timeout", "0"], "--timeout"), (["--timeout", "-1"], "--timeout"), (["--timeout", "nan"], "--timeout"),
    (["--timeout", "inf"], "--timeout"), (["--mpi", "0"], "--mpi 0"), (["--mpi", "99"], "more ranks than"),
    (["--machine", "grid:2:1e308"], "I in [1"), (["--levels", "1-1000000000"], "more than 100000 levels"),
    (["-w", "mini[points=3]"], "points=3 must be in [5, 1000000]"), (["--plugins", "plum[F=0]"], "F must be a positive integer"),
    (["--plugins", "sbn[subset=0]"], "subset must be >= 1"), (["--plugins", "minex[coarse=0]"], "coarse must be"),
    (["--levels", "7"], "level 7 does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, needle):
    from harness.present.cli import main

    base = {"--plugins": "none", "-w": "mini", "-P": "4"}
    opts = dict(base)
    rest = []
    for i in range(0, len(args), 2):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
        else:
            rest += args[i:i + 2]
    argv = ["compare", *[x for kv in opts.items() for x in kv], *rest, "-q", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]


def test_compare_exits_1_when_a_cell_failed(tmp_path, capsys, register):
    from harness import Algorithm, hookimpl, implements
    from harness.present.cli import main
    from types import SimpleNamespace

    @hookimpl
    def register_algorithms(register):
        register(Algorithm("fails", "test"))

    @implements("fails")
    def partition(ctx):
        raise RuntimeError("no")

    register(SimpleNamespace(register_algorithms=register_algorithms, partition=partition), "fails")
    assert main(["compare", "--plugins", "fails,none", "-w", "mini", "-P", "2", "-q", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "3 of 6 cells failed; see status" in err


def test_test_and_new_plugin_refuse_bad_input_before_any_work(tmp_path, capsys):
    from harness.present.cli import main

    assert main(["test", "metis", "-P", "0"]) == 2
    assert main(["new-plugin", "sbn", "--dir", str(tmp_path / "sbn")]) == 2
    assert not (tmp_path / "sbn").exists()
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert lines == ["lbbench: error: Invalid value: -P 0: must be a positive number of processors",
                     "lbbench: error: plugin name 'sbn' is already registered (lbbench list); choose another name"]
