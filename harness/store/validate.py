"""Checks on what is read back from disk: nothing in a results directory or a workload cache is trusted.

* :func:`open_regular`: a file opened without following a symlink, only if it is a regular file of at most
  a given size (a FIFO, a device or a directory in its place is refused before anything blocks on it);
* :func:`check_figures`: a stored row's core figures in their domains (docs/architecture.md, "Results
  store"): identity columns are strings or integers as written, counts are non-negative integers, every
  core figure is a finite number, 0 <= Cut% <= 100, LoadImb >= 1 (SBN §5.2: max QWgt / ceil(mean QWgt);
  for integer loads it cannot be below 1, and it must equal maxqwgt / wsysll);
* :func:`check_level`: a stored row's figures within what its level holds (moved weight <= the level's
  total rwgt, edge cut <= its total cwgt, moved and boundary vertices <= its vertices, parts <= P);
* :func:`check_types`: values rebuilt for a dataclass match its fields' annotated types.

Every figure in weight units is at most 2^53 (:data:`MAX_WEIGHT`: no level's weights sum to more), and
min QWgt <= max QWgt <= total QWgt. Times (issue 50): the cell's wall time at most :data:`MAX_CELL_S`, each
phase's within it, each rank's CPU within :data:`CPU_PER_WALL` times it, ``rank_busy_s_mean <= rank_busy_s_max
<= rank_critical_s <= ranks x rank_busy_s_mean``; the ratios ``rank_balance`` (= mean / max) and
``rank_step_balance`` in [0, 1]; modelled message time within what the declared messages and bytes can take
on the row's machine.

Each raises ``ValueError`` naming the file, column or field.
"""
from __future__ import annotations

import math
import os
import stat
import types
import typing
from functools import lru_cache

import numpy as np

from ..contract.model import Machine
from ..measure.columns import describe

TEXT = ("workload", "workload_version", "workload_params", "algorithm", "params", "machine", "initial", "status",
        "owners_hash", "git_commit", "versions", "timing_group", "timing_session")
INTS = ("level", "P", "seed", "ranks", "wsysll", "empty_parts", "moved_weight", "moved_vertices",
        "boundary_vertices", "max_neighbour_parts", "edge_cut", "changed_weight", "pinned_reassigned",
        "pinned_reassigned_pwgt", "timing_repeats")
INT_SUFFIXES = ("_messages", "_bytes", "_supersteps")
PERCENT = ("pre_exec_cut_pct", "post_exec_cut_pct")
AT_LEAST_ONE = ("work_loadimb",)  # P * max / total: >= 1 for any loads
LOADIMB = ("loadimb", "settled_loadimb", "lt_none_loadimb", "lt_max_loadimb")
RATIOS = ("rank_balance", "rank_step_balance")  # a mean over a max: in [0, 1]
TOL = 1e-9
MAX_WEIGHT = 2**53  # every weight, and every sum of weights, exact in the float64 the metrics use
MAX_CELL_S = 366 * 86400.0  # a cell's wall time (a --timeout is at most a week)
CPU_PER_WALL = 1024  # CPU seconds one rank's threads may spend per second of the cell's wall time
CLOCK_S = 1.0  # what the clocks' reads around a cell may add


def open_regular(path, limit: int, what: str = "file"):
    """``path`` opened for binary reading, only if it is a regular file (not a symlink) of at most ``limit`` bytes.

    Opened non-blocking, so a FIFO in its place cannot stall the caller; ``OSError``/``ValueError`` otherwise.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise ValueError(f"{what} is a symbolic link") from None
        raise exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{what} is not a regular file")
        if st.st_size > limit:
            raise ValueError(f"{what} has {st.st_size} bytes, more than the {limit} allowed")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@lru_cache(maxsize=4096)
def _core_number(col: str) -> bool:
    """A core column holding a number (not an identity string, not a JSON list or object)."""
    d = describe(col)
    return d is not None and col not in TEXT and "JSON" not in d[0]


def _max_conn(row: dict) -> float:
    """The largest Conn slowdown of the row's machine: Cut% weighs each cut edge by it (SBN §3.1), so a
    grid machine's Cut% may exceed 100 (1 when the machine is not known here)."""
    try:
        return float(np.max(Machine.parse(str(row.get("machine", "uniform")), int(row.get("P", 1))).conn))
    except (ValueError, TypeError):
        return 1.0


@lru_cache(maxsize=4096)
def _weight(col: str) -> bool:
    d = describe(col)
    return d is not None and d[1] == "weight"


def check_level(row: dict, g) -> dict:
    """``row`` if its figures fit the level's graph ``g`` (and P), else ``ValueError`` naming the column."""
    limits = {"moved_weight": (float(g.rwgt.sum()), "the level's total rwgt"),
              "edge_cut": (float(g.cwgt.sum()) / 2, "the level's total cwgt"),
              "moved_vertices": (g.n, "the level's vertices"), "boundary_vertices": (g.n, "the level's vertices"),
              "empty_parts": (row.get("P", 1), "P"), "max_neighbour_parts": (row.get("P", 1), "P"),
              "changed_weight": (float(g.rwgt.sum()), "the level's total rwgt"),
              "pinned_reassigned": (g.n, "the level's vertices"),
              "pinned_reassigned_pwgt": (float(g.pwgt.sum()), "the level's total pwgt")}
    for col, (limit, what) in limits.items():
        v = row.get(col)
        if isinstance(v, (int, float)) and v > limit:
            raise ValueError(f"row's {col!r} is {v}, more than {what} ({limit:g})")
    return row


@lru_cache(maxsize=4096)
def _seconds(col: str) -> bool:
    d = describe(col)
    return d is not None and d[1] == "s"


def _num(row: dict, col: str) -> float | None:
    v = row.get(col)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _check_times(row: dict) -> None:
    """The time columns against the cell's wall time, each other and the declared messages (module doc)."""
    wall = _num(row, "time_total_s")
    if wall is not None:
        if wall > MAX_CELL_S:
            raise ValueError(f"row's 'time_total_s' is {wall} s, more than a cell may take ({MAX_CELL_S:g} s)")
        for col, v in row.items():
            if col.startswith("time_") and col.endswith("_s") and _num(row, col) is not None \
                    and v > wall * (1 + TOL) + TOL:
                raise ValueError(f"row's {col!r} is {v} s, more than the cell's wall time ({wall} s)")
        for col in ("rank_busy_s_max", "rank_busy_s_mean", "rank_critical_s"):
            v = _num(row, col)
            if v is not None and v > wall * CPU_PER_WALL + CLOCK_S:
                raise ValueError(f"row's {col!r} is {v} s of CPU, beyond the cell's wall time ({wall} s)")
    hi, mean, crit = (_num(row, c) for c in ("rank_busy_s_max", "rank_busy_s_mean", "rank_critical_s"))
    if hi is not None and mean is not None:
        if mean > hi * (1 + TOL) + TOL:
            raise ValueError(f"row's rank_busy_s_mean {mean} is above its rank_busy_s_max {hi}")
        bal = _num(row, "rank_balance")
        if bal is not None and hi > 0 and not math.isclose(bal, mean / hi, rel_tol=1e-6):
            raise ValueError(f"row's 'rank_balance' {bal} is not rank_busy_s_mean / rank_busy_s_max = {mean / hi}")
        if crit is not None and not hi * (1 - 1e-6) - TOL <= crit <= mean * int(row.get("ranks") or 1) * (1 + 1e-6) + TOL:
            raise ValueError(f"row's 'rank_critical_s' {crit} is outside [rank_busy_s_max, ranks x rank_busy_s_mean]")
    _check_modelled(row)


def _check_modelled(row: dict) -> None:
    """``modelled_<kind>_s`` at most (messages x latency + bytes / bandwidth) x the largest Conn of the machine."""
    m = None
    for kind, prefix in (("balance", ""), ("migration", "wire_"), ("application", "")):
        t, n, b = (_num(row, c) for c in (f"modelled_{kind}_s", f"{prefix}{kind}_messages", f"{prefix}{kind}_bytes"))
        if t is None or n is None or b is None or t <= TOL:
            continue
        try:
            m = m or Machine.parse(str(row.get("machine", "uniform")), int(row.get("P", 1)))
        except (ValueError, TypeError):
            return
        limit = (n * m.latency + b / m.bandwidth) * float(np.max(m.conn))
        if t > limit * (1 + 1e-6) + TOL:
            raise ValueError(f"row's 'modelled_{kind}_s' is {t} s, more than its {n:g} messages of {b:g} bytes "
                             f"take on machine {row.get('machine', 'uniform')} ({limit:g} s)")


def check_figures(row: dict) -> dict:
    """``row`` if its core columns are in their domains, else ``ValueError`` naming the column."""
    for col, v in row.items():
        if col in TEXT:
            if not isinstance(v, str):
                raise ValueError(f"row's {col!r} is not a string")
            continue
        if not _core_number(col) and not col.startswith(("time_", "modelled_")):
            continue  # a plugin's own column: a scalar (checked by the row's shape), domain unknown here
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"row's {col!r} is a {type(v).__name__}, not a number")
        if not math.isfinite(v):
            raise ValueError(f"row's {col!r} is {v}, not a finite number")
        if (col in INTS or col.endswith(INT_SUFFIXES)) and not isinstance(v, int):
            raise ValueError(f"row's {col!r} is {v!r}, not an integer")
        if v < 0:
            raise ValueError(f"row's {col!r} is negative ({v})")
        if col in PERCENT and v > 100 and v > 100 * _max_conn(row) * (1 + TOL):  # (the machine parsed only then)
            raise ValueError(f"row's {col!r} is {v}, more than 100% x the machine's largest Conn slowdown")
        if col in AT_LEAST_ONE and v < 1 - TOL:
            raise ValueError(f"row's {col!r} is {v}, below 1")
        if v > MAX_WEIGHT and _weight(col):
            raise ValueError(f"row's {col!r} is {v}, more than 2^53 (no level's weights sum to that)")
        if col in RATIOS and v > 1 + TOL:
            raise ValueError(f"row's {col!r} is {v}, more than 1 (a mean over a max)")
        if _seconds(col) and v > MAX_CELL_S * CPU_PER_WALL:
            raise ValueError(f"row's {col!r} is {v} s, more than any cell can take")
    _check_times(row)
    for pre in ("", "lt_none_", "lt_max_"):
        lo, hi, tot = (row.get(pre + c) for c in ("minqwgt", "maxqwgt", "qwgttot"))
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo > hi * (1 + TOL):
            raise ValueError(f"row's {pre}minqwgt {lo} is above its {pre}maxqwgt {hi}")
        if isinstance(hi, (int, float)) and isinstance(tot, (int, float)) and hi > tot * (1 + TOL):
            raise ValueError(f"row's {pre}maxqwgt {hi} is above its {pre}qwgttot {tot}")
    if row.get("P", 1) < 1:
        raise ValueError("row's 'P' is below 1")
    q, w, imb = row.get("maxqwgt"), row.get("wsysll"), row.get("loadimb")
    if isinstance(imb, (int, float)):
        if imb < 1 - TOL and (not isinstance(q, (int, float)) or float(q).is_integer()):
            raise ValueError(f"row's 'loadimb' is {imb}, below 1")
        if isinstance(q, (int, float)) and isinstance(w, int) and w > 0:
            if not math.isclose(imb, q / w, rel_tol=1e-9):
                raise ValueError(f"row's 'loadimb' {imb} is not maxqwgt / wsysll = {q / w}")
    return row


# -- typed values ----------------------------------------------------------------------------------------

def _matches(value, tp) -> bool:
    """Whether ``value`` fits the annotation ``tp`` (unions, Optional, list/tuple/dict with item types,
    numpy arrays, numbers: an int fits float; numpy scalars fit their Python kinds)."""
    if tp is typing.Any or tp is object:
        return True
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, a) for a in typing.get_args(tp))
    if tp is None or tp is type(None):
        return value is None
    if origin is typing.Literal:
        return value in typing.get_args(tp)
    args = typing.get_args(tp)
    if origin in (list, tuple, set, frozenset):  # stored as lists
        if not isinstance(value, (list, tuple)):
            return False
        if origin is tuple and args and args[-1] is not Ellipsis:
            return len(value) == len(args) and all(_matches(v, a) for v, a in zip(value, args))
        return not args or all(_matches(v, args[0]) for v in value)
    if origin is dict:
        if not isinstance(value, dict):
            return False
        return not args or all(_matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items())
    if tp is np.ndarray or origin is np.ndarray:
        return isinstance(value, np.ndarray)
    if tp is float:
        return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if tp is bool:
        return isinstance(value, (bool, np.bool_))
    if tp in (list, tuple, set, frozenset):
        return isinstance(value, (list, tuple))
    if isinstance(tp, type):
        return isinstance(value, tp)
    return True  # an annotation we cannot judge (a TypeVar, a string that did not resolve)


def check_types(cls, values: dict) -> None:
    """``ValueError`` naming the first field of dataclass ``cls`` whose value in ``values`` does not fit its
    annotated type, or a key that is not a field."""
    import dataclasses

    fields = {f.name: f for f in dataclasses.fields(cls)}
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: judge the fields that do
        hints = {}
    for k, v in values.items():
        if k not in fields:
            raise ValueError(f"stored memory has a field {k!r} that {cls.__qualname__} does not declare")
        if k in hints and not _matches(v, hints[k]):
            raise ValueError(f"stored {cls.__qualname__}.{k} is a {type(v).__name__}, not {hints[k]}")
