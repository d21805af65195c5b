"""Conformance checks any algorithm must pass (``lbbench test NAME``), in the spirit of
benchopt's ``test`` and scikit-learn's ``check_estimator``.

Each check gives PASS, FAIL or SKIP (a check that depends on levels that
failed is skipped, never passed). ``lbbench test`` exits 1 on any FAIL.
"""
from __future__ import annotations

import dataclasses
import io
import json
import numbers
import tempfile

import numpy as np
import pandas as pd

from ..contract import plugins
from ..contract.forms import FORMS
from ..contract.spec import parse_call, resolve
from ..engine.launch import mpirun
from ..engine.vprocs import Engine
from ..run import workloads
from ..run.api import compare
from ..run.runner import ROLES

FIGURES = ["pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "maxqwgt", "moved_weight", "edge_cut",
           "work_loadimb", "migration_bytes"]
# the small workload each form is checked on by default
TEST_WORKLOADS = {"graph": "mini", "boxes": "bl[base=9,levels=3,steps=4,min_size=2]",
                  "array": "arrays[size=16,steps=3]"}
PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
PINNED_WORKLOAD = "vt-synthetic[ranks={P},phases=2,tasks=24,pinned=0.25]"  # a trace with pinned tasks


class Skip(Exception):
    """The check cannot run because something it depends on failed."""


def default_workload(alg: plugins.Algorithm) -> str:
    """The small workload matching the first form the algorithm accepts."""
    return TEST_WORKLOADS.get(alg.accepts[0] if alg.accepts else "graph", "mini")


def _declaration(alg, given: dict | None = None) -> str | None:
    """What is wrong with the declaration (None: nothing); ``given``: the parameters ``NAME[k=v]`` asked for,
    validated as well as the defaults."""
    idle = [r for r in alg.roles if r in ROLES and not plugins.serves(r, alg.name)]
    if idle:
        return f"role {idle[0]!r} is declared but no {idle[0]} hook implements {alg.name!r}"
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
    if alg.mapper not in ("each", "first"):
        return f"mapper must be 'each' or 'first', got {alg.mapper!r}"
    if alg.memory is not None:
        if not (isinstance(alg.memory, type) and dataclasses.is_dataclass(alg.memory)):
            return "memory must be a dataclass (its fields are stored as data)"
        try:
            alg.memory()
        except TypeError as exc:
            return f"memory class cannot be made without arguments: {exc}"
    numeric = [k for k, v in alg.params.items() if isinstance(v, numbers.Number) and not isinstance(v, bool)]
    if numeric and alg.validate is None:
        return (f"parameters {', '.join(numeric)} accept any value (no validate): give Algorithm(validate=...) with "
                "each one's range and their product's (check_params(..., work=))")
    if alg.validate is not None:
        for what, params in (("default", dict(alg.params)), ("given", given)):
            if params is None:
                continue
            try:
                plugins.validated(f"algorithm {alg.name}", alg.validate, params)
            except ValueError as exc:
                return f"the {what} parameters do not validate: {exc}"
    return None


DEFAULT_P = 4


def processors(workload: str, P: int | None = None) -> int:
    """P for the checks: the given one, else the processors a trace's data implies, else :data:`DEFAULT_P`."""
    if P is not None:
        return P
    wname, wparams = _split(workload)
    wl = workloads.get(wname)
    return wl.procs(workloads.resolve_params(wl, wparams)) if wl.procs is not None else DEFAULT_P


def one_processor(workload: str) -> dict | None:
    """Parameters that put a trace's ranks on one processor (``ranks_per_proc`` = its ranks), the workload's own
    when it implies no processor count, None when it cannot be mapped onto one."""
    wname, wparams = _split(workload)
    wl = workloads.get(wname)
    if wl.procs is None:
        return wparams
    if "ranks_per_proc" not in wl.params:
        return None
    ranks = wl.procs(workloads.resolve_params(wl, {**wparams, "ranks_per_proc": 1}))
    return {**wparams, "ranks_per_proc": ranks}


def check_algorithm(name: str, workload: str | None = None, P: int | None = None, ranks: int = 2,
                    timeout: float | None = None) -> list[tuple[str, str, str]]:
    """Run every check; returns (check, PASS|FAIL|SKIP, detail) rows. ``ranks`` < 2 skips the MPI check.
    ``P`` None: a trace's own processor count, else :data:`DEFAULT_P`. ``name`` may carry parameters
    (``mine[rounds=8]``): every check runs the algorithm with them."""
    call = parse_call(name)
    algs = plugins.algorithms()
    if call.name not in algs:
        why = plugins.explain_unknown(call.name)
        if why.startswith("unknown algorithm"):
            raise LookupError(why)
        return [("declaration is well-formed", FAIL, why)]  # its plugin was rejected at load
    alg = algs[call.name]
    given = resolve(call, alg.params) if call.given else None  # an unknown or mistyped parameter: ValueError
    workload = workload or default_workload(alg)
    wname, wparams = _split(workload)
    P = processors(workload, P)
    results = []

    def check(title, fn):
        try:
            detail = fn()
            results.append((title, PASS if detail is None else FAIL, detail or ""))
        except Skip as why:
            results.append((title, SKIP, str(why)))
        except Exception as exc:  # a conformance failure, reported, never a crash
            results.append((title, FAIL, f"{type(exc).__name__}: {exc}"))

    scratch = tempfile.TemporaryDirectory(prefix="lbbench-test-")  # the runs' result store, removed at the end
    out = scratch.name
    runs: dict = {}

    def run(key, **kw):
        if key not in runs:
            runs[key] = compare(name, workload=wname, workload_params=wparams, out=out, cache=False,
                                timeout=timeout, **kw)
        return runs[key]

    def ok_run(key, **kw):
        df = run(key, **kw)
        if (df["status"] != "ok").any():
            raise Skip("levels failed (see above)")
        return df

    def all_ok(df):
        bad = df[df["status"] != "ok"]
        return None if bad.empty else f"level {bad.iloc[0]['level']}: {bad.iloc[0]['status']}"

    def finite():
        df = ok_run("P", P=P)
        if not np.isfinite(df[FIGURES].to_numpy(float)).all():
            return "non-finite figures"
        return None if (df["loadimb"] >= 1 - 1e-12).all() else "LoadImb < 1"

    def accounting():
        df = ok_run("P", P=P)
        short = df[df["wire_migration_bytes"] < df["migration_bytes"]]
        if not short.empty:
            r = short.iloc[0]
            return (f"level {r['level']}: the engine carried {r['wire_migration_bytes']} migration bytes, "
                    f"less than the {r['migration_bytes']} the data movement needs")
        return None

    def identical():
        df = ok_run("P", P=P)
        again = compare(name, workload=wname, workload_params=wparams, P=P, out=out, cache=False, timeout=timeout)
        return None if df[FIGURES + ["owners_hash"]].equals(again[FIGURES + ["owners_hash"]]) \
            else "results differ between runs"

    def pinned():
        if "vt-synthetic" not in workloads.available():
            raise Skip("the vt-synthetic workload is not installed")
        pw = PINNED_WORKLOAD.format(P=P)
        df = compare(name, workload=_split(pw)[0], workload_params=_split(pw)[1], P=P, out=out, cache=False,
                     timeout=timeout)
        return all_ok(df)

    def one_proc():
        params = one_processor(workload)
        if params is None:
            raise Skip(f"{wname} cannot put its ranks on one processor (no ranks_per_proc parameter)")
        if "1" not in runs:  # one processor is one rank: under mpiexec each rank runs it alone, in its own store
            runs["1"] = compare(name, workload=wname, workload_params=params, P=1, out=out, cache=False,
                                timeout=timeout, engine=Engine(1, comm=None))
        df = runs["1"]
        return all_ok(df) or (None if (df["loadimb"] == 1).all() else "LoadImb != 1 with one processor")

    check("declaration is well-formed", lambda: _declaration(alg, given))
    check(f"every level of {workload} at P = {P} succeeds", lambda: all_ok(run("P", P=P)))
    check("figures are finite and LoadImb >= 1", finite)
    check("moved data is carried by migration messages", accounting)
    check("a second run gives identical figures and owners", identical)
    check("P = 1 works (everything on processor 0)", one_proc)
    if "graph" in alg.accepts:
        check("pinned objects stay on their processor (a vt trace with pins)", pinned)
    if ranks > 1:
        check(f"identical owners and figures under mpiexec -n {ranks}",
              lambda: _mpi_same(name, workload, P, ranks, ok_run("P", P=P), timeout))
    scratch.cleanup()
    return results


def _split(workload: str) -> tuple[str, dict]:
    call = parse_call(workload)
    return call.name, dict(call.given)


def _mpi_same(name, workload, P, ranks, ref, timeout) -> str | None:
    extra = ["--timeout", str(timeout)] if timeout else []
    with tempfile.TemporaryDirectory() as out:
        res = mpirun(ranks, "-m", "harness.present.cli", "compare", "--plugins", name, "-P", str(P), "-w", workload,
                     "--format", "csv", "--no-cache", "-q", "--out", out, *extra)
    if res.returncode not in (0, 1) or not res.stdout.strip():
        return (res.stderr.strip().splitlines() or ["mpiexec failed"])[-1]
    df = pd.read_csv(io.StringIO(res.stdout), dtype={"owners_hash": str})
    bad = df[df["status"] != "ok"]
    if not bad.empty:
        return f"level {bad.iloc[0]['level']} under mpiexec: {bad.iloc[0]['status']}"
    if list(df["owners_hash"]) != list(ref["owners_hash"]):
        return "owners differ from the one-process run"
    return None if np.array_equal(df[FIGURES].to_numpy(float), ref[FIGURES].to_numpy(float)) \
        else "figures differ from the one-process run"
