"""The papers' own numbers, transcribed once into CSV files that plugins register
(``register_references``; the standard ones are ``workloads/reference/*.csv``).

Every file has the long-form columns ``paper, table, P, row, column, value``:

- ``paper``, ``table``: what :func:`paper_values` selects on (``paper_values("sbn", "6")``);
- ``P``: the processor count the value is for, empty where the table has none;
- ``row``: the printed label of the row in the table the report builds, matched against the
  report's key column(s) (:func:`harness.claims.claim.reports.with_paper`): the adaptation level (``3``),
  ``Average``, a method, a ThroTtle value; several key columns joined by ``" / "``;
- ``column``: the title of the report's column the value goes beside (``MaxSR``);
- ``value``: the number.

Example: ``mine,1,32,metis,Cut%,12.5`` is the paper's Cut% of the row ``metis`` of its Table 1 at
P = 32; ``with_paper(ours, paper_values("mine", "1"), key={"Method": "row", "P": "P"})`` puts it
in ``Cut% (paper)`` beside our ``Cut%`` on the row whose Method is ``metis`` and P is 32.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..contract import plugins
from ..contract.lazy import lazy_module

pd = lazy_module("pandas")  # read where the papers' values are (issue 52)

COLUMNS = ["paper", "table", "P", "row", "column", "value"]


def reference_files() -> list[Path]:
    """Every registered CSV (a registered directory contributes its ``*.csv``)."""
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


@lru_cache(maxsize=None)
def printed_units() -> pd.DataFrame:
    """The reference rows with ``unit``: one unit of the value's last printed digit, from the CSV's text
    (``0.00`` -> 0.01, ``30,548`` -> 1), for judging a value at the precision the paper printed it."""
    files = reference_files()
    frames = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in files]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    text = df["value"].str.replace(",", "").str.strip()
    decimals = text.str.extract(r"\.(\d+)$")[0].str.len().fillna(0).astype(int)
    return _all().assign(unit=10.0 ** -decimals.to_numpy())


def paper_values(paper: str, table: str) -> pd.DataFrame:
    """The reference rows of one paper table, from every registered CSV.

    Args:
        paper: the paper's short name in the CSV (``sbn``, or a plugin's own).
        table: the table's name in the CSV (``"6"``).

    Returns:
        A DataFrame with the columns ``paper, table, P, row, column, value`` (empty if none).

    Example:
        >>> ref = paper_values("sbn", "6")
        >>> with_paper(level_table(ours), ref[ref.P == 32])
    """
    df = _all()
    return df[(df.paper == paper) & (df.table == str(table))].reset_index(drop=True)
