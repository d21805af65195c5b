"""``vt-synthetic``: LBDatafile traces the project makes itself (DARMA vt's format, see :mod:`workloads.vt`).

``write_trace(directory, ...)`` writes ``STEM.RANK.json`` files of a
synthetic task-based run; the ``vt-synthetic`` workload writes them into the
workload cache and reads them back through the ``vt`` reader, so every test
of the reader runs on real files. ``lbbench vt-synthetic DIR`` writes them
for a user.

The run: ``ranks * tasks`` objects of one collection on a W x H grid
(``index [i, j]``), homed in contiguous row-major blocks of ``tasks`` per
rank. Per phase each object's ``time`` is ``1 ms x (1 + amp x
exp(-d^2 / 2 s^2)) x lognormal(0, 0.2)``, d the distance to a hot spot that
crosses the grid over the phases (s = W / 6), with ``subphases`` 0 and 1
splitting it 30/70. ``node``: phase 0 runs every object at home; in each
later phase a migratable object moves to a neighbouring rank with
probability ``moves`` (the application's own balancer). A fraction
``pinned`` of the objects is ``migratable: false`` and stays at home. From
phase 1 on, a fraction ``churn`` of the objects of the previous phase is
destroyed and as many new ones are created on random homes. Communication
records (kept in the receiver's file): each object sends to its right
neighbour and receives from the one below (so both directions of the
stencil appear, merged by the reader), 1-4 KB in 1-4 messages, and sends
256 B to its rank's objgroup (a non-task entity: fixed traffic). The last
``blocks`` > 0: each rank's home objects are split, in id order, into
``blocks`` shared memory blocks (LBAF's ``user_defined.shared_id``, ids
``home x blocks + k``, ``shared_bytes`` 1 MiB each, as in LBAF's
``challenging_toy`` traces: every block on one rank at first); a new object
joins a random block of its home. The last
``identical`` phases are declared ``identical_to_previous`` in the metadata
and not written. ``compress``: ``none``, ``brotli`` or ``mixed`` (odd ranks
compressed), detected by content when read.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from harness import Workload, check_params
from harness.store.wlcache import cache_dir

from . import vt

COLLECTION = 7
SHARED_BYTES = float(2**20)  # a shared block's bytes
OBJGROUP = 1 << 40  # entity ids of the per-rank objgroups: OBJGROUP + rank


def _entity(oid: int, home: int, migratable: bool, index) -> dict:
    return {"collection_id": COLLECTION, "home": int(home), "id": int(oid), "index": [int(index[0]), int(index[1])],
            "migratable": bool(migratable), "type": "object"}


def write_trace(directory, ranks: int = 8, phases: int = 4, tasks: int = 16, pinned: float = 0.1,
                moves: float = 0.05, churn: float = 0.02, amp: float = 3.0, blocks: int = 0, identical: int = 0,
                compress: str = "none", stem: str = "data", seed: int = 0) -> list[Path]:
    """Write the trace described in the module docstring; returns the files in rank order."""
    validate(dict(ranks=ranks, phases=phases, tasks=tasks, pinned=pinned, moves=moves, churn=churn, amp=amp,
                  blocks=blocks, identical=identical, compress=compress))
    rng = np.random.default_rng(seed)
    n = ranks * tasks
    W = int(np.ceil(np.sqrt(n)))
    H = -(-n // W)
    ids = np.arange(n, dtype=np.int64) + 1000
    index = np.stack([np.arange(n) // H, np.arange(n) % H], axis=1)
    home = np.arange(n) * ranks // n
    migratable = rng.random(n) >= pinned
    node = home.copy()
    block = home * blocks + (np.arange(n) - home * tasks) * blocks // tasks
    next_id = int(ids[-1]) + 1
    per_rank: list[list[dict]] = [[] for _ in range(ranks)]
    written = phases - identical
    for p in range(written):
        if p:
            gone = rng.random(ids.size) < churn
            k = int(gone.sum())
            keep = ~gone
            ids, index, home, migratable, node = ids[keep], index[keep], home[keep], migratable[keep], node[keep]
            ids = np.concatenate([ids, np.arange(next_id, next_id + k)])
            next_id += k
            index = np.concatenate([index, np.stack([rng.integers(0, W, k), rng.integers(0, H, k)], axis=1)])
            newhome = rng.integers(0, ranks, k)
            home = np.concatenate([home, newhome])
            migratable = np.concatenate([migratable, rng.random(k) >= pinned])
            joins = rng.integers(0, blocks, k) if blocks else 0  # the rng is untouched without blocks
            block = np.concatenate([block[keep], newhome * blocks + joins])
            node = np.concatenate([node, newhome])
            move = migratable & (rng.random(ids.size) < moves)
            node = np.where(move, np.clip(node + rng.choice([-1, 1], ids.size), 0, ranks - 1), node)
        centre = np.array([W * (p + 0.5) / written, H / 2])
        d2 = ((index - centre) ** 2).sum(axis=1)
        time = 1e-3 * (1 + amp * np.exp(-d2 / (2 * (W / 6) ** 2))) * rng.lognormal(0.0, 0.2, ids.size)
        ents = [_entity(ids[v], home[v], migratable[v], index[v]) for v in range(ids.size)]
        tasks_of = [[] for _ in range(ranks)]
        for v in range(ids.size):
            t = float(time[v])
            ud = {"task_serialized_bytes": float(512 * (1 + v % 4))}
            if blocks:
                ud.update(shared_id=int(block[v]), shared_bytes=SHARED_BYTES)
            tasks_of[node[v]].append({
                "entity": ents[v], "node": int(node[v]), "resource": "cpu", "time": t,
                "subphases": [{"id": 0, "time": 0.3 * t}, {"id": 1, "time": 0.7 * t}],
                "user_defined": ud})
        comms_of = [[] for _ in range(ranks)]
        where = {(int(i), int(j)): v for v, (i, j) in enumerate(index)}
        nbytes = rng.integers(1024, 4097, (ids.size, 2))
        nmsg = rng.integers(1, 5, (ids.size, 2))
        for v in range(ids.size):
            i, j = int(index[v, 0]), int(index[v, 1])
            right, below = where.get((i + 1, j)), where.get((i, j + 1))
            if right is not None and right != v:
                comms_of[node[right]].append({"type": "SendRecv", "from": ents[v], "to": ents[right],
                                              "messages": int(nmsg[v, 0]), "bytes": float(nbytes[v, 0])})
            if below is not None and below != v:
                comms_of[node[v]].append({"type": "SendRecv", "from": ents[below], "to": ents[v],
                                          "messages": int(nmsg[v, 1]), "bytes": float(nbytes[v, 1])})
            comms_of[node[v]].append({"type": "SendRecv", "from": ents[v], "messages": 1, "bytes": 256.0,
                                      "to": {"home": int(node[v]), "id": OBJGROUP + int(node[v]),
                                             "objgroup_id": 1, "migratable": False, "type": "objgroup"}})
        for r in range(ranks):
            per_rank[r].append({"id": p, "tasks": tasks_of[r], "communications": comms_of[r]})
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    same = {"list": list(range(written, phases)), "range": []}
    for r in range(ranks):
        doc = {"type": "LBDatafile",
               "metadata": {"type": "LBDatafile", "rank": r,
                            "phases": {"skipped": {"list": [], "range": []}, "identical_to_previous": same}},
               "phases": per_rank[r]}
        raw = json.dumps(doc, separators=(",", ":")).encode()
        if compress == "brotli" or (compress == "mixed" and r % 2):
            import brotli

            raw = brotli.compress(raw, quality=5)
        f = out / f"{stem}.{r}.json"
        f.write_bytes(raw)
        files.append(f)
    return files


PARAMS = {"ranks": 8, "phases": 4, "tasks": 16, "pinned": 0.1, "moves": 0.05, "churn": 0.02, "amp": 3.0,
          "blocks": 0, "identical": 0, "compress": "none", "ranks_per_proc": 1}


MAX_RANKS = 100_000  # one file each
MAX_PHASES = 10_000
MAX_TASKS = 10_000_000
BYTES_PER_OBJECT = 4096  # memory per object and written phase while written and read (measured: about 3.2 KB)


def memory_bytes() -> int:
    """The machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def validate(params: dict) -> None:
    """Range checks, and ranks x tasks x written phases bounded by the memory they need (half the machine's)."""
    check_params("workload vt-synthetic", params, {
        "ranks": (1, MAX_RANKS), "phases": (1, MAX_PHASES), "tasks": (1, MAX_TASKS), "pinned": (0.0, 1.0),
        "moves": (0.0, 1.0), "churn": (0.0, 1.0), "amp": (0.0, 1e6),
        "blocks": (0, params["tasks"]), "identical": (0, params["phases"] - 1)})
    if "ranks_per_proc" in params:
        check_params("workload vt-synthetic", params, {"ranks_per_proc": (1, MAX_RANKS)})
    if params["compress"] not in ("none", "brotli", "mixed"):
        raise ValueError(f"workload vt-synthetic: compress={params['compress']!r}: use none, brotli or mixed")
    need = params["ranks"] * params["tasks"] * (params["phases"] - params["identical"]) * BYTES_PER_OBJECT
    if need > memory_bytes() // 2:
        raise ValueError(f"workload vt-synthetic: ranks x tasks x phases = {params['ranks']} x {params['tasks']} x "
                         f"{params['phases'] - params['identical']} objects need about {need / 2**30:.1f} GiB, more "
                         f"than half this machine's {memory_bytes() / 2**30:.0f} GiB")


def trace_dir(seed: int, params: dict) -> Path:
    """Where the workload writes its files: the workload cache, keyed by the trace's parameters and seed."""
    trace = {k: v for k, v in params.items() if k != "ranks_per_proc"}
    key = hashlib.sha256(json.dumps([trace, seed], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / "vt-synthetic" / key


def generate(seed: int = 0, **params) -> list:
    params = {**PARAMS, **params}
    folder = trace_dir(seed, params)
    trace = {k: v for k, v in params.items() if k != "ranks_per_proc"}
    write_trace(folder, seed=seed, **trace)
    return vt.levels_of(vt.read_trace(str(folder)), params["ranks_per_proc"])


def path_of(params: dict, seed: int) -> str:
    """The directory holding the trace's files (written if absent), for ``--export-vt``."""
    folder = trace_dir(seed, params)
    if not folder.is_dir():
        generate(seed, **params)
    return str(folder)


WORKLOAD = Workload(
    "vt-synthetic", generate, version="3", params=dict(PARAMS), initial="trace", validate=validate,
    procs=lambda p: -(-p["ranks"] // max(p["ranks_per_proc"], 1)),
    export=lambda params, seed, owners, directory: vt.write_assignment(path_of(params, seed), owners, directory,
                                                                        params["ranks_per_proc"]),
    sources=lambda params, seed: [trace_dir(seed, params)],
    description="a synthetic DARMA vt LBDatafile trace written to files and read by the vt reader "
                "(moving hot spot, pinned tasks, churn, stencil communications)")


def main(argv=None) -> int:
    """``python -m workloads.vt_synthetic DIR [--ranks R --phases N ...]``: write a synthetic trace."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m workloads.vt_synthetic",
                                 description="Write a synthetic DARMA vt LBDatafile trace (STEM.RANK.json).")
    ap.add_argument("directory")
    for k, v in {**{k: v for k, v in PARAMS.items() if k != "ranks_per_proc"}, "stem": "data", "seed": 0}.items():
        ap.add_argument(f"--{k}", type=type(v), default=v)
    args = vars(ap.parse_args(argv))
    try:
        files = write_trace(args.pop("directory"), **args)
    except (ValueError, OSError) as exc:
        ap.exit(2, f"vt-synthetic: error: {exc}\n")
    print(f"wrote {len(files)} files {files[0].parent}/{files[0].name.rsplit('.', 2)[0]}.RANK.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
