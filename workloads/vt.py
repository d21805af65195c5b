"""``vt``: a DARMA vt ``LBDatafile`` trace (the format LBAF reads) as a workload.

The format (vt's ``scripts/LBDatafile_schema.py``): one file per rank,
``STEM.RANK.json``, plain JSON or brotli-compressed JSON (told apart by
content, never by name), holding ``type: "LBDatafile"``, optional
``metadata`` (``rank``; ``phases.skipped`` / ``phases.identical_to_previous``
as ``list`` and inclusive ``range`` pairs) and ``phases: [{id, tasks,
communications?}]``. A task has an ``entity`` (``id``, or ``seq_id`` with
``collection_id``; ``home``, ``migratable``, optional ``index``), the rank it
ran on (``node``), its ``time`` in seconds, optional ``subphases [{id,
time}]`` and ``user_defined`` (``task_serialized_bytes``; LBAF's shared
memory blocks: ``shared_id``, ``shared_bytes``). A communication joins a ``from`` and a ``to`` entity with ``bytes`` and ``messages``.

Mapping to lbbench (one level per recorded phase, ``Level.index`` = phase
id + 1, ``meta["phase"]`` the phase id):

* a task is a vertex; the same entity in two phases is the same object
  (``Level.parent`` links it; a task new in a phase has parent -1 and starts
  on its home);
* ``pwgt`` = the task's ``time`` (``weight=time``) or the time of subphase K
  (``weight=subphase:K``, 0 when the task lacks it) in units of
  ``meta["time_unit_s"]`` seconds: ``time_unit_s`` if given, else (0, the
  default) the largest power of ten no larger than 1 ps such that every
  phase's total stays below 2^50 (exact in float64). A rank's time is then
  exact to about 1e-12 relative, so ``none`` reproduces the measured
  imbalance to 1e-9;
* ``cwgt`` of an edge = the bytes of every communication between its two
  tasks (both directions merged, self-communication dropped, pairs whose
  bytes round to zero left out, so that every partitioner sees the graph it
  saw before); ``meta["self_comm"]`` marks the tasks that communicate
  with themselves (LBAF's strict criterion keeps them on their rank);
  ``meta["comm"]`` = (from, to, bytes): every ordered pair of distinct tasks
  that communicate, zero bytes included, with the last record's bytes, as
  LBAF's reader keeps them (its strict criterion's partners, its work
  model's volumes); ``rwgt`` = the task's ``task_serialized_bytes`` / 8
  (``BYTES_PER_UNIT``: migration bytes are real bytes), ``task_bytes``
  (default 1024) when absent. Bytes and time are different units: with the
  automatic time unit one byte weighs like one ps, so QWgt (SBN §3.1) is
  nearly computation only; ``time_unit_s=1e-9`` makes a byte weigh like a
  nanosecond (1 GB/s) at the cost of rounding each task time to 1 ns;
* a communication with a non-task end (an objgroup, an entity absent from
  the phase) is the task's fixed traffic (``meta["fixed_bytes"]``), not an
  edge;
* ``Level.shared_id`` = each task's ``user_defined.shared_id`` (the memory
  block it shares, LBAF's clusters; none, or a negative id as LBAF reads it:
  -1), ``meta["shared_bytes"]`` its ``shared_bytes`` (0 when absent), both
  only when some task of the phase has a block;
* LBAF's memory model, only when some task of the phase gives one of its
  fields: ``meta["footprint_bytes"]`` / ``meta["working_bytes"]`` each
  task's ``task_footprint_bytes`` / ``task_working_bytes`` (0 when absent),
  ``meta["rank_working_bytes"]`` per processor the ``rank_working_bytes`` of
  the last task of each rank's file (LBAF's ``Rank.set_size`` reads that
  one), summed over a processor's ranks; ``meta["rank_alpha"]`` each rank's
  ``metadata.rank_alpha`` (nan where absent), when some file gives one and
  ``ranks_per_proc`` is 1;
* coordinates from ``index`` when every task has one;
* ``migratable: false`` pins the task to its ``node`` (``Level.pinned``);
* ``meta["entity_order"]``: each task's place when the phase's tasks are
  sorted by entity ``id`` (``seq_id`` without one): LBAF's object id order
  (``Object.get_id``, its ``element_id`` order);
* ``meta["node"]`` / ``meta["home"]``: where each task ran and its home, as
  processors: rank r is processor r // ``ranks_per_proc``.

P is the number of ranks (divided by ``ranks_per_proc``). Phases listed as
skipped are left out; a phase listed as identical to the previous one and
absent from the files repeats it. Every rank file must record every phase
(else the (rank, phase) missing is named). ``path`` naming one rank file of
several is refused unless ``one_file=1`` (then that file alone is the trace).
Bad input raises ``ValueError`` naming the file, the phase id and the task (or
communication) index; a file that is not JSON is told apart from a broken
brotli stream by its content. ``task_bytes`` (0 to 2^40), ``max_file_mb``
(1 to 65536), ``ranks_per_proc`` and ``time_unit_s`` are range-checked before
any file is read.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from harness import BYTES_PER_UNIT, Graph, Level, Workload, check_params

MAX_SUM = 2 ** 50  # headroom below 2^53: every weight sum stays exact in float64
FINEST_UNIT_S = 1e-12
NAME = re.compile(r"^(?P<stem>.+)\.(?P<rank>\d+)\.json(\.br)?$")
PARAMS = {"path": "", "weight": "time", "ranks_per_proc": 1, "time_unit_s": 0.0, "task_bytes": 1024,
          "max_file_mb": 256, "one_file": False}
MEMORY = ("task_footprint_bytes", "task_working_bytes", "rank_working_bytes")  # LBAF's memory model's fields


# ------------------------------------------------------------------ files

def rank_files(path: str, one_file: bool = False) -> tuple[str, list[Path]]:
    """(stem, files in rank order) for ``path``: a directory holding one stem, ``DIR/STEM`` or one file
    (refused when it is one of several rank files of a stem, unless ``one_file``)."""
    if not path:
        raise ValueError("workload vt: give path=DIRECTORY, path=DIR/STEM or path=FILE")
    p = Path(path).expanduser()
    if p.is_file():
        m = NAME.match(p.name)
        if m and not one_file:
            others = [f.name for f in p.parent.iterdir()
                      if f != p and (n := NAME.match(f.name)) and n["stem"] == m["stem"]]
            if others:
                raise ValueError(f"workload vt: path={p} is one rank file of a trace of {len(others) + 1} "
                                 f"(also {others[0]}): give path={p.parent / m['stem']} for the whole trace, "
                                 "or one_file=1 to read this file alone")
        return (m["stem"] if m else p.stem), [p]
    if p.is_dir():
        found = [f for f in p.iterdir() if f.is_file() and NAME.match(f.name)]
        stems = sorted({NAME.match(f.name)["stem"] for f in found})
        if not stems:
            raise ValueError(f"workload vt: {p} holds no STEM.RANK.json files")
        if len(stems) > 1:
            raise ValueError(f"workload vt: {p} holds several stems ({', '.join(stems[:5])}): "
                             f"give path={p / stems[0]}")
        stem, folder = stems[0], p
    else:
        stem, folder = p.name, p.parent
        found = [f for f in folder.iterdir() if f.is_file()] if folder.is_dir() else []
    files = [f for f in found if (m := NAME.match(f.name)) and m["stem"] == stem]
    if not files:
        raise ValueError(f"workload vt: no files {stem}.RANK.json in {folder}")
    return stem, sorted(files, key=lambda f: int(NAME.match(f.name)["rank"]))


def read_json(path: Path, max_bytes: int) -> dict:
    """A rank file's JSON object, plain or brotli (by content); at most ``max_bytes`` read or decompressed."""
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(f"{path}: file is {size / 2**20:.0f} MB, more than the {max_bytes / 2**20:.0f} MB "
                         "a rank file may have (workload parameter max_file_mb)")
    raw = path.read_bytes()
    if not raw[:64].lstrip().startswith(b"{"):  # not a JSON object: other JSON (named below), or brotli
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raw = _unbrotli(raw, path, max_bytes, exc)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:  # the standard parser names the problem (and reads NaN, which we reject later)
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level is a {type(data).__name__}, expected an LBDatafile object")
    meta = data.get("metadata") or {}
    kind = data.get("type", meta.get("type", "LBDatafile") if isinstance(meta, dict) else "LBDatafile")
    if kind != "LBDatafile":
        raise ValueError(f"{path}: type is {kind!r}, expected 'LBDatafile'")
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: metadata is not an object")
    if not isinstance(data.get("phases"), list):
        raise ValueError(f"{path}: no 'phases' list")
    return data


def _unbrotli(raw: bytes, path: Path, max_bytes: int, json_error: Exception) -> bytes:
    """``raw`` decompressed, at most ``max_bytes``; ValueError with the real reason: text that is not valid JSON,
    or bytes that are neither JSON nor a whole brotli stream."""
    import brotli

    dec = brotli.Decompressor()
    try:
        out = dec.process(raw, output_buffer_limit=max_bytes + 1)
        finished = dec.is_finished()
    except brotli.error:
        out, finished = b"", False
    if len(out) > max_bytes:
        raise ValueError(f"{path}: decompresses to more than the {max_bytes / 2**20:.0f} MB a rank file "
                         "may have (workload parameter max_file_mb)")
    if finished:
        return out
    if _is_text(raw[:4096]):
        raise ValueError(f"{path}: not valid JSON ({json_error})")
    raise ValueError(f"{path}: neither JSON nor brotli-compressed JSON"
                     + (" (a brotli stream that ends early)" if out else ""))


def _is_text(head: bytes) -> bool:
    """Whether ``head`` reads as UTF-8 text (a character cut at its end allowed), no control bytes."""
    try:
        head.decode()
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:
            return False
    return re.search(rb"[\x00-\x08\x0e-\x1f]", head) is None


def phase_set(spec, path: Path, what: str) -> set:
    """The phase ids of a ``{list, range}`` metadata entry (ranges inclusive)."""
    out: set = set()
    if spec is None:
        return out
    if not isinstance(spec, dict):
        raise ValueError(f"{path}: metadata phases.{what} is not an object with list and range")
    for v in spec.get("list") or []:
        if not isinstance(v, int):
            raise ValueError(f"{path}: metadata phases.{what}.list holds {v!r}, not a phase id")
        out.add(v)
    for r in spec.get("range") or []:
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) for x in r) and r[0] <= r[1]):
            raise ValueError(f"{path}: metadata phases.{what}.range holds {r!r}, not a [first, last] pair")
        if r[1] - r[0] > 10_000_000:
            raise ValueError(f"{path}: metadata phases.{what}.range {r!r} is implausibly long")
        out.update(range(r[0], r[1] + 1))
    return out


# ------------------------------------------------------------------ one phase, gathered over the files

def entity_key(e, where: str):
    """The identity of an entity: its ``id``, or (``collection_id``, ``seq_id``)."""
    if not isinstance(e, dict):
        raise ValueError(f"{where}: entity is not an object")
    if "id" in e:
        k = e["id"]
    elif "seq_id" in e:
        k = (e.get("collection_id"), e["seq_id"])
        if not isinstance(k[1], int):
            raise ValueError(f"{where}: entity seq_id {k[1]!r} is not an integer")
        return k
    else:
        raise ValueError(f"{where}: entity has neither id nor seq_id")
    if not isinstance(k, int) or isinstance(k, bool):
        raise ValueError(f"{where}: entity id {k!r} is not an integer")
    return k


@dataclass
class Phase:
    """One phase gathered over the rank files (columns as lists, one entry per task or communication)."""

    pid: int
    key: dict = field(default_factory=dict)  # entity key -> vertex
    where: list = field(default_factory=list)  # (file, task index) per vertex, for messages
    node: list = field(default_factory=list)
    home: list = field(default_factory=list)
    migratable: list = field(default_factory=list)
    time: list = field(default_factory=list)
    nbytes: list = field(default_factory=list)
    shared_id: list = field(default_factory=list)
    shared_bytes: list = field(default_factory=list)
    footprint: list = field(default_factory=list)  # LBAF's memory model: task_footprint_bytes
    working: list = field(default_factory=list)  # task_working_bytes
    rank_bytes: dict = field(default_factory=dict)  # rank -> its file's last task's rank_working_bytes
    has_memory: bool = False  # some task gives one of the three
    index: list = field(default_factory=list)
    comm_from: list = field(default_factory=list)
    comm_to: list = field(default_factory=list)
    comm_bytes: list = field(default_factory=list)
    has_subphase: bool = False  # some task of the phase has the subphase ``weight=subphase:K`` selects


def _number(v, where: str, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{where}: {what} {v!r} is not a number")
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{where}: {what} is {v!r}, expected a finite non-negative number")
    return float(v)


def _rank(v, where: str, what: str, R: int | None) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{where}: {what} {v!r} is not a rank")
    if R is not None and v >= R:
        raise ValueError(f"{where}: {what} {v} but the trace has ranks 0-{R - 1}")
    return v


def _check_task(t, where: str, subphase, R) -> None:
    """Raise the ValueError naming what is wrong with task ``t`` (the slow path of :func:`add_phase`)."""
    if not isinstance(t, dict):
        raise ValueError(f"{where}: not an object")
    for k in ("entity", "time"):
        if k not in t:
            raise ValueError(f"{where}: missing {k!r}")
    e = t["entity"]
    entity_key(e, where)
    _number(t["time"], where, "time")
    for s in t.get("subphases") or []:
        if isinstance(s, dict) and s.get("id") == subphase:
            _number(s.get("time"), where, f"subphase {subphase} time")
    ud = t.get("user_defined") or {}
    for k in ("task_serialized_bytes", "shared_bytes", *MEMORY):
        if isinstance(ud, dict) and k in ud:
            _number(ud[k], where, k)
    sid = ud.get("shared_id", -1) if isinstance(ud, dict) else -1
    if type(sid) is not int or abs(sid) > MAX_SUM:
        raise ValueError(f"{where}: shared_id {sid!r} is not a shared block's id (an integer of at most 2^50)")
    _rank(t.get("node"), where, "node", R)
    _rank(e.get("home"), where, "entity home", R)


def _first_bad(values: list) -> int | None:
    """Index of the first value that is not a finite non-negative number (bools count as bad), or None."""
    try:
        a = np.asarray(values, float)
    except (TypeError, ValueError):
        a = None
    if a is not None and a.shape == (len(values),) and np.isfinite(a).all() and (a >= 0).all() \
            and bool not in set(map(type, values)):
        return None
    for i, v in enumerate(values):
        if type(v) not in (int, float) or not math.isfinite(v) or v < 0:
            return i
    return None


def add_phase(ph: Phase, entry: dict, path: Path, subphase: int | None, task_bytes: float, R: int | None) -> None:
    """Append one file's part of a phase to ``ph``.

    The loops only collect; values are checked in bulk with numpy, and a failure is re-examined
    task by task to name the file, the phase and the task (or communication) index.
    """
    tasks = entry.get("tasks")
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: phase {ph.pid}: no 'tasks' list")
    n0 = len(ph.node)
    where = f"{path}: phase {ph.pid}, task"
    name = path.name
    key, times, nbytes, nodes, homes, sids, sbytes, fps, wbs = ph.key, [], [], [], [], [], [], [], []
    ud = None
    for i, t in enumerate(tasks):
        try:
            e = t["entity"]
            k = e["id"] if "id" in e else (e.get("collection_id"), e["seq_id"])
            time = t["time"]
            if subphase is not None:
                time = next((s["time"] for s in t.get("subphases") or () if s.get("id") == subphase), None)
                ph.has_subphase |= time is not None
                time = 0.0 if time is None else time
            ud = t.get("user_defined")
            nb = ud.get("task_serialized_bytes", task_bytes) if ud else task_bytes
            sid, sb = (ud.get("shared_id", -1), ud.get("shared_bytes", 0.0)) if ud else (-1, 0.0)
            fp, wb = (ud.get(MEMORY[0], 0.0), ud.get(MEMORY[1], 0.0)) if ud else (0.0, 0.0)
            ph.has_memory |= bool(ud) and any(m in ud for m in MEMORY)
            node, home = t["node"], e["home"]
            if type(node) is not int or type(home) is not int or type(k) not in (int, tuple) or type(sid) is not int:
                raise TypeError
        except (KeyError, TypeError, AttributeError):
            _check_task(t, f"{where} {i}", subphase, R)
            raise ValueError(f"{where} {i}: malformed task") from None
        if k in key:
            f0, i0 = ph.where[key[k]]
            raise ValueError(f"{where} {i}: entity {k} appears twice in the phase (also {f0} task {i0})")
        key[k] = len(ph.where)
        ph.where.append((name, i))
        times.append(time)
        nbytes.append(nb)
        sids.append(sid)
        sbytes.append(sb)
        fps.append(fp)
        wbs.append(wb)
        nodes.append(node)
        homes.append(home)
        ph.migratable.append(e.get("migratable", True) is not False)
        idx = e.get("index")
        ph.index.append(idx if type(idx) is list else None)
    for values in (times, nbytes, sbytes, fps, wbs):
        bad = _first_bad(values)
        if bad is not None:
            _check_task(tasks[bad], f"{where} {bad}", subphase, R)
    if sids and (min(sids) < -MAX_SUM or max(sids) > MAX_SUM):
        for i, t in enumerate(tasks):
            _check_task(t, f"{where} {i}", subphase, R)
    lo = min(nodes + homes, default=0)
    hi = max(nodes + homes, default=0)
    if lo < 0 or (R is not None and hi >= R):
        for i, t in enumerate(tasks):
            _check_task(t, f"{where} {i}", subphase, R)
    ph.time.extend(times)
    ph.nbytes.extend(nbytes)
    ph.shared_id.extend(sids)
    ph.shared_bytes.extend(sbytes)
    ph.footprint.extend(fps)
    ph.working.extend(wbs)
    if nodes:  # LBAF's Rank.set_size: the rank_working_bytes of the file's last task
        ph.rank_bytes[nodes[-1]] = _number((ud or {}).get(MEMORY[2], 0.0), f"{where} {len(tasks) - 1}", MEMORY[2])
    ph.node.extend(nodes)
    ph.home.extend(homes)
    assert len(ph.node) - n0 == len(tasks)
    comms = entry.get("communications") or []
    if not isinstance(comms, list):
        raise ValueError(f"{path}: phase {ph.pid}: 'communications' is not a list")
    cf, ct, cb = [], [], []
    for i, c in enumerate(comms):
        try:
            f, t = c["from"], c["to"]
            kf = f["id"] if "id" in f else (f.get("collection_id"), f["seq_id"])
            kt = t["id"] if "id" in t else (t.get("collection_id"), t["seq_id"])
            b = c.get("bytes", 0.0)
        except (KeyError, TypeError, AttributeError):
            cw = f"{path}: phase {ph.pid}, communication {i}"
            if not isinstance(c, dict) or "from" not in c or "to" not in c:
                raise ValueError(f"{cw}: needs 'from' and 'to' entities") from None
            entity_key(c["from"], cw + " (from)")
            entity_key(c["to"], cw + " (to)")
            raise ValueError(f"{cw}: malformed communication") from None
        cf.append(kf)
        ct.append(kt)
        cb.append(b)
    bad = _first_bad(cb)
    if bad is not None:
        _number(cb[bad], f"{path}: phase {ph.pid}, communication {bad}", "bytes")
    ph.comm_from.extend(cf)
    ph.comm_to.extend(ct)
    ph.comm_bytes.extend(cb)


# ------------------------------------------------------------------ the trace

@dataclass
class Trace:
    """A trace read from its rank files: the stem, the files by rank, and its phases in id order."""

    stem: str
    files: list  # by rank (one file may hold several ranks)
    phases: list
    identical: dict  # phase id -> the id of the phase it repeats
    ranks: int
    rank_alpha: dict = field(default_factory=dict)  # rank -> its file's metadata.rank_alpha (LBAF's Rank.set_alpha)


def parse_weight(weight: str) -> int | None:
    if weight == "time":
        return None
    m = re.fullmatch(r"subphase:(\d+)", weight)
    if not m:
        raise ValueError(f"workload vt: weight={weight!r}: use time or subphase:K")
    return int(m[1])


def read_trace(path: str, weight: str = "time", task_bytes: float = 1024, max_file_mb: float = 256,
               one_file: bool = False) -> Trace:
    """Read every rank file of a trace (see the module docstring); ValueError names file, phase and task, or
    the (rank, phase) a rank file lacks."""
    subphase = parse_weight(weight)
    stem, files = rank_files(path, one_file)
    recorded: dict = {}  # rank -> the phase ids its file records
    max_bytes = int(max_file_mb * 2**20)
    by_rank: dict = {}
    alphas: dict = {}
    phases: dict = {}
    skipped: set = set()
    identical: set = set()
    R = len(files)
    named = {int(m["rank"]) for f in files if (m := NAME.match(f.name))}
    if R > 1 and len(named) == R and named != set(range(R)):
        missing = min(set(range(R)) - named)
        raise ValueError(f"workload vt: stem {stem} in {files[0].parent}: rank {missing} is missing "
                         f"(files for ranks {', '.join(map(str, sorted(named)[:8]))}{', ...' if R > 8 else ''})")
    for f in files:
        data = read_json(f, max_bytes)
        meta = data.get("metadata") or {}
        m = NAME.match(f.name)
        rank = meta.get("rank", int(m["rank"]) if m else 0)
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
            raise ValueError(f"{f}: metadata rank {rank!r} is not a rank")
        if rank in by_rank:
            raise ValueError(f"{f}: claims rank {rank}, which {by_rank[rank].name} also claims")
        by_rank[rank] = f
        if "rank_alpha" in meta:
            alphas[rank] = _number(meta["rank_alpha"], str(f), "metadata rank_alpha")
        pm = meta.get("phases") or {}
        if not isinstance(pm, dict):
            raise ValueError(f"{f}: metadata phases is not an object")
        skipped |= phase_set(pm.get("skipped"), f, "skipped")
        identical |= phase_set(pm.get("identical_to_previous"), f, "identical_to_previous")
        for entry in data["phases"]:
            if not isinstance(entry, dict) or isinstance(entry.get("id"), bool) or not isinstance(entry.get("id"), int):
                raise ValueError(f"{f}: a phase without an integer 'id'")
            pid = entry["id"]
            recorded.setdefault(rank, set()).add(pid)
            if pid in skipped:
                continue
            ph = phases.setdefault(pid, Phase(pid))
            add_phase(ph, entry, f, subphase, task_bytes, R if len(files) > 1 else None)
        del data
    if len(files) > 1:
        missing = sorted(set(range(R)) - set(by_rank))
        if missing:
            raise ValueError(f"workload vt: stem {stem} in {files[0].parent}: rank {missing[0]} is missing "
                             f"({R} files claim ranks {', '.join(map(str, sorted(by_rank)[:8]))}"
                             f"{', ...' if R > 8 else ''})")
        files = [by_rank[r] for r in range(R)]
        for r in range(R):
            lacking = sorted(set(phases) - skipped - recorded.get(r, set()))
            if lacking:
                has = next(q for q in range(R) if lacking[0] in recorded.get(q, ()))
                raise ValueError(f"{files[r]}: rank {r} has no phase {lacking[0]}, which {files[has].name} records "
                                 f"(every rank file records every phase; {len(lacking)} missing)")
    else:
        R = max((max(ph.node + ph.home) for ph in phases.values() if ph.node), default=0) + 1
    for pid in skipped:
        phases.pop(pid, None)
    if subphase is not None and phases and not any(ph.has_subphase for ph in phases.values()):
        raise ValueError(f"workload vt: weight=subphase:{subphase}: no task of {stem} in {files[0].parent} has "
                         f"subphase {subphase} (every load would be 0); name a subphase the trace records")
    repeats = {}
    for pid in sorted(identical - set(phases) - skipped):
        prev = max((q for q in phases if q < pid), default=None)
        if prev is not None:
            repeats[pid] = repeats.get(prev, prev)
    ordered = [phases[p] for p in sorted(phases)]
    if not ordered:
        raise ValueError(f"workload vt: {path}: the trace has no phases")
    return Trace(stem, files, ordered, repeats, R, alphas)


def time_unit(trace: Trace, given: float = 0.0) -> float:
    """Seconds per pwgt unit: ``given``, or the largest power of ten <= 1 ps with every phase's total below 2^50."""
    total = max((math.fsum(ph.time) for ph in trace.phases), default=0.0)
    if given:
        if not (math.isfinite(given) and given > 0):
            raise ValueError(f"workload vt: time_unit_s={given}: must be a positive number of seconds (0: automatic)")
        if total / given > MAX_SUM:
            raise ValueError(f"workload vt: time_unit_s={given}: a phase's total time would exceed 2^50 units")
        return given
    unit = FINEST_UNIT_S
    while total / unit > MAX_SUM:
        unit *= 10
    return unit


def phase_graph(ph: Phase, unit: float) -> tuple[Graph, np.ndarray, np.ndarray, tuple]:
    """The phase's graph (pwgt in time units, cwgt in bytes, rwgt in 8-byte units), each vertex's fixed
    traffic in bytes, whether it communicates with itself and the task-to-task communications as LBAF keeps
    them: (from, to, bytes) per ordered pair of distinct tasks, zero bytes included, the last record's bytes
    (its ``ObjectCommunicator`` dicts, ``IO/lbsVTDataReader.py`` ``populate_phase``)."""
    n = len(ph.node)
    pwgt = np.rint(np.asarray(ph.time) / unit).astype(np.int64)
    rwgt = np.maximum(np.ceil(np.asarray(ph.nbytes) / BYTES_PER_UNIT), 1).astype(np.int64)
    get = ph.key.get
    u = np.fromiter((get(k, -1) for k in ph.comm_from), np.int64, len(ph.comm_from))
    v = np.fromiter((get(k, -1) for k in ph.comm_to), np.int64, len(ph.comm_to))
    b = np.asarray(ph.comm_bytes, float)
    fixed = np.zeros(n)
    one = (u >= 0) != (v >= 0)
    np.add.at(fixed, np.where(u[one] >= 0, u[one], v[one]), b[one])
    both = (u >= 0) & (v >= 0) & (u != v)
    self_comm = np.zeros(n, bool)
    self_comm[u[(u >= 0) & (u == v)]] = True
    pair = (u * max(n, 1) + v)[both][::-1]
    pairs, last = np.unique(pair, return_index=True)
    comm = (pairs // max(n, 1), pairs % max(n, 1), b[both][::-1][last])
    lo, hi = np.minimum(u[both], v[both]), np.maximum(u[both], v[both])
    keys, inv = np.unique(lo * max(n, 1) + hi, return_inverse=True)
    w = np.rint(np.bincount(inv, weights=b[both], minlength=keys.size)).astype(np.int64)
    keep = w > 0
    keys, w = keys[keep], w[keep]
    coords = None
    if n and all(ix is not None for ix in ph.index):
        dim = max(len(ix) for ix in ph.index)
        if dim:
            coords = np.zeros((n, dim))
            for i, ix in enumerate(ph.index):
                coords[i, :len(ix)] = ix
    for name, a in (("pwgt", pwgt), ("rwgt", rwgt), ("cwgt", w)):
        if a.size and float(a.sum()) > 2 ** 53:
            raise ValueError(f"workload vt: phase {ph.pid}: the {name} weights sum to more than 2^53 "
                             "(metrics would lose exactness)")
    g = Graph.from_edges(n, keys // max(n, 1), keys % max(n, 1), w, pwgt=pwgt, rwgt=rwgt, coords=coords,
                         name=f"phase-{ph.pid}")
    return g, fixed, self_comm, comm


def levels_of(trace: Trace, ranks_per_proc: int = 1, time_unit_s: float = 0.0) -> list[Level]:
    """One level per phase (repeats included), vertices linked across phases by entity identity."""
    if ranks_per_proc < 1:
        raise ValueError(f"workload vt: ranks_per_proc={ranks_per_proc}: must be >= 1")
    unit = time_unit(trace, time_unit_s)
    P = -(-trace.ranks // ranks_per_proc)
    built: dict = {}
    out, prev_keys = [], None
    order = sorted([(ph.pid, ph) for ph in trace.phases] + [(pid, None) for pid in trace.identical],
                   key=lambda t: t[0])
    for pid, ph in order:
        src = ph if ph is not None else next(p for p in trace.phases if p.pid == trace.identical[pid])
        if src.pid not in built:
            built[src.pid] = phase_graph(src, unit)
        g, fixed, self_comm, comm = built[src.pid]
        node = np.asarray(src.node, np.int64) // ranks_per_proc
        home = np.asarray(src.home, np.int64) // ranks_per_proc
        pinned = np.where(np.asarray(src.migratable, bool), -1, node)
        keys = list(src.key)
        parent = None
        if prev_keys is not None:
            parent = np.fromiter((prev_keys.get(k, -1) for k in keys), np.int64, len(keys))
        entity = np.empty(len(keys), np.int64)  # ids may exceed int64 (vt packs them in 64 bits unsigned)
        entity[sorted(range(len(keys)), key=lambda i: keys[i] if type(keys[i]) is int else keys[i][1])] = \
            np.arange(len(keys))
        meta = {"phase": pid, "node": node, "home": home, "fixed_bytes": fixed, "time_unit_s": unit,
                "entity_order": entity, "self_comm": self_comm, "comm": comm,
                "P": P, "ranks": trace.ranks,
                "ranks_per_proc": ranks_per_proc, "repeats": src.pid if ph is None else pid}
        shared = np.maximum(np.asarray(src.shared_id, np.int64), -1)  # LBAF: a block when shared_id > -1
        if (shared >= 0).any():
            meta["shared_bytes"] = np.asarray(src.shared_bytes, float)
        if src.has_memory:
            meta["footprint_bytes"], meta["working_bytes"] = (np.asarray(a, float) for a in (src.footprint, src.working))
            meta["rank_working_bytes"] = np.bincount(np.fromiter(src.rank_bytes, np.int64) // ranks_per_proc,
                                                     weights=list(src.rank_bytes.values()), minlength=P)
        if trace.rank_alpha and ranks_per_proc == 1:
            meta["rank_alpha"] = np.array([trace.rank_alpha.get(r, np.nan) for r in range(P)])
        out.append(Level(pid + 1, g, parent=parent, meta=meta, pinned=pinned, shared_id=shared))
        prev_keys = src.key
    return out


def processors(path: str, ranks_per_proc: int = 1, one_file: bool = False) -> int:
    """P of a trace without reading it: the rank files of its stem (one file: its ranks are read)."""
    _, files = rank_files(path, one_file)
    if len(files) == 1:
        return -(-read_trace(path, one_file=one_file).ranks // max(ranks_per_proc, 1))
    return -(-len(files) // max(ranks_per_proc, 1))


def generate(seed: int = 0, path: str = "", weight: str = "time", ranks_per_proc: int = 1,
             time_unit_s: float = 0.0, task_bytes: int = 1024, max_file_mb: int = 256, one_file: bool = False
             ) -> list[Level]:
    trace = read_trace(path, weight, task_bytes, max_file_mb, one_file)
    return levels_of(trace, ranks_per_proc, time_unit_s)


def procs_of(params: dict) -> int:
    return processors(params["path"], params["ranks_per_proc"], params["one_file"])


MAX_TASK_BYTES = 2 ** 40  # a task's migration bytes: 1 TiB
MAX_FILE_MB = 65536  # a rank file, read whole into memory: 64 GiB
MAX_RANKS_PER_PROC = 2 ** 20


def validate(params: dict) -> None:
    """Range checks, before any file is read."""
    check_params("workload vt", params, {"task_bytes": (0, MAX_TASK_BYTES), "max_file_mb": (1, MAX_FILE_MB),
                                         "ranks_per_proc": (1, MAX_RANKS_PER_PROC), "time_unit_s": (0.0, 1e6)})
    parse_weight(params["weight"])


WORKLOAD = Workload(
    "vt", generate, version="1", params=dict(PARAMS), cache=False, initial="trace", procs=procs_of, validate=validate,
    export=lambda params, seed, owners, directory: export(params, seed, owners, directory),
    sources=lambda params, seed: [rank_files(params["path"], params["one_file"])[1][0].parent],
    description="a DARMA vt LBDatafile trace (STEM.RANK.json, plain or brotli): phases as levels, "
                "tasks as vertices, pinned non-migratable tasks, the application's placement")


# ------------------------------------------------------------------ writing an assignment back

def is_brotli(path: Path) -> bool:
    with open(path, "rb") as fh:
        return not fh.read(64).lstrip().startswith(b"{")


def write_assignment(path: str, owners: dict, directory, ranks_per_proc: int = 1, max_file_mb: float = 256,
                     one_file: bool = False) -> Path:
    """The trace at ``path`` with every task's ``node`` set to its new rank, as ``DIRECTORY/STEM.RANK.json``.

    ``owners[level] = owner`` (processors, the vertex order of :func:`levels_of`); a phase without
    owners keeps its nodes. Processor p is rank ``p * ranks_per_proc`` unless the task already ran on
    one of p's ranks. A task goes into the file of its new rank; communications stay in the file
    that recorded them; each file keeps its metadata and its compression. A phase declared identical
    to the previous one is written out in full when it has owners of its own.
    """
    trace = read_trace(path, max_file_mb=max_file_mb, one_file=one_file)
    keys = {ph.pid: ph.key for ph in trace.phases}
    K = ranks_per_proc
    max_bytes = int(max_file_mb * 2**20)
    docs = [read_json(f, max_bytes) for f in trace.files] if len(trace.files) == trace.ranks \
        else [read_json(trace.files[0], max_bytes)] + [{"phases": []} for _ in range(trace.ranks - 1)]
    repeats_of: dict = {}
    for pid, src in trace.identical.items():
        if pid + 1 in owners:
            repeats_of.setdefault(src, []).append(pid)
    written = {pid for pids in repeats_of.values() for pid in pids}
    out: list[dict] = [{} for _ in range(trace.ranks)]  # rank -> phase id -> entry

    def entry(rank: int, pid: int, like: dict) -> dict:
        return out[rank].setdefault(pid, {**{k: v for k, v in like.items() if k not in ("tasks", "communications")},
                                          "id": pid, "tasks": [], "communications": []})

    for r, doc in enumerate(docs):
        for ph in doc["phases"]:
            pid = ph["id"]
            for target in [pid] + repeats_of.get(pid, []):
                own, key = owners.get(target + 1), keys.get(pid)
                entry(r, target, ph)["communications"].extend(ph.get("communications") or [])
                for t in ph["tasks"]:
                    rank = t["node"]
                    if own is not None and key is not None:
                        p = int(own[key[entity_key(t["entity"], "")]])
                        rank = rank if rank // K == p else p * K
                    entry(rank, target, ph)["tasks"].append({**t, "node": rank})
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(trace.ranks):
        doc = docs[r] if r < len(docs) else {}
        meta = dict(doc.get("metadata") or {})
        meta["rank"] = r
        if written and isinstance(meta.get("phases"), dict):
            same = meta["phases"].get("identical_to_previous") or {}
            ids = sorted(phase_set(same, trace.files[0], "identical_to_previous") - written)
            meta["phases"] = {**meta["phases"], "identical_to_previous": {"list": ids, "range": []}}
        new = {"type": "LBDatafile", "metadata": meta, "phases": [out[r][pid] for pid in sorted(out[r])]}
        raw = json.dumps(new, separators=(",", ":")).encode()
        if r < len(trace.files) and is_brotli(trace.files[r]):
            import brotli

            raw = brotli.compress(raw, quality=5)
        (folder / f"{trace.stem}.{r}.json").write_bytes(raw)
    return folder


def export(params: dict, seed: int, owners: dict, directory) -> Path:
    return write_assignment(params["path"], owners, directory, params["ranks_per_proc"], params["max_file_mb"],
                            params["one_file"])
