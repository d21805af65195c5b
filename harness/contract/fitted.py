"""A plugin's fitted default read from its committed calibration (``lbbench calibrate``), with the ``csv``
module: registering a plugin and running a level never load the claims layer and pandas, which fitting
needs (``harness.claims.calibrate`` writes these files and builds on this reader; issue 52)."""
from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import Callable


def chosen(path) -> list:
    """The distinct values (text, in file order) of the rows of a fit marked ``chosen``; none if it was never
    run."""
    path = Path(path)
    if not path.exists():
        return []
    with open(path, newline="") as fh:
        return list(dict.fromkeys(row["value"] for row in csv.DictReader(fh) if row.get("chosen") == "True"))


@lru_cache(maxsize=None)
def fitted(path, cast: Callable = float):
    """The chosen value of a fit (a plugin's default): ``fitted(HERE / "calibration" / "sbn-checks.csv", int)``.

    A missing or unreadable fit is a ``LookupError`` naming the file and the command that writes it.
    """
    values = chosen(path)
    if len(values) != 1:
        raise LookupError(f"{path}: no fitted value (run 'lbbench calibrate')")
    return cast(values[0])
