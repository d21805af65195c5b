"""A comparison killed half-way resumes without recomputing finished cells and loses none of them."""
import json
import signal
import subprocess
import sys
import textwrap
import time

from harness import Algorithm, hookimpl
from harness.run.api import compare
from harness.run.partitioners import metis_kway
from harness.store.results import Store

SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    from harness import Algorithm, hookimpl
    from harness.contract import plugins
    from harness.run.api import compare
    from harness.run.partitioners import metis_kway

    class Slow:
        @hookimpl
        def register_algorithms(self, register):
            register(Algorithm("slowmetis", "test"))

        @hookimpl
        def partition(self, algorithm, ctx):
            if algorithm == "slowmetis":
                if ctx.level.index == 3:
                    time.sleep(60)  # killed here
                return metis_kway(ctx.graph, ctx.P, seed=ctx.seed)

    plugins.add(Slow(), "counting", ("test-counting", "0"))  # same plugin as below
    compare("metis,slowmetis", workload="mini", P=4, out=sys.argv[1])
""")


class Counting:
    calls: list = []

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("slowmetis", "test"))

    @hookimpl
    def partition(self, algorithm, ctx):
        if algorithm == "slowmetis":
            self.calls.append(ctx.level.index)
            return metis_kway(ctx.graph, ctx.P, seed=ctx.seed)


def finished(cells):
    """The stored rows (a cell being written is a hidden temporary file until its state and row are in)."""
    return [f for f in cells.glob("*.json") if not f.name.startswith(".")]


def test_resume_after_kill(tmp_path, register):
    out = tmp_path / "res"
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(out)])
    cells = out / "cells"
    deadline = time.time() + 120
    while time.time() < deadline and len(finished(cells)) < 5:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(finished(cells)) == 5  # metis 1-3 and slowmetis 1-2 finished before the kill
    before = {f.name: f.stat().st_mtime_ns for f in finished(cells)}

    register(Counting(), "counting")
    df = compare("metis,slowmetis", workload="mini", P=4, out=out)
    assert Counting.calls == [3]  # only the unfinished cell ran
    assert list(df["status"]) == ["ok"] * 6
    assert all((cells / n).stat().st_mtime_ns == t for n, t in before.items())  # finished cells untouched
    fresh = compare("metis,slowmetis", workload="mini", P=4, out=tmp_path / "fresh")
    cols = ["level", "algorithm", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "moved_weight"]
    assert df[cols].equals(fresh[cols])


def test_no_cache_recomputes(tmp_path, register):
    register(Counting(), "counting")
    Counting.calls.clear()
    compare("slowmetis", workload="mini", P=4, out=tmp_path)
    compare("slowmetis", workload="mini", P=4, out=tmp_path)
    assert Counting.calls == [1, 2, 3]
    compare("slowmetis", workload="mini", P=4, out=tmp_path, cache=False)
    assert Counting.calls == [1, 2, 3, 1, 2, 3]
    assert len(Store(tmp_path).rows()) == 3


def test_a_stored_run_is_read_from_its_rows(tmp_path, register, capsys):
    """A stored cell whose next level is stored too is taken from its row: its state file is not read; a
    state needed after all (a later level to compute) that turns out unreadable is moved aside, and the run
    reads every state as it comes."""
    register(Counting(), "counting")
    Counting.calls.clear()
    first = compare("slowmetis", workload="mini", P=4, out=tmp_path)
    state = {json.loads(f.read_text())["level"]: f.with_suffix(".npz") for f in finished(tmp_path / "cells")}
    for level in (1, 2):
        state[level].write_bytes(b"not a state file")
    again = compare("slowmetis", workload="mini", P=4, out=tmp_path)
    assert Counting.calls == [1, 2, 3] and "warning" not in capsys.readouterr().err  # no state read
    assert again.drop(columns="texec_s").equals(first.drop(columns="texec_s"))
    state[3].unlink()  # level 3 again: it needs level 2's state, which needs level 1's
    third = compare("slowmetis", workload="mini", P=4, out=tmp_path)
    assert Counting.calls == [1, 2, 3, 1, 2, 3]
    assert capsys.readouterr().err.count("moved to cells/corrupt/, recomputing it") == 2
    cols = ["level", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "moved_weight", "owners_hash"]
    assert third[cols].equals(first[cols])
