"""The results store: one JSON row and one ``.npz`` state file per finished cell, under a results directory.

A cell is keyed by everything that determines it (workload and its version and
parameters, the first level of the run, the level, the method with its
resolved parameters, plugin versions and source hashes, P, machine, seed), so a
comparison killed half-way resumes from the last finished level of each method
and no finished cell is lost.

Layout of ``<results>/cells/``:

* ``KEY.json``  the row: a flat JSON object of scalars and strings with an
  int ``level`` and str ``algorithm`` and ``status`` (validated on reading);
* ``KEY.npz``   the state after the cell and the algorithm's memory, written
  first, so a row without its state does not count as finished; compressed
  (:func:`savez`: an ``np.savez_compressed`` file, deflated at level 1),
  owners, homes and box pieces in the smallest integer type that holds them
  (read back as the same numbers). Arrays: ``owner``, ``home``, ``pieces_box``
  ... ``pieces_level`` when the state carries box pieces, ``memory.<field>`` for memory arrays (nested ones
  ``memory.<field>.<i>``), and ``cell.json`` (UTF-8 bytes): format, key, P
  and the memory's class and other fields as JSON (:func:`to_data`).
* ``corrupt/``  cells that could not be read, moved aside (with one warning
  line on stderr) so they are recomputed.

Nothing stored is trusted (:mod:`harness.store.validate`): a cell is read only if
both files are regular files (never through a symbolic link, never a FIFO) of
at most ``MAX_ROW_BYTES`` / ``MAX_STATE_BYTES``, its row matches the cell it is
asked for (workload, level, algorithm, parameters, P, ...: the ``expect``
columns), its core figures are in their domains and its memory fits the
memory dataclass's field types. Anything else goes to ``cells/corrupt/`` (if
that is a real directory in the store; else the cell's files are removed).

Everything is data: rows are JSON and arrays are loaded with
``allow_pickle=False``; nothing stored is ever unpickled, so a planted pickle
cannot run. Cells of older versions (``KEY.pkl``) are moved aside, never read.
Files are written atomically (temporary file + rename) by rank 0 only; a
temporary file is removed on any error. A results directory that is not
writable is read (one warning line) and nothing is stored.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import stat
import struct
import subprocess
import sys
import zipfile
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..contract.model import State
from ..contract.pieces import BoxPieces
from .validate import check_figures, check_types, open_regular

DEFAULT_DIR = "lbbench-results"
FORMAT = 2  # 1: pickled states (before contract 1.0)
PIECES = ("box", "lo", "hi", "owner", "level")
_SCALARS = (type(None), bool, int, float, str)
MAX_ROW_BYTES = 1 << 20   # a row is a few kB
MAX_STATE_BYTES = 1 << 33  # owners, homes and memories of the largest workloads are far below 8 GiB


def warn(msg: str) -> None:
    """One warning line on stderr."""
    print(f"lbbench: warning: {msg}", file=sys.stderr, flush=True)


class Store:
    """Finished cells under ``path`` (default ``$LBBENCH_RESULTS`` or ``./lbbench-results``).

    ``writer=False`` (ranks other than 0) only reads. A writer whose
    directory cannot be written falls back to reading with one warning line.
    """

    def __init__(self, path: str | os.PathLike | None = None, writer: bool = True):
        self.path = Path(path or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR))
        self.cells = self.path / "cells"
        self.writer = writer
        swept = False
        if writer:
            try:
                self.cells.mkdir(parents=True, exist_ok=True)
                swept = _SWEPT.get(str(self.cells)) == _dir_state(self.cells)  # unchanged since this process swept it
                writable = _writable(self.cells)
            except OSError:
                writable = False
            if not writable:
                self.writer = False
                warn(f"results directory {self.path} is not writable: reading stored cells, storing nothing")
        if self.cells.exists() and not os.access(self.cells, os.R_OK | os.X_OK):
            raise OSError(f"results directory {self.path}: not readable")
        if self.writer:
            if not swept:
                remove_stale(self.cells, ".*.*.npz", ".*.*.json")
                self._retire_pickles()
            _SWEPT[str(self.cells)] = _dir_state(self.cells)

    @staticmethod
    def key(cell: dict) -> str:
        return hashlib.sha256(json.dumps(cell, sort_keys=True, default=str).encode()).hexdigest()[:24]

    # -- reading -------------------------------------------------------------------------------------

    def get(self, key: str, memory_cls=None, expect: dict | None = None,
            check=None) -> tuple[dict, State, object] | None:
        """(row, state after the cell, memory instance or None); None when absent or corrupt (moved aside).

        ``memory_cls``: the algorithm's memory class, None (no memory wanted:
        None is returned for it), or a dict step name -> class (or None) for a
        composite method, giving a dict step name -> instance. A stored memory
        that does not match is unusable: the cell is recomputed. ``expect``:
        columns the row must hold with exactly these values (the cell's key
        fields); ``check(row, state, memory)``: the caller's own test (raises
        to reject the cell).
        """
        row_f, st_f = self.cells / f"{key}.json", self.cells / f"{key}.npz"
        if not os.path.lexists(row_f):
            return None
        if not os.path.lexists(st_f):  # killed between the two renames, or an older version's cell
            return None
        try:
            row = _stored_row(row_f, expect)
            arrays, head = _load_npz(st_f)
            if head.get("format") != FORMAT or head.get("key") != key:
                raise ValueError("state file belongs to another cell or format")
            state = _state_from(arrays, head)
            if expect and "P" in expect and state.P != expect["P"]:
                raise ValueError(f"state file has P = {state.P}, the cell {expect['P']}")
            memory = None if memory_cls is None else memory_from(memory_cls, head.get("memory"), arrays)
            if check is not None:
                check(row, state, memory)
            return row, state, memory
        except Exception as exc:  # any failure to read means the cell is unusable: recompute it
            self._aside(key, why(exc))
            return None

    def row(self, key: str, expect: dict | None = None) -> dict | None:
        """A finished cell's row alone (its state file a regular file of at most ``MAX_STATE_BYTES``, not
        read), or None; :meth:`get` reads the whole cell (and moves an unusable one aside)."""
        row_f = self.cells / f"{key}.json"
        try:
            st = os.lstat(row_f.with_suffix(".npz"))
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_STATE_BYTES:  # get() moves it aside
                return None
            return _stored_row(row_f, expect)
        except Exception:  # noqa: BLE001 - get() reads it again and reports it
            return None

    def rows(self) -> list[dict]:
        """The valid rows of finished cells (a row with its state file), in key order."""
        out = []
        for f in sorted(self.cells.glob("*.json")):
            if f.name.startswith(".") or not os.path.lexists(f.with_suffix(".npz")):  # temporary, or unfinished
                continue
            try:
                out.append(check_stored(_read_row(f)))
            except Exception as exc:
                self._aside(f.stem, why(exc))
        return out

    # -- writing -------------------------------------------------------------------------------------

    def put(self, key: str, row: dict, state: State, memory) -> None:
        """Store a finished cell (rank 0; a reader does nothing).

        ``memory``: an instance of the algorithm's memory class, None, or a
        dict step name -> instance (or None). A memory field that is not data
        raises ``TypeError`` and a row that is not flat ``ValueError``, both
        before anything is written; an error while writing (disk full)
        removes the temporary files, warns once and stops storing.
        """
        if not self.writer:
            return
        row = check_row({k: _plain(v) for k, v in row.items()})
        arrays = {"owner": _narrow(np.asarray(state.owner)), "home": _narrow(np.asarray(state.home))}
        head = {"format": FORMAT, "key": key, "P": int(state.P), "pieces": False, "memory": None}
        pieces = getattr(state, "pieces", None)
        if pieces is not None:
            head["pieces"] = True
            for name in PIECES:  # IGD at P = 64: 1.3 M pieces a step, a third of the bytes in int32
                arrays[f"pieces_{name}"] = _narrow(np.asarray(getattr(pieces, name)))
        if memory is not None:
            head["memory"] = memory_to(memory, arrays)
        arrays["cell.json"] = np.frombuffer(json.dumps(head).encode(), np.uint8)
        body = json.dumps(row, allow_nan=True)
        tmp = self.cells / f".{key}.{os.getpid()}"
        try:
            with open(f"{tmp}.npz", "wb") as fh:
                savez(fh, arrays)
            with open(f"{tmp}.json", "w") as fh:
                fh.write(body)
            # state first: a row without its state does not count as finished
            os.replace(f"{tmp}.npz", self.cells / f"{key}.npz")
            os.replace(f"{tmp}.json", self.cells / f"{key}.json")
        except BaseException as exc:
            for suffix in (".npz", ".json"):
                try:
                    os.unlink(f"{tmp}{suffix}")
                except OSError:
                    pass
            if not isinstance(exc, OSError):
                raise
            self.writer = False
            warn(f"results directory {self.path}: cannot store cell {key} ({_one_line(exc)}); storing nothing more")
            return
        try:
            (self.cells / f"{key}.pkl").unlink()  # an older version's state for the same key
        except OSError:
            pass

    def put_row(self, key: str, row: dict) -> None:
        """Replace a stored cell's row (a retimed cell: its timing columns), its state file as it is; nothing
        when the cell is not stored (its state first) or this store only reads."""
        if not self.writer or not os.path.lexists(self.cells / f"{key}.npz"):
            return
        body = json.dumps(check_row({k: _plain(v) for k, v in row.items()}), allow_nan=True)
        tmp = self.cells / f".{key}.{os.getpid()}.json"
        try:
            tmp.write_text(body)
            os.replace(tmp, self.cells / f"{key}.json")
        except OSError as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            self.writer = False
            warn(f"results directory {self.path}: cannot store cell {key} ({_one_line(exc)}); storing nothing more")

    # -- healing -------------------------------------------------------------------------------------

    def _aside(self, key: str, why: str) -> None:
        if not self.writer:
            warn(f"results directory {self.path}: cell {key} is unreadable ({why}); recomputing it")
            return
        corrupt = _corrupt_dir(self.cells)
        try:
            for suffix in (".json", ".npz"):
                f = self.cells / f"{key}{suffix}"
                if os.path.lexists(f):  # a symlink is moved (or removed) itself, never followed
                    os.replace(f, corrupt / f.name) if corrupt else os.unlink(f)
        except OSError:
            pass
        warn(f"results directory {self.path}: cell {key} is unreadable ({why}); "
             + ("moved to cells/corrupt/" if corrupt else "removed (cells/corrupt is not a directory)")
             + ", recomputing it")

    def _retire_pickles(self) -> None:
        """Move the cells of older versions (pickled states, never loaded) aside, with one warning line."""
        old = sorted(self.cells.glob("*.pkl"))
        if not old:
            return
        corrupt = _corrupt_dir(self.cells)
        if corrupt is None:
            return
        try:
            for f in old:
                for g in (f, f.with_suffix(".json")):
                    if g.exists() and not (g.suffix == ".json" and f.with_suffix(".npz").exists()):
                        os.replace(g, corrupt / g.name)
        except OSError:
            pass
        warn(f"results directory {self.path}: {len(old)} cell(s) stored as pickles by an older lbbench "
             "moved to cells/corrupt/ unread; they will be recomputed")


def _corrupt_dir(cells: Path) -> Path | None:
    """``cells/corrupt``, created if missing; None if something else (a symlink, a file) is in its place."""
    corrupt = cells / "corrupt"
    try:
        corrupt.mkdir(exist_ok=True)
        return corrupt if stat.S_ISDIR(os.lstat(corrupt).st_mode) else None
    except OSError:
        return None


STALE = 600.0  # seconds: no writer keeps a temporary file this long


def remove_stale(d: Path, *patterns: str) -> None:
    """Remove temporary files in ``d`` left by a killed writer (older than ``STALE`` seconds)."""
    import time

    now = time.time()
    for pattern in patterns:
        for f in d.glob(pattern):
            try:
                if now - f.stat().st_mtime > STALE:
                    f.unlink()
            except OSError:
                pass


_SWEPT: dict = {}  # cells directory -> its state when this process last swept it (reports open it often)


def _dir_state(d: Path) -> tuple:
    st = os.stat(d)
    return st.st_ino, st.st_mtime_ns


def _writable(d: Path) -> bool:
    """Whether a file can be created in ``d`` (tried for real: read-only mounts, ACLs and root all differ)."""
    probe = d / f".probe.{os.getpid()}"
    try:
        with open(probe, "x"):
            pass
    except OSError:
        return False
    try:
        probe.unlink()
    except OSError:
        pass
    return True


def _one_line(exc: BaseException) -> str:
    s = str(exc).strip()
    return s.splitlines()[0] if s else type(exc).__name__


def why(exc: BaseException) -> str:
    """Why a stored file is unusable, in a few words (numpy's advice to unpickle is not repeated)."""
    s = _one_line(exc)
    if "pickle" in s.lower():
        return "it holds pickled data, which is never loaded"
    return f"{type(exc).__name__}: {s}" if s != type(exc).__name__ else s


# -- rows ----------------------------------------------------------------------------------------------

def _plain(v):
    """A numpy scalar as the Python scalar; anything else unchanged."""
    return v.item() if isinstance(v, np.generic) else v


def check_row(row) -> dict:
    """``row`` if it is a valid stored row (a flat dict of JSON scalars with int level, str algorithm and
    status), else ``ValueError`` naming the problem."""
    if not isinstance(row, dict):
        raise ValueError(f"row is a {type(row).__name__}, not an object")
    for col, typ in (("level", int), ("algorithm", str), ("status", str)):
        if col not in row:
            raise ValueError(f"row has no {col!r}")
        if not isinstance(row[col], typ) or isinstance(row[col], bool):
            raise ValueError(f"row's {col!r} is not {typ.__name__}")
    for col, v in row.items():
        if not isinstance(col, str) or not isinstance(v, _SCALARS):
            raise ValueError(f"row's {col!r} is a {type(v).__name__}, not a scalar or string")
    return row


def stored(out: str | os.PathLike | None, skipped: list | None = None) -> list[tuple[str, dict, float]]:
    """Every finished cell under the results directory ``out``, read only: (key, its row as checked, the row
    file's mtime), each file read once per process while it stays the same one (:func:`_stored_row`); a row
    that does not check is left out (``compare`` moves it aside when it next runs) and, given ``skipped``,
    appended to it as (file name, reason)."""
    cells = Path(out or os.environ.get("LBBENCH_RESULTS", DEFAULT_DIR)) / "cells"
    got = []
    for f in cells.glob("*.json") if cells.is_dir() else ():
        if f.name.startswith(".") or not os.path.lexists(f.with_suffix(".npz")):  # temporary, or unfinished
            continue
        try:
            got.append((f.stem, _stored_row(f, None), os.lstat(f).st_mtime))
        except Exception as exc:  # noqa: BLE001 - unreadable or damaged: not a stored cell
            if skipped is not None:
                skipped.append((f.name, " ".join(str(exc).split())[:200] or type(exc).__name__))
    return got


def _read_row(path: Path):
    """A stored row's JSON (a regular file of at most ``MAX_ROW_BYTES``)."""
    with open_regular(path, MAX_ROW_BYTES, "row file") as fh:
        return json.loads(fh.read().decode())


_ROWS: dict = {}  # row file -> (its inode, size and mtime, the row as checked): reports read a row many times


def _stored_row(path: Path, expect: dict | None) -> dict:
    """A copy of a stored row, read and checked (:func:`check_stored`) once for as long as its file stays the
    same one (cells are written by renaming a new file over the old: a new inode); then ``expect`` checked."""
    st = os.lstat(path)
    sig = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _ROWS.get(str(path))
    if hit is None or hit[0] != sig:
        if len(_ROWS) >= 65536:
            _ROWS.clear()
        hit = _ROWS[str(path)] = (sig, check_stored(_read_row(path)))
    return _expected(dict(hit[1]), expect)


def check_stored(row, expect: dict | None = None) -> dict:
    """A row read back from the store: :func:`check_row`, the core figures in their domains
    (:func:`harness.store.validate.check_figures`) and every ``expect`` column equal to the cell's."""
    check_figures(check_row(row))
    return _expected(row, expect)


def _expected(row: dict, expect: dict | None) -> dict:
    for col, want in (expect or {}).items():
        if col not in row or row[col] != want or type(row[col]) is not type(want):
            raise ValueError(f"row's {col!r} is {row.get(col)!r}, the cell's is {want!r}")
    return row


# -- states --------------------------------------------------------------------------------------------

_LOCAL = struct.Struct("<IHHHHHIIIHH")  # a zip member's local header (APPNOTE 4.3.7)
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # its central directory entry (4.3.12)
_END = struct.Struct("<IHHHHIIH")  # the end of the central directory (4.3.16)
_DOS_DATE = (1 << 5) | 1  # 1980-01-01, 00:00, as zipfile dates a member it streams
SMALL_ZIP = 1 << 31  # bytes (and members below 0xffff): offsets and sizes fit the plain zip headers


def savez(fh, arrays: dict) -> None:
    """``np.savez_compressed(fh, **arrays)`` deflated at level 1 instead of zlib's default 6: the same arrays for
    ``np.load``, a third of the CPU and, on the store's cells, no larger (400 cells of a full reproduce: 16.1 s
    and 95.4 MB at level 6, 5.0 s and 93.3 MB at level 1). A member whose ``.npy`` bytes are those of one before
    it (homes equal to owners: every settled state) is written again from the same deflated bytes, deflated
    once. Up to :data:`SMALL_ZIP` bytes the zip is written here, beyond through ``zipfile`` (ZIP64)."""
    arrays = {name: np.asanyarray(a) for name, a in arrays.items()}
    if sum(a.nbytes + 256 for a in arrays.values()) >= SMALL_ZIP or len(arrays) >= 0xFFFF:
        return _savez_zip64(fh, arrays)
    deflated: dict = {}  # .npy bytes -> (crc32, deflated bytes)
    central, at = [], 0
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.lib.format.write_array(buf, a, allow_pickle=False)
        raw, member = buf.getvalue(), (name + ".npy").encode()
        if raw not in deflated:
            z = zlib.compressobj(1, zlib.DEFLATED, -15)
            deflated[raw] = zlib.crc32(raw), z.compress(raw) + z.flush()
        crc, packed = deflated[raw]
        fh.write(_LOCAL.pack(0x04034B50, 20, 0, zipfile.ZIP_DEFLATED, 0, _DOS_DATE, crc, len(packed), len(raw),
                             len(member), 0) + member)
        fh.write(packed)
        central.append(_CENTRAL.pack(0x02014B50, 20, 20, 0, zipfile.ZIP_DEFLATED, 0, _DOS_DATE, crc, len(packed),
                                     len(raw), len(member), 0, 0, 0, 0, 0o600 << 16, at) + member)
        at += _LOCAL.size + len(member) + len(packed)
    directory = b"".join(central)
    fh.write(directory + _END.pack(0x06054B50, 0, 0, len(central), len(central), len(directory), at, 0))


def _savez_zip64(fh, arrays: dict) -> None:
    """:func:`savez` through ``zipfile``, every member with ZIP64 headers (any size)."""
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(a), allow_pickle=False)


def _narrow(a: np.ndarray) -> np.ndarray:
    """Integers in the smallest signed type that holds them (read back as int64: the same numbers)."""
    if a.dtype.kind != "i" or not a.size:
        return a
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= int(a.min()) and int(a.max()) <= info.max:
            return a.astype(t)
    return a


def _load_npz(path, limit: int = MAX_STATE_BYTES) -> tuple[dict, dict]:
    """All arrays of a cell file (``allow_pickle=False``: a pickle raises) and its decoded header; a regular
    file of at most ``limit`` bytes, its arrays together at most ``limit`` bytes once unpacked."""
    with open_regular(path, limit, "state file") as fh, np.load(fh, allow_pickle=False) as npz:
        if sum(i.file_size for i in npz.zip.infolist()) > limit:
            raise ValueError(f"state file unpacks to more than {limit} bytes")
        arrays = {k: npz[k] for k in npz.files}
    raw = arrays.pop("cell.json")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError("bad header")
    head = json.loads(raw.tobytes().decode())
    if not isinstance(head, dict):
        raise ValueError("bad header")
    return arrays, head


def _state_from(arrays: dict, head: dict) -> State:
    P = head["P"]
    if not isinstance(P, int) or isinstance(P, bool):
        raise ValueError("P is not an integer")
    if head.get("pieces"):
        pieces = BoxPieces(**{name: arrays[f"pieces_{name}"] for name in PIECES})
        return State(arrays["owner"], arrays["home"], P, pieces=pieces)
    return State(arrays["owner"], arrays["home"], P)


# -- data-only values (memory fields, level meta) ---------------------------------------------------------

def to_data(value, arrays: dict, name: str, where: str = ""):
    """``value`` as JSON, its numpy arrays and scalars moved to ``arrays`` under ``name`` (nested: ``name.i``).

    Numbers, strings, booleans and None stay; tuples become lists; a dict
    with a non-string key (or one starting with ``$``) becomes
    ``{"$dict": [[k, v], ...]}``; an array ``{"$array": key}``; a numpy
    scalar ``{"$scalar": key}`` (dtype kept). Anything else is ``TypeError``
    naming ``where``.
    """
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        if value.dtype.hasobject:
            raise TypeError(f"{where or name} holds a numpy array of Python objects, which cannot be stored as data")
        key = name if name not in arrays else f"{name}#{len(arrays)}"
        arrays[key] = np.asarray(value)
        return {"$array" if isinstance(value, np.ndarray) else "$scalar": key}
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [to_data(v, arrays, f"{name}.{i}", f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: to_data(v, arrays, f"{name}.{i}", f"{where}[{k!r}]") for i, (k, v) in enumerate(value.items())}
        items = []
        for i, (k, v) in enumerate(value.items()):
            if not isinstance(k, _SCALARS) and not isinstance(k, np.generic):
                raise TypeError(f"{where or name} has a dict key of type {type(k).__name__}, which cannot be stored")
            items.append([to_data(k, arrays, f"{name}.k{i}", where),
                          to_data(v, arrays, f"{name}.{i}", f"{where}[{k!r}]")])
        return {"$dict": items}
    raise TypeError(f"{where or name} is a {type(value).__module__}.{type(value).__qualname__}; stored values must be "
                    "numpy arrays, numbers, strings, booleans, None, or lists/dicts of those")


def from_data(obj, arrays: dict):
    """The inverse of :func:`to_data` (``KeyError``/``ValueError`` on a malformed value)."""
    if isinstance(obj, list):
        return [from_data(v, arrays) for v in obj]
    if isinstance(obj, dict):
        if len(obj) == 1:
            (tag, v), = obj.items()
            if tag == "$array":
                return arrays[v]
            if tag == "$scalar":
                a = arrays[v]
                if a.ndim != 0:
                    raise ValueError(f"stored scalar {v} has shape {a.shape}")
                return a[()]
            if tag == "$dict":
                out = {}
                for pair in v:
                    k, val = pair
                    k = from_data(k, arrays)
                    out[k] = from_data(val, arrays)
                return out
        if any(k.startswith("$") for k in obj):
            raise ValueError(f"malformed stored value {sorted(obj)[0]!r}")
        return {k: from_data(v, arrays) for k, v in obj.items()}
    if isinstance(obj, _SCALARS):
        return obj
    raise ValueError(f"malformed stored value of type {type(obj).__name__}")


def _fields(memory) -> dict:
    if dataclasses.is_dataclass(memory) and not isinstance(memory, type):
        return {f.name: getattr(memory, f.name) for f in dataclasses.fields(memory)}
    try:
        return dict(vars(memory))
    except TypeError:
        raise TypeError(f"memory {type(memory).__qualname__} has no fields to store "
                        "(declare the memory as a @dataclass)") from None


def _one_to(memory, arrays: dict, prefix: str):
    if memory is None:
        return None
    cls = type(memory).__qualname__
    return {"class": cls,
            "fields": {k: to_data(v, arrays, f"{prefix}.{k}", f"{cls}.{k}") for k, v in _fields(memory).items()}}


def memory_to(memory, arrays: dict):
    """The memory as JSON, its arrays under ``memory.<field>`` in ``arrays``; ``TypeError`` names the class
    and field of a value that is not data.

    ``memory`` is an instance, None, or a dict step name -> instance (or
    None) for a composite method (arrays under ``memory.<step>.<field>``).
    """
    if isinstance(memory, dict):
        if not all(isinstance(k, str) for k in memory):
            raise TypeError("memory dict keys must be step names (strings)")
        return {"steps": {k: _one_to(m, arrays, f"memory.{k}") for k, m in memory.items()}}
    return {"one": _one_to(memory, arrays, "memory")}


def _one_from(memory_cls, stored, arrays: dict):
    if memory_cls is None or stored is None:
        if (memory_cls is None) != (stored is None):
            raise ValueError("stored memory does not match the algorithm's")
        return None
    if stored.get("class") != memory_cls.__qualname__ or not isinstance(stored.get("fields"), dict):
        raise ValueError(f"stored memory is a {stored.get('class')}, not a {memory_cls.__qualname__}")
    values = {k: from_data(v, arrays) for k, v in stored["fields"].items()}
    if dataclasses.is_dataclass(memory_cls):
        check_types(memory_cls, values)
        later = {f.name for f in dataclasses.fields(memory_cls) if not f.init}
        obj = memory_cls(**{k: v for k, v in values.items() if k not in later})
        for k in later & set(values):
            object.__setattr__(obj, k, values[k])
        return obj
    obj = memory_cls()
    for k, v in values.items():
        setattr(obj, k, v)
    return obj


def memory_from(memory_cls, stored, arrays: dict):
    """Rebuild what :func:`memory_to` stored: ``memory_cls(**init fields)`` (non-init fields set after), or a
    dict step name -> instance when ``memory_cls`` is a dict step name -> class. ``ValueError`` when the
    stored memory does not match the classes (the cell is then recomputed)."""
    if not isinstance(stored, dict):
        raise ValueError("stored memory is not an object")
    if isinstance(memory_cls, dict):
        steps = stored.get("steps")
        if not isinstance(steps, dict) or set(steps) != set(memory_cls):
            raise ValueError("stored memory does not match the method's steps")
        return {k: _one_from(c, steps[k], arrays) for k, c in memory_cls.items()}
    if "one" not in stored:
        raise ValueError("stored memory does not match the algorithm's")
    return _one_from(memory_cls, stored["one"], arrays)


# -- provenance ----------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=5)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def plugin_distributions() -> dict:
    """name -> Distribution of every distribution providing an ``lbbench`` entry point."""
    from importlib import metadata

    out = {}
    for ep in metadata.entry_points(group="lbbench"):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.metadata["Name"]:
            out.setdefault(dist.metadata["Name"], dist)
    return out


@lru_cache(maxsize=None)
def versions() -> str:
    """Versions of the core packages and of every plugin distribution, as a JSON string (name -> version)."""
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for pkg in ("lbbench", "numpy", "scipy", "pymetis", "mpi4py", "pluggy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    for name, dist in plugin_distributions().items():
        out[name] = dist.version
    return json.dumps(out, sort_keys=True)


_SKIP_DIRS = {"__pycache__", "build", "dist", "node_modules"}


def _local_dir(dist) -> Path | None:
    """The source directory of an editable or local install (PEP 610 ``direct_url.json``), else None."""
    try:
        raw = dist.read_text("direct_url.json")
        info = json.loads(raw) if raw else None
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not isinstance(info.get("dir_info"), dict):
        return None
    url = info.get("url", "")
    if not url.startswith("file://"):
        return None
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(url).path))


def _roots(dist, local: Path) -> list[Path]:
    """Where the code of ``dist`` is imported from: the top-level packages its lbbench entry points name
    (the installed copy of a local install, the source of an editable one); else the project directory."""
    import importlib.util

    roots = set()
    for ep in dist.entry_points:
        if not ep.group.startswith("lbbench"):
            continue
        top = ep.value.split(":")[0].strip().split(".")[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        if spec.submodule_search_locations:
            roots.update(Path(p) for p in spec.submodule_search_locations)
        elif spec.origin and spec.origin not in ("built-in", "frozen"):
            roots.add(Path(spec.origin))
    return sorted(roots) or [local]


def _files(root: Path):
    if root.is_file():
        yield root.name, root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not (d.startswith(".") or d in _SKIP_DIRS or d.endswith(".egg-info")))
        for fn in sorted(filenames):
            if fn.startswith(".") or fn.endswith((".pyc", ".pyo")):
                continue
            p = Path(dirpath) / fn
            yield p.relative_to(root).as_posix(), p


CORE = "lbbench"  # the core's distribution
# the core's files that only present stored figures (the claims layer: claims, the papers' values, report
# tables; the present layer: commands, site, reproduce, exports; the check layer; pictures of a workload): a
# change to them leaves every cell's figures as they are
PRESENTATION = frozenset({"harness/claims", "harness/present", "harness/check", "harness/testing.py",
                          "workloads/plot.py", "workloads/README.md", "workloads/reference"})
# a plugin's modules that only present stored figures, in any of its packages (``*/``): its claims and its
# report tables (read by its ``register_claims`` / ``register_reports`` hooks, never by a method's code)
PLUGIN_PRESENTATION = frozenset({"*/claims.py", "*/reports.py"})


def plugin_code(dist_name: str) -> str:
    """A plugin's part of its cells' keys: the hash of its sources but :data:`PLUGIN_PRESENTATION` (so a
    change to its claims or reports leaves its cells stored; '' for an index install)."""
    return source_hash(dist_name, PLUGIN_PRESENTATION)


@lru_cache(maxsize=None)
def core_code() -> tuple:
    """The core's part of every cell's key, whatever the method: the harness measures every cell (metrics,
    accounting, the engine, the workloads), so its version and the hash of its sources but
    :data:`PRESENTATION` (editable or local install; '' for an index install)."""
    from importlib import metadata

    try:
        version = metadata.version(CORE)
    except metadata.PackageNotFoundError:
        version = ""
    return version, source_hash(CORE, PRESENTATION)


@lru_cache(maxsize=None)
def source_hash(dist_name: str, skip: frozenset = frozenset()) -> str:
    """sha256 (16 hex digits) of the source files of an editable or local install of ``dist_name``
    (its lbbench packages: names and contents, caches skipped, and ``skip``: ``package/file`` or
    ``package/dir``, or ``*/file`` for that file in any of its packages); '' for an index install or an
    unknown name."""
    from importlib import metadata

    # the first copy of the metadata that records a local source (a stale egg-info may come first on sys.path)
    found = [(d, _local_dir(d)) for d in metadata.distributions(name=dist_name)]
    dist, local = next(((d, loc) for d, loc in found if loc is not None), (None, None))
    if local is None:
        return ""
    h = hashlib.sha256()
    for root in _roots(dist, local):
        for rel, p in _files(root):
            name = f"{root.name}/{rel}"
            if name in skip or f"*/{rel}" in skip or any(name.startswith(f"{d}/") for d in skip):
                continue
            try:
                data = p.read_bytes()
            except OSError:
                continue
            h.update(f"{root.name}/{rel}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()[:16]
