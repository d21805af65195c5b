"""Issue 52 item 3: a cached level's arrays are mapped read-only from the cache file (one copy per host), a file
written before is still read, and the figures are those of the copied arrays."""
import json
import mmap
import struct
import zipfile

import numpy as np
import pandas as pd
import pytest

from harness import Graph, Level, LoadArray
from harness.contract.model import unwritable
from harness.run.api import compare
from harness.store import wlcache


def root(a: np.ndarray):
    """What an array's memory belongs to (through views and buffers)."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a.obj if isinstance(a, memoryview) else a


def assert_same_levels(got, want):
    assert [lv.index for lv in got] == [lv.index for lv in want]
    for a, b in zip(got, want):
        for k in ("xadj", "adjncy", "pwgt", "rwgt", "cwgt", "coords"):
            x, y = getattr(a.data, k), getattr(b.data, k)
            assert x.dtype == y.dtype and np.array_equal(x, y), k
        assert (a.parent is None) == (b.parent is None) and (a.parent is None or np.array_equal(a.parent, b.parent))
        assert a.meta.keys() == b.meta.keys() and all(np.array_equal(a.meta[k], b.meta[k]) for k in a.meta)


def big():
    n = 20_000  # arrays of 160 kB: above SHARED_BYTES
    g = Graph.from_edges(n, np.arange(n - 1), np.arange(1, n), w=np.arange(n - 1) % 7 + 1, pwgt=np.arange(n) + 1,
                         coords=np.linspace(0, 1, 2 * n).reshape(n, 2))
    g2 = Graph(g.xadj, g.adjncy, pwgt=g.pwgt * 2, cwgt=g.cwgt, coords=g.coords)
    return [Level(1, g), Level(2, g2, parent=np.arange(n), meta={"node": np.arange(n) % 5, "P": 5})]


def test_large_arrays_are_mapped_read_only_and_shared_as_they_are(tmp_path):
    path = tmp_path / "x.npz"
    want = big()
    assert wlcache.write(path, want)
    with zipfile.ZipFile(path) as z, open(path, "rb") as fh:
        for info in z.infolist():  # every large member's data 64-byte aligned in the file
            if info.file_size >= wlcache.SHARED_BYTES:
                assert wlcache._mapped(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), info) is not None
        assert {i.filename for i in z.infolist() if not i.filename[0].isdigit()} <= \
            {"levels.json.npy"} | {i.filename for i in z.infolist() if i.filename.startswith("-1.pad")}
    got = wlcache.read(path)
    assert_same_levels(got, want)
    a, b = (lv.data for lv in got)
    for arr in (a.xadj, a.adjncy, a.pwgt, a.cwgt, a.coords, b.pwgt, got[1].parent, got[1].meta["node"]):
        assert isinstance(root(arr), mmap.mmap) and not arr.flags.writeable and unwritable(arr)
    assert b.adjncy is a.adjncy and b.coords is a.coords  # one array, as the levels shared it
    with pytest.raises(ValueError, match="read-only"):
        a.pwgt[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        got[1].parent[0] = 1
    g = Graph(a.xadj, a.adjncy, pwgt=a.pwgt)  # a Graph takes a mapped array as it is
    assert g.adjncy is a.adjncy and g.pwgt is a.pwgt


def test_a_cache_written_before_is_still_read_and_rewritten_aligned_once(tmp_path, capsys):
    path = tmp_path / "old.npz"
    assert wlcache.write(path, big())
    with np.load(path) as z:  # the same arrays as np.savez wrote them before issue 52: no pads, unaligned
        arrays = {k: z[k] for k in z.files if not k.startswith("-1.")}
    np.savez(path, **arrays)
    got = wlcache.read(path)
    assert_same_levels(got, big())
    assert capsys.readouterr().err == ""
    assert all(not lv.data.pwgt.flags.writeable for lv in got) and not got[1].parent.flags.writeable
    assert not isinstance(root(got[0].data.adjncy), mmap.mmap)  # copied, as before
    with np.load(path) as z:  # rewritten: the same members, pads added
        assert {k for k in z.files if not k.startswith("-1.")} == set(arrays)
        assert all(np.array_equal(z[k], a) for k, a in arrays.items())
    again = wlcache.read(path)
    assert_same_levels(again, big())
    assert isinstance(root(again[0].data.adjncy), mmap.mmap)
    assert [f.name for f in tmp_path.iterdir()] == ["old.npz"] and capsys.readouterr().err == ""
    small = tmp_path / "small.npz"  # small arrays are copied, and frozen alike
    assert wlcache.write(small, [Level(1, LoadArray([1, 2])), Level(2, LoadArray([3, 4]), parent=np.array([0, 1]))])
    assert not wlcache.read(small)[1].parent.flags.writeable


def test_a_writable_array_or_a_view_of_one_is_copied():
    mine = np.arange(5)
    view = mine[1:]
    view.setflags(write=False)
    assert not unwritable(mine) and not unwritable(view)
    frozen = np.frombuffer(bytes(40), np.int64)
    assert unwritable(frozen) and Graph(np.array([0, 0]), np.zeros(0, np.int64), pwgt=frozen[:1]).pwgt.base is not None


@pytest.mark.parametrize("shared", [0, 1 << 40])
def test_figures_are_those_of_the_copied_arrays(tmp_path, monkeypatch, shared):
    """A level read mapped (every array) and read copied (none) gives every column the same."""
    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(wlcache, "SHARED_BYTES", shared)
    from harness.run import workloads

    workloads._RECENT.clear()
    runs = []
    for _ in range(2):  # generated (and written), then read from the file
        workloads._RECENT.clear()
        runs.append(compare(["sbn", "minex"], workload="mini", P=4, levels=[1, 2], out=str(tmp_path / "out"),
                            cache=False))
    cols = [c for c in runs[0].columns if not any(t in c for t in ("time", "wall", "cpu", "busy", "_s", "rank_", "overhead"))]
    pd.testing.assert_frame_equal(runs[0][cols], runs[1][cols])


def test_a_cached_graph_is_checked_symmetric_once_where_it_is_built(tmp_path, monkeypatch, capsys):
    """Issue 52 item 3: the writer marks a graph symmetric and no reader checks it again; a file written before
    (no mark) is checked once and rewritten marked."""
    from harness.contract import model

    calls = []
    check = model._check_symmetric
    monkeypatch.setattr(model, "_check_symmetric", lambda *a: calls.append(1) or check(*a))
    path = tmp_path / "x.npz"
    want = big()  # level 2's Graph is checked when built
    assert len(calls) == 1 and wlcache.write(path, want)
    assert_same_levels(wlcache.read(path), want)
    assert len(calls) == 1  # not again on read
    with np.load(path) as z:  # the header as written before: no mark
        arrays = {k: z[k] for k in z.files}
    head = json.loads(arrays["levels.json"].tobytes())
    for i, e in enumerate(head["levels"]):
        del e["symmetric"], e["src"]
        (arrays if f"{i}.src" in arrays else head["refs"]).pop(f"{i}.src")
    arrays["levels.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
    np.savez(path, **arrays)
    assert_same_levels(wlcache.read(path, wanted=[2]), want[1:])
    assert len(calls) == 2  # level 2 checked, and marked
    assert_same_levels(wlcache.read(path), want)
    assert len(calls) == 3  # level 1 was not read before: checked now, then marked too
    got = wlcache.read(path)
    assert_same_levels(got, want)
    assert len(calls) == 3 and capsys.readouterr().err == ""
    with np.load(path) as z:  # one src for the two levels' one xadj
        assert [k for k in z.files if k.endswith(".src")] == ["1.src"]


def test_a_cached_graphs_src_is_mapped_once_for_the_levels_that_share_xadj(tmp_path, capsys):
    """Each graph's src (the row of each adjacency entry) is in the file, once per xadj, and mapped; a wrong one
    (a file edited and saved again) is found: regenerated with one warning."""
    path = tmp_path / "x.npz"
    want = big()
    assert wlcache.write(path, want)
    a, b = (lv.data for lv in wlcache.read(path))
    assert a.src is b.src and isinstance(root(a.src), mmap.mmap) and not a.src.flags.writeable
    assert np.array_equal(a.src, want[0].data.src)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["0.src"] = arrays["0.src"].copy()
    arrays["0.src"][[5, 6]] = arrays["0.src"][[6, 5]] + [1, -1]  # still sorted, rows 5 and 6 swapped in part
    np.savez(path, **arrays)
    assert wlcache.read(path) is None
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "not the row of each adjacency entry" in err[0] and not path.exists()


@pytest.mark.parametrize("member", ["0.adjncy", "levels.json"])
def test_a_damaged_byte_of_a_member_is_found_mapped_or_copied(tmp_path, capsys, member):
    """A byte changed in a mapped member's data (large: checked against its CRC-32 by read) or in a copied one
    (zipfile's check): the cache is regenerated with one warning."""
    path = tmp_path / "x.npz"
    assert wlcache.write(path, big())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(f"{member}.npy")
    data = bytearray(path.read_bytes())
    name, extra = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    at = info.header_offset + 30 + name + extra + info.file_size - 3  # inside the member's last item
    data[at] ^= 1
    path.write_bytes(bytes(data))
    assert wlcache.read(path) is None
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "regenerating" in err[0] and not path.exists()
