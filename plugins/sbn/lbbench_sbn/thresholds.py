"""System thresholds of the SBN balancer: UpdateLoad of Fig. 4 and the MinTh bound of §5.4.

Fig. 4::

    Procedure UpdateLoad(GWLen)
      SysLL = ceil(GWLen / P)
      MaxTh = WSysLL + 2 floor(WSysLL / Const)
      MinTh = max(0, WSysLL - Const)
      If (WSysLL > Const) MinTh = Const

Two readings are ours and documented in the README:

* ``SysLL`` in the first line is the WSysLL of §3.2 (the weighted system load
  level the other lines use).
* ``2 floor(WSysLL / Const)`` is read as the power ``2 ** floor(WSysLL / Const)``
  (``maxth="exp"``, the default): the text says "the MaxTh value increases
  rapidly as SysLL increases", and only the power makes the balancer
  receiver-initiated under heavy load and sender-initiated under light load
  (§3, first paragraph). ``maxth="linear"`` keeps the product as printed.

``minth="analysis"`` raises MinTh to the §5.4 bound
``ceil(6 log2(P) J_avg / f)`` so that a processor asks for work early enough
not to idle while the 3 log P stages of a balancing operation run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

# beyond 2**60 MaxTh is effectively infinite for any load
_MAX_EXP = 60


@dataclass
class Thresholds:
    """One processor's view: WSysLL, MinTh, MaxTh (None/inf until the first UpdateLoad)."""

    wsysll: float | None
    minth: float
    maxth: float


def minth_bound(P: int, j_avg: float, f: float) -> int:
    """The §5.4 bound MinTh >= ceil(6 log2(P) x J_avg / f) (load units processed per second J_avg)."""
    if f <= 0:
        raise ValueError("f must be > 0")
    return int(math.ceil(6 * math.log2(max(P, 2)) * j_avg / f - 1e-9))


def update_load(gwlen: float, P: int, const: float, maxth: str = "exp", floor_minth: float = 0.0) -> Thresholds:
    """UpdateLoad(GWLen) of Fig. 4; ``floor_minth`` is the optional §5.4 bound (0 = none)."""
    if P < 1:
        raise ValueError("P must be >= 1")
    if const <= 0:
        raise ValueError("Const must be > 0")
    w = math.ceil(gwlen / P - 1e-9)
    ratio = math.floor(w / const)
    if maxth == "exp":
        hi = w + (2.0 ** ratio if ratio <= _MAX_EXP else math.inf)
    elif maxth == "linear":
        hi = w + 2 * ratio
    else:
        raise ValueError(f"maxth must be 'exp' or 'linear', got {maxth!r}")
    lo = max(0.0, w - const)
    if w > const:
        lo = const
    if floor_minth and w > const:
        lo = max(lo, floor_minth)
    return Thresholds(float(w), float(lo), float(hi))


def initial(const: float, floor_minth: float = 0.0) -> Thresholds:
    """Before any balancing operation a processor knows no WSysLL: MinTh = Const (or the bound), no MaxTh."""
    return Thresholds(None, float(max(const, floor_minth)), math.inf)
