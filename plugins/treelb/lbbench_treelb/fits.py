"""The communication constants of Eq. 3 fitted held out by P (``lbbench calibrate --paper tree``).

T_setup and T_c (§4.1, Eq. 3) are not given by the paper, and every printed
cell of its Tables 2-4 is read by some claim, so no fit can use cells "no
claim reads". They are fitted **held out by P** (leave-one-P-out): for each
P of the paper (10, 30, 50, 70) the calibration ``tree-constants-P<p>`` fits
(T_setup, T_c) on Table 4's Speedup_max, every one of the 12 rows, at the
OTHER three P, and its value is used only for the cells at P = p (``applies``:
Tables 3 and 4 at p). So no cell is computed with constants fitted on that
cell's own printed value (README "The cost constants").

Eq. 5 is linear in the constants per processor (T_i = max_j load_j T_task +
delta_j T_setup + phi_j T_c), so a candidate costs no run: every cell stores
the per-processor terms of its partition (``treelb_app_terms``, plugin.py),
and ``measure`` evaluates Eq. 8 from them through ``opts.compare`` (the result
store). A candidate is one string, ``"t_setup=4e-05;t_c=2e-06"`` (seconds,
seconds per byte).
"""
from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path

import numpy as np

import harness
from harness import T_TASK, fitted

from .protocol import METHODS, P_LIST, RUN

HERE = Path(__file__).parent / "calibration"
# the grid (s, s/byte), wide enough that no fit chooses its edge: 0 and doubling set-ups up to 640 µs (the SP2's
# 40 µs among them), 0 and four a decade from 0.01 to 10 µs per byte (the SP2's 0.028 µs/B inside)
T_SETUPS = (0.0, 20e-6, 40e-6, 80e-6, 160e-6, 320e-6, 640e-6)
T_CS = (0.0, *(float(f"{10 ** (k / 4) * 1e-6:.3g}") for k in range(-8, 5)))
TERMS = ("load", "delta", "phi_bytes")


def value_of(t_setup: float, t_c: float) -> str:
    """A candidate as the one string a fit stores."""
    return f"t_setup={t_setup:g};t_c={t_c:g}"


def parse(value: str) -> dict:
    """``"t_setup=4e-05;t_c=2e-06"`` -> ``{"t_setup": 4e-05, "t_c": 2e-06}``."""
    out = dict(kv.split("=") for kv in str(value).split(";"))
    return {"t_setup": float(out["t_setup"]), "t_c": float(out["t_c"])}


CANDIDATES = tuple(value_of(s, c) for s in T_SETUPS for c in T_CS)


def path(P: int) -> Path:
    """The fit used at the paper's P (``calibration/tree-constants-P<p>.csv``)."""
    return HERE / f"tree-constants-P{P}.csv"


def held_out(P: int) -> int:
    """The paper's P whose fit a cell at P uses: P itself, or for another P the nearest (the lower of a tie)."""
    return min(P_LIST, key=lambda p: (abs(p - P), p))


def constants(P: int) -> dict:
    """The fitted (T_setup, T_c) used at P (a ``LookupError`` naming ``lbbench calibrate`` if never fitted)."""
    return parse(fitted(path(held_out(P)), str))


def terms_text(terms: dict) -> str:
    """The per-processor load, delta and phi bytes of Eqs. 2-3 (``harness.app_terms``) as one row value."""
    return ";".join(",".join(str(int(x)) for x in np.asarray(terms[k])) for k in TERMS)


@lru_cache(maxsize=4096)
def terms_of(text: str) -> np.ndarray:
    """:func:`terms_text` read back: a (3, P) array of load, delta and phi bytes."""
    return np.array([np.array(part.split(","), dtype=float) for part in text.split(";")])


def smax(texts, t_setup: float, t_c: float) -> float:
    """Eq. 8 over one method's levels (their ``treelb_app_terms``) under these constants: Σ_i Seq_i / Σ_i T_i
    with T_i = max_j load_j T_task + delta_j T_setup + phi_j T_c (the SP2 machine: uniform processors and links)."""
    price = np.array([T_TASK, t_setup, t_c])
    tt = [terms_of(t) for t in texts]
    return float(sum(t[0].sum() for t in tt) * T_TASK / sum(float((price @ t).max()) for t in tt))


def measure(value, opts, held: int) -> dict:
    """Our Speedup_max of the 12 methods at every P but ``held`` under the candidate constants (the calibration
    cells of ``tree-constants-P<held>``)."""
    c = parse(value)
    out = {}
    for P in (p for p in P_LIST if p != held):
        df = opts.compare(list(METHODS.values()), P=P, workload="truss", **RUN)
        for label, method in METHODS.items():
            rows = df[df["algorithm"] == method].sort_values("level")
            texts = rows["treelb_app_terms"].tolist() if "treelb_app_terms" in rows else []
            if texts and (rows["status"] == "ok").all() and all(isinstance(t, str) for t in texts):
                out[("tree", "4", str(P), label, "Speedup_max")] = smax(texts, **c)
    return out


def calibration(held: int, candidates: tuple = CANDIDATES, where: Path | None = None) -> harness.Calibration:
    """``tree-constants-P<held>``: fitted on Table 4 at the other P, used at ``held`` (Tables 3 and 4)."""
    others = tuple(p for p in P_LIST if p != held)
    Calibration, Cells = harness.Calibration, harness.Cells
    return Calibration(
        f"tree-constants-P{held}", "tree", f"T_setup, T_c (Eq. 3) at P = {held}",
        (Cells("tree", "4", P=others, columns=("Speedup_max",)),), candidates, partial(measure, held=held),
        where or path(held),
        why=f"Table 4's Speedup_max of all 12 methods at P = {', '.join(map(str, others))} (Eq. 8: what the "
            f"constants move); used only at P = {held}, so no cell is computed with constants fitted on its own "
            "printed value (held out by P).",
        applies=tuple(Cells("tree", t, P=(held,)) for t in "34"))


@lru_cache(maxsize=None)
def calibrations() -> list:
    """One fit per P of the paper (``tree-constants-P<p>``), declared once, when first read."""
    return [calibration(P) for P in P_LIST]


def __getattr__(name: str):
    """``CALIBRATIONS`` (:func:`calibrations`) when first read (PEP 562)."""
    if name != "CALIBRATIONS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return calibrations()
