"""Plugin author kit 1.2 (issue 40): the faults the third outside author hit, each pinned by a test."""
import inspect
from pathlib import Path
from types import SimpleNamespace

from harness import Algorithm, hookimpl, implements
from harness.present.cli import main
from workloads.vt_synthetic import write_trace


def test_lbbench_test_on_a_trace_uses_its_ranks_and_one_processor_works(tmp_path, capsys):
    """F3: without -P the trace's rank count, and "P = 1 works" maps every rank onto one processor."""
    write_trace(tmp_path, ranks=6, phases=2, tasks=4)
    assert main(["test", "metis", "-w", f"vt[path={tmp_path}]", "--ranks", "0"]) == 0
    out = capsys.readouterr().out
    assert "at P = 6 succeeds" in out and "leave -P out" not in out
    assert [ln for ln in out.splitlines() if ln.startswith("P = 1 works")][0].split()[-1] == "PASS"


def _bad_validate(params):
    if params["kind"] == "key":
        return params["beta"]
    raise RuntimeError("cannot check")


def test_a_validate_raising_any_error_is_one_line_naming_plugin_function_and_error(register, capsys):
    """F5: KeyError or RuntimeError from validate: exit 2, one line (plugin, function, error, file:line)."""
    def algorithms(register):
        register(Algorithm("badval", "test", params={"kind": "key"}, roles=("balance",), validate=_bad_validate))

    @implements("badval")
    def balance(ctx, state):
        return state

    register(SimpleNamespace(register_algorithms=hookimpl(algorithms), balance=balance), "badval")
    src, start = inspect.getsourcelines(_bad_validate)
    for kind, error, line in (("key", "KeyError: 'beta'", start + 2), ("run", "RuntimeError: cannot check", start + 3)):
        assert main(["run", f"badval[kind={kind}]", "-w", "mini", "-P", "2", "--levels", "1", "-q",
                     "--out", "/nonexistent/never-written"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0, err
        assert "algorithm badval (plugin test-badval)" in err and "_bad_validate(params)" in err, err
        assert error in err and f"{Path(__file__).name}:{line}" in err, err
