"""Side by side with LBAF: its InformAndTransfer and our ``grapevine`` on the same LBDatafile traces.

For each trace and phase, both balance the application's own placement of
that phase with the same ``rounds``, ``fanout`` and ``iterations``, and this
prints each one's rank-work imbalance after balancing (max / mean - 1 of the
ranks' summed task times, LBAF's statistic; ``none`` is the trace's own) and
the wall time of the balancing call alone (LBAF: ``Runtime.execute``; ours:
the ``balance`` hook, ``time_balance_s``). Settings that make the two comparable:

* LBAF: work model ``LoadOnly``, ``InformAndTransfer`` with criterion
  ``Tempered`` (our ``criterion=relaxed``: accept a move when it lowers the
  larger of the two ranks' loads), transfer strategy ``Recursive`` with
  ``order_strategy=decreasing_loads`` (ours walks heaviest first),
  ``max_objects_per_transfer=1`` (single-object transfers, as ours),
  ``deterministic_transfer=false`` (CMF-random targets, as ours).
* ours: ``grapevine[criterion=relaxed,rounds=R,fanout=F,iterations=I]`` on
  ``vt[path=DIR]`` (P = the trace's ranks, each phase started from its trace
  placement, ``--initial trace``).

What still differs by design, see plugins/charm/README.md: LBAF gossips about
all ranks and reads targets' current loads when it transfers; GrapevineLB
(the paper) gossips only the underloaded ranks' (id, load) and each sender
works on its own view of them.

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
        [--rounds 5 --fanout 2 --iterations 4 --phases 0,1 --out DIR]

The traces: LBAF's public ``nolb-8color-16nodes-11firstphases`` (32 ranks,
with ``--lbaf-data``) and ``vt-synthetic`` traces (``--synthetic 32,64`` ranks of
``--tasks 16`` tasks each) written under ``--out``. Without an importable LBAF the script says so and
exits 0 (skipped).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

DRIVER = r"""
import json, logging, sys, time
from lbaf.IO.lbsStatistics import initialize
from lbaf.IO.lbsVTDataReader import LoadReader
from lbaf.Model.lbsPhase import Phase
from lbaf.Execution.lbsRuntime import Runtime
stem, phase_id, rounds, fanout, iterations = sys.argv[1], *map(int, sys.argv[2:6])
log = logging.getLogger("lbaf-peer"); log.setLevel(logging.ERROR)
initialize()
reader = LoadReader(file_prefix=stem, logger=log, file_suffix="json", check_schema=False)
phase = Phase(log, phase_id, reader=reader); phase.populate_from_log(phase_id)
imb = lambda ph: (lambda l: max(l) / (sum(l) / len(l)) - 1)([r.get_load() for r in ph.get_ranks()])
before = imb(phase)
params = {"n_iterations": iterations, "n_rounds": rounds, "fanout": fanout, "criterion": "Tempered",
          "transfer_strategy": "Recursive", "order_strategy": "decreasing_loads",
          "max_objects_per_transfer": 1, "deterministic_transfer": False}
t = time.perf_counter()
runtime = Runtime({phase_id: phase}, {"name": "LoadOnly", "parameters": {}},
                  {"name": "InformAndTransfer", "phase_id": phase_id, "parameters": params}, log)
new = runtime.execute(phase_id)
wall = time.perf_counter() - t
print("RESULT " + json.dumps({"ranks": len(phase.get_ranks()), "before": before, "after": imb(new), "wall_s": wall}))
"""


def lbaf_available(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import lbaf.Execution.lbsInformAndTransferAlgorithm"],
                              capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_lbaf(python: str, stem: str, phase: int, rounds: int, fanout: int, iterations: int) -> dict:
    res = subprocess.run([python, "-c", DRIVER, stem, str(phase), str(rounds), str(fanout), str(iterations)],
                         capture_output=True, text=True, timeout=3600)
    lines = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    if res.returncode != 0 or not lines:
        raise RuntimeError(f"LBAF failed on {stem} phase {phase}: {(res.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(lines[0][len("RESULT "):])


def run_ours(path: str, phase: int, rounds: int, fanout: int, iterations: int, out: str) -> dict:
    from harness import compare

    method = f"grapevine[criterion=relaxed,rounds={rounds},fanout={fanout},iterations={iterations}]"
    df = compare(f"none,{method}", workload="vt", workload_params={"path": path}, P=None, levels=[phase + 1],
                 out=out, progress=False, cache=False)
    rows = {r["algorithm"]: r for _, r in df.iterrows()}
    g = rows[method]
    if g["status"] != "ok":
        raise RuntimeError(f"grapevine failed on {path} phase {phase}: {g['status']}")
    return {"ranks": int(g["P"]), "before": float(rows["none"]["work_loadimb"]) - 1,
            "after": float(g["work_loadimb"]) - 1, "wall_s": float(g["time_balance_s"])}


def traces(args) -> list[tuple[str, str, str]]:
    """(label, directory for vt[path=...], stem for LBAF) of every trace."""
    from workloads.vt_synthetic import write_trace

    out = []
    if args.lbaf_data:
        d = Path(args.lbaf_data) / "nolb-8color-16nodes-11firstphases"
        out.append(("LBAF nolb-8color-16nodes-11firstphases (32 ranks)", str(d), str(d / "data")))
    for ranks in args.synthetic:
        d = Path(args.out) / f"vt-synthetic-{ranks}x{args.tasks}"
        if not d.is_dir():
            write_trace(d, ranks=ranks, phases=max(args.phases) + 1, tasks=args.tasks, seed=1)
        out.append((f"vt-synthetic ({ranks} ranks x {args.tasks} tasks)", str(d), str(d / "data")))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lbaf-python", default="python3", help="the Python of the virtualenv LBAF is installed in")
    ap.add_argument("--lbaf-data", default=None, help="LBAF's data/ directory (its public traces)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--fanout", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--phases", default="0", help="phase ids, e.g. 0,1")
    ap.add_argument("--synthetic", default="32,64", help="ranks of the vt-synthetic traces written ('' for none)")
    ap.add_argument("--tasks", type=int, default=16, help="tasks per rank of the vt-synthetic traces")
    ap.add_argument("--out", default="lbaf-peer", help="where the synthetic traces and our results go")
    args = ap.parse_args(argv)
    args.phases = [int(x) for x in args.phases.split(",")]
    args.synthetic = [int(x) for x in args.synthetic.split(",") if x.strip()]
    if not lbaf_available(args.lbaf_python):
        print(f"LBAF is not importable with {args.lbaf_python}: skipped (see this script's docstring)")
        return 0
    Path(args.out).mkdir(parents=True, exist_ok=True)
    print(f"rounds={args.rounds} fanout={args.fanout} iterations={args.iterations}; imbalance = max/mean - 1")
    print(f"{'trace':52} {'phase':>5} {'before':>8} {'LBAF':>8} {'ours':>8} {'LBAF s':>8} {'ours s':>8}", flush=True)
    for label, path, stem in traces(args):
        for ph in args.phases:
            a = run_lbaf(args.lbaf_python, stem, ph, args.rounds, args.fanout, args.iterations)
            b = run_ours(path, ph, args.rounds, args.fanout, args.iterations, str(Path(args.out) / "results"))
            print(f"{label:52} {ph:>5} {b['before']:>8.4f} {a['after']:>8.4f} {b['after']:>8.4f} "
                  f"{a['wall_s']:>8.3f} {b['wall_s']:>8.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
