"""Reports ``sbn-table6`` (PMeTiS under PLUM) and ``sbn-table7`` (DMeTiS under PLUM), SBN paper §5.3.

Shaped like the paper's Tables 6 and 7: Adaptation Level, Pre-Exec Cut%,
Post-Exec Cut%, MaxSR, LoadImb, an Average row, one block per P (2, 4, 8, 16,
32 by default; the paper printed only P = 16 and 32 for Table 6 and P = 32 for
Table 7). The paper's values, transcribed once in
``workloads/reference/sbn_tables6_7.csv``, stand beside ours where it has them.
"""
from __future__ import annotations

from harness import Report, Table, level_table, paper_values, with_paper

DEFAULT_P = [2, 4, 8, 16, 32]
TABLES = {"6": ("plum-pmetis", "PMeTiS"), "7": ("plum-dmetis", "DMeTiS")}


def build_table(table: str, opts) -> list[Table]:
    method, label = TABLES[table]
    paper = paper_values("sbn", table)
    out = []
    for P in opts.P or DEFAULT_P:
        df = opts.compare([method], P=P)
        ours = level_table(df[df["algorithm"] == method])
        mine = paper[paper["P"].astype(int) == int(P)] if not paper.empty else paper
        note = "" if not mine.empty else f"(the paper has no P = {P} block for Table {table})"
        out.append(Table(f"Table {table}: mesh adaptation results using {label} under PLUM, P = {P}",
                         with_paper(ours, mine), note))
    return out


def register(register):
    register(Report("sbn-table6", lambda opts: build_table("6", opts),
                    title="SBN paper Table 6: PMeTiS under PLUM",
                    description="plum-pmetis per adaptation level, P = 2..32, with the paper's P = 16, 32"))
    register(Report("sbn-table7", lambda opts: build_table("7", opts),
                    title="SBN paper Table 7: DMeTiS under PLUM",
                    description="plum-dmetis per adaptation level, P = 2..32, with the paper's P = 32"))
