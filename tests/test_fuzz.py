"""Fuzzing the parsers users feed by hand: they return or raise one clear ValueError, never anything else."""
import tempfile
from pathlib import Path

import click
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.present.cli import parse_levels
from harness.contract.spec import parse_methods

_SCRATCH = tempfile.TemporaryDirectory(prefix="lbbench-fuzz-")  # removed when the session ends
SCRATCH = Path(_SCRATCH.name)
FAST = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SPEC_CHARS = st.sampled_from(list("abcmetis[]=,/-_.0123456789 ") + ["sbn", "plum", "[k=v]", "//", "[[", "]]"])


@FAST
@given(st.lists(SPEC_CHARS, max_size=30).map("".join))
def test_method_specs(text):
    try:
        methods = parse_methods(text)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert methods and all(m.calls for m in methods)


@FAST
@given(st.lists(st.sampled_from(list("0123456789-, ") + ["1000000000", "-1"]), max_size=20).map("".join))
def test_level_ranges(text):
    try:
        levels = parse_levels(text)
    except click.BadParameter as exc:
        assert "--levels" in exc.format_message()
        return
    assert levels is None or (levels == sorted(set(levels)) and len(levels) < 100_000)


@FAST
@given(st.lists(st.one_of(st.integers(-3, 12).map(str), st.sampled_from(["%c", "\n", "\n", " ", "011", "x",
                                                                             "99999999999", "1e3"])),
                max_size=40).map(" ".join))
def test_graph_files(text):
    from workloads.files import read_graph

    path = SCRATCH / "x.graph"
    path.write_text(text)
    try:
        g = read_graph(path)
    except ValueError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    assert g.n >= 0


# -- what is read back from disk: the stored-row validator and the workload cache loader -------------------

COLUMNS = ["level", "algorithm", "status", "P", "seed", "loadimb", "maxqwgt", "wsysll", "pre_exec_cut_pct",
           "post_exec_cut_pct", "maxsr", "moved_weight", "balance_messages", "time_total_s", "work_loadimb",
           "params", "plugin_own_column"]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**64, 2**64), st.floats(allow_nan=True),
                   st.text(max_size=5), st.lists(st.integers(), max_size=2))


DISK = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@DISK
@given(st.dictionaries(st.sampled_from(COLUMNS), VALUES, max_size=len(COLUMNS)))
def test_stored_rows(row):
    import math

    from harness.store.results import check_stored

    try:
        got = check_stored(dict(row))
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert isinstance(got["level"], int) and isinstance(got["algorithm"], str)
    for col in ("loadimb", "maxsr", "pre_exec_cut_pct", "post_exec_cut_pct", "time_total_s", "work_loadimb"):
        if col in got:
            assert isinstance(got[col], (int, float)) and math.isfinite(got[col]) and got[col] >= 0
    for col in ("pre_exec_cut_pct", "post_exec_cut_pct"):
        assert got.get(col, 0) <= 100
    assert got.get("work_loadimb", 1) >= 1 - 1e-9
    for col in ("level", "P", "seed", "moved_weight", "balance_messages", "wsysll"):
        assert col not in got or (isinstance(got[col], int) and not isinstance(got[col], bool))
    if isinstance(got.get("maxqwgt"), int) and "loadimb" in got:
        assert got["loadimb"] >= 1 - 1e-9


def _cache_file(levels):
    import numpy as np

    from harness.store import wlcache

    path = SCRATCH / "c.npz"
    assert wlcache.write(path, levels)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


@DISK
@given(st.data())
def test_workload_cache_loader(data):
    import json

    import numpy as np

    from harness import Graph, Level

    from harness.store import wlcache

    base = [Level(i + 1, Graph.from_edges(4, [0, 1, 2], [1, 2, 3], pwgt=[1, 2, 3, 4], coords=np.zeros((4, 2))))
            for i in range(3)]
    arrays = _cache_file(base)
    head = json.loads(arrays["levels.json"].tobytes().decode())
    how = data.draw(st.sampled_from(["drop", "index", "array", "head", "bytes"]))
    if how == "drop":
        head["levels"] = head["levels"][:data.draw(st.integers(0, 2))]
    elif how == "index":
        head["levels"][data.draw(st.integers(0, 2))]["index"] = data.draw(st.one_of(st.integers(-3, 5), st.text(max_size=2)))
    elif how == "array":
        key = data.draw(st.sampled_from(sorted(k for k in arrays if k != "levels.json")))
        arrays[key] = np.asarray(data.draw(st.lists(st.one_of(st.integers(-2**63, 2**63 - 1),
                                                             st.floats(allow_nan=True)), max_size=6)))
    elif how == "head":
        head = data.draw(st.one_of(st.none(), st.integers(), st.dictionaries(st.text(max_size=3), st.integers())))
    arrays["levels.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
    path = SCRATCH / "c.npz"
    if how == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=200)))
    else:
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
    got = wlcache.read(path, expect=[1, 2, 3])
    if got is None:
        assert not path.exists()  # unusable: removed, to be regenerated
        return
    assert [lv.index for lv in got] == [1, 2, 3]
    for lv in got:
        g = lv.data
        for w in (g.pwgt, g.rwgt, g.cwgt):
            assert w.size == 0 or (w.min() >= 0 and int(w.sum(dtype=object)) <= 2**53)
        assert g.coords is None or np.all(np.isfinite(g.coords))


_MANIFEST_NAMES = st.sampled_from(["none", "sbn", "..", ".", "", "/", "../victim", "/tmp", "a/b", "none/..",
                                   "%2E.", "sbn%2F..", "x" * 300])
_MANIFEST_VALUES = st.one_of(_MANIFEST_NAMES, st.integers(), st.none(), st.lists(st.integers(), max_size=2),
                             st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.dictionaries(st.sampled_from(["methods", "failed", "seed"]),
                                 st.one_of(st.dictionaries(_MANIFEST_NAMES, _MANIFEST_VALUES, max_size=4),
                                           _MANIFEST_VALUES), max_size=3),
                 _MANIFEST_VALUES))
def test_export_manifests(data):
    """An export manifest is data (issue 50): read back, it is one clear ValueError naming the file, or only
    names the directories lbbench wrote there, each one plain component."""
    import json

    from harness.present.export import DIR_MARK, method_dir, read_manifest

    out = SCRATCH / "export"
    (out / "none").mkdir(parents=True, exist_ok=True)
    (out / "none" / DIR_MARK).write_text("x")
    (out / "lbbench-export.json").write_text(json.dumps(data))
    try:
        got = read_manifest(out)
    except ValueError as exc:
        assert "\n" not in str(exc) and "lbbench-export.json" in str(exc)
        return
    assert all(name == method_dir(m) and "/" not in name and (out / name / DIR_MARK).is_file()
               for m, name in got.items())
