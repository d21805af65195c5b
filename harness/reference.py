"""The papers' own numbers, transcribed once into CSV files that plugins register
(``register_references``; the standard ones are ``workloads/reference/*.csv``).

Every file has the long-form columns ``paper, table, P, row, column, value``
(``row`` is the adaptation level, ``Average`` or another row label such as a
ThroTtle value; ``P`` may be empty where a table has no P). Reports put these
values beside ours.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

COLUMNS = ["paper", "table", "P", "row", "column", "value"]


def reference_files() -> list[Path]:
    """Every registered CSV (a registered directory contributes its ``*.csv``)."""
    from . import plugins

    files: list[Path] = []
    for p in plugins.references():
        files.extend(sorted(p.glob("*.csv")) if p.is_dir() else [p])
    return sorted(set(files))


@lru_cache(maxsize=None)
def _all() -> pd.DataFrame:
    files = reference_files()
    frames = [pd.read_csv(f, dtype={"row": str, "table": str}) for f in files]
    for f, df in zip(files, frames):
        if list(df.columns) != COLUMNS:
            raise ValueError(f"{f.name}: columns must be {','.join(COLUMNS)}")
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)


def paper_values(paper: str, table: str) -> pd.DataFrame:
    """Rows of one paper table (e.g. ``paper_values("sbn", "6")``)."""
    df = _all()
    return df[(df.paper == paper) & (df.table == str(table))].reset_index(drop=True)
