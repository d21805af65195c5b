"""Conformance checks any algorithm must pass (``lbbench test NAME``), in the spirit of
benchopt's ``test`` and scikit-learn's ``check_estimator``."""
from __future__ import annotations

import io
import json
import numbers
import tempfile

import numpy as np
import pandas as pd

from . import plugins
from .adapters import FORMS
from .api import compare
from .runner import ROLES

FIGURES = ["pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "maxqwgt", "moved_weight", "edge_cut"]


def _declaration(alg) -> str | None:
    if not alg.roles or set(alg.roles) - set(ROLES):
        return f"roles {alg.roles} must be a non-empty subset of {ROLES}"
    if not alg.accepts or set(alg.accepts) - set(FORMS):
        return f"accepts {alg.accepts} must be a non-empty subset of {FORMS}"
    bad = [k for k, v in alg.params.items() if not isinstance(v, (numbers.Number, str, bool))]
    if bad:
        return f"parameter {bad[0]!r} has a default that is not a number, string or bool"
    try:
        json.dumps(alg.params)
    except (TypeError, ValueError):
        return "parameter defaults must be JSON-serialisable"
    return None


def check_algorithm(name: str, workload: str = "mini", P: int = 4, ranks: int = 2) -> list[tuple[str, bool, str]]:
    """Run every check; returns (check, passed, detail) rows. ``ranks`` 0 skips the MPI check."""
    algs = plugins.algorithms()
    if name not in algs:
        raise LookupError(f"unknown algorithm {name!r} (available: {', '.join(algs)})")
    results = []

    def check(title, fn):
        try:
            detail = fn()
            results.append((title, detail is None, detail or ""))
        except Exception as exc:  # a conformance failure, reported, never a crash
            results.append((title, False, f"{type(exc).__name__}: {exc}"))

    out = tempfile.mkdtemp(prefix="lbbench-test-")
    runs = {}

    def run(key, **kw):
        if key not in runs:
            runs[key] = compare(name, workload=workload, out=out, cache=False, **kw)
        return runs[key]

    def all_ok(df):
        bad = df[df["status"] != "ok"]
        return None if bad.empty else f"level {bad.iloc[0]['level']}: {bad.iloc[0]['status']}"

    check("declaration is well-formed", lambda: _declaration(algs[name]))
    check(f"every level of {workload} at P = {P} succeeds", lambda: all_ok(run("P", P=P)))
    check("figures are finite and LoadImb >= 1", lambda: None if (
        np.isfinite(run("P", P=P)[FIGURES].to_numpy(float)).all() and (run("P", P=P)["loadimb"] >= 1 - 1e-12).all()
    ) else "non-finite figures or LoadImb < 1")
    check("a second run gives identical figures", lambda: None if run("P", P=P)[FIGURES].equals(
        compare(name, workload=workload, P=P, out=out, cache=False)[FIGURES]) else "results differ between runs")
    check("P = 1 works (everything on processor 0)", lambda: all_ok(run("1", P=1)) or (
        None if (run("1", P=1)["loadimb"] == 1).all() else "LoadImb != 1 with one processor"))
    if ranks > 1:
        check(f"identical figures under mpiexec -n {ranks}", lambda: _mpi_same(name, workload, P, ranks, run("P", P=P)))
    return results


def _mpi_same(name, workload, P, ranks, ref) -> str | None:
    from .testing import mpirun

    with tempfile.TemporaryDirectory() as out:
        res = mpirun(ranks, "-m", "harness.cli", "compare", "--plugins", name, "-P", str(P), "-w", workload,
                     "--format", "csv", "--no-cache", "-q", "--out", out)
    if res.returncode != 0:
        return (res.stderr.strip().splitlines() or ["mpiexec failed"])[-1]
    df = pd.read_csv(io.StringIO(res.stdout))
    return None if np.allclose(df[FIGURES].to_numpy(float), ref[FIGURES].to_numpy(float), rtol=0, atol=0) \
        else "figures differ from the one-process run"
