import numpy as np
import pluggy
import pytest

from harness import Algorithm, hookimpl

from harness.contract import plugins
from harness.run.api import compare


def test_builtins_registered_through_entry_points():
    algs = plugins.algorithms()
    assert algs["none"].plugin == "lbbench" and algs["none"].roles == ("balance",)
    assert algs["metis"].params == {"ufactor": 30} and algs["metis"].family == "global"
    names = plugins.manager().list_name_plugin()
    assert {"none", "metis", "core-metrics"} <= {n for n, _ in names}


def test_misspelled_hookimpl_rejected():
    class Typo:
        @hookimpl
        def partiton(self, algorithm, ctx):  # noqa: misspelled on purpose
            return None

    with pytest.raises(pluggy.PluginValidationError, match="unknown hook 'partiton'"):
        plugins.add(Typo(), "typo")
    assert not plugins.manager().has_plugin("typo")


class Halves:
    """A third-party partitioner: vertices by index into halves; also declares a remap that swaps parts."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("halves", "test", params={"swap": False}, roles=("partition", "remap")))

    @hookimpl
    def partition(self, algorithm, ctx):
        if algorithm == "halves":
            return (np.arange(ctx.graph.n) * ctx.P) // ctx.graph.n

    @hookimpl
    def remap(self, algorithm, ctx, parts):
        if algorithm == "halves" and ctx.params["swap"]:
            return np.arange(ctx.P)[::-1]

    @hookimpl
    def metrics(self, ctx, before, after):
        return {"halves_seen": ctx.algorithm}


def test_dispatch_params_and_metrics_contribution(register, tmp_path):
    register(Halves(), "halves")
    df = compare("halves,halves[swap=true],none", workload="mini", P=2, levels=[1], out=tmp_path)
    assert list(df["status"]) == ["ok"] * 3
    # every metrics implementation contributes; the halves one reports who ran
    assert list(df["halves_seen"]) == ["halves", "halves", "none"]
    plain, swapped = df.iloc[0], df.iloc[1]
    assert plain["loadimb"] == swapped["loadimb"] and plain["post_exec_cut_pct"] == swapped["post_exec_cut_pct"]
    assert plugins.algorithms()["halves"].plugin == "test-halves"


def test_composition_uses_mapper_then_balancer(register, tmp_path):
    register(Halves(), "halves")
    df = compare("halves/none", workload="mini", P=2, levels=[1], out=tmp_path)
    ref = compare("halves", workload="mini", P=2, levels=[1], out=tmp_path)
    # `none` as balancer keeps the mapper's owners but moves no data (a balancer owns migration)
    assert df.iloc[0]["edge_cut"] == ref.iloc[0]["edge_cut"] > 0
    assert df.iloc[0]["moved_weight"] == 0 < ref.iloc[0]["moved_weight"]
    with pytest.raises(ValueError, match="metis has no balance role"):
        compare("none/metis", workload="mini", P=2, out=tmp_path)
    with pytest.raises(LookupError, match="unknown algorithm 'nope'"):
        compare("nope", workload="mini", P=2, out=tmp_path)


def test_conformance_suite_passes_builtins_and_catches_a_bad_plugin(register, tmp_path, monkeypatch):
    import tempfile

    from harness.check.conformance import check_algorithm

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the suite puts its scratch result store
    for name in ("none", "metis"):
        rows = check_algorithm(name, ranks=2 if name == "metis" else 0)
        assert all(r == "PASS" for _, r, _ in rows), rows
    assert not list(tmp_path.glob("lbbench-test-*"))  # the scratch store is removed after the checks

    class Flaky:
        @hookimpl
        def register_algorithms(self, register):
            register(Algorithm("flaky", "test", params={"bad": [1]}))

        @hookimpl
        def partition(self, algorithm, ctx):
            if algorithm == "flaky":
                return np.random.default_rng().integers(0, ctx.P, ctx.graph.n)  # unseeded: not reproducible

    register(Flaky(), "flaky")
    failed = {t for t, r, _ in check_algorithm("flaky", ranks=0) if r == "FAIL"}
    assert failed == {"declaration is well-formed", "a second run gives identical figures and owners"}
