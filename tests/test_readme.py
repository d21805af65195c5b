"""Every command in README.md is run by a test: the cheap ones here, as written, the others by the test named
beside them; and the main command prints the README's own figures."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from harness.present.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

# command (a regex over the README's line) -> the test that runs it (file::function)
T_README = "tests/test_readme.py::"
T_REPRODUCE = "tests/test_reproduce.py::"
T_CLI = "tests/test_cli.py::"
RUN_BY = {
    r"python3 -m pip install -r requirements\.txt": ".ci/run",
    r"lbbench compare --plugins sbn,minex,plum -P 32": T_README + "test_main_command_prints_the_readmes_figures",
    r"lbbench reproduce \[--paper .*": T_REPRODUCE + "test_reproduce_runs_everything_then_resumes_computing_nothing",
    r"lbbench reproduce --paper sbn -j 2":
        T_REPRODUCE + "test_jobs_compute_every_cell_in_worker_processes_with_the_same_figures",
    r"git clone --depth 1 https://github\.com/DARMA-tasking/LB-analysis-framework":
        T_README + "test_the_trace_commands_as_written",
    r"lbbench compare --plugins none,metis,sbn,minex,mcstlb -w .* --export-vt balanced":
        T_README + "test_the_trace_commands_as_written",
    r"python3 -m workloads\.vt_synthetic DIR --ranks 32 --phases 10": T_README + "test_the_trace_commands_as_written",
    r"mpiexec -n 4 lbbench compare --plugins sbn,minex,plum -P 32": T_CLI + "test_identical_metrics_on_1_2_4_ranks",
    r"lbbench compare --plugins sbn,minex,plum -P 32 --mpi 4": T_CLI + "test_mpi_flag_relaunches_with_three_ranks",
    # the worked example at scale is a benchmark (benchmarks/worked_example.py); its form under two ranks:
    r'mpiexec -n 2 lbbench compare --plugins sbn -w "shock\[scale=20\]" -P 8192 --levels 1':
        T_CLI + "test_worked_example_form_under_two_ranks",
    r"mpiexec -f hostfile -n 8 lbbench compare .*":
        "tests/test_hosts.py::test_compare_through_a_hostfile_naming_this_host_twice",
    r"mpiexec -f hostfile -n 8 lbbench reproduce --paper sbn":
        T_REPRODUCE + "test_a_resume_under_two_ranks_takes_rank_0s_stored_cells",
    r"lbbench new-plugin mine && pip install -e mine && lbbench test mine":
        "tests/test_contract.py::test_new_plugin_scaffold_installs_and_passes",
    r"python3 -m pytest": ".ci/run",
}


def readme_commands() -> list[str]:
    """The commands of the README's indented code blocks (continued lines joined)."""
    out, lines = [], README.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("    ") and re.match(r"(lbbench|mpiexec|python3|git|pip) ", line[4:]):
            cmd = line[4:].strip()
            while cmd.endswith("\\"):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            out.append(cmd)
        i += 1
    return out


def test_every_readme_command_is_run_by_a_test():
    commands = readme_commands()
    assert len(commands) >= 10
    for cmd in commands:
        found = [test for pattern, test in RUN_BY.items() if re.fullmatch(pattern, cmd)]
        assert len(found) == 1, f"README command not run by a test (add it to RUN_BY): {cmd}"
        path, _, name = found[0].partition("::")
        text = (ROOT / path).read_text()
        assert not name or re.search(rf"^def {name}\(", text, re.M), f"{found[0]} does not exist"
        if path == ".ci/run":
            assert cmd in text, f".ci/run does not run {cmd}"


def block_after(marker: str) -> list[str]:
    """The indented lines of the README's code block that starts with ``marker``."""
    lines = README.splitlines()
    start = next(i for i, x in enumerate(lines) if x.strip() == marker)
    out = []
    for x in lines[start:]:
        if x and not x.startswith("    "):
            break
        out.append(x[4:])
    return out


def rows(text: list[str], first: str, count: int) -> list[list[str]]:
    i = next(k for k, x in enumerate(text) if x.startswith(first))
    return [x.split() for x in text[i:i + count]]


def test_main_command_prints_the_readmes_figures(tmp_path, capsys):
    assert main(["compare", "--plugins", "sbn,minex,plum", "-P", "32", "--out", str(tmp_path), "-q"]) == 0
    got = capsys.readouterr().out.splitlines()
    shown = block_after("sbn — shock, P = 32, machine uniform")
    # SBN's per-level block, as printed
    assert rows(got, "sbn — shock", 13) == rows(shown, "sbn — shock", 13)
    # the summary: every figure but the wall time
    ours = [r[:-1] for r in rows(got, "sbn  ", 3)]
    assert ours == [r[:-1] for r in rows(shown, "sbn  ", 3)]
    assert [r[0] for r in rows(got, "sbn  ", 3)] == ["sbn", "minex", "plum"]


def test_the_trace_commands_as_written(tmp_path):
    """The README's trace commands run as written in an empty directory: the synthetic trace stands in for
    the LBAF data the git clone would fetch (no network here), at the path the compare reads."""
    data = "LB-analysis-framework/data/nolb-8color-16nodes-11firstphases"
    env = {**os.environ, "LBBENCH_RESULTS": str(tmp_path / "results"), "LBBENCH_CACHE": str(tmp_path / "cache")}
    bin_dir = Path(sys.executable).parent
    (synthetic,) = [c for c in readme_commands() if c.startswith("python3 -m workloads.vt_synthetic")]
    args = shlex.split(synthetic.replace("DIR", data))
    res = subprocess.run([sys.executable, *args[1:], "--tasks", "4"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    (compare,) = [c for c in readme_commands() if "--export-vt balanced" in c]
    args = shlex.split(compare)
    res = subprocess.run([str(bin_dir / args[0]), *args[1:], "-q"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "lbbench: wrote balanced (one directory per method, lbbench-export.json maps them)" in res.stderr
    summary = res.stdout[res.stdout.index("Summary"):].splitlines()
    assert [r.split()[0] for r in summary[3:8]] == ["none", "metis", "sbn", "minex", "mcstlb"]
    assert all(r.split()[1] == "10/10" for r in summary[3:8])
    assert len(list((tmp_path / "balanced" / "sbn").glob("data.*.json"))) == 32


def test_the_readme_is_a_short_guide_in_order():
    """What it is, set-up, the main command, reproduce, traces, MPI and hosts, plugins, tests: in 15,000
    characters at most (the rest of the guide is docs/guide.md)."""
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == ["Set-up (one command)", "Main command", "Reproducing the papers", "Your application's load",
                        "MPI and hosts", "Writing a plugin", "Tests"]
    assert len(README) <= 15000
