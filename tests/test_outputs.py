"""Output directories are safe (issue 40): ``--export-vt``, ``site -o`` and ``docs -o`` write only what they own,
never into or over the trace being read, never through a symlink they did not create."""
import json
import os
import shutil

import numpy as np
import pytest

from harness import Algorithm, State, hookimpl
from harness.present.cli import main
from harness.present.export import method_dir, method_of
from harness.present.site import _slug
from workloads.vt_synthetic import write_trace


def _run(capsys, *args):
    rc = main([*map(str, args)])
    return rc, capsys.readouterr().err.strip()


def _export(capsys, src, out, tmp_path, methods="none"):
    return _run(capsys, "compare", "--plugins", methods, "-w", f"vt[path={src}]", "--export-vt", out, "-q",
                "--no-cache", "--out", tmp_path / "r")


def _files(folder):
    return {f: (folder / f).read_bytes() for f in sorted(os.listdir(folder))}


def test_export_never_writes_into_or_over_the_trace(tmp_path, capsys):
    src = tmp_path / "x" / "none"  # a trace whose folder has a method's name
    write_trace(src, ranks=2, phases=1, tasks=4)
    before = _files(src)
    for target in (tmp_path / "x", src, src / "sub"):
        rc, err = _export(capsys, src, target, tmp_path)
        assert rc == 2 and err.count("\n") == 0 and "the trace being read" in err, err
    assert _files(src) == before and not (src / "sub").exists()


def test_export_refuses_a_foreign_directory_and_never_follows_a_symlink(tmp_path, capsys):
    src, out, outside = tmp_path / "t", tmp_path / "e", tmp_path / "outside"
    write_trace(src, ranks=2, phases=1, tasks=4)
    outside.mkdir()
    out.mkdir()
    (out / "none").symlink_to(outside)
    rc, err = _export(capsys, src, out, tmp_path)
    assert rc == 2 and "did not write" in err and os.listdir(outside) == []
    os.unlink(out / "none")
    assert _export(capsys, src, out, tmp_path)[0] == 0
    # a link planted in an earlier export is refused, never written through nor removed through
    shutil.rmtree(out / "none")
    (out / "none").symlink_to(outside)
    rc, err = _export(capsys, src, out, tmp_path)
    assert rc == 2 and "entry 'none'" in err and "not a directory lbbench wrote" in err
    assert os.listdir(outside) == [] and (out / "none").is_symlink()
    os.unlink(out / "none")
    assert _export(capsys, src, out, tmp_path)[0] == 0
    assert sorted(os.listdir(out / "none")) == [".lbbench-export", "data.0.json", "data.1.json"]


@pytest.mark.parametrize("entry", ["../victim", "VICTIM", "..", ".", "", "a/../../victim", 7, None])
def test_a_manifest_never_deletes_outside_its_folder(tmp_path, capsys, register, entry):
    """Issue 50: the manifest's names are data; a failed method named to ../victim, an absolute path or ..
    is refused before any work, and nothing is deleted."""
    register(Mover(), "mover-out")
    src, out, victim = tmp_path / "t", tmp_path / "e", tmp_path / "victim"
    write_trace(src, ranks=2, phases=1, tasks=4, pinned=0.5, seed=1)
    victim.mkdir()
    (victim / "keep").write_text("mine")
    assert _export(capsys, src, out, tmp_path)[0] == 0
    manifest = json.loads((out / "lbbench-export.json").read_text())
    manifest["methods"]["mover-out"] = str(victim) if entry == "VICTIM" else entry
    (out / "lbbench-export.json").write_text(json.dumps(manifest))
    rc, err = _export(capsys, src, out, tmp_path, "none,mover-out")
    assert rc == 2 and err.count("\n") == 0 and "entry 'mover-out'" in err and "lbbench-export.json" in err, err
    assert "Traceback" not in err and "level" not in err  # refused before any cell ran
    assert (victim / "keep").read_text() == "mine" and (out / "none" / "data.0.json").is_file()


@pytest.mark.parametrize("text", ["[]", "{\"methods\": []}", "{not json", "{\"methods\": {}, \"failed\": 3}"])
def test_a_malformed_manifest_is_one_line_before_any_work(tmp_path, capsys, text):
    src, out = tmp_path / "t", tmp_path / "e"
    write_trace(src, ranks=2, phases=1, tasks=4)
    out.mkdir()
    (out / "lbbench-export.json").write_text(text)
    rc, err = _export(capsys, src, out, tmp_path)
    assert rc == 2 and err.count("\n") == 0 and str(out / "lbbench-export.json") in err, err
    assert not (tmp_path / "r").exists()  # nothing computed


def test_an_empty_export_name_is_refused(tmp_path, capsys):
    src = tmp_path / "t"
    write_trace(src, ranks=2, phases=1, tasks=4)
    rc, err = _export(capsys, src, "", tmp_path)
    assert rc == 2 and "--export-vt" in err and "empty" in err


def test_an_interrupted_export_neither_locks_the_folder_nor_leaves_temporaries(tmp_path, capsys):
    src, out = tmp_path / "t", tmp_path / "e"
    write_trace(src, ranks=2, phases=1, tasks=4)
    assert _export(capsys, src, out, tmp_path)[0] == 0
    (out / "lbbench-export.json").unlink()  # stopped between moving the folder in and writing the manifest
    for left in (".none.new-abc_1234", ".none.old-zz9x8y7w", ".lbbench-export.json.k2j4h6g8"):
        (out / left).mkdir() if "json" not in left else (out / left).write_text("{")
    (out / ".none.new-abc_1234" / "data.0.json").write_text("half")
    assert _export(capsys, src, out, tmp_path)[0] == 0
    assert sorted(os.listdir(out)) == ["lbbench-export.json", "none"]


def test_reexport_replaces_a_method_directory_whole(tmp_path, capsys):
    big, small, out = tmp_path / "big", tmp_path / "small", tmp_path / "e"
    write_trace(big, ranks=4, phases=1, tasks=4)
    write_trace(small, ranks=2, phases=1, tasks=4)
    assert _export(capsys, big, out, tmp_path)[0] == 0
    assert len(os.listdir(out / "none")) == 5  # four rank files and the marker
    assert _export(capsys, small, out, tmp_path)[0] == 0
    assert sorted(os.listdir(out / "none")) == [".lbbench-export", "data.0.json", "data.1.json"]
    assert [f for f in os.listdir(out) if f.startswith(".")] == []  # nothing left beside


def test_method_directories_are_unique_and_reversible():
    methods = ["sbn[subset=８]", "sbn[subset=９]", "metis/sbn[f=40]", "metis_sbn[f=40]", "..", "a b", "x" * 300]
    names = [method_dir(m) for m in methods]
    assert len(set(names)) == len(names)
    for m, n in zip(methods, names):
        assert n.isascii() and "/" not in n and not n.startswith(".") and len(n.encode()) <= 255
        if len(m) < 100:
            assert method_of(n) == m


class Mover:
    """A balancer that moves every object to processor 0, pinned ones too: each of its cells fails."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("mover-out", "test", roles=("balance",)))

    @hookimpl
    def balance(self, algorithm, ctx, state):
        if algorithm == "mover-out":
            return State.settled(np.zeros(ctx.graph.n, np.int64), ctx.P)


def test_a_failed_method_gets_no_directory(register, tmp_path, capsys):
    register(Mover(), "mover-out")
    src, out = tmp_path / "t", tmp_path / "e"
    write_trace(src, ranks=2, phases=2, tasks=8, pinned=0.5, seed=1)
    rc, err = _export(capsys, src, out, tmp_path, "none,mover-out")
    assert rc == 1 and "none for a method with a failed cell" in err
    assert sorted(os.listdir(out)) == ["lbbench-export.json", "none"]
    manifest = json.loads((out / "lbbench-export.json").read_text())
    assert manifest["methods"] == {"none": "none"} and "pinned" in manifest["failed"]["mover-out"]


def test_site_and_docs_write_only_directories_they_own(tmp_path, capsys):
    for cmd in (["docs", "-o"], ["site", "--out", str(tmp_path / "r"), "-w", "mini", "-o"]):
        d = tmp_path / cmd[0]
        d.mkdir()
        (d / "index.html").write_text("mine")
        rc, err = _run(capsys, *cmd, d)
        assert rc == 2 and err.count("\n") == 0 and "did not write" in err, err
        assert (d / "index.html").read_text() == "mine"
    site = tmp_path / "site2"
    assert _run(capsys, "site", "--out", tmp_path / "r", "-w", "mini", "-o", site)[0] == 0
    (site / "stale.html").write_text("old")
    assert _run(capsys, "site", "--out", tmp_path / "r", "-w", "mini", "-o", site)[0] == 0
    assert not (site / "stale.html").exists() and (site / "index.html").is_file()  # replaced whole


def test_site_refuses_an_unknown_workload(tmp_path, capsys):
    rc, err = _run(capsys, "site", "--out", tmp_path / "r", "-w", "nosuch", "-o", tmp_path / "s")
    assert rc == 2 and "unknown workload 'nosuch'" in err and not (tmp_path / "s").exists()


def test_page_names_of_long_groups_differ():
    """F2: two per-level groups whose names differ only past the cut get two pages."""
    a = "shock {" + ", ".join(f"p{i}=1" for i in range(30)) + "}, P = 8"
    b = a.replace("P = 8", "P = 32")
    assert _slug(a) != _slug(b) and _slug("sbn-table5") == "sbn-table5"


# ------------------------------------------------------------------ plugin output contained, misleading cases

class Talker:
    """A balancer that prints while it runs (as a plugin author debugging would)."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("talker", "test", roles=("balance",)))

    @hookimpl
    def balance(self, algorithm, ctx, state):
        if algorithm == "talker":
            print("DEBUG from talker")
            return state


def test_a_hooks_print_goes_to_stderr_not_into_csv(register, tmp_path, capsys):
    register(Talker(), "talker")
    assert main(["compare", "--plugins", "talker", "-w", "mini", "-P", "2", "--levels", "1", "--format", "csv",
                 "-q", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "DEBUG" not in out and "DEBUG from talker" in err
    assert out.splitlines()[0].startswith("workload,") and len(out.splitlines()) == 2


def test_reproduce_keeps_a_hooks_print_out_of_its_output(register, tmp_path, capsys):
    from harness import Claim

    class TalkClaims:
        @hookimpl
        def register_claims(self, register):
            register(Claim("talk-runs", "talk", "our test", "talker runs", ({"methods": "talker", "P": (2,),
                                                                             "workload": "mini"},),
                           lambda df: (bool((df["status"] == "ok").all()), "ok")))

    register(Talker(), "talker")
    register(TalkClaims(), "talk-claims")
    assert main(["reproduce", "--paper", "talk", "--out", str(tmp_path / "r"), "-o", str(tmp_path / "s"),
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "DEBUG" not in out and "DEBUG from talker" in err


def test_reproduce_refuses_an_output_it_cannot_write_before_computing(tmp_path, capsys):
    f = tmp_path / "site.txt"
    f.write_text("mine")
    rc, err = _run(capsys, "reproduce", "--paper", "sbn", "-o", f, "--out", tmp_path / "r", "-q")
    assert rc == 2 and "exists and is not a directory" in err and not (tmp_path / "r").exists()


def test_the_site_warns_once_on_unreadable_stored_rows(tmp_path, capsys):
    res = tmp_path / "r"
    assert main(["compare", "--plugins", "none", "-w", "mini", "-P", "2", "-q", "--out", str(res)]) == 0
    rows = sorted((res / "cells").glob("*.json"))
    rows[0].write_text("{broken")
    rows[1].write_text(json.dumps({**json.loads(rows[1].read_text()), "loadimb": -1}))
    capsys.readouterr()
    assert main(["site", "--out", str(res), "-w", "mini", "-o", str(tmp_path / "s")]) == 0
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "2 stored rows unreadable, not shown" in warnings[0], warnings


def test_claims_on_a_store_it_cannot_write_is_a_read_only_run(register, tmp_path, capsys):
    from harness import Claim

    class Worked:
        @hookimpl
        def register_claims(self, register):
            register(Claim("ro-example", "ro-paper", "our test", "a worked example", (), lambda df: (True, "ok")))

    register(Worked(), "ro-claims")
    res = tmp_path / "r"
    (res / "claims" / "history.csv").mkdir(parents=True)  # cannot be appended to, as on a read-only mount
    rc = main(["claims", "--paper", "ro-paper", "-q", "--out", str(res)])
    out, err = capsys.readouterr()
    assert rc == 0 and "holds" in out and "claims history not recorded" in err, err


@pytest.mark.mpi
def test_ctrl_c_of_an_mpi_run_ends_every_rank(tmp_path):
    """Rank 0 interrupted while the others wait in a collective: every rank ends, with the one message."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from harness.engine.launch import mpiexec

    script = Path(__file__).parent / "scripts" / "interrupt.py"
    proc = subprocess.Popen([mpiexec(), "-n", "2", sys.executable, str(script), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr.readline().strip() == "waiting"  # (a hook's print goes to stderr)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode != 0 and "lbbench: error: interrupted" in err, err
