"""Side by side with LBAF: its InformAndTransfer, our ``lbaf-iat`` and ``grapevine`` on the same LBDatafile traces.

For each trace, phase and seed, all three balance the application's own
placement of that phase, and this prints, over the seeds, the median and the
range of each one's rank-work imbalance after balancing (max / mean - 1 of
the ranks' summed task times, LBAF's statistic; ``before`` is the trace's
own) and the median wall time of the balancing call alone (LBAF:
``Runtime.execute``; ours: the ``balance`` hook, ``time_balance_s``).
Settings:

* LBAF: work model ``LoadOnly``, ``InformAndTransfer`` with criterion
  ``Tempered``, transfer strategy ``Recursive`` with
  ``order_strategy=decreasing_loads`` (its transfers ``pop()`` from the end of
  that list: lightest first), ``max_objects_per_transfer=1``,
  ``deterministic_transfer=false``; ``random`` and ``numpy.random`` seeded
  with the seed;
* ours, the same algorithm: ``lbaf-iat[criterion=tempered,transfer=recursive,
  order=decreasing_loads,max_objects_per_transfer=1,deterministic=false,
  rounds=R,fanout=F,iterations=I]``;
* ours, Charm++'s DistributedLB at its defaults: ``grapevine``;

on ``vt[path=DIR]`` (P = the trace's ranks, each phase started from its
trace placement): LBAF's traces named by ``--recursive`` (default its 32-rank
``nolb-8color-16nodes-11firstphases`` and 64-rank
``challenging_toy_hundreds_tasks``) and the ``vt-synthetic`` ones. The clustering transfer (``--clustering``) runs on the
traces with shared memory blocks with LBAF's own configuration of each
(``config/challenging-toy-fewer-tasks.yaml``: deterministic, 8 iterations, 4
rounds, fanout 4, ``max_objects_per_transfer=100``;
``config/challenging-toy-hundreds-tasks.yaml``: random, 4 iterations, 3
rounds, fanout 4, ``max_subclusters=0``, ``cluster_swap_rtol=0.05``, 500;
``vt-synthetic[blocks=4]`` traces (``--clustering-synthetic``) with the first),
their work model included: ``AffineCombination`` with beta = gamma = delta = 0
and the bound ``max_memory_usage`` 8e9 bytes; ours is
``lbaf-iat[transfer=clustering,...,work_model=affine,max_memory_usage=8000000000]``
with the same parameters. LBAF's random streams are not ours, so single runs differ;
the medians are what is compared.

LBAF is not a dependency of lbbench. Install it from its public source into a
separate virtualenv (its pins are for Python 3.8-3.10; relax them for 3.11),
and put vt's schema validator beside it (LBAF downloads it at run time
otherwise):

    git clone --depth 1 https://github.com/DARMA-tasking/LB-analysis-framework lbaf-src
    git clone --depth 1 https://github.com/DARMA-tasking/vt vt-src
    sed -i -E 's/^(    [A-Za-z_]+)==([0-9.]+)$/\\1>=\\2/' lbaf-src/setup.cfg
    mkdir -p lbaf-src/src/lbaf/imported && touch lbaf-src/src/lbaf/imported/__init__.py
    cp vt-src/scripts/JSON_data_files_validator.py vt-src/scripts/LBDatafile_schema.py lbaf-src/src/lbaf/imported/
    python3.11 -m venv lbaf-venv && lbaf-venv/bin/pip install ./lbaf-src

then, in lbbench's environment:

    python benchmarks/peers/lbaf.py --lbaf-python lbaf-venv/bin/python [--lbaf-data lbaf-src/data]
        [--rounds 5 --fanout 2 --iterations 4 --phases 0 --seeds 9 --synthetic 32x16,64x32 --out DIR]
        [--recursive nolb-8color-16nodes-11firstphases,challenging_toy_hundreds_tasks] [--lbaf-only] [--lbaf-timeout 14400]
        [--clustering challenging_toy_fewer_tasks,challenging_toy_hundreds_tasks --clustering-synthetic 32x16
         --no-recursive]

The ``vt-synthetic`` traces (``--synthetic RANKSxTASKS,...``) are written
under ``--out``. Every single run is appended to ``DIR/runs.jsonl`` as it
ends; LBAF's runs also to ``DIR/lbaf-runs.jsonl``, which a later run reads
instead of running LBAF again with the same inputs (LBAF takes minutes per
run on the larger traces: ``--lbaf-only`` fills it first). Without an importable LBAF the script says so and exits 0 (skipped).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

DRIVER = r"""
import json, logging, random, sys, time
import numpy
from lbaf.IO.lbsStatistics import initialize
from lbaf.IO.lbsVTDataReader import LoadReader
from lbaf.Model.lbsPhase import Phase
from lbaf.Execution.lbsRuntime import Runtime
stem, phase_id, seed, params = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
work = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {"name": "LoadOnly", "parameters": {}}
random.seed(seed); numpy.random.seed(seed)
log = logging.getLogger("lbaf-peer"); log.setLevel(logging.ERROR)
initialize()
reader = LoadReader(file_prefix=stem, logger=log, file_suffix="json", check_schema=False)
phase = Phase(log, phase_id, reader=reader); phase.populate_from_log(phase_id)
imb = lambda ph: (lambda l: max(l) / (sum(l) / len(l)) - 1)([r.get_load() for r in ph.get_ranks()])
before = imb(phase)
t = time.perf_counter()
runtime = Runtime({phase_id: phase}, work,
                  {"name": "InformAndTransfer", "phase_id": phase_id, "parameters": params}, log)
new = runtime.execute(phase_id)
wall = time.perf_counter() - t
print("RESULT " + json.dumps({"ranks": len(phase.get_ranks()), "before": before, "after": imb(new), "wall_s": wall}))
"""


LOAD_ONLY = {"name": "LoadOnly", "parameters": {}}
# LBAF's config/challenging-toy-*.yaml work model: AffineCombination, beta = gamma = delta = 0, a memory bound
AFFINE_8GB = {"name": "AffineCombination",
              "parameters": {"beta": 0.0, "gamma": 0.0, "delta": 0.0, "upper_bounds": {"max_memory_usage": 8.0e9}}}


def lbaf_available(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import lbaf.Execution.lbsInformAndTransferAlgorithm"],
                              capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_lbaf(python: str, stem: str, phase: int, params: dict, seed: int, cache: Path, work: dict = LOAD_ONLY,
             timeout: float = 4 * 3600) -> dict:
    """LBAF's run with work model ``work``, taken from ``cache`` (one JSON line per run) when it ran before with
    the same inputs (the work model is in the key unless LoadOnly, so earlier LoadOnly runs count); stopped after
    ``timeout`` wall seconds (one seed on LBAF's 64-rank toy trace is 45-50 CPU minutes, more wall time on a
    shared machine)."""
    key = json.dumps([str(Path(stem).resolve()), phase, params, seed] + ([] if work == LOAD_ONLY else [work]),
                     sort_keys=True)
    if cache.is_file():
        for line in cache.read_text().splitlines():
            got = json.loads(line)
            if got["key"] == key:
                return got["result"]
    res = subprocess.run([python, "-c", DRIVER, stem, str(phase), str(seed), json.dumps(params), json.dumps(work)],
                         capture_output=True, text=True, timeout=timeout)
    lines = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    if res.returncode != 0 or not lines:
        raise RuntimeError(f"LBAF failed on {stem} phase {phase}: {(res.stderr.strip().splitlines() or ['?'])[-1]}")
    result = json.loads(lines[0][len("RESULT "):])
    with cache.open("a") as f:
        f.write(json.dumps({"key": key, "result": result}) + "\n")
    return result


def recursive(rounds: int, fanout: int, iterations: int) -> dict:
    """LBAF's InformAndTransfer parameters of the recursive runs."""
    return {"n_iterations": iterations, "n_rounds": rounds, "fanout": fanout, "criterion": "Tempered",
            "transfer_strategy": "Recursive", "order_strategy": "decreasing_loads", "max_objects_per_transfer": 1,
            "deterministic_transfer": False}


CLUSTERING = {  # LBAF's config/challenging-toy-*.yaml algorithm parameters
    "challenging_toy_fewer_tasks": {
        "n_iterations": 8, "n_rounds": 4, "fanout": 4, "order_strategy": "arbitrary",
        "transfer_strategy": "Clustering", "criterion": "Tempered", "max_objects_per_transfer": 100,
        "deterministic_transfer": True},
    "challenging_toy_hundreds_tasks": {
        "n_iterations": 4, "n_rounds": 3, "fanout": 4, "order_strategy": "arbitrary",
        "transfer_strategy": "Clustering", "max_subclusters": 0, "cluster_swap_rtol": 0.05, "criterion": "Tempered",
        "max_objects_per_transfer": 500, "deterministic_transfer": False}}
OURS = {"n_iterations": "iterations", "n_rounds": "rounds", "fanout": "fanout", "criterion": "criterion",
        "transfer_strategy": "transfer", "order_strategy": "order", "max_objects_per_transfer": "max_objects_per_transfer",
        "deterministic_transfer": "deterministic", "max_subclusters": "max_subclusters",
        "cluster_swap_rtol": "cluster_swap_rtol"}


def lbaf_iat(params: dict, work: dict = LOAD_ONLY) -> str:
    """``lbaf-iat`` with the configuration LBAF runs (its parameter names and values translated), its work model
    included (AffineCombination: ``work_model=affine``, beta, gamma, delta and the memory bound)."""
    ours = [f"{OURS[k]}={str(v).lower()}" for k, v in params.items()]
    if work["name"] == "AffineCombination":
        wp = work["parameters"]
        ours += ["work_model=affine", *(f"{k}={wp[k]:g}" for k in ("beta", "gamma", "delta") if wp.get(k)),
                 *(f"{k}={v:.12g}" for k, v in wp.get("upper_bounds", {}).items())]
    return "lbaf-iat[" + ",".join(ours) + "]"


def run_ours(path: str, phase: int, params: dict, seed: int, out: str, work: dict = LOAD_ONLY) -> dict:
    """{method: {before, after, wall_s}} for lbaf-iat and grapevine at one seed."""
    from harness import compare

    methods = {"lbaf-iat": lbaf_iat(params, work), "grapevine": "grapevine"}
    df = compare(",".join(["none", *methods.values()]), workload="vt", workload_params={"path": path}, P=None,
                 levels=[phase + 1], out=out, progress=False, cache=False, seed=seed)
    rows = {r["algorithm"]: r for _, r in df.iterrows()}
    res = {}
    for key, method in methods.items():
        g = rows[method]
        if g["status"] != "ok":
            raise RuntimeError(f"{method} failed on {path} phase {phase}: {g['status']}")
        res[key] = {"before": float(rows["none"]["work_loadimb"]) - 1, "after": float(g["work_loadimb"]) - 1,
                    "wall_s": float(g["time_balance_s"])}
    return res


def traces(args) -> list[tuple[str, str, str, dict, dict]]:
    """(label, directory for vt[path=...], stem for LBAF, LBAF's parameters, its work model) of every run."""
    from workloads.vt_synthetic import write_trace

    out = []
    rec = recursive(args.rounds, args.fanout, args.iterations)
    for name in [] if args.no_recursive or not args.lbaf_data else args.recursive:
        d = Path(args.lbaf_data) / name
        stem = next(d.glob("*.0.json")).name[:-len(".0.json")]
        out.append((f"LBAF {name}", str(d), str(d / stem), rec, LOAD_ONLY))
    for ranks, tasks in [] if args.no_recursive else args.synthetic:
        d = Path(args.out) / f"vt-synthetic-{ranks}x{tasks}"
        if not d.is_dir():
            write_trace(d, ranks=ranks, phases=max(args.phases) + 1, tasks=tasks, seed=1)
        out.append((f"vt-synthetic ({ranks} ranks x {tasks} tasks)", str(d), str(d / "data"), rec, LOAD_ONLY))
    for name in args.clustering:
        if name not in CLUSTERING or not args.lbaf_data:
            raise SystemExit(f"--clustering {name}: one of {', '.join(CLUSTERING)}, with --lbaf-data")
        d = Path(args.lbaf_data) / name
        out.append((f"LBAF {name}, clustering", str(d), str(d / "toy"), CLUSTERING[name], AFFINE_8GB))
    for ranks, tasks in args.clustering_synthetic:
        d = Path(args.out) / f"vt-synthetic-{ranks}x{tasks}-blocks4"
        if not d.is_dir():
            write_trace(d, ranks=ranks, phases=max(args.phases) + 1, tasks=tasks, blocks=4, seed=1)
        out.append((f"vt-synthetic ({ranks}x{tasks}, 4 blocks per rank), clustering", str(d), str(d / "data"),
                    CLUSTERING["challenging_toy_fewer_tasks"], AFFINE_8GB))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lbaf-python", default="python3", help="the Python of the virtualenv LBAF is installed in")
    ap.add_argument("--lbaf-data", default=None, help="LBAF's data/ directory (its public traces)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fanout", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--phases", default="0", help="phase ids, e.g. 0,1")
    ap.add_argument("--seeds", type=int, default=9, help="runs per trace and phase (seeds 0 .. N-1); medians")
    ap.add_argument("--recursive", default="nolb-8color-16nodes-11firstphases,challenging_toy_hundreds_tasks",
                    help="LBAF traces (under --lbaf-data) run with the recursive transfer")
    ap.add_argument("--lbaf-timeout", type=float, default=4 * 3600, help="wall seconds one LBAF run may take")
    ap.add_argument("--lbaf-only", action="store_true", help="run LBAF only (fills OUT/lbaf-runs.jsonl, which "
                    "later runs read instead of running LBAF again)")
    ap.add_argument("--synthetic", default="32x16,64x32", help="RANKSxTASKS of the vt-synthetic traces ('' for none)")
    ap.add_argument("--clustering", default="", help="LBAF traces with shared blocks, run with the clustering "
                    f"transfer and LBAF's configuration of each: {', '.join(CLUSTERING)}")
    ap.add_argument("--clustering-synthetic", default="", help="RANKSxTASKS of vt-synthetic traces with 4 shared "
                    "blocks per rank, run with the clustering transfer")
    ap.add_argument("--no-recursive", action="store_true", help="only the clustering runs")
    ap.add_argument("--out", default="lbaf-peer", help="where the synthetic traces and our results go")
    args = ap.parse_args(argv)
    args.phases = [int(x) for x in args.phases.split(",")]
    args.clustering, args.recursive = ([x for x in a.split(",") if x.strip()]
                                       for a in (args.clustering, args.recursive))
    args.synthetic, args.clustering_synthetic = ([tuple(int(y) for y in x.split("x")) for x in a.split(",") if x.strip()]
                                                 for a in (args.synthetic, args.clustering_synthetic))
    if not lbaf_available(args.lbaf_python):
        print(f"LBAF is not importable with {args.lbaf_python}: skipped (see this script's docstring)")
        return 0
    Path(args.out).mkdir(parents=True, exist_ok=True)
    log, cache = Path(args.out) / "runs.jsonl", Path(args.out) / "lbaf-runs.jsonl"
    print(f"recursive: rounds={args.rounds} fanout={args.fanout} iterations={args.iterations}; seeds={args.seeds}; "
          "imbalance = max/mean - 1; medians over the seeds (min-max)")
    names = ("LBAF",) if args.lbaf_only else ("LBAF", "lbaf-iat", "grapevine")
    for label, path, stem, params, work in traces(args):
        for ph in args.phases:
            runs = []
            for seed in range(args.seeds):
                ours = {} if args.lbaf_only else run_ours(path, ph, params, seed, str(Path(args.out) / "results"),
                                                          work)
                ours["LBAF"] = run_lbaf(args.lbaf_python, stem, ph, params, seed, cache, work, args.lbaf_timeout)
                if not args.lbaf_only:
                    with log.open("a") as f:
                        f.write(json.dumps({"trace": label, "phase": ph, "seed": seed, **ours}) + "\n")
                runs.append(ours)
            print(f"{label}, phase {ph}: before {runs[0]['LBAF']['before']:.4f}", flush=True)
            for k in names:
                after, wall = ([r[k][m] for r in runs] for m in ("after", "wall_s"))
                print(f"    {k:10} {statistics.median(after):.4f} ({min(after):.4f}-{max(after):.4f}), "
                      f"{statistics.median(wall):.3f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
