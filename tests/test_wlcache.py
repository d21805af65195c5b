"""The workload level cache: data-only (npz, never a pickle), exact round trip, corrupt caches regenerated."""
import dataclasses
import errno
import json
import math
import os
import pickle

import numpy as np
import pytest

from harness import Boxes, Graph, Level, LoadArray
from harness.store import wlcache


class Boom:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def levels():
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], [2, 3, 4], pwgt=[1, 8, 8, 1], rwgt=[1, 9, 9, 1],
                         coords=np.arange(8.0).reshape(4, 2), name="path")
    g2 = Graph.from_edges(3, [0, 1], [1, 2])  # default weights, no coords, no name
    boxes = Boxes(level=[0, 1, 1], lo=[[0, 0], [0, 0], [4, 4]], hi=[[7, 7], [3, 3], [9, 9]], parent=[-1, 0, 0],
                  ratio=4)
    arr = LoadArray(np.arange(12).reshape(3, 4))
    meta = {"x": 0.5, "n": 3, "s": "a", "none": None, "flag": False, "nan": float("nan"),
            "tri": np.arange(6, dtype=np.int32).reshape(2, 3), "np_scalar": np.float32(1.5),
            "nested": [{"a": (1, 2)}, [np.array([1.0])]], "by_level": {0: "base", 1: "fine"}}
    return [Level(0, g, meta=meta, pinned=[-1, 2, -1, -1], shared_id=[4, -1, 4, 0]),
            Level(1, g2, parent=np.array([0, 0, 1])), Level(2, boxes, meta={"front": 3}), Level(5, arr)]


def same(a, b) -> bool:
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, type(a))) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


FIELDS = {Graph: ("xadj", "adjncy", "pwgt", "rwgt", "cwgt", "coords", "name"),
          Boxes: ("level", "lo", "hi", "parent", "ratio"), LoadArray: ("load",)}


def assert_same_levels(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.index == b.index and type(a.data) is type(b.data)
        for f in FIELDS[type(b.data)]:
            x, y = getattr(a.data, f), getattr(b.data, f)
            assert (x is None and y is None) or same(y, x), f
        assert (a.parent is None) == (b.parent is None)
        assert a.parent is None or np.array_equal(a.parent, b.parent)
        for f in ("pinned", "shared_id"):
            x, y = getattr(a, f), getattr(b, f)
            assert (x is None and y is None) or same(y, x), f
        assert same(b.meta, a.meta)


def test_round_trip(tmp_path, capsys):
    path = tmp_path / "wl" / "x.npz"
    want = levels()
    assert wlcache.write(path, want)
    got = wlcache.read(path)
    assert_same_levels(got, want)
    assert got[0].meta["nested"][0]["a"] == [1, 2]  # tuples come back as lists
    assert got[3].data.load.shape == (3, 4) and got[2].data.ratio == 4
    assert capsys.readouterr().err == ""
    assert [f.name for f in path.parent.iterdir()] == ["x.npz"]


def test_a_span_reads_those_levels_alone(tmp_path, capsys, monkeypatch):
    path = tmp_path / "x.npz"
    want = levels()
    assert wlcache.write(path, want)
    loaded = []
    real = np.lib.npyio.NpzFile.__getitem__
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", lambda self, k: loaded.append(k) or real(self, k))
    assert_same_levels(wlcache.read(path, wanted=[2, 1]), want[1:3])
    assert {k.split(".")[0] for k in loaded} == {"levels", "0", "1", "2"} and "0.xadj" in loaded  # 0: its size
    assert not any(k.startswith("0.") and k != "0.xadj" for k in loaded)
    assert_same_levels(wlcache.read(path, wanted=[5]), want[3:])
    assert_same_levels(wlcache.read(path, wanted=[1, 3]), want)  # a level the file lacks: all
    # the first level read still has its parent map checked against the level before it
    bad = levels()
    bad[1] = Level(1, bad[1].data, parent=np.array([0, 0, 7]))
    assert wlcache.write(path, bad)
    assert wlcache.read(path, wanted=[1]) is None and "parent map does not fit" in capsys.readouterr().err


def test_a_run_of_some_levels_reads_only_those(tmp_path, monkeypatch):
    from harness.run import workloads

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path))
    workloads._RECENT.clear()
    _, _, every = workloads.load("mini", {}, 0)
    workloads._RECENT.clear()
    _, _, some = workloads.load("mini", {}, 0, levels=[2, 3])
    assert [lv.index for lv in some] == [2, 3]
    assert_same_levels(some, every[1:3])
    assert workloads.load("mini", {}, 0, levels=[3])[2] is some  # remembered: it covers level 3
    assert len(workloads.load("mini", {}, 0)[2]) == len(every)  # all again: read whole
    assert len(workloads.load("mini", {}, 0, levels=[1, 99])[2]) == len(every)  # a level it lacks: all


def test_round_trip_of_a_generated_workload(tmp_path):
    from harness.builtin.mini import generate

    want = generate(points=300)
    wlcache.write(tmp_path / "mini.npz", want)
    assert_same_levels(wlcache.read(tmp_path / "mini.npz"), want)


def test_missing_cache_is_none_quietly(tmp_path, capsys):
    assert wlcache.read(tmp_path / "absent.npz") is None
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", ["truncate", "empty", "garbage", "pickle", "object-array", "bad-graph", "npy",
                                    "short-shared", "bad-shared"])
def test_corrupt_cache_is_regenerated_with_a_warning(tmp_path, capsys, damage):
    path = tmp_path / "x.npz"
    marker = tmp_path / "pwned"
    wlcache.write(path, levels())
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(os.urandom(500))
    elif damage == "pickle":
        path.write_bytes(pickle.dumps(Boom(marker)))
    elif damage == "npy":
        with open(path, "wb") as fh:
            np.save(fh, np.arange(3))
    else:
        with np.load(path) as npz:
            arrays = dict(npz)
        if damage == "object-array":
            arrays["0.meta.tri"] = np.array([Boom(marker)], dtype=object)
        elif damage == "short-shared":
            arrays["0.shared_id"] = arrays["0.shared_id"][:3]  # not one per vertex
        elif damage == "bad-shared":
            arrays["0.shared_id"] = np.array([4, -2, 4, 0])  # below -1
        else:
            arrays["0.adjncy"] = arrays["0.adjncy"] + 100  # refers to vertices that do not exist
        np.savez(path, **arrays)
    assert wlcache.read(path) is None
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "regenerating" in err[0]
    assert not path.exists() and not marker.exists()
    assert wlcache.write(path, levels()) and wlcache.read(path) is not None


def test_meta_that_is_not_data_is_refused(tmp_path):
    lv = Level(3, LoadArray([1, 2]), meta={"ok": 1, "fn": print})
    with pytest.raises(ValueError, match=r"level 3 meta\['fn'\]"):
        wlcache.write(tmp_path / "x.npz", [lv])
    assert list(tmp_path.iterdir()) == []


def test_write_error_leaves_no_temporary_file_and_keeps_the_old_cache(tmp_path, capsys, monkeypatch):
    path = tmp_path / "x.npz"
    old = levels()[:1]
    wlcache.write(path, old)
    real = np.savez

    def disk_full(fh, **arrays):
        real(fh, **arrays)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", disk_full)
    assert wlcache.write(path, levels()) is False
    monkeypatch.undo()
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "No space left" in err[0]
    assert [f.name for f in tmp_path.iterdir()] == ["x.npz"]
    assert_same_levels(wlcache.read(path), old)


def test_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def interrupt(fh, **arrays):
        fh.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupt)
    with pytest.raises(KeyboardInterrupt):
        wlcache.write(tmp_path / "x.npz", levels())
    assert list(tmp_path.iterdir()) == []


def test_temporary_file_of_a_killed_writer_is_removed(tmp_path):
    stale = tmp_path / ".x.npz.99999.tmp"
    stale.write_bytes(b"x")
    os.utime(stale, (1, 1))
    wlcache.write(tmp_path / "x.npz", levels())
    assert [f.name for f in tmp_path.iterdir()] == ["x.npz"]


def test_a_graph_array_levels_share_is_written_once_and_shared_again_after_read(tmp_path):
    g0 = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], [2, 3, 4], coords=np.arange(8.0).reshape(4, 2))
    g1 = Graph(g0.xadj, g0.adjncy, pwgt=[2, 1, 1, 1], cwgt=g0.cwgt * 2, coords=g0.coords)
    assert g1.adjncy is g0.adjncy and g1.xadj is g0.xadj  # a frozen int64 array is taken as is
    mine = np.array([0, 1, 2, 3], np.int64)
    g2 = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], pwgt=mine)
    assert g2.pwgt is not mine and mine.flags.writeable  # the caller's array is copied, never frozen
    path = tmp_path / "shared.npz"
    assert wlcache.write(path, [Level(1, g0), Level(2, g1)])
    with np.load(path) as z:
        assert "0.adjncy" in z.files and "1.adjncy" not in z.files and "1.cwgt" in z.files
    a, b = (lv.data for lv in wlcache.read(path))
    assert a.adjncy is b.adjncy and a.coords is b.coords and a.cwgt is not b.cwgt
    assert np.array_equal(b.cwgt, g1.cwgt) and np.array_equal(b.pwgt, g1.pwgt) and b.adjncy.dtype == np.int64


def test_a_trace_with_new_and_vanishing_tasks_is_a_cache_hit(tmp_path, capsys, monkeypatch):
    """vt-synthetic with churn: later phases have new tasks (parent -1) and lose others. The second load
    reads the cache (the generator is not called again) and warns nothing; shared blocks come back."""
    from harness.run import workloads

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path))
    wl, params, want = workloads.load("vt-synthetic", {"ranks": 4, "tasks": 40, "phases": 4, "churn": 0.3, "blocks": 3})
    parents = [lv.parent for lv in want[1:] if lv.parent is not None]
    assert any((p == -1).any() for p in parents)  # new tasks
    assert all(lv.shared_id is not None and lv.shared_id.max() == 11 for lv in want)
    assert any(lv.data.n < prev.data.n or np.setdiff1d(np.arange(prev.data.n), lv.parent[lv.parent >= 0]).size
               for prev, lv in zip(want, want[1:]))  # vanished tasks
    workloads._RECENT.clear()
    def regenerate(**kw):
        pytest.fail("a cache hit regenerated the trace")

    monkeypatch.setattr(workloads, "get", lambda name: dataclasses.replace(wl, generate=regenerate))
    got = workloads.load("vt-synthetic", {"ranks": 4, "tasks": 40, "phases": 4, "churn": 0.3, "blocks": 3})[2]
    assert_same_levels(got, want)
    assert capsys.readouterr().err == ""


def test_lbbench_test_reads_its_trace_with_churn_from_the_cache(tmp_path, capsys, monkeypatch):
    """Issue 40's F1: every ``lbbench test`` warned that its vt-synthetic trace's cache was unreadable ("level 2:
    bad parent map") and rebuilt it. The second run reads it back quietly."""
    from harness.present.cli import main
    from harness.run import workloads

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path))
    assert main(["test", "none", "--ranks", "0"]) == 0
    workloads._RECENT.clear()  # read the file again, as a new process would
    capsys.readouterr()
    assert main(["test", "none", "--ranks", "0"]) == 0
    err = capsys.readouterr().err
    assert "unreadable" not in err and "regenerating" not in err, err


def _edit(path, key, fn):
    """Rewrite one array of a cache file (a hand edit)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    head = json.loads(arrays["levels.json"].tobytes().decode())
    name = head["levels"][0]["meta"][key]["$array"] if key in head["levels"][0]["meta"] else f"0.{key}"
    arrays[name] = fn(arrays[name])
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


@pytest.mark.parametrize("key, fn", [("node", lambda a: a * 0 + 99), ("node", lambda a: a[:-1]),
                                     ("pinned", lambda a: np.where(a >= 0, 99, a))])
def test_a_trace_cache_with_an_edited_placement_is_regenerated_with_one_warning(tmp_path, capsys, monkeypatch,
                                                                                key, fn):
    """Issue 50: a cache whose node or pinned array was edited (to 99, or one entry short) is damage."""
    from harness.run import workloads

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path))
    params = {"ranks": 4, "tasks": 12, "phases": 2, "pinned": 0.5}
    want = workloads.load("vt-synthetic", params)[2]
    (path,) = [f for f in tmp_path.rglob("*.npz")]
    _edit(path, key, fn)
    workloads._RECENT.clear()
    got = workloads.load("vt-synthetic", params)[2]
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "regenerat" in err, err
    assert_same_levels(got, want)
