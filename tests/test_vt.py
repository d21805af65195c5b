"""The ``vt`` workload: DARMA vt LBDatafile traces in (reader), assignments out (``--export-vt``), pinned objects.

Every trace here is written by the project's own generator (``workloads.vt_synthetic``) or by hand.
"""
import json
import math
import os

import brotli
import numpy as np
import pytest

from harness import Algorithm, State, hookimpl
from harness.run.api import compare
from harness.present.cli import main
from harness.measure.metrics import work_loadimb
from workloads import vt
from workloads.vt_synthetic import write_trace


def load_files(folder):
    """Every rank file as JSON, by rank, read independently of the reader."""
    out = {}
    for f in sorted(f for f in os.listdir(folder) if not f.startswith(".")):  # an export's marker
        raw = open(os.path.join(folder, f), "rb").read()
        if not raw.lstrip().startswith(b"{"):
            raw = brotli.decompress(raw)
        out[int(f.split(".")[-2])] = json.loads(raw)
    return out


def rank_times(docs, R):
    """{phase id: time per rank} summed from the files' task times by ``node``."""
    out = {}
    for doc in docs.values():
        for ph in doc["phases"]:
            t = out.setdefault(ph["id"], np.zeros(R))
            for task in ph["tasks"]:
                t[task["node"]] += task["time"]
    return out


@pytest.fixture(scope="module")
def trace32(tmp_path_factory):
    d = tmp_path_factory.mktemp("t32")
    write_trace(d, ranks=32, phases=10, tasks=24, pinned=0.1, compress="mixed", seed=3)
    return str(d)


def test_none_reproduces_the_applications_imbalance(trace32):
    df = compare("none", workload="vt", workload_params={"path": trace32}, P=None, cache=False)
    assert set(df["P"]) == {32} and set(df["initial"]) == {"trace"} and len(df) == 10
    times = rank_times(load_files(trace32), 32)
    for _, row in df.iterrows():
        t = times[row["level"] - 1]
        assert row["status"] == "ok"
        assert row["work_loadimb"] == pytest.approx(t.max() / t.mean(), rel=0, abs=1e-9)


def test_reader_maps_tasks_communications_and_pins(tmp_path):
    write_trace(tmp_path, ranks=4, phases=3, tasks=9, pinned=0.3, churn=0.1, seed=1)
    docs = load_files(tmp_path)
    levels = vt.generate(path=str(tmp_path))
    assert [lv.index for lv in levels] == [1, 2, 3]
    for lv in levels:
        phase = [t for d in docs.values() for p in d["phases"] if p["id"] == lv.meta["phase"] for t in p["tasks"]]
        g = lv.data
        assert g.n == len(phase)
        pins = np.array([-1 if t["entity"]["migratable"] else t["node"] for t in phase])
        assert np.array_equal(lv.pinned, pins) and (pins >= 0).any()
        assert np.array_equal(lv.meta["node"], [t["node"] for t in phase])
        unit = lv.meta["time_unit_s"]
        assert np.allclose(g.pwgt * unit, [t["time"] for t in phase], rtol=0, atol=unit)
        assert g.coords is not None and g.coords.shape == (g.n, 2)
        # every task sends 256 B to its rank's objgroup: fixed traffic, not an edge
        assert np.all(lv.meta["fixed_bytes"] >= 256)
        # both directions of the stencil merged: each undirected edge once, no self loops
        assert g.nedges > 0 and np.all(g.src != g.adjncy)
    # the same entity in two phases is one object; new tasks have no parent
    p2 = levels[1].parent
    assert (p2 >= 0).sum() > 0 and (p2 == -1).sum() > 0


def test_compressed_and_plain_read_the_same(tmp_path):
    a, b = tmp_path / "plain", tmp_path / "br"
    write_trace(a, ranks=4, phases=2, compress="none")
    write_trace(b, ranks=4, phases=2, compress="brotli")
    assert open(b / "data.1.json", "rb").read(1) != b"{"
    la, lb = vt.generate(path=str(a)), vt.generate(path=str(b))
    for x, y in zip(la, lb):
        assert np.array_equal(x.data.pwgt, y.data.pwgt) and np.array_equal(x.data.adjncy, y.data.adjncy)
        assert np.array_equal(x.data.cwgt, y.data.cwgt)


@pytest.mark.parametrize("compress", ["none", "brotli"])
def test_shared_blocks_are_read(tmp_path, compress):
    """LBAF's shared memory blocks: user_defined.shared_id per task (-1 where absent, or negative as LBAF reads
    it), shared_bytes in meta; a trace without blocks has none."""
    ud = [{"shared_id": 3, "shared_bytes": 9.0}, {"shared_id": -4}, {}, {"shared_id": 0, "shared_bytes": 1e9}]
    docs = [[_task(1, user_defined=ud[0]), _task(2, user_defined=ud[1])],
            [_task(3, node=1), _task(4, node=1, user_defined=ud[3])]]
    for r, tasks in enumerate(docs):
        raw = json.dumps({"type": "LBDatafile", "metadata": {"rank": r}, "phases": [{"id": 0, "tasks": tasks}]})
        _write(tmp_path, r, [], raw=brotli.compress(raw.encode()) if compress == "brotli" else raw.encode())
    (lv,) = vt.generate(path=str(tmp_path))
    assert lv.shared_id.tolist() == [3, -1, -1, 0]
    assert lv.meta["shared_bytes"].tolist() == [9.0, 0.0, 0.0, 1e9]
    write_trace(tmp_path / "blocks", ranks=2, phases=2, tasks=6, blocks=3, churn=0.3, compress=compress)
    write_trace(tmp_path / "none", ranks=2, phases=2, tasks=6, compress=compress)
    for lv in vt.generate(path=str(tmp_path / "blocks")):
        home = lv.meta["home"]  # the application's own moves keep a task's block: its home's
        assert np.array_equal(lv.shared_id // 3, home) and set(lv.meta["shared_bytes"]) == {2.0 ** 20}
    assert vt.generate(path=str(tmp_path / "blocks"))[0].shared_id.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert all(lv.shared_id is None and "shared_bytes" not in lv.meta for lv in vt.generate(path=str(tmp_path / "none")))


def test_identical_and_skipped_phases(tmp_path):
    write_trace(tmp_path, ranks=2, phases=4, identical=2)
    levels = vt.generate(path=str(tmp_path))
    assert [lv.meta["phase"] for lv in levels] == [0, 1, 2, 3]
    assert levels[3].meta["repeats"] == 1 and np.array_equal(levels[3].data.pwgt, levels[1].data.pwgt)
    for f in tmp_path.iterdir():
        doc = json.loads(f.read_bytes())
        doc["metadata"]["phases"]["skipped"] = {"list": [], "range": [[0, 0]]}
        f.write_text(json.dumps(doc))
    assert [lv.meta["phase"] for lv in vt.generate(path=str(tmp_path))] == [1, 2, 3]


def test_subphase_weight(tmp_path):
    write_trace(tmp_path, ranks=2, phases=1)
    whole = vt.generate(path=str(tmp_path))[0].data.pwgt.sum()
    part = vt.generate(path=str(tmp_path), weight="subphase:1")[0].data.pwgt.sum()
    assert part == pytest.approx(0.7 * whole, rel=1e-6)


def test_P_is_the_traces_ranks_and_ranks_per_proc_maps_them(tmp_path, capsys):
    write_trace(tmp_path, ranks=8, phases=1, pinned=0.3)
    assert main(["run", "none", "-w", f"vt[path={tmp_path}]", "-P", "4", "-q", "--no-cache",
                 "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "ranks_per_proc" in err and "8 processors" in err
    df = compare("none,metis", workload="vt", workload_params={"path": str(tmp_path), "ranks_per_proc": 2},
                 P=None, cache=False)
    assert set(df["P"]) == {4} and (df["status"] == "ok").all()
    lv = vt.generate(path=str(tmp_path), ranks_per_proc=2)[0]
    assert lv.pinned.max() <= 3 and lv.meta["node"].max() == 3


class Mover:
    """A balancer that moves everything to processor 0, pins included."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("mover", "test", roles=("balance",)))

    @hookimpl
    def balance(self, algorithm, ctx, state):
        if algorithm == "mover":
            return State.settled(np.zeros(ctx.graph.n, np.int64), ctx.P)


def test_no_method_moves_pinned_objects_and_a_plugin_that_does_fails(register, tmp_path):
    register(Mover(), "mover")
    write_trace(tmp_path, ranks=8, phases=3, tasks=16, pinned=0.2, seed=2)
    states: dict = {}
    methods = "none,metis,sbn,minex,mcstlb,btlb,cbtlb,plum,metis/mcstlb,mover"
    df = compare(methods, workload="vt", workload_params={"path": str(tmp_path)}, P=None, cache=False,
                 states=states)
    levels = {lv.index: lv for lv in vt.generate(path=str(tmp_path))}
    for method, owners in states.items():
        if method == "mover":
            continue
        for index, owner in owners.items():
            pv = levels[index].pinned_vertices
            assert np.array_equal(owner[pv], levels[index].pinned[pv]), (method, index)
    ok = df[df.algorithm != "mover"]
    assert (ok["status"] == "ok").all(), ok[ok.status != "ok"][["algorithm", "level", "status"]]
    assert (df[df.algorithm == "metis"]["pinned_reassigned"] > 0).any()
    assert (df[df.algorithm == "minex"]["pinned_reassigned"] == 0).all()  # MinEX never moves them itself
    for _, row in df[df.algorithm == "mover"].iterrows():
        lv = levels[row["level"]]
        n = int(np.count_nonzero(lv.pinned[lv.pinned_vertices] != 0))
        assert row["status"] == f"failed: mover: moved {n} pinned objects"


def test_export_vt_round_trips(tmp_path, capsys):
    src, out = tmp_path / "trace", tmp_path / "export"
    write_trace(src, ranks=8, phases=3, tasks=16, pinned=0.2, identical=1, compress="mixed", seed=4)
    assert main(["compare", "--plugins", "metis,sbn", "-w", f"vt[path={src}]", "--export-vt", str(out),
                 "--format", "csv", "-q", "--no-cache", "--out", str(tmp_path / "r")]) == 0
    import io

    import pandas as pd

    df = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert sorted(os.listdir(out)) == ["lbbench-export.json", "metis", "sbn"]
    assert json.loads((out / "lbbench-export.json").read_text())["methods"] == {"metis": "metis", "sbn": "sbn"}
    assert open(out / "sbn" / "data.1.json", "rb").read(1) != b"{"  # each file keeps its compression
    for method in ("metis", "sbn"):
        back = compare("none", workload="vt", workload_params={"path": str(out / method)}, P=None, cache=False)
        got = df[df.algorithm == method].set_index("level")
        assert len(back) == 3
        for _, row in back.iterrows():
            # the loads per rank of the export are those the compare reported
            assert row["work_loadimb"] == pytest.approx(got.loc[row["level"], "work_loadimb"], rel=1e-12)
            assert row["maxqwgt"] >= 0
        # and per rank exactly: the export's nodes against the files' own times
        times = rank_times(load_files(out / method), 8)
        lv_back = vt.generate(path=str(out / method))
        for lv in lv_back:
            load = np.bincount(lv.meta["node"], weights=lv.data.pwgt, minlength=8) * lv.meta["time_unit_s"]
            if lv.meta["phase"] in times:
                assert np.allclose(load, times[lv.meta["phase"]], rtol=1e-9)


def test_export_vt_needs_a_trace(tmp_path, capsys):
    assert main(["run", "none", "-w", "mini", "--export-vt", str(tmp_path / "x"), "-q", "--out",
                 str(tmp_path / "r")]) == 2
    assert "not a vt trace" in capsys.readouterr().err


# ------------------------------------------------------------------ bad input: one line, exit 2, file/phase/task

def _task(i, node=0, **kw):
    t = {"entity": {"id": i, "home": node, "migratable": True, "type": "object"}, "node": node, "resource": "cpu",
         "time": 1.0}
    t.update(kw)
    return t


def _write(folder, rank, tasks, phase=5, raw=None, **top):
    folder.mkdir(exist_ok=True)
    doc = {"type": "LBDatafile", "metadata": {"rank": rank}, "phases": [{"id": phase, "tasks": tasks}], **top}
    (folder / f"app.{rank}.json").write_bytes(raw if raw is not None else json.dumps(doc).encode())


def test_entity_id_order_and_self_communication_are_kept(tmp_path):
    """LBAF orders objects by entity id (``element_id``; a vt id may exceed int64) and its strict criterion pins an
    object that messages itself: the reader keeps each task's place in entity id order and its self-messages
    (the graph drops self-edges)."""
    tasks = [_task(i) for i in (2**63 + 5, 7, 2**40)] + [{**_task(0), "entity": {"seq_id": 3, "home": 0}}]
    comm = lambda a, b: {"type": "SendRecv", "from": {"type": "object", "id": a}, "to": {"type": "object", "id": b},
                         "bytes": 8.0, "messages": 1}
    doc = {"type": "LBDatafile", "metadata": {"rank": 0},
           "phases": [{"id": 0, "tasks": tasks, "communications": [comm(7, 7), comm(7, 2**40)]}]}
    (tmp_path / "app.0.json").write_text(json.dumps(doc))
    lv = vt.generate(path=str(tmp_path))[0]
    assert lv.meta["entity_order"].tolist() == [3, 1, 2, 0]
    assert lv.meta["self_comm"].tolist() == [False, True, False, False] and lv.data.nedges == 1


def _error(capsys, folder):
    assert main(["workloads", "show", f"vt[path={folder}]"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("lbbench: error:"), err
    return err


@pytest.mark.parametrize("case, expect", [
    ("time_missing", "app.1.json: phase 5, task 1: missing 'time'"),
    ("entity_missing", "app.1.json: phase 5, task 1: missing 'entity'"),
    ("nan", "app.1.json: phase 5, task 1: time is nan"),
    ("inf", "app.1.json: phase 5, task 1: time is inf"),
    ("negative", "app.1.json: phase 5, task 1: time is -1.0"),
    ("duplicate", "app.1.json: phase 5, task 1: entity 1 appears twice in the phase (also app.0.json task 0)"),
    ("shared_id", "app.1.json: phase 5, task 1: shared_id '7' is not a shared block's id"),
    ("shared_huge", "app.1.json: phase 5, task 1: shared_id 1.2676506002282294e+30 is not a shared block"),
    ("shared_bytes", "app.1.json: phase 5, task 1: shared_bytes is -1.0"),
])
def test_bad_tasks(tmp_path, capsys, case, expect):
    bad = {"time_missing": {"time": None}, "entity_missing": {"entity": None}, "nan": {"time": math.nan},
           "inf": {"time": math.inf}, "negative": {"time": -1.0}, "duplicate": {},
           "shared_id": {"user_defined": {"shared_id": "7"}}, "shared_huge": {"user_defined": {"shared_id": 2 ** 100}},
           "shared_bytes": {"user_defined": {"shared_id": 1, "shared_bytes": -1.0}}}[case]
    _write(tmp_path, 0, [_task(1), _task(2)])
    second = _task(1 if case == "duplicate" else 4, node=1)
    for k, v in bad.items():
        second.pop(k) if v is None else second.update({k: v})
    _write(tmp_path, 1, [_task(3, node=1), second])
    assert expect in _error(capsys, tmp_path)


def test_bad_files(tmp_path, capsys):
    d = tmp_path / "notjson"
    _write(d, 0, [_task(1)], raw=b"\x8b\x02\x80garbage")
    assert "app.0.json: neither JSON nor brotli-compressed JSON" in _error(capsys, d)
    d = tmp_path / "badjson"
    _write(d, 0, [_task(1)], raw=b'{"type": "LBDatafile", "phases": [')
    assert "app.0.json: not valid JSON" in _error(capsys, d)
    d = tmp_path / "badbrotli"
    _write(d, 0, [_task(1)], raw=brotli.compress(b'{"type": "LBDatafile", "phases": [}'))
    assert "app.0.json: not valid JSON" in _error(capsys, d)
    d = tmp_path / "type"
    _write(d, 0, [_task(1)], type="NotLB")
    assert "app.0.json: type is 'NotLB', expected 'LBDatafile'" in _error(capsys, d)
    d = tmp_path / "missing"
    _write(d, 0, [_task(1)])
    _write(d, 2, [_task(2, node=2)])
    assert "rank 1 is missing" in _error(capsys, d)
    d = tmp_path / "claimed"
    _write(d, 0, [_task(1)])
    _write(d, 1, [_task(2, node=1)])
    doc = json.loads((d / "app.1.json").read_text())
    doc["metadata"]["rank"] = 0
    (d / "app.1.json").write_text(json.dumps(doc))
    assert "app.1.json: claims rank 0, which app.0.json also claims" in _error(capsys, d)
    d = tmp_path / "node"
    _write(d, 0, [_task(1)])
    _write(d, 1, [_task(2, node=7)])
    assert "app.1.json: phase 5, task 0: node 7 but the trace has ranks 0-1" in _error(capsys, d)


def test_a_1GB_file_is_refused_without_reading_it(tmp_path, capsys):
    _write(tmp_path, 0, [_task(1)])
    with open(tmp_path / "app.1.json", "wb") as fh:  # sparse: no disk used
        fh.truncate(2**30)
    assert "app.1.json: file is 1024 MB, more than the 256 MB" in _error(capsys, tmp_path)


def test_a_brotli_bomb_is_refused(tmp_path, capsys):
    _write(tmp_path, 0, [_task(1)], raw=brotli.compress(b"{" + b" " * (3 * 2**20) + b"}"))
    assert main(["workloads", "show", f"vt[path={tmp_path},max_file_mb=1]"]) == 2
    assert "decompresses to more than the 1 MB" in capsys.readouterr().err


# ------------------------------------------------------------------ checked like the store (issue 40)

def test_a_rank_file_missing_a_phase_is_named(tmp_path, capsys):
    _write(tmp_path, 0, [_task(1)])
    doc = {"type": "LBDatafile", "metadata": {"rank": 1},
           "phases": [{"id": 5, "tasks": [_task(2, node=1)]}, {"id": 6, "tasks": [_task(2, node=1)]}]}
    (tmp_path / "app.1.json").write_text(json.dumps(doc))
    assert "app.0.json: rank 0 has no phase 6, which app.1.json records" in _error(capsys, tmp_path)


def test_one_rank_file_is_refused_unless_said(tmp_path, capsys):
    write_trace(tmp_path, ranks=4, phases=1, tasks=4)
    one = tmp_path / "data.1.json"
    err = _error(capsys, one)
    assert f"path={one} is one rank file of a trace of 4" in err and f"give path={tmp_path / 'data'}" in err
    assert main(["workloads", "show", f"vt[path={one},one_file=1]"]) == 0
    assert main(["workloads", "show", f"vt[path={tmp_path / 'data'}]"]) == 0


@pytest.mark.parametrize("workload, expect", [
    ("vt[path=X,task_bytes=-800]", "workload vt: task_bytes=-800 must be in [0, 1099511627776]"),
    ("vt[path=X,max_file_mb=0]", "workload vt: max_file_mb=0 must be in [1, 65536]"),
    ("vt[path=X,max_file_mb=-1]", "workload vt: max_file_mb=-1 must be in [1, 65536]"),
    ("vt-synthetic[ranks=100000000]", "workload vt-synthetic: ranks=100000000 must be in [1, 100000]"),
    ("vt-synthetic[ranks=100000,tasks=1000000]", "objects need about"),
    ("vt-synthetic[churn=-0.5]", "workload vt-synthetic: churn=-0.5 must be in [0, 1]"),
])
def test_parameters_are_range_checked_before_any_work(tmp_path, capsys, workload, expect):
    write_trace(tmp_path, ranks=2, phases=1, tasks=2)
    assert main(["workloads", "show", workload.replace("X", str(tmp_path))]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expect in err, err


def test_the_format_is_told_by_content_with_the_real_reason(tmp_path, capsys):
    for raw, expect in ((b"[1,2,3]", "top level is a list, expected an LBDatafile object"),
                        (b"[1,2,", "not valid JSON"), (b'"text"', "top level is a str"),
                        (brotli.compress(b'{"type": "LBDatafile", "phases": []}')[:-3],
                         "neither JSON nor brotli-compressed JSON (a brotli stream that ends early)")):
        d = tmp_path / str(len(list(tmp_path.iterdir())))
        _write(d, 0, [], raw=raw)
        err = _error(capsys, d)
        assert f"app.0.json: {expect}" in err, err
