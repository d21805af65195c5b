"""Method specifications: ``name[key=value,...]`` and the composition ``mapper/balancer``.

As in the tree-LB paper, ``mlkp/cbtlb`` maps with MLkP first and balances
with CBTLB at each level; a single name uses every role its algorithm has.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

_CALL = re.compile(r"^([A-Za-z0-9_.+-]+)(?:\[(.*)\])?$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Call:
    """One algorithm with the parameters given on the command line (still strings)."""

    name: str
    given: tuple = ()  # ((key, value), ...)

    def __str__(self) -> str:
        if not self.given:
            return self.name
        return f"{self.name}[{','.join(f'{k}={v}' for k, v in self.given)}]"


@dataclass(frozen=True)
class Method:
    """A parsed method: one call, or a mapper and a balancer."""

    calls: tuple  # (Call,) or (mapper, balancer)

    def __str__(self) -> str:
        return "/".join(map(str, self.calls))


def parse_call(text: str) -> Call:
    """Parse ``name`` or ``name[key=value,...]`` (the command line's method syntax) into a ``Call``."""
    m = _CALL.match(text.strip())
    if not m:
        raise ValueError(f"malformed method {text!r}: expected name or name[key=value,...]")
    name, inner = m.group(1), m.group(2)
    given = []
    if inner is not None:
        if not inner.strip():
            raise ValueError(f"malformed method {text!r}: empty parameter list")
        for item in inner.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not _KEY.match(key) or not value:
                raise ValueError(f"malformed parameter {item.strip()!r} in {text!r}: expected key=value")
            if key in dict(given):
                raise ValueError(f"parameter {key!r} given twice in {text!r}")
            given.append((key, value))
    return Call(name, tuple(given))


def parse_method(text: str) -> Method:
    parts, depth, cur = [], 0, ""
    for ch in text:  # a '/' inside [...] belongs to a parameter value
        depth += (ch == "[") - (ch == "]")
        if ch == "/" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    if len(parts) > 2:
        raise ValueError(f"malformed method {text!r}: at most one '/' (mapper/balancer)")
    return Method(tuple(parse_call(p) for p in parts))


def parse_methods(text: str) -> list[Method]:
    """A comma-separated list of methods; commas inside [...] belong to parameters."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if depth < 0:
            raise ValueError(f"malformed method list {text!r}: unbalanced ']'")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise ValueError(f"malformed method list {text!r}: unclosed '['")
    items.append(cur)
    if any(not i.strip() for i in items):
        raise ValueError(f"malformed method list {text!r}: empty entry")
    return [parse_method(i.strip()) for i in items]


def coerce(owner: str, key: str, value, default):
    """Convert a command-line string to the type of ``default`` (bool, int, float, str); a number from Python
    likewise (``8`` for a float default is ``8.0``, a whole ``8.0`` for an int default ``8``, numpy scalars as
    Python's), so one value is one cell however it was spelled."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # a numpy scalar
    if not isinstance(value, str):
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(default, int) and not isinstance(default, bool) and isinstance(value, float) \
                and value.is_integer():
            return int(value)
        return value
    try:
        if isinstance(default, bool):
            low = value.lower()
            if low not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return low in ("true", "1", "yes")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            v = float(value)
            if math.isnan(v):
                raise ValueError
            return v
    except ValueError:
        raise ValueError(f"{owner}: parameter {key}={value!r} is not a valid {type(default).__name__}") from None
    return value


def resolve(call: Call, defaults: dict) -> dict:
    """The call's parameters merged over the algorithm's defaults, typed like them."""
    given = dict(call.given)
    unknown = set(given) - set(defaults)
    if unknown:
        raise ValueError(f"{call.name} has no parameter {sorted(unknown)[0]!r} "
                         f"(parameters: {', '.join(defaults) or 'none'})")
    return {k: coerce(call.name, k, given[k], d) if k in given else d for k, d in defaults.items()}
