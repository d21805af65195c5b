"""The result store: data-only cells (JSON + npz, never a pickle), self-healing, read-only fallback, provenance."""
import dataclasses
import json
import os
import pickle

import numpy as np
import pytest

from harness import State
from harness.store import results
from harness.store.results import Store, source_hash, versions

ROW = {"level": 2, "algorithm": "metis", "status": "ok", "maxsr": 1.25, "moved_weight": 7, "note": None,
       "flag": True, "params": "{}"}


class Boom:
    """Unpickling this runs code: it creates the marker file (the attack a pickle store allows)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@dataclasses.dataclass
class Mem:
    weights: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    history: list = dataclasses.field(default_factory=list)
    per_proc: dict = dataclasses.field(default_factory=dict)
    theta: float = 0.5
    count: np.int32 = np.int32(0)
    name: str = ""
    done: bool = False
    missing: object = None
    pair: tuple = (1, 2)
    calls: int = dataclasses.field(default=0, init=False)


def state(P=4, n=10):
    owner = np.arange(n) % P
    return State(owner, owner[::-1].copy(), P)


def lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.strip()]


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "res")


def test_round_trip_without_memory(store):
    st = state()
    store.put("k1", ROW, st, None)
    row, back, mem = store.get("k1")
    assert row == ROW and mem is None
    assert back.P == 4 and np.array_equal(back.owner, st.owner) and np.array_equal(back.home, st.home)
    assert store.get("absent") is None
    assert store.rows() == [ROW]
    assert sorted(f.name for f in store.cells.iterdir()) == ["k1.json", "k1.npz"]



def test_a_row_is_checked_once_and_read_again_when_its_file_changes(store, monkeypatch):
    store.put("k", ROW, state(), None)
    first = store.row("k")
    first["maxsr"] = 99.0  # the caller's copy: the store's stays as read
    checks = []
    monkeypatch.setattr(results, "check_figures", lambda row: checks.append(row) or row)
    assert store.row("k") == ROW and store.get("k")[0] == ROW and checks == []  # read and checked once
    store.put("k", {**ROW, "maxsr": 2.5}, state(), None)  # a new file renamed over the old one
    assert store.row("k")["maxsr"] == 2.5 and len(checks) == 1
    (store.cells / "k.json").write_text('{"level": "2", "algorithm": "metis", "status": "ok"}')  # changed in place
    assert store.row("k") is None

def test_numpy_scalars_in_a_row_are_stored_as_numbers(store):
    store.put("k", {**ROW, "maxsr": np.float64(1.5), "moved_weight": np.int64(3)}, state(), None)
    row = store.get("k")[0]
    assert row["maxsr"] == 1.5 and type(row["moved_weight"]) is int


def test_memory_round_trip_with_arrays_and_scalars(store):
    m = Mem(weights=np.array([1.5, 2.5]), history=[np.arange(3), {"a": 1}, (4, 5)],
            per_proc={0: np.array([7], np.int32), 3: "x", "$odd": None}, theta=0.25, count=np.int32(9),
            name="sbn", done=True, missing=None, pair=(3, 4))
    m.calls = 5
    store.put("k", ROW, state(), m)
    _, _, back = store.get("k", Mem)
    assert isinstance(back, Mem)
    assert back.weights.dtype == np.float64 and np.array_equal(back.weights, [1.5, 2.5])
    assert np.array_equal(back.history[0], [0, 1, 2]) and back.history[1:] == [{"a": 1}, [4, 5]]
    assert set(back.per_proc) == {0, 3, "$odd"} and back.per_proc[0].dtype == np.int32
    assert back.per_proc[3] == "x" and back.per_proc["$odd"] is None
    assert back.theta == 0.25 and back.count == 9 and type(back.count) is np.int32
    assert (back.name, back.done, back.missing, back.pair, back.calls) == ("sbn", True, None, [3, 4], 5)
    with np.load(store.cells / "k.npz", allow_pickle=False) as npz:
        assert "memory.weights" in npz.files
    # the cell has no memory when the caller passes no class
    assert store.get("k")[2] is None


def test_memories_of_a_composite_method_round_trip(store):
    @dataclasses.dataclass
    class Other:
        x: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(2))

    store.put("k", ROW, state(), {"metis": None, "sbn": Mem(theta=0.75), "plum": Other(np.ones(3))})
    _, _, back = store.get("k", {"metis": None, "sbn": Mem, "plum": Other})
    assert back["metis"] is None and back["sbn"].theta == 0.75 and np.array_equal(back["plum"].x, np.ones(3))
    with np.load(store.cells / "k.npz", allow_pickle=False) as npz:
        assert {"memory.sbn.weights", "memory.plum.x"} <= set(npz.files)
    store.put("none", ROW, state(), {})
    assert store.get("none", {})[2] == {}


def test_memory_of_a_changed_class_is_recomputed(store, capsys):
    store.put("k", ROW, state(), Mem())

    @dataclasses.dataclass
    class Other:
        x: int = 0

    assert store.get("k", Other) is None
    assert len(lines(capsys.readouterr().err)) == 1
    store.put("k", ROW, state(), {"sbn": Mem()})
    assert store.get("k", {"sbn": Mem, "plum": Other}) is None  # steps changed
    store.put("k", ROW, state(), None)
    assert store.get("k", Mem) is None  # stored without memory
    assert len(lines(capsys.readouterr().err)) == 2


def test_memory_field_that_is_not_data_is_a_type_error(store):
    with pytest.raises(TypeError, match=r"Mem\.missing"):
        store.put("k", ROW, state(), Mem(missing=object()))
    with pytest.raises(TypeError, match=r"Mem\.history"):
        store.put("k", ROW, state(), Mem(history=[np.array([object()])]))
    assert list(store.cells.iterdir()) == []  # nothing written


def test_pieces_round_trip(store):
    pieces_mod = pytest.importorskip("harness.contract.pieces")
    if "pieces" not in {f.name for f in dataclasses.fields(State)}:
        pytest.skip("State has no pieces yet")
    pieces = pieces_mod.BoxPieces(box=[0, 0, 1], lo=[[0, 0], [4, 0], [0, -2 ** 40]],
                                  hi=[[3, 7], [7, 300], [1, 1]], owner=[0, 1, 1], level=[0, 0, 1])
    st = State(np.array([0, 1]), np.array([0, 1]), 2, pieces=pieces)
    store.put("k", ROW, st, None)
    back = store.get("k")[1]
    assert isinstance(back.pieces, pieces_mod.BoxPieces)
    for k in ("box", "lo", "hi", "owner", "level"):
        assert np.array_equal(getattr(back.pieces, k), getattr(pieces, k))
        assert getattr(back.pieces, k).dtype == np.int64
    assert back.pieces.lo.shape == (3, 2)
    with np.load(store.cells / "k.npz") as npz:  # stored in the smallest integer type that holds them
        assert [npz[f"pieces_{k}"].dtype for k in ("box", "hi", "lo")] == [np.int8, np.int16, np.int64]
    store.put("k2", ROW, state(), None)
    assert store.get("k2")[1].pieces is None


@pytest.mark.parametrize("text", ["{}", "[1, 2]", '{"level": 2, "algorithm": "metis", "sta', "",
                                  '{"level": "2", "algorithm": "metis", "status": "ok"}',
                                  '{"level": 2, "algorithm": "metis", "status": "ok", "x": [1, 2]}',
                                  '{"level": true, "algorithm": "metis", "status": "ok"}'])
def test_corrupt_row_is_moved_aside_and_recomputed(store, capsys, text):
    store.put("k", ROW, state(), None)
    store.put("good", ROW, state(), None)
    (store.cells / "k.json").write_text(text)
    assert store.get("k") is None
    err = lines(capsys.readouterr().err)
    assert len(err) == 1 and "k" in err[0] and "corrupt" in err[0]
    assert sorted(f.name for f in (store.cells / "corrupt").iterdir()) == ["k.json", "k.npz"]
    assert not (store.cells / "k.json").exists()
    assert store.get("k") is None and capsys.readouterr().err == ""  # gone: simply absent now
    store.put("k", ROW, state(), None)  # recomputed
    assert store.get("k")[0] == ROW
    assert store.get("good")[0] == ROW


def test_rows_skip_and_move_corrupt_rows(store, capsys):
    store.put("a", ROW, state(), None)
    store.put("b", {**ROW, "level": 3}, state(), None)
    (store.cells / "b.json").write_text("[1, 2]")
    (store.cells / "c.json").write_text(json.dumps(ROW))  # a row without its state is not finished
    (store.cells / ".d.123.json").write_text(json.dumps(ROW))  # a writer's temporary files
    (store.cells / ".d.123.npz").write_bytes(b"")
    assert store.rows() == [ROW]
    assert len(lines(capsys.readouterr().err)) == 1
    assert (store.cells / "corrupt" / "b.json").exists()


@pytest.mark.parametrize("damage", ["truncate", "empty", "garbage", "header", "owner", "other-key"])
def test_corrupt_state_file_is_moved_aside_and_recomputed(store, capsys, damage):
    store.put("k", ROW, state(), None)
    f = store.cells / "k.npz"
    data = f.read_bytes()
    if damage == "truncate":
        f.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        f.write_bytes(b"")
    elif damage == "garbage":
        f.write_bytes(os.urandom(300))
    elif damage == "header":
        np.savez(f, owner=np.zeros(10, int), home=np.zeros(10, int), **{"cell.json": np.frombuffer(b"{", np.uint8)})
    elif damage == "owner":  # processor out of range for P
        head = json.dumps({"format": results.FORMAT, "key": "k", "P": 2, "pieces": False, "memory": None})
        np.savez(f, owner=np.full(10, 5), home=np.zeros(10, int),
                 **{"cell.json": np.frombuffer(head.encode(), np.uint8)})
    else:  # another cell's state file renamed to this key
        store.put("j", ROW, state(), None)
        os.replace(store.cells / "j.npz", f)
    assert store.get("k") is None
    err = lines(capsys.readouterr().err)
    assert len(err) == 1 and "cells/corrupt/" in err[0]
    assert (store.cells / "corrupt" / "k.npz").exists() and not f.exists()


def test_a_malicious_pickle_is_never_loaded(store, tmp_path, capsys):
    marker = tmp_path / "pwned"
    store.put("k", ROW, state(), Mem())
    # a raw pickle in place of the state file
    (store.cells / "k.npz").write_bytes(pickle.dumps(Boom(marker)))
    assert store.get("k", Mem) is None
    # an npz whose arrays are pickled objects
    store.put("k", ROW, state(), Mem())
    with np.load(store.cells / "k.npz") as npz:
        arrays = dict(npz)
    arrays["memory.weights"] = np.array([Boom(marker)], dtype=object)
    np.savez(store.cells / "k.npz", **arrays)
    assert store.get("k", Mem) is None
    assert not marker.exists()
    assert len(lines(capsys.readouterr().err)) == 2
    pickle.loads(pickle.dumps(Boom(tmp_path / "control")))  # the planted payload does run when unpickled
    assert (tmp_path / "control").exists()


def test_cells_of_older_versions_are_moved_aside_unread(tmp_path, capsys):
    cells = tmp_path / "res" / "cells"
    cells.mkdir(parents=True)
    marker = tmp_path / "pwned"
    for key in ("old1", "old2"):
        (cells / f"{key}.json").write_text(json.dumps(ROW))
        (cells / f"{key}.pkl").write_bytes(pickle.dumps(Boom(marker)))
    store = Store(tmp_path / "res")
    err = lines(capsys.readouterr().err)
    assert len(err) == 1 and "2 cell(s)" in err[0]
    assert store.get("old1") is None and store.rows() == []
    assert sorted(f.name for f in (cells / "corrupt").iterdir()) == ["old1.json", "old1.pkl", "old2.json", "old2.pkl"]
    assert not marker.exists()
    Store(tmp_path / "res")
    assert capsys.readouterr().err == ""  # once


def test_read_only_directory_is_read(tmp_path, capsys, monkeypatch):
    path = tmp_path / "res"
    Store(path).put("k", ROW, state(), None)
    if os.geteuid() == 0:  # root writes anywhere: simulate a read-only mount
        monkeypatch.setattr(results, "_writable", lambda d: False)
    else:
        os.chmod(path / "cells", 0o555)
    try:
        store = Store(path, writer=True)
        err = lines(capsys.readouterr().err)
        assert len(err) == 1 and "not writable" in err[0]
        assert not store.writer
        assert store.get("k")[0] == ROW and store.rows() == [ROW]
        store.put("new", ROW, state(), None)  # does nothing
        assert store.get("new") is None
        assert sorted(f.name for f in (path / "cells").iterdir()) == ["k.json", "k.npz"]
    finally:
        os.chmod(path / "cells", 0o755)


def test_missing_unwritable_directory_falls_back(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = Store(blocker / "res")  # cannot be created: a file is in the way
    assert not store.writer and len(lines(capsys.readouterr().err)) == 1
    assert store.get("k") is None and store.rows() == []
    store.put("k", ROW, state(), None)


def test_reader_does_not_write_or_move(tmp_path, capsys):
    Store(tmp_path).put("k", ROW, state(), None)
    (tmp_path / "cells" / "k.json").write_text("{}")
    reader = Store(tmp_path, writer=False)
    assert reader.get("k") is None
    assert len(lines(capsys.readouterr().err)) == 1
    assert (tmp_path / "cells" / "k.json").exists()
    reader.put("j", ROW, state(), None)
    assert not (tmp_path / "cells" / "j.json").exists()


@pytest.mark.parametrize("fail_at", ["savez", "json", "replace"])
def test_temporary_files_are_removed_on_a_write_error(store, capsys, monkeypatch, fail_at):
    import errno

    def disk_full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    if fail_at == "savez":
        real = results.savez

        def partial(fh, arrays):
            real(fh, arrays)  # bytes on disk, then the error
            disk_full()

        monkeypatch.setattr(results, "savez", partial)
    elif fail_at == "json":
        real_open = open

        def row_fails(name, mode="r", *a, **k):
            if str(name).endswith(".json") and "w" in mode:
                real_open(name, mode).close()  # created, then the error
                disk_full()
            return real_open(name, mode, *a, **k)

        monkeypatch.setattr(results, "open", row_fails, raising=False)
    else:
        real_replace = os.replace
        calls = []

        def second_fails(a, b):
            calls.append(a)
            if len(calls) == 2:
                disk_full()
            real_replace(a, b)

        monkeypatch.setattr(os, "replace", second_fails)
    store.put("k", ROW, state(), None)
    monkeypatch.undo()
    err = lines(capsys.readouterr().err)
    assert len(err) == 1 and "No space left" in err[0]
    assert [f.name for f in store.cells.iterdir() if f.name.startswith(".")] == []
    assert store.get("k") is None  # nothing half-stored counts as finished
    assert not store.writer
    store.put("j", ROW, state(), None)  # warned once, stores nothing more
    assert capsys.readouterr().err == "" and store.get("j") is None


def test_temporary_files_are_removed_on_interrupt(store, monkeypatch):
    def interrupt(fh, arrays):
        fh.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(results, "savez", interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.put("k", ROW, state(), None)
    assert list(store.cells.iterdir()) == []


def test_temporary_files_of_a_killed_writer_are_removed(tmp_path):
    cells = tmp_path / "cells"
    cells.mkdir()
    old, fresh = cells / ".abc.99999.npz", cells / ".abd.99999.json"
    old.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(old, (1, 1))
    Store(tmp_path)
    assert not old.exists() and fresh.exists()  # a fresh one may belong to a writer at work


def test_key_is_stable_and_order_independent():
    a = Store.key({"x": 1, "y": [1, 2], "plugins": {"lbbench-sbn": ["0.1", "abc"]}})
    b = Store.key({"plugins": {"lbbench-sbn": ["0.1", "abc"]}, "y": [1, 2], "x": 1})
    assert a == b and len(a) == 24
    assert a != Store.key({"x": 1, "y": [1, 2], "plugins": {"lbbench-sbn": ["0.1", "abd"]}})


def test_versions_lists_plugin_distributions():
    from importlib import metadata

    try:
        sbn = metadata.version("lbbench-sbn")
    except metadata.PackageNotFoundError:
        pytest.skip("lbbench-sbn is not installed")
    v = json.loads(versions())
    assert v["lbbench-sbn"] == sbn
    assert {"python", "lbbench", "numpy"} <= set(v)


@pytest.fixture
def fake_dist(tmp_path, monkeypatch):
    """An installed distribution ``lbbench-fake`` whose package lives in a source tree (an editable install)."""
    import importlib

    site, src = tmp_path / "site", tmp_path / "src"
    pkg = src / "lbbench_fake"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "plugin.py").write_text("ALPHA = 1\n")
    info = site / "lbbench_fake-0.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lbbench-fake\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text("[lbbench]\nfake = lbbench_fake.plugin\n")
    (info / "direct_url.json").write_text(json.dumps({"url": pkg.parent.as_uri(), "dir_info": {"editable": True}}))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(src))
    importlib.invalidate_caches()
    source_hash.cache_clear()
    versions.cache_clear()
    yield info, pkg
    source_hash.cache_clear()
    versions.cache_clear()


def test_source_hash_changes_with_an_editable_plugins_source(fake_dist):
    info, pkg = fake_dist
    h1 = source_hash("lbbench-fake")
    assert len(h1) == 16
    source_hash.cache_clear()
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "plugin.cpython-311.pyc").write_bytes(b"\0")
    assert source_hash("lbbench-fake") == h1  # caches do not count
    source_hash.cache_clear()
    (pkg / "plugin.py").write_text("ALPHA = 2\n")
    h2 = source_hash("lbbench-fake")
    assert h2 != h1
    source_hash.cache_clear()
    (pkg / "new.py").write_text("")
    assert source_hash("lbbench-fake") not in (h1, h2)
    assert json.loads(versions())["lbbench-fake"] == "0.3"


def test_source_hash_skips_the_files_and_directories_named(fake_dist):
    info, pkg = fake_dist
    (pkg / "pages").mkdir()
    (pkg / "pages" / "a.py").write_text("")
    (pkg / "site.py").write_text("")
    skip = frozenset({"lbbench_fake/site.py", "lbbench_fake/pages"})
    h = source_hash("lbbench-fake", skip)
    assert h != source_hash("lbbench-fake")
    source_hash.cache_clear()
    (pkg / "site.py").write_text("X = 1\n")
    (pkg / "pages" / "a.py").write_text("Y = 1\n")
    assert source_hash("lbbench-fake", skip) == h  # what only presents figures: the same code for the cells
    source_hash.cache_clear()
    (pkg / "plugin.py").write_text("ALPHA = 2\n")
    assert source_hash("lbbench-fake", skip) != h


def test_a_plugins_claims_and_reports_are_not_in_its_cells_keys(fake_dist):
    """Editing a plugin's claims or report tables keeps its cells (as the core's claims layer does); its
    method's code, and a claims.py deeper in its package, still count."""
    from harness.store.results import plugin_code

    info, pkg = fake_dist
    (pkg / "sub").mkdir()
    (pkg / "sub" / "claims.py").write_text("")
    h = plugin_code("lbbench-fake")
    assert len(h) == 16
    for name in ("claims.py", "reports.py"):
        source_hash.cache_clear()
        (pkg / name).write_text("CLAIMS = []\n")
        assert plugin_code("lbbench-fake") == h
    source_hash.cache_clear()
    (pkg / "sub" / "claims.py").write_text("X = 1\n")
    h2 = plugin_code("lbbench-fake")
    assert h2 != h
    source_hash.cache_clear()
    (pkg / "plugin.py").write_text("ALPHA = 2\n")
    assert plugin_code("lbbench-fake") not in (h, h2)


def test_every_cells_key_holds_the_plugins_code_but_its_presentation():
    from harness import load_workload
    from harness.contract import plugins
    from harness.contract.model import Machine
    from harness.contract.spec import parse_methods
    from harness.run.api import run_base
    from harness.run.runner import plan
    from harness.store.results import plugin_code

    wl, wparams, _ = load_workload("mini", {}, 0)
    _, pversions = run_base(plan(parse_methods("sbn")[0], plugins.algorithms()), wl, wparams, 4,
                            Machine.parse("uniform", 4), "metis", 0)
    assert pversions["lbbench-sbn"][1] == plugin_code("lbbench-sbn")


def test_every_cells_key_holds_the_cores_code():
    """A plugin's cells are measured by the harness (metrics, engine, runner): its key names the core's
    version and figure-computing source, as the core's own methods' keys do."""
    from harness import load_workload
    from harness.contract import plugins
    from harness.run.api import run_base
    from harness.contract.model import Machine
    from harness.store.results import CORE, PRESENTATION, core_code
    from harness.run.runner import plan
    from harness.contract.spec import parse_methods

    wl, wparams, _ = load_workload("mini", {}, 0)
    for method in parse_methods("sbn,metis,metis/sbn"):
        _, pversions = run_base(plan(method, plugins.algorithms()), wl, wparams, 4, Machine.parse("uniform", 4),
                                "metis", 0)
        assert pversions[CORE] == core_code()
    assert {"harness/claims", "harness/present", "harness/check"} <= PRESENTATION  # whole layers
    assert not {p for p in PRESENTATION for layer in ("contract", "engine", "measure", "store", "run", "kernels")
                if p.startswith(f"harness/{layer}")}


def test_source_hash_is_empty_for_an_index_install(fake_dist):
    info, pkg = fake_dist
    (info / "direct_url.json").unlink()
    assert source_hash("lbbench-fake") == ""
    assert source_hash("no-such-distribution") == ""
    source_hash.cache_clear()
    (info / "direct_url.json").write_text(json.dumps({"url": "https://example.org/x.whl", "archive_info": {}}))
    assert source_hash("lbbench-fake") == ""


def test_compare_never_runs_a_planted_pickle(tmp_path, monkeypatch, capsys):
    """Replace every stored cell and the workload cache by pickles that would create a marker file; a second
    comparison recomputes them (same figures) and the marker never appears."""
    from harness.run.api import compare

    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "res"
    first = compare("metis", workload="mini", P=4, out=out)
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Boom(marker))
    planted = list((out / "cells").glob("*.npz")) + list((tmp_path / "cache").rglob("*.*"))
    assert planted
    for f in planted:
        f.write_bytes(evil)
        f.with_suffix(".pkl").write_bytes(evil)  # where older versions kept them
    again = compare("metis", workload="mini", P=4, out=out)
    assert not marker.exists()
    cols = ["level", "algorithm", "status", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb"]
    assert again[cols].equals(first[cols])


def _values():
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
    arrays = hnp.arrays(st.sampled_from([np.int64, np.float64, np.int32, np.bool_]), hnp.array_shapes(min_dims=0,
                        max_dims=2, max_side=3))
    keys = st.text(max_size=4) | st.integers(-3, 3) | st.none()
    return st.recursive(scalars | arrays, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(keys, inner, max_size=3), max_leaves=8)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_data_values_round_trip_exactly():
    from hypothesis import given, settings

    @settings(max_examples=60, deadline=None, database=None)
    @given(_values())
    def check(value):
        arrays = {}
        encoded = results.to_data(value, arrays, "v")
        text = json.dumps(encoded)  # plain JSON
        assert all(not a.dtype.hasobject for a in arrays.values())
        assert _same(value, results.from_data(json.loads(text), arrays))

    check()


def test_cut_pct_on_a_grid_machine_may_exceed_100():
    """Cut% weighs a cut edge by its Conn slowdown (SBN §3.1): on grid:4:1000 a stored 1356% is a figure,
    not a corrupt row (a run of MinEX's §4 grid cells was recomputed on every read before); on the uniform
    machine 150% is still rejected, and so is more than 100% x the largest slowdown."""
    from harness.store.validate import check_figures

    row = {"machine": "grid:4:1000", "P": 32, "pre_exec_cut_pct": 1356.36, "post_exec_cut_pct": 1356.08}
    assert check_figures(row) is row
    for machine, cut in (("uniform", 150.0), ("grid:4:1000", 100001.0)):
        with pytest.raises(ValueError, match="more than 100%"):
            check_figures({"machine": machine, "P": 32, "pre_exec_cut_pct": cut})


def test_states_are_stored_compressed_in_the_smallest_integer_type(store):
    """Issue 40: a third the size. 100,000 owners in [0, 64) and homes stored in 800 kB each as int64."""
    owner = (np.arange(100_000) * 7919) % 64
    store.put("big", ROW, State(owner, owner[::-1].copy(), 64), None)
    assert os.path.getsize(store.cells / "big.npz") < 100_000
    _, back, _ = store.get("big")
    assert np.array_equal(back.owner, owner) and np.array_equal(back.home, owner[::-1])
    assert back.owner.dtype.kind == "i"
