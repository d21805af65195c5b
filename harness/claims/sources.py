"""Where a claim's words come from: the papers' texts (the seeds) and public sources' excerpts.

A ``quote`` claim (:data:`harness.claims.claim.QUOTE`) is its source's words,
verbatim: the paper's own text (``SEEDS``: the paper texts next to the
repository, ``../shared/papers``, or ``$LBBENCH_PAPERS``), or a public
source's excerpt kept in a ``sources/`` folder beside a registered reference
directory (``workloads/reference/sources/``: each file starts with the
source's URL). :func:`quote_found` finds the text there; ``[...]`` (or
``...``) marks a cut, and the pieces must occur in order. Whitespace, line
breaks, typographic quotes, markup (``**``) and the seeds' LaTeX math
(``$P \\leq 8$`` reads ``P ≤ 8``: :data:`LATEX`) are not compared, nor a scanned
seed's line numbers and line-end hyphens.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..contract import plugins

SEEDS = {"sbn": "sbn-vs-plum-das-harvey-biswas.txt", "minex": "minex-latency-tolerant-partitioner-das-harvey-biswas.txt",
         "tree": "tree-lb-mcstlb-btlb-cbtlb-liao-chung.txt", "mlb": "mlb-multilevel-load-balancing-quinlan-berndt.txt",
         "amr": "amr-distribution-schemes-shee-bhavsar-parashar.txt"}
LATEX = {r"\leq": "≤", r"\geq": "≥", r"\infty": "∞", r"\rightarrow": "→", r"\times": "×", r"\log": "log",
         r"\cdot": "·", r"\sum": "sum", "$": ""}
CUT = re.compile(r"\s*(?:\[\.\.\.\]|\.\.\.|…)\s*")


def papers_dir() -> Path:
    """The paper texts: ``$LBBENCH_PAPERS``, else ``shared/papers`` beside the repository."""
    return Path(os.environ.get("LBBENCH_PAPERS") or Path(__file__).resolve().parents[3] / "shared" / "papers")


def source_file(claim) -> Path | None:
    """The file a quote claim's words are in: its ``source`` under a ``sources/`` folder of a registered
    reference directory, else its paper's seed; None where neither is here (a clone without the papers)."""
    if claim.source:
        for ref in plugins.references():
            f = (ref if ref.is_dir() else ref.parent) / "sources" / claim.source
            if f.is_file():
                return f
        raise LookupError(f"claim {claim.name!r}: source {claim.source!r} is in no reference sources/ folder")
    if claim.paper not in SEEDS:
        raise LookupError(f"claim {claim.name!r}: a quote of paper {claim.paper!r} needs a source file")
    f = papers_dir() / SEEDS[claim.paper]
    return f if f.is_file() else None


def normal(text: str) -> str:
    """Text compared word for word: one space for any whitespace, plain quotes and apostrophes, no ``**``;
    a scanned seed's line numbers dropped and its words hyphenated at a line end joined (``gener-`` /
    ``133 ated``: ``generated``)."""
    text = re.sub(r"(?m)^[ \t]*\d{1,4}[ \t]+(?=\D)", "", text)
    text = re.sub(r"(?<=[a-z])-\n\s*(?=[a-z])", "", text)
    text = re.sub(r"\\(?:text|mathrm|mathit)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    for tex, plain in LATEX.items():
        text = text.replace(tex, plain)
    text = text.replace("**", "").replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'")
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+(?=[,.;:)])|(?<=\()\s+", "", text).strip()


def quote_found(text: str, source: str) -> bool:
    """Does ``text`` occur verbatim in ``source`` (its pieces between cuts in order)?"""
    hay, at = normal(source), 0
    for piece in (normal(p) for p in CUT.split(text)):
        if not piece:
            continue
        at = hay.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return True
