"""A real results store and workload cache, edited the ways a careless or hostile user would (issue 22):
every edit is either refused with one warning and recomputed to the clean figures, never read as data."""
import json
import os
import shutil

import numpy as np
import pytest

from harness.run.api import compare

FIGURES = ["algorithm", "level", "status", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb",
           "moved_weight", "owners_hash"]


def figures(df):
    return df[FIGURES].sort_values(["algorithm", "level"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean")
    return out, figures(compare("metis,sbn", workload="mini", P=4, out=str(out)))


@pytest.fixture
def store(clean, tmp_path):
    out = tmp_path / "store"
    shutil.copytree(clean[0], out, symlinks=True)
    return out


def cell(store, alg, level):
    for f in (store / "cells").glob("*.json"):
        row = json.loads(f.read_text())
        if (row["algorithm"], row["level"]) == (alg, level):
            return f
    raise KeyError((alg, level))


def edit_row(**changes):
    def tamper(store):
        f = cell(store, "metis", 2)
        row = json.loads(f.read_text())
        row.update(changes)
        f.write_text(json.dumps(row))
        return f
    return tamper


def fifo(suffix):
    def tamper(store):
        f = cell(store, "metis", 2).with_suffix(suffix)
        f.unlink()
        os.mkfifo(f)
        return f
    return tamper


def symlinked_row(store):
    f = cell(store, "metis", 2)
    outside = store.parent / "outside.json"
    outside.write_text(f.read_text())
    f.unlink()
    f.symlink_to(outside)
    return f


def oversized_row(store):
    f = cell(store, "metis", 2)
    row = json.loads(f.read_text())
    row["padding"] = "x" * (2 << 20)
    f.write_text(json.dumps(row))
    return f


def memory(value):
    def tamper(store):
        f = cell(store, "sbn", 1).with_suffix(".npz")
        with np.load(f, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        head = json.loads(arrays["cell.json"].tobytes().decode())
        head["memory"]["one"]["fields"]["algorithms"]["sbn"]["thresholds"] = value
        arrays["cell.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
        with open(f, "wb") as fh:
            np.savez(fh, **arrays)
        for level in (2, 3):  # the later levels run again, from the stored memory
            g = cell(store, "sbn", level)
            g.unlink()
            g.with_suffix(".npz").unlink()
        return f
    return tamper


TAMPERS = {
    "fifo row": fifo(".json"),
    "fifo state": fifo(".npz"),
    "symlinked row": symlinked_row,
    "oversized row": oversized_row,
    "level disagrees with the key": edit_row(level=1),
    "algorithm disagrees with the key": edit_row(algorithm="sbn"),
    "parameters disagree with the key": edit_row(params='{"metis": {"ufactor": 1}}'),
    "P disagrees with the key": edit_row(P=8),
    "LoadImb below 1": edit_row(loadimb=0.5),
    "negative Cut%": edit_row(post_exec_cut_pct=-3.0),
    "Cut% above 100": edit_row(pre_exec_cut_pct=150.0),
    "NaN": edit_row(maxsr=float("nan")),
    "infinity": edit_row(maxqwgt=float("inf")),
    "numbers as strings": edit_row(loadimb="1.5", maxsr="abc"),
    "fraction where an integer": edit_row(moved_weight=7.5),
    "moved weight of 2^62": edit_row(moved_weight=2**62),
    "moved weight above the level's total": edit_row(moved_weight=10**9),
    "edge cut above the level's total": edit_row(edge_cut=10**9),
    "more moved vertices than the level has": edit_row(moved_vertices=10**7),
    "min QWgt above max QWgt": edit_row(minqwgt=1e12),
    # issue 50: every stored figure against its definition
    "rank_step_balance 5": edit_row(rank_step_balance=5.0),
    "rank_step_balance 1e300": edit_row(rank_step_balance=1e300),
    "rank_critical_s 1e300": edit_row(rank_critical_s=1e300),
    "changed_weight 2^52": edit_row(changed_weight=2**52),
    "changed_weight fractional": edit_row(changed_weight=2.5),
    "rank_balance 5": edit_row(rank_balance=5.0),
    "time_total_s 1e300": edit_row(time_total_s=1e300),
    "rank_busy_s_max 1e300": edit_row(rank_busy_s_max=1e300),
    "a phase longer than the cell": edit_row(time_partition_s=1e6),
    "modelled time without the bytes": edit_row(modelled_balance_s=5e11),
    "memory of the wrong type": memory("xyz"),
    "memory holding strings": memory([["a", "b", "c"]] * 4),
    "memory of the wrong arity": memory([[1.0, 2.0]] * 4),
}


@pytest.mark.parametrize("how", list(TAMPERS))
def test_a_tampered_cell_is_moved_aside_with_one_warning_and_recomputed(how, clean, store, capsys):
    f = TAMPERS[how](store)
    got = figures(compare("metis,sbn", workload="mini", P=4, out=str(store)))
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "moved to cells/corrupt/, recomputing it" in warnings[0], warnings
    assert got.equals(clean[1])
    assert (store / "cells" / "corrupt" / f.name).exists() or (store / "cells" / "corrupt" / f.name).is_symlink()
    # once recomputed, the cell is read back quietly
    compare("metis,sbn", workload="mini", P=4, out=str(store))
    assert "warning" not in capsys.readouterr().err


def test_corrupt_dir_that_is_a_symlink_is_never_followed(clean, store, capsys):
    outside = store.parent / "elsewhere"
    outside.mkdir()
    (store / "cells" / "corrupt").symlink_to(outside)
    edit_row(loadimb=0.5)(store)
    got = figures(compare("metis,sbn", workload="mini", P=4, out=str(store)))
    assert got.equals(clean[1])
    assert list(outside.iterdir()) == []
    assert "removed (cells/corrupt is not a directory)" in capsys.readouterr().err


# -- the workload cache --------------------------------------------------------------------------------

@pytest.fixture
def cache(clean, tmp_path, monkeypatch):
    from harness.run import workloads

    wl = workloads.get("mini")  # the file of the defaults (the cache may hold mini with other parameters too)
    key = workloads.cache_key(wl, workloads.resolve_params(wl, {}), 0)
    src = workloads.cache_dir() / "workloads" / f"mini-{key}.npz"
    d = tmp_path / "cache"
    (d / "workloads").mkdir(parents=True)
    shutil.copy(src, d / "workloads" / src.name)
    monkeypatch.setenv("LBBENCH_CACHE", str(d))
    return d / "workloads" / src.name


def rewrite(fn):
    def tamper(f):
        with np.load(f, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        head = json.loads(arrays["levels.json"].tobytes().decode())
        fn(head, arrays)
        arrays["levels.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
        with open(f, "wb") as fh:
            np.savez(fh, **arrays)
    return tamper


def _fewer(head, arrays):
    head["levels"] = head["levels"][:2]


def _empty(head, arrays):
    head["levels"] = []


def _heavy(head, arrays):
    arrays["0.pwgt"] = arrays["0.pwgt"] * 2**62 // int(arrays["0.pwgt"].max())


def _nan_coords(head, arrays):
    key = head.get("refs", {}).get("1.coords", "1.coords")  # levels sharing coords store them once
    arrays[key] = arrays[key].copy()
    arrays[key][0, 0] = np.nan


def _fifo(f):
    f.unlink()
    os.mkfifo(f)


CACHE_TAMPERS = {"fifo": _fifo, "fewer levels": rewrite(_fewer), "no levels": rewrite(_empty),
                 "weights x 2^62": rewrite(_heavy), "NaN coordinates": rewrite(_nan_coords)}


@pytest.mark.parametrize("how", list(CACHE_TAMPERS))
def test_a_tampered_workload_cache_is_regenerated_with_one_warning(how, clean, cache, tmp_path, capsys):
    CACHE_TAMPERS[how](cache)
    got = figures(compare("metis", workload="mini", P=4, out=str(tmp_path / "res")))
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "regenerating it" in warnings[0], warnings
    want = clean[1][clean[1]["algorithm"] == "metis"].reset_index(drop=True)
    assert got.equals(want)
