"""The plugin contract 1.0 (docs/plugins.md): one definition per metric, harness-side accounting,
typed memory, dispatch without name checks, compositions, the start distribution, conformance you can trust."""
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from harness import (Algorithm, Costs, Graph, State, cut_pct, hookimpl, implements, load_figures, loadimb, qwgt,
                     vertex_costs, work_loadimb, wsysll)
from harness.contract import plugins
from harness.run.api import compare
from harness.present.cli import main
from harness.testing import mpirun

ROOT = Path(__file__).resolve().parents[1]

# SBN paper §3.6, Table 1 (vertices 1..16)
OWNER = np.array([2, 1, 3, 3, 2, 2, 3, 3, 2, 0, 3, 3, 0, 0, 0, 3])
WGT = np.array([1, 1, 2, 1, 1, 3, 4, 1, 1, 2, 3, 1, 1, 1, 2, 1], float)
COMM = np.array([6, 2, 3, 0, 3, 6, 12, 0, 5, 0, 3, 3, 3, 5, 2, 3], float)
REMAP = np.array([0, 0, 0, 0, 0, 0, 7, 0, 2, 1, 1, 0, 0, 0, 0, 1], float)


def test_sbn_example_qwgt_wsysll_and_loadimb_from_the_one_module():
    q = qwgt(Costs(WGT, COMM, REMAP), OWNER, 4)
    assert q.tolist() == [17, 3, 28, 46] and wsysll(q) == 24
    assert loadimb(q) == 46 / 24
    figs = load_figures(q)
    assert figs["loadimb"] == 46 / 24 and figs["maxqwgt"] == 46 and figs["wsysll"] == 24


def test_cut_pct_counts_each_cut_edge_once_by_hand():
    # a path 0-1-2-3 with edge weights 1, 2, 3; parts {0, 1} and {2, 3}: only edge 1-2 (weight 2) is cut
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], [1, 2, 3])
    s = State.settled([0, 0, 1, 1], 2)
    assert cut_pct(g, vertex_costs(g, s, _uniform(2))) == pytest.approx(100 * 2 / 6)
    # every edge cut: 100%, not 200%
    s = State.settled([0, 1, 0, 1], 2)
    assert cut_pct(g, vertex_costs(g, s, _uniform(2))) == pytest.approx(100.0)
    assert work_loadimb(np.array([1, 1, 1, 3]), np.array([0, 0, 1, 1]), 2) == pytest.approx(4 / 3)


def _uniform(P):
    from harness import Machine

    return Machine.uniform(P)


def test_the_latency_figures_use_the_same_loadimb(tmp_path):
    df = compare("none", workload="mini", P=4, out=tmp_path)
    # with no remap and no latency tolerance, MinEX's Qwgt is the core QWgt: same LoadImb, one definition
    assert np.allclose(df["lt_none_loadimb"], df["loadimb"]) and np.allclose(df["lt_none_maxqwgt"], df["maxqwgt"])


@dataclass
class Counter:
    levels: list = field(default_factory=list)
    owners: np.ndarray | None = None


def plugin(**hooks):
    """A plugin object from hook functions (as a module would hold them)."""
    return SimpleNamespace(**hooks)


@hookimpl
def _lazy_algorithms(register):
    register(Algorithm("rotate", "test", roles=("balance",), memory=Counter))
    register(Algorithm("executes", "test", roles=("balance",)))


def Lazy():
    @implements("rotate")
    def balance(ctx, state):
        """Rotates owners and never sends a migration message; keeps a typed memory."""
        assert isinstance(ctx.memory, Counter)
        ctx.memory.levels.append(ctx.level.index)
        ctx.memory.owners = state.owner.copy()
        ctx.record["rotate_seen"] = ",".join(map(str, ctx.memory.levels))
        return State.settled((state.owner + 1) % ctx.P, ctx.P)

    return plugin(register_algorithms=_lazy_algorithms, balance=balance)


def Executes():
    @implements("executes")
    def balance(ctx, state):
        """Declares that everything ran on processor 0 at unit cost: LoadImb = P."""
        n = ctx.graph.n
        ctx.executed(np.zeros(n, np.int64), Costs(np.ones(n), np.zeros(n), np.zeros(n)))
        return state

    return plugin(balance=balance)


def test_harness_accounts_for_data_a_balancer_moved_without_migrating(register, tmp_path):
    register(Lazy(), "lazy")
    df = compare("rotate", workload="mini", P=4, out=tmp_path)
    assert (df["status"] == "ok").all()
    from harness import load_workload

    g = [lv.data for lv in load_workload("mini")[2]]
    # every vertex's data moved: all of rwgt, 8 bytes a unit, one message per (p, p+1) pair
    assert list(df["moved_weight"]) == [int(x.rwgt.sum()) for x in g]
    assert list(df["migration_bytes"]) == [8 * int(x.rwgt.sum()) for x in g]
    assert (df["migration_messages"] == 4).all()
    assert (df["wire_migration_bytes"] >= df["migration_bytes"]).all() and (df["wire_migration_messages"] > 0).all()
    assert (df["modelled_migration_s"] > 0).all()
    # the typed memory crossed the levels
    assert list(df["rotate_seen"]) == ["1", "1,2", "1,2,3"]


def test_typed_memory_is_stored_as_data_and_resumed(register, tmp_path):
    register(Lazy(), "lazy")
    compare("rotate", workload="mini", P=4, levels=[1, 2], out=tmp_path)
    # levels 1-2 come from the store (memory included), level 3 is computed with the restored memory
    df = compare("rotate", workload="mini", P=4, out=tmp_path)
    assert list(df["rotate_seen"]) == ["1", "1,2", "1,2,3"]
    assert not list(tmp_path.rglob("*.pkl"))


def test_executed_load_is_what_loadimb_reports(register, tmp_path):
    from harness import load_workload

    register(Lazy(), "lazy")
    register(Executes(), "executes")
    df = compare("executes,none", workload="mini", P=4, out=tmp_path)
    ran, plain = df[df.algorithm == "executes"], df[df.algorithm == "none"]
    n = np.array([lv.data.n for lv in load_workload("mini")[2]])
    assert np.allclose(ran["loadimb"], n / np.ceil(n / 4))  # max QWgt / WSysLL of what ran
    assert np.allclose(ran["settled_loadimb"].to_numpy(), plain["loadimb"].to_numpy())


@hookimpl
def _shape_algorithms(register):
    register(Algorithm("floaty", "test"))
    register(Algorithm("once", "test", roles=("balance",), mapper="first"))
    register(Algorithm("strict", "test", params={"k": 1}, validate=_positive_k))


def _positive_k(params):
    if params["k"] <= 0:
        raise ValueError("strict: k > 0 needed")


def Shape():
    @implements("floaty")
    def partition(ctx):
        return np.zeros(ctx.graph.n, float)

    @implements("once")
    def balance(ctx, state):
        ctx.record["once_balanced"] = True
        return state

    return plugin(register_algorithms=_shape_algorithms, partition=partition, balance=balance)


def test_errors_are_named_and_parameters_checked_before_running(register, tmp_path):
    register(Shape(), "shape")
    df = compare("floaty", workload="mini", P=2, levels=[1], out=tmp_path)
    assert "dtype float64" in df.iloc[0]["status"]
    with pytest.raises(ValueError, match="k > 0"):
        compare("strict[k=0]", workload="mini", P=2, out=tmp_path)


def test_mapper_first_runs_the_mapper_only_at_the_first_level(register, tmp_path):
    register(Shape(), "shape")
    df = compare("metis/once", workload="mini", P=4, out=tmp_path)
    assert df["once_balanced"].isna().tolist() == [True, False, False]
    assert df["time_partition_s"].notna().iloc[0] and np.isnan(df["time_partition_s"].iloc[1:]).all()
    each = compare("metis/none", workload="mini", P=4, out=tmp_path)
    assert each["time_partition_s"].notna().all()


def test_initial_distributions(tmp_path):
    root = compare("none", workload="mini", P=4, initial="root", out=tmp_path)
    assert root.iloc[0]["loadimb"] == pytest.approx(4.0, rel=0.05) and root.iloc[0]["empty_parts"] == 3
    block = compare("none", workload="arrays", workload_params={"size": 16, "steps": 2}, P=4, initial="block",
                    out=tmp_path)
    assert block.iloc[0]["empty_parts"] == 0 and (block["initial"] == "block").all()
    alg = compare("none", workload="mini", P=4, initial="metis[ufactor=10]", out=tmp_path)
    assert alg.iloc[0]["status"] == "ok"
    with pytest.raises(LookupError, match="unknown algorithm 'nope'"):
        compare("none", workload="mini", P=4, initial="nope", out=tmp_path)


def test_duplicate_algorithm_marks_the_later_plugin_broken(register, tmp_path):
    class Dup:
        @hookimpl
        def register_algorithms(self, register):
            register(Algorithm("metis", "copy"))

    register(Dup(), "dup")
    assert plugins.algorithms()["metis"].plugin == "lbbench"
    assert "already provides" in plugins.broken()["dup"]
    assert compare("metis", workload="mini", P=2, levels=[1], out=tmp_path).iloc[0]["status"] == "ok"


def test_lbbench_test_exits_1_on_failed_checks_and_explains_broken_plugins(register, capsys):
    @hookimpl
    def algorithms(register):
        register(Algorithm("raises", "test"))

    @implements("raises")
    def partition(ctx):
        raise RuntimeError("boom")

    @hookimpl
    def broken(register):
        raise RuntimeError("cannot register")

    register(plugin(register_algorithms=algorithms, partition=partition), "raises")
    register(plugin(register_algorithms=broken), "brokenplug")
    assert main(["test", "raises", "--ranks", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "SKIP" in out  # dependent checks are skipped, not passed
    assert main(["test", "brokenplug"]) == 1  # a plugin rejected at load fails the declaration check
    assert "broken plugin 'brokenplug'" in capsys.readouterr().out


def test_plugins_import_only_the_public_api():
    bad = []
    for f in ROOT.glob("plugins/*/lbbench_*/**/*.py"):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if re.search(r"from harness\.[a-z_]+ import|import harness\.|harness\.[a-z_]+\._", line) \
                    and "harness.testing" not in line:
                bad.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    import harness

    for f in ROOT.glob("plugins/*/lbbench_*/**/*.py"):
        for names in re.findall(r"^from harness import \(?([^()]*?)\)?$", f.read_text(), re.M | re.S):
            for item in names.replace("\\", " ").split(","):
                name = item.split()[0] if item.split() else ""
                if name and name not in harness.__all__:
                    bad.append(f"{f.relative_to(ROOT)}: harness does not export {name!r}")
    assert not bad, "\n".join(bad)
    core = [f for f in (ROOT / "harness").rglob("*.py") if re.search(r"^\s*(from|import) workloads", f.read_text(), re.M)]
    assert not core, core


@pytest.mark.mpi
def test_ranks_that_compute_different_owners_fail_the_cell(tmp_path):
    res = mpirun(2, str(ROOT / "tests" / "scripts" / "diverge.py"), str(tmp_path), timeout=120)
    assert res.returncode == 0, res.stderr
    assert "ranks computed different owners" in res.stdout


@pytest.mark.mpi
def test_new_plugin_scaffold_installs_and_passes(tmp_path):
    demo = tmp_path / "demo"
    assert main(["new-plugin", "demo", "--dir", str(demo)]) == 0
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "-e", str(demo)]
    subprocess.run(pip, check=True, capture_output=True, text=True, timeout=300)
    try:
        lb = [sys.executable, "-m", "harness.present.cli"]
        for args in (["test", "demo"], ["test", "demo-global"],  # one @implements function serves both
                     ["compare", "--plugins", "demo,demo-global,metis", "-P", "8", "-w", "mini", "-q",
                      "--out", str(tmp_path / "res")]):
            res = subprocess.run(lb + args, capture_output=True, text=True, timeout=300)
            assert res.returncode == 0, res.stdout + res.stderr
        assert "demo" in res.stdout and "demo-global" in res.stdout
        res = subprocess.run([sys.executable, "-m", "pytest", "-q", str(demo)], capture_output=True, text=True,
                             timeout=300, cwd=demo)
        assert res.returncode == 0, res.stdout + res.stderr
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", "lbbench-demo"], capture_output=True)
