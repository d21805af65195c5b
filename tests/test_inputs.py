"""Inputs that would silently change the meaning are refused or warned in one line (issue 50, item 4)."""
from types import SimpleNamespace

import numpy as np
import pytest

from harness import Algorithm, Report, State, Table, check_params, hookimpl, implements
from harness.present.cli import main
from harness.run.api import compare
from workloads.vt_synthetic import write_trace


def _run(capsys, *args):
    rc = main([*map(str, args)])
    return rc, capsys.readouterr().err.strip()


def test_a_weight_selector_that_matches_nothing_is_refused(tmp_path, capsys):
    write_trace(tmp_path / "t", ranks=2, phases=1, tasks=4)
    rc, err = _run(capsys, "compare", "--plugins", "none", "-w", f"vt[path={tmp_path / 't'},weight=subphase:9]",
                   "-q", "--out", tmp_path / "r")
    assert rc == 2 and err.count("\n") == 0 and "weight=subphase:9" in err and "has subphase 9" in err, err
    assert _run(capsys, "compare", "--plugins", "none", "-w", f"vt[path={tmp_path / 't'},weight=subphase:1]", "-q",
                "--out", tmp_path / "r")[0] == 0


def test_two_spellings_of_one_method_are_refused(tmp_path, capsys):
    rc, err = _run(capsys, "compare", "--plugins", "metis,metis[ufactor=30]", "-w", "mini", "-P", 4, "-q",
                   "--out", tmp_path)
    assert rc == 2 and "'metis' and 'metis[ufactor=30]' are one method" in err


class Blocks:
    """A balancer whose ``transfer=clustering`` moves shared blocks (it needs ``Level.shared_id``)."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("blocky", "test", params={"transfer": "recursive"}, roles=("balance",),
                           needs=lambda p: ("shared_id",) if p["transfer"] == "clustering" else ()))


@implements("blocky")
def balance(ctx, state):
    return State.settled(state.owner, ctx.P)


def test_a_method_needing_blocks_on_a_workload_without_them_is_refused_before_any_cell(register, tmp_path, capsys):
    register(SimpleNamespace(register_algorithms=Blocks().register_algorithms, balance=balance), "blocky")
    rc, err = _run(capsys, "compare", "--plugins", "blocky[transfer=clustering]", "-w", "mini", "-P", 4, "-q",
                   "--out", tmp_path)
    assert rc == 2 and err.count("\n") == 0 and "needs Level.shared_id" in err and "mini" in err, err
    assert not (tmp_path / "cells").exists()
    assert _run(capsys, "compare", "--plugins", "blocky", "-w", "mini", "-P", 4, "-q", "--out", tmp_path)[0] == 0
    df = compare("blocky[transfer=clustering]", workload="vt-synthetic", workload_params={"blocks": 2, "ranks": 4},
                 P=None, cache=False)
    assert set(df["status"]) == {"ok"}


def test_bounds_hold_in_combination():
    bounds = {"iterations": (1, 1000), "rounds": (1, 1000), "fanout": (1, 1000)}
    check_params("lbaf-iat", {"iterations": 1000, "rounds": 1, "fanout": 2}, bounds,
                 work=(("iterations", "rounds", "fanout"), 10**6))
    with pytest.raises(ValueError, match=r"iterations=1000 x rounds=1000 x fanout=1000 = 1e\+09 must be at most"):
        check_params("lbaf-iat", {"iterations": 1000, "rounds": 1000, "fanout": 1000}, bounds,
                     work=(("iterations", "rounds", "fanout"), 10**6))


class OwnWorkload:
    @hookimpl
    def register_reports(self, register):
        register(Report("own-mini", lambda opts: [Table("t", opts.compare("none", P=4, workload="mini"))]))


def test_a_report_that_ignores_w_says_so(register, tmp_path, capsys):
    register(OwnWorkload(), "own-report")
    rc, err = _run(capsys, "report", "own-mini", "-w", "truss", "-q", "--out", tmp_path)
    assert rc == 0 and "warning: report own-mini ignores -w truss: it runs on its own workloads (mini)" in err
    assert "ignores" not in _run(capsys, "report", "own-mini", "-q", "--out", tmp_path)[1]


def test_one_value_is_one_cell_however_it_is_spelled(tmp_path):
    """Author fault 5: the API's amp=8 and the command line's amp=8 (stored 8.0) are one workload."""
    from harness.run import workloads

    wl = workloads.get("vt-synthetic")
    a = workloads.resolve_params(wl, {"amp": 8, "ranks": np.int64(4)})
    b = workloads.resolve_params(wl, {"amp": "8", "ranks": "4"})
    assert a == b and type(a["amp"]) is float and type(a["ranks"]) is int
    assert workloads.cache_key(wl, a, 0) == workloads.cache_key(wl, b, 0)


def test_the_levels_report_on_a_trace_needs_no_p(tmp_path, capsys):
    """Author fault 3: ``report levels -w 'vt[...]'`` without -P runs at the trace's ranks."""
    write_trace(tmp_path / "t", ranks=4, phases=2, tasks=4)
    rc = main(["report", "levels", "-w", f"vt[path={tmp_path / 't'}]", "-q", "--out", str(tmp_path / "r")])
    assert rc == 0 and "none — vt, P = 4" in capsys.readouterr().out
