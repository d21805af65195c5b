"""The workload level cache: a workload's generated levels as one data-only ``.npz`` file, under
:func:`cache_dir` (``$LBBENCH_CACHE``, default ``~/.cache/lbbench``).

``write(path, levels)`` stores every level's data (Graph: xadj, adjncy, pwgt,
rwgt, cwgt, coords, name; Boxes: level, lo, hi, parent, ratio; LoadArray:
load), its ``parent`` map, its ``pinned`` and ``shared_id`` arrays and its ``meta`` (JSON values, numpy scalars and
arrays), atomically (temporary file + rename, removed on any error). A graph
array that several levels share (one object: shock's xadj, adjncy, coords) is
written once and named by the others (the header's ``refs``); ``read`` gives
them one frozen array again, so the levels share it in memory as they did.
``read(path)`` rebuilds the levels (``read(path, wanted=[...])`` only those from the
first to the last wanted, reading only their arrays), validating them through the model's
constructors; it loads with ``allow_pickle=False`` and never unpickles, so a
planted pickle cannot run. A missing file is ``None``; a corrupt one is
``None`` with one warning line on stderr (and is removed), so the workload is
regenerated.

Ranks on one host share one copy of the level (issue 52): ``write`` places every array of at least
``SHARED_BYTES`` at a 64-byte aligned offset of the file (uncompressed, as ``np.savez`` stores them; small
``-1.pad<k>`` members before them, which every reader of format 2 skips), and ``read`` maps such an array
straight from the file, read-only (``mmap``): its pages are the page cache's, one copy per host however many
processes read the file. A smaller array is copied, as it always was, and frozen too: whatever its size, an
array of a cached level is read-only (writing into it raises ``ValueError``). A file written before (format 2,
large arrays unaligned) is still read, its large arrays copied, and rewritten aligned once (the same members, so
the next reader maps them).
A graph's symmetry is checked once, where it is built (``Graph``), not again by each rank that reads it: ``write``
marks each graph ``symmetric`` in the header (a Graph is symmetric), and ``read`` builds such a graph with
``Graph(..., symmetric=True)``; every other check below is still made. A mapped member's bytes are checked against
its CRC-32, as ``zipfile`` checks a member it reads, so a level read is the one written. Each graph's ``src`` (the
row of each adjacency entry, which the metrics and many plugins read) is in the file too, once per xadj array, and
mapped like the rest (``Graph(..., src_array=...)`` checks it block by block): no rank computes its own. A graph not
so marked, or without its src (a file written before), is checked, and the file rewritten once with it marked and
its src added (with the alignment above).
A writer replaces a cache file (``os.replace``), never writes into it, so a mapped array does not change under a
run; a file another program edits in place while a run maps it is outside this contract.

Nothing in the file is trusted (:mod:`harness.store.validate`): it is read only if
it is a regular file (not a symlink, not a FIFO) of at most ``MAX_BYTES``,
unpacking to at most that; every numeric array it holds (whatever a level
caches) is finite and its integers within ``MAX_WEIGHT`` (2^53, the files
reader's limit), as are the sums of a graph's weights; the level list is
non-empty with increasing indices, every parent map is -1 (no parent: a trace's
new task) or a vertex of the previous level, a trace's placements (``meta["node"]``, ``meta["home"]``, the pins)
one processor below ``meta["P"]`` per vertex, and the list is equal to the workload's declared
``level_indices`` when it declares them (``read(path, expect=...)``).
"""
from __future__ import annotations

import io
import json
import mmap
import os
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..contract.model import Boxes, Graph, Level, LoadArray
from .results import from_data, remove_stale, to_data, warn, why
from .validate import MAX_WEIGHT, open_regular

FORMAT = 2  # 2: shared graph arrays written once (``refs``); 1 (no refs) is still read
MAX_BYTES = 1 << 34  # the largest generated workloads cache a few hundred MB
SHARED_BYTES = 1 << 16  # arrays of at least this many bytes are aligned in the file and mapped when read
ALIGN = 64
_LOCAL = 30 + 20  # a zip member's local header and the zip64 extra field np.savez writes with it
_GRAPH = ("xadj", "adjncy", "pwgt", "rwgt", "cwgt")
_BOXES = ("level", "lo", "hi", "parent")


def cache_dir() -> Path:
    """The workload cache's directory: ``$LBBENCH_CACHE``, default ``~/.cache/lbbench``."""
    return Path(os.environ.get("LBBENCH_CACHE", Path.home() / ".cache" / "lbbench"))


def write(path: str | os.PathLike, levels: list[Level]) -> bool:
    """Cache ``levels`` at ``path``; True when written.

    A meta value that is not data is ``ValueError`` naming the level and key
    (nothing is written); an error while writing (disk full, read-only
    directory) removes the temporary file, warns once and returns False.
    """
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    refs: dict[str, str] = {}
    first: dict[int, tuple[str, np.ndarray]] = {}  # id of a graph array written already -> (its key, it)
    rows: dict = {}  # the key of a graph's xadj -> the key of its src
    head = []
    for i, lv in enumerate(levels):
        p = f"{i}."
        d = lv.data
        entry = {"index": int(lv.index), "parent": lv.parent is not None}
        if isinstance(d, Graph):
            # a Graph is symmetric (checked or built so): its reader need not check again (``_levels``)
            entry.update(form="graph", name=d.name, coords=d.coords is not None, symmetric=True, src=True)
            for k in _GRAPH + (("coords",) if d.coords is not None else ()):
                a = getattr(d, k)
                if id(a) in first:
                    refs[p + k] = first[id(a)][0]
                else:
                    first[id(a)] = (p + k, a)
                    arrays[p + k] = np.asarray(a)
            _put_src(arrays, refs, rows, p, d.xadj)
        elif isinstance(d, Boxes):
            entry.update(form="boxes", ratio=int(d.ratio))
            for k in _BOXES:
                arrays[p + k] = np.asarray(getattr(d, k))
        elif isinstance(d, LoadArray):
            entry.update(form="array")
            arrays[p + "load"] = np.asarray(d.load)
        else:
            raise ValueError(f"level {lv.index}: cannot cache data of type {type(d).__name__}")
        if lv.parent is not None:
            arrays[p + "parent_map"] = np.asarray(lv.parent)
        for k in ("pinned", "shared_id"):
            if getattr(lv, k) is not None:
                entry[k] = True
                arrays[p + k] = np.asarray(getattr(lv, k))
        if not isinstance(lv.meta, dict):
            raise ValueError(f"level {lv.index}: meta is a {type(lv.meta).__name__}, not a dict")
        try:
            entry["meta"] = to_data(lv.meta, arrays, p + "meta", f"level {lv.index} meta")
        except TypeError as exc:
            raise ValueError(str(exc)) from None
        head.append(entry)
    arrays["levels.json"] = np.frombuffer(json.dumps({"format": FORMAT, "levels": head, "refs": refs}).encode(),
                                          np.uint8)
    return _save(path, arrays)


def _save(path: Path, arrays: dict) -> bool:
    """``arrays`` written :func:`aligned` at ``path`` atomically; False (one warning) on an error while writing."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(path.parent, f".{path.name}.*.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, **aligned(arrays))
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if not isinstance(exc, OSError):
            raise
        warn(f"workload cache {path}: cannot write ({exc.strerror or exc}); levels are not cached")
        return False
    return True


def _npy_header(a: np.ndarray) -> int:
    """The bytes of the ``.npy`` header ``np.save`` writes before ``a``'s data (version 1.0)."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, np.lib.format.header_data_from_array_1_0(a))
    return buf.tell()


def aligned(arrays: dict) -> dict:
    """``arrays`` in order, with a ``-1.pad<k>`` array (uint8 zeros) before each one of at least ``SHARED_BYTES``
    whose data would not start at a multiple of ``ALIGN`` bytes of the file ``np.savez`` writes."""
    out, at = {}, 0
    for k, a in arrays.items():
        a = np.asanyarray(a)
        member = _LOCAL + len(f"{k}.npy".encode()) + _npy_header(a)
        if a.nbytes >= SHARED_BYTES and (at + member) % ALIGN:
            name = f"-1.pad{len(out)}"
            size = next(s for s in range(ALIGN) if (at + _LOCAL + len(f"{name}.npy") + s +
                                                     _npy_header(np.zeros(s, np.uint8)) + member) % ALIGN == 0)
            out[name] = np.zeros(size, np.uint8)
            at += _LOCAL + len(f"{name}.npy") + _npy_header(out[name]) + size
        out[k] = a
        at += member + a.nbytes
    return out


def read(path: str | os.PathLike, expect: list[int] | None = None, wanted: list[int] | None = None
         ) -> list[Level] | None:
    """The cached levels, or None when the file is missing or corrupt (corrupt: one warning line, removed).

    ``expect``: the level indices the workload declares for its parameters (checked when given).
    ``wanted``: the level indices a run needs; when the file holds them all, only the levels from the first
    to the last of them are read (their arrays only, with the previous level's size to check the first one's
    parent map); None, or a level the file lacks: all (a caller's error then names the levels there are).
    """
    path = Path(path)
    if not os.path.lexists(path):
        return None
    try:
        levels, indices, stale = _levels(path, wanted)
        if expect is not None and indices != list(expect):
            raise ValueError(f"levels {_span(indices)}, the workload declares {_span(list(expect))}")
    except Exception as exc:  # any failure to read means the cache is unusable: regenerate
        warn(f"workload cache {path} is unreadable ({why(exc)}); regenerating it")
        try:
            path.unlink()
        except OSError:
            pass
        return None
    if stale:  # written before issue 52: the same arrays again, aligned, the graphs read now marked and their src
        try:
            _refresh(path, levels)
        except (OSError, ValueError):  # (gone or replaced meanwhile: the next reader sees what is there)
            pass
    return levels


def _put_src(arrays: dict, refs: dict, rows: dict, p: str, xadj: np.ndarray) -> None:
    """The ``src`` of level ``p``'s graph (the row of each adjacency entry) as the member ``<p>src``, once per
    xadj member (``rows``: xadj's key -> its src's key; a level whose graph shares another's xadj names that
    one's src in ``refs``). Read, it is mapped and the Graph takes it (``src_array``): one copy per host."""
    xkey = refs.get(p + "xadj", p + "xadj")
    if xkey in rows:
        refs[p + "src"] = rows[xkey]
    else:
        rows[xkey] = p + "src"
        arrays[p + "src"] = np.repeat(np.arange(xadj.size - 1, dtype=np.int64), np.diff(xadj))


def _refresh(path: Path, levels: list[Level]) -> None:
    """Rewrite the valid cache file ``path`` with every member as it is, large arrays aligned (:func:`aligned`),
    and the graphs of ``levels`` (read and checked) marked ``symmetric`` in its header, with their ``src``;
    nothing (and no warning) in a directory this process cannot write (a cache shared read-only)."""
    if not os.access(path.parent, os.W_OK):
        return
    with open_regular(path, MAX_BYTES, "cache file") as fh, np.load(fh, allow_pickle=False) as npz:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        arrays = {}
        for info in npz.zip.infolist():  # large ones as views of the file (written from there), the rest read
            a = _mapped(mm, info, anywhere=True)
            arrays[info.filename[:-4]] = npz[info.filename[:-4]] if a is None else a
        head = _header(npz)
    read = {lv.index: lv.data for lv in levels if isinstance(lv.data, Graph)}
    refs = head["refs"]
    rows = {refs.get(f"{i}.xadj", f"{i}.xadj"): refs.get(f"{i}.src", f"{i}.src")
            for i, e in enumerate(head["levels"]) if e.get("src") is True}
    for i, e in enumerate(head["levels"]):
        if e.get("form") == "graph" and e["index"] in read:
            e["symmetric"] = True
            if e.get("src") is not True:
                e["src"] = True
                _put_src(arrays, refs, rows, f"{i}.", read[e["index"]].xadj)
    arrays["levels.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
    _save(path, {k: a for k, a in arrays.items() if not k.startswith("-1.")})


def _span(indices: list) -> str:
    return f"{indices[0]}-{indices[-1]} ({len(indices)})" if indices else "none"


def check_array(name: str, a: np.ndarray) -> None:
    """A cached array is numbers (or text) within the files reader's limits: finite, integers <= 2^53."""
    if a.dtype.kind in "iu":
        if a.size and (int(a.max()) > MAX_WEIGHT or int(a.min()) < -MAX_WEIGHT):
            raise ValueError(f"array {name} holds values beyond 2^53")
    elif a.dtype.kind in "fc":
        if not np.all(np.isfinite(a)):
            raise ValueError(f"array {name} holds values that are not finite")
        if a.size and np.abs(a).max() > MAX_WEIGHT:
            raise ValueError(f"array {name} holds values beyond 2^53")
    elif a.dtype.kind not in "bUS":
        raise ValueError(f"array {name} has dtype {a.dtype}")


def _check_level(lv: Level) -> None:
    d = lv.data
    if isinstance(d, Graph):
        for k in ("pwgt", "rwgt", "cwgt"):
            if int(getattr(d, k).sum(dtype=object)) > MAX_WEIGHT:
                raise ValueError(f"level {lv.index}: the {k} weights sum to more than 2^53")
        _check_placement(lv, d.n)
    if lv.parent is not None:
        parent = np.asarray(lv.parent)
        # -1: a vertex with no parent (a trace's new task, docs/plugins.md); a vanished one is simply not named
        if parent.ndim != 1 or parent.dtype.kind not in "iu" or (parent.size and parent.min() < -1):
            raise ValueError(f"level {lv.index}: bad parent map")


def _check_placement(lv: Level, n: int) -> None:
    """A trace level's ``meta["node"]``/``meta["home"]`` (processors, docs/plugins.md "--initial trace") hold one
    processor in ``[0, meta["P"])`` per vertex, and its pins name processors below ``meta["P"]``."""
    P = lv.meta.get("P")
    if not isinstance(P, int) or isinstance(P, bool):
        return
    for k in ("node", "home"):
        a = lv.meta.get(k)
        if a is None:
            continue
        a = np.asarray(a)  # an array, or a list of processors (sbn-example's)
        if a.dtype.kind not in "iu" or a.shape != (n,):
            raise ValueError(f"level {lv.index}: meta {k} is not one processor per vertex ({n})")
        if n and (int(a.min()) < 0 or int(a.max()) >= P):
            raise ValueError(f"level {lv.index}: meta {k} names a processor outside [0, {P})")
    if lv.pinned is not None and lv.pinned.size and int(lv.pinned.max()) >= P:
        raise ValueError(f"level {lv.index}: pinned names a processor outside [0, {P})")


def _header(npz) -> dict:
    raw = npz["levels.json"]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError("bad header")
    head = json.loads(raw.tobytes().decode())
    if not isinstance(head, dict) or head.get("format") not in (1, FORMAT) or not isinstance(head.get("levels"), list):
        raise ValueError("bad header")
    if not all(isinstance(e, dict) and isinstance(e.get("index"), int) for e in head["levels"]):
        raise ValueError("bad level entry")
    refs = head.setdefault("refs", {})
    if not isinstance(refs, dict) or not all(isinstance(k, str) and v in npz.files for k, v in refs.items()):
        raise ValueError("bad header")
    return head


def _mapped(mm: mmap.mmap, info: zipfile.ZipInfo, anywhere: bool = False) -> np.ndarray | None:
    """The array a stored (uncompressed) ``.npy`` member of at least ``SHARED_BYTES`` holds, as a read-only view
    of the mapped file, when its data is aligned in the file (``write`` places it so; ``anywhere``: also when
    not); None otherwise (it is read and copied). A member whose bytes do not match its CRC-32 (the check
    ``zipfile`` makes of a member it reads) is ``ValueError``."""
    if info.compress_type != zipfile.ZIP_STORED or info.file_size < SHARED_BYTES:
        return None
    head = mm[info.header_offset:info.header_offset + 30]
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        return None
    start = info.header_offset + 30 + sum(struct.unpack("<HH", head[26:30]))
    fp = io.BytesIO(mm[start:start + min(info.file_size, 1 << 16)])
    try:
        version = np.lib.format.read_magic(fp)
        shape, fortran, dtype = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                                 np.lib.format.read_array_header_2_0)(fp)
    except ValueError:
        return None
    offset, count = start + fp.tell(), int(np.prod(shape, dtype=np.int64))
    if version not in ((1, 0), (2, 0)) or fortran or dtype.hasobject or \
            (offset % ALIGN and not anywhere) or fp.tell() + count * dtype.itemsize != info.file_size:
        return None
    a = np.frombuffer(mm, dtype, count, offset).reshape(shape)
    if zlib.crc32(a.reshape(-1).view(np.uint8), zlib.crc32(mm[start:offset])) != info.CRC:
        raise ValueError(f"member {info.filename} is damaged (CRC-32)")
    return a


def _levels(path: Path, wanted: list[int] | None = None) -> tuple[list[Level], list[int], bool]:
    """The levels :func:`read` reads for ``wanted``, the indices of all the file holds, and whether the file is
    one written before issue 52: a large array of them copied because it is not aligned in the file, or a graph
    not marked ``symmetric`` (checked here)."""
    # a .npy file is no context manager: TypeError
    with open_regular(path, MAX_BYTES, "cache file") as fh, np.load(fh, allow_pickle=False) as npz:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)  # open while an array maps it (no close)
        if sum(i.file_size for i in npz.zip.infolist()) > MAX_BYTES:
            raise ValueError(f"cache file unpacks to more than {MAX_BYTES} bytes")
        head = _header(npz)
        entries, refs = head["levels"], head["refs"]
        if not entries:
            raise ValueError("no levels")
        every = [e["index"] for e in entries]
        span = (min(wanted), max(wanted)) if wanted and set(wanted) <= set(every) else (min(every), max(every))
        pick = [i for i, x in enumerate(every) if span[0] <= x <= span[1]]
        # the arrays of the picked levels (a shared one once, under each name), the previous level's xadj
        want = {k for k in npz.files if k != "levels.json" and int(k.split(".", 1)[0]) in pick}
        want |= {k for k in refs if int(k.split(".", 1)[0]) in pick}
        if pick and pick[0] > 0 and entries[pick[0] - 1].get("form") == "graph":
            want.add(f"{pick[0] - 1}.xadj")
        arrays, stale = {}, False
        for k in sorted(want):  # mapped, or owned (a view of np.load's buffer is copied here, one at a time)
            name = refs.get(k, k)
            if name not in arrays:
                info = npz.zip.getinfo(f"{name}.npy")
                a = _mapped(mm, info)
                if a is None:
                    stale |= _mapped(mm, info, anywhere=True) is not None
                    a = npz[name]
                    a = a if a.flags.owndata else a.copy()
                a.setflags(write=False)
                arrays[name] = a
                check_array(name, a)
            arrays[k] = arrays[name]

    out = []
    for i in pick:
        e = entries[i]
        p = f"{i}."
        form = e.get("form")
        if form == "graph":
            coords = arrays[p + "coords"] if e["coords"] else None
            name = e["name"]
            if not isinstance(name, str):
                raise ValueError("graph name is not a string")
            # frozen (mapped or owned): the Graphs take them as they are, however many levels share them; a
            # graph the writer had checked symmetric is not checked again (every member's CRC-32 is checked)
            checked, src = e.get("symmetric") is True, arrays[p + "src"] if e.get("src") is True else None
            stale |= not checked or src is None
            data = Graph(*(arrays[p + k] for k in _GRAPH), coords=coords, name=name, symmetric=checked,
                         src_array=src)
        elif form == "boxes":
            data = Boxes(*(arrays[p + k] for k in _BOXES), ratio=int(e["ratio"]))
        elif form == "array":
            data = LoadArray(arrays[p + "load"])
        else:
            raise ValueError(f"unknown level form {form!r}")
        parent = arrays[p + "parent_map"] if e["parent"] else None
        meta = from_data(e["meta"], arrays)
        if not isinstance(meta, dict):
            raise ValueError("bad level entry")
        pinned, shared = (arrays[p + k] if e.get(k) else None for k in ("pinned", "shared_id"))
        out.append(Level(e["index"], data, parent=parent, meta=meta, pinned=pinned, shared_id=shared))
        _check_level(out[-1])
    if any(b <= a for a, b in zip(every, every[1:])) or every[0] < 0:
        raise ValueError("level indices are not increasing")
    prev = f"{pick[0] - 1}.xadj" if pick else ""  # the level before the first one read, when a graph
    prev_n = arrays[prev].size - 1 if prev in arrays else None
    for lv in out:
        if prev_n is not None and isinstance(lv.data, Graph) and lv.parent is not None and \
                (np.asarray(lv.parent).size != lv.data.n or (lv.data.n and int(np.max(lv.parent)) >= prev_n)):
            raise ValueError(f"level {lv.index}: parent map does not fit the two levels")
        prev_n = lv.data.n if isinstance(lv.data, Graph) else None
    return out, every, stale
