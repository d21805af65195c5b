"""``lbbench reproduce``: plan, run, resume, failures; and no cell asked for under two keys."""
import os

import numpy as np
import pandas as pd
import pytest

from harness import Algorithm, Claim, Report, Table, hookimpl

from harness.run import api
from harness.present import reproduce as rp
from harness.present.cli import main


class Tiny:
    """A small paper: one report and one claim on ``mini`` at P = 4, sharing a cell; and a failing method."""

    @hookimpl
    def register_algorithms(self, register):
        register(Algorithm("tiny-boom", "test", roles=("partition",)))

    @hookimpl
    def partition(self, algorithm, ctx):
        if algorithm == "tiny-boom":
            raise RuntimeError("boom")

    builds = 0  # of the tiny report

    @hookimpl
    def register_reports(self, register):
        def build(opts):
            Tiny.builds += 1
            df = opts.compare("none,metis", P=4, workload="mini")
            return [Table("tiny", df.groupby("algorithm", sort=False)["loadimb"].mean().reset_index())]

        def broken(opts):
            opts.compare("tiny-boom", P=4, workload="mini")
            return [Table("boom", pd.DataFrame({"x": [1]}))]

        register(Report("mlb-tiny", build, "a tiny report"))
        register(Report("mlb-tiny-boom", broken, "a report whose method fails"))

    @hookimpl
    def register_claims(self, register):
        def check(df):
            a, b = (Claim.average(df, m, "loadimb") for m in ("metis", "none"))
            return (a < b if np.isfinite(a + b) else None), f"metis {a:.2f}, none {b:.2f}"

        register(Claim("mlb-tiny-claim", "mlb", "test", "METIS balances better than nothing.",
                       ({"methods": "metis,none", "P": 4, "workload": "mini"},), check))


def test_plan_counts_distinct_cells_and_the_report_shares_the_claims(register):
    register(Tiny(), "tiny")
    reps, claims = rp.chosen(["mlb"], only=["mlb-tiny", "mlb-tiny-claim"])
    asked, errors = rp.plan(reps, claims, {"out": None})
    assert not errors
    # the report asks none,metis and the claim metis,none: 2 methods x 3 levels, asked twice, six distinct cells
    assert len(asked) == 12 and len({c.key for c in asked}) == 6
    assert rp.duplicates(asked) == {}


def test_reproduce_runs_everything_then_resumes_computing_nothing(register, tmp_path, monkeypatch):
    register(Tiny(), "tiny")
    only = ["mlb-tiny", "mlb-tiny-claim"]
    res, site = tmp_path / "res", tmp_path / "site"
    first = rp.reproduce(["mlb"], out=str(res), site=str(site), progress=False, only=only)
    assert first.ok and first.cells == first.planned == first.computed == 6
    assert [(n, k, e) for n, k, _, e in first.reports] == [("mlb-tiny", 1, "")]
    assert [o.verdict for o in first.claims] == ["holds"]
    assert (site / "index.html").exists() and (site / "report-mlb-tiny.html").exists()
    assert (res / "claims" / "history.csv").exists()
    stored = sorted(p.name for p in (res / "cells").glob("*.json"))
    assert len(stored) == 6
    rows = rp.stored_by_key(str(res))
    per_report, per_method = (t.frame for t in rp.where_time(first, rows))
    # the report asked for all six cells before the claim did: they count for it, the claim's for none
    assert per_report.set_index("Report").loc["mlb-tiny", "Cells"] == 6 and "mlb claims" not in set(per_report["Report"])
    assert dict(zip(per_method["Method"], per_method["Cells"])) == {"none": 3, "metis": 3}
    assert per_method["Seconds"].sum() == pytest.approx(rows["time_total_s"].sum(), abs=0.1)
    assert {"planning (this run)", "site (this run)"} <= set(per_report["Report"])

    def no_compute(*a, **k):
        raise AssertionError("a stored cell was computed again")

    monkeypatch.setattr("harness.run.api.run_cell", no_compute)
    monkeypatch.setattr(Tiny, "builds", 0)
    again = rp.reproduce(["mlb"], out=str(res), site=str(site), progress=False, only=only)
    assert again.ok and again.cells == 6 and again.computed == 0 and [o.verdict for o in again.claims] == ["holds"]
    assert sorted(p.name for p in (res / "cells").glob("*.json")) == stored
    # every cell was stored: the plan read the real rows, so its build is the report (not built again)
    assert Tiny.builds == 1 and [(n, k, e) for n, k, _, e in again.reports] == [("mlb-tiny", 1, "")]
    pd.testing.assert_frame_equal(again.tables["mlb-tiny"][0].frame, first.tables["mlb-tiny"][0].frame)
    # the site shows what the reproduction built; a site built from the store alone shows the same
    from harness.present.site import build

    build(str(res), tmp_path / "alone", reports=["mlb-tiny"])
    assert (tmp_path / "alone" / "report-mlb-tiny.html").read_text() == (site / "report-mlb-tiny.html").read_text()


def test_the_plan_in_two_processes_is_the_plan_in_one(register, tmp_path):
    register(Tiny(), "tiny")
    only = ["mlb-tiny", "mlb-tiny-boom", "mlb-tiny-claim"]
    res = str(tmp_path / "res")
    rp.reproduce(["mlb"], out=res, site=None, progress=False, only=only)  # stored: all but tiny-boom's cell
    reps, claims = rp.chosen(["mlb"], only=only)
    plans, here = [], []
    for workers in (1, 2):
        built, calls, before = {}, [], Tiny.builds
        asked, errors = rp.plan(reps, claims, {"out": res}, calls=calls, built=built, workers=workers)
        plans.append(([(c.key, c.by) for c in asked], errors, [c for _, c in calls],
                      {name: tables[0].frame for name, (tables, _) in built.items()}))
        here.append(Tiny.builds - before)
    assert here == [1, 0]  # with two workers the report was built in one of them
    (asked, errors, calls, built), again = plans
    assert (asked, errors, calls) == again[:3] and [by for _, by in asked].count("mlb claims") == 6
    assert list(built) == list(again[3]) == ["mlb-tiny"]  # tiny-boom read a cell not stored: built at run time
    pd.testing.assert_frame_equal(built["mlb-tiny"], again[3]["mlb-tiny"])


def test_a_resume_under_two_ranks_takes_rank_0s_stored_cells(tmp_path):
    """Rank 1 sees no store: the plan still reads the stored calls back on both ranks (compare is collective)."""
    from pathlib import Path

    from harness.testing import mpirun

    script = Path(__file__).parent / "scripts" / "reproduce_ranks.py"
    res = mpirun(2, str(script), str(tmp_path / "res"), timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    runs = [line.split(" table=") for line in res.stdout.splitlines() if line.startswith("RUN ")]
    assert [head for head, _ in runs] == ["RUN 1 rank=0 builds=2 computed=6 ok=True verdicts=['holds']",
                                          "RUN 1 rank=1 builds=2 computed=0 ok=True verdicts=['holds']",
                                          "RUN 2 rank=0 builds=1 computed=0 ok=True verdicts=['holds']",
                                          "RUN 2 rank=1 builds=1 computed=0 ok=True verdicts=['holds']"]
    assert len({table for _, table in runs}) == 1


def test_jobs_compute_every_cell_in_worker_processes_with_the_same_figures(register, tmp_path, monkeypatch):
    import multiprocessing

    register(Tiny(), "tiny")
    only = ["mlb-tiny", "mlb-tiny-claim"]
    serial = rp.reproduce(["mlb"], out=str(tmp_path / "serial"), site=None, progress=False, only=only)
    parent, real = os.getpid(), api.run_cell

    def only_in_workers(*a, **k):
        assert os.getpid() != parent, "a cell was computed in the parent process"
        return real(*a, **k)

    monkeypatch.setattr("harness.run.api.run_cell", only_in_workers)
    pool_alive, compare = [], rp.RunOptions.compare  # a report whose cells are in is built while workers run

    def noting(self, *a, **k):
        pool_alive.append(bool(multiprocessing.active_children()))
        return compare(self, *a, **k)

    monkeypatch.setattr(rp.RunOptions, "compare", noting)
    par = rp.reproduce(["mlb"], out=str(tmp_path / "par"), site=None, progress=False, only=only, workers=2)
    assert par.ok and par.cells == par.planned == par.computed == 6 and any(pool_alive)
    assert [o.verdict for o in par.claims] == [o.verdict for o in serial.claims] == ["holds"]
    figures = ["algorithm", "level", "loadimb", "maxqwgt", "post_exec_cut_pct", "moved_weight", "owners_hash"]
    a, b = (rp.stored_by_key(str(tmp_path / d)) for d in ("serial", "par"))
    assert sorted(a.index) == sorted(b.index)  # the same keys: a worker's cell is the one-process cell
    pd.testing.assert_frame_equal(a.loc[sorted(a.index), figures], b.loc[sorted(a.index), figures])


def test_an_interrupted_prefill_stops_its_workers_and_keeps_finished_cells(register, tmp_path, monkeypatch):
    """Ctrl-C (or a time limit) during ``-j``: the worker processes end at once, the interrupt goes on, and
    the cells that finished are stored (a later run resumes from them)."""
    import multiprocessing

    register(Tiny(), "tiny")
    only = ["mlb-tiny", "mlb-tiny-claim"]

    def interrupt(self, keys):
        raise KeyboardInterrupt

    monkeypatch.setattr(rp.CellBar, "finished", interrupt)
    with pytest.raises(KeyboardInterrupt):
        rp.reproduce(["mlb"], out=str(tmp_path / "res"), site=None, progress=False, only=only, workers=2)
    assert multiprocessing.active_children() == []
    assert len(list((tmp_path / "res" / "cells").glob("*.json"))) >= 3  # the first job's cells


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_exit_1_with_the_failed_cells(register, tmp_path, monkeypatch, capsys, jobs):
    register(Tiny(), "tiny")
    real = rp.chosen
    monkeypatch.setattr(rp, "chosen", lambda papers, only=None: real(papers, ["mlb-tiny", "mlb-tiny-boom"]))
    code = main(["reproduce", "--paper", "mlb", "--out", str(tmp_path / "res"), "-o", str(tmp_path / "site"), "-q",
                 "-j", jobs])
    out, err = capsys.readouterr()
    assert code == 1
    assert "reproduce: 9 cells (9 planned, 9 computed); 3 failed" in out
    assert "Where the time went, per report (stored time_total_s of the 6 cells" in out  # the failed 3 are not stored
    assert "tiny-boom on mini, P = 4, level 1: failed: tiny-boom: RuntimeError: boom" in err
    assert "3 cells failed" in err
    assert (tmp_path / "site" / "index.html").exists()


def test_unknown_paper_is_one_line(capsys):
    assert main(["reproduce", "--paper", "nope", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith("lbbench: error: unknown paper 'nope' (papers: sbn, minex, tree, mlb, amr")


def test_jobs_with_mpi_is_one_line(capsys):
    assert main(["reproduce", "--paper", "mlb", "-j", "2", "--mpi", "2", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--jobs > 1" in err


def test_no_cell_is_asked_for_under_two_keys():
    """Every registered report and claim: a computation asked for twice must be asked for under one key
    (e.g. ``plum`` and ``plum[partitioner=pmetis]`` would run the same cells twice)."""
    reps, claims = rp.chosen(None)
    asked, _ = rp.plan(reps, claims, {"out": None}, generate=False)
    assert len(reps) >= 30 and len(claims) >= 50 and len(asked) > 300
    dup = rp.duplicates(asked)
    assert not dup, "\n".join(f"{list(keys.values())}: {ident}" for ident, keys in list(dup.items())[:5])


def test_duplicates_sees_the_same_computation_under_two_names(register):
    """The check can fail: the default parameter spelled out is the same computation under another key."""
    a = rp.request_cells("plum", P=8, generate=False)
    b = rp.request_cells("plum[partitioner=pmetis]", P=8, generate=False)
    assert a[0].key != b[0].key
    assert list(rp.duplicates(a + b).values()) == [{a[0].key: "plum", b[0].key: "plum[partitioner=pmetis]"}]


def test_jobs_longest_first_by_an_earlier_runs_seconds(register, tmp_path, monkeypatch):
    """A job's wall seconds are recorded in the workload cache after ``-j``; the next run starts the jobs
    in decreasing recorded time (a job never timed first), which changes no cell."""
    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))
    register(Tiny(), "tiny")
    calls = []
    rp.plan({}, [c for c in rp.plugins.claims().values() if c.name == "mlb-tiny-claim"], {"out": str(tmp_path)},
            calls=calls)
    first = rp.jobs(calls)
    assert [j[0]["methods"] for j in first] == ["metis", "none"]  # no record: by cells, then P, in plan order
    rp.job_seconds({rp.job_name(first[1][0]): 9.0, rp.job_name(first[0][0]): 1.0})
    assert [j[0]["methods"] for j in rp.jobs(calls, rp.job_seconds())] == ["none", "metis"]
    (tmp_path / "cache" / "reproduce-jobs.json").write_text("{not json")
    assert rp.job_seconds() == {}  # an unreadable record orders by cells
    rp.reproduce(["mlb"], out=str(tmp_path / "res"), site=None, progress=False, only=["mlb-tiny-claim"],
                 workers=2)
    assert set(rp.job_seconds()) == {rp.job_name(j[0]) for j in first}
