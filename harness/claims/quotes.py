"""Quotes a third party cannot fake (issue 50): a claim shown in quotation marks is found in its source.

A ``quote`` claim's words are looked for, when claims run, in its source
(:func:`unfound`):

* ``source`` given: a file its own plugin's distribution ships, as a plain
  relative path under one of the distribution's packages
  (``sources/paper.txt`` beside ``plugin.py``) or a file name in a
  ``sources/`` folder beside a reference directory registered inside one of
  them; the core's excerpts (``workloads/reference/sources/``, checked by the
  repository's tests) serve every plugin;
* no ``source``: the paper's own text (a seed, :data:`~harness.claims.sources.SEEDS`),
  where it is here; a paper without a seed has nothing to quote from.

A quote whose source cannot be found, or whose words are not in it, is shown
as "our test" saying why (:func:`demote`), with one warning line, and
``lbbench claims --strict`` fails.
"""
from __future__ import annotations

import importlib.util
from dataclasses import replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePosixPath

from ..contract import plugins
from ..store.validate import open_regular
from .sources import SEEDS, papers_dir, quote_found

CORE = "lbbench"  # the core's distribution: its sources/ excerpts serve every plugin
UNFOUND = "quote not verified:"  # how a demoted claim's source starts
MAX_SOURCE = 16 << 20  # bytes of a source file read


@lru_cache(maxsize=64)
def packages(dist: str) -> tuple[Path, ...]:
    """The package directories of the distribution ``dist`` (those its ``lbbench`` entry points load)."""
    out = []
    for ep in metadata.entry_points(group="lbbench"):
        if (ep.dist.name if ep.dist else ep.name) != dist:
            continue
        try:
            spec = importlib.util.find_spec(ep.module.split(".")[0])
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            out += [Path(p).resolve() for p in spec.submodule_search_locations]
    return tuple(dict.fromkeys(out))


def _under(base: Path, rel: str) -> Path | None:
    """``base / rel`` when ``rel`` is a plain relative path and names a regular file inside ``base``."""
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    if not parts or parts[0] == "/" or ".." in parts:
        return None
    f = base.joinpath(*parts)
    try:
        inside = f.resolve().is_relative_to(base.resolve())
    except OSError:
        return None
    return f if inside and f.is_file() and not f.is_symlink() else None


def shipped(claim) -> Path | None:
    """The file ``claim.source`` names among those its plugin's distribution ships (module doc), or None."""
    own = packages(claim.plugin) if claim.plugin else ()
    core = packages(CORE)
    for base in own:
        if (f := _under(base, claim.source)) is not None:
            return f
    for ref in plugins.references():
        ref = (ref if ref.is_dir() else ref.parent).resolve()
        if any(ref.is_relative_to(p) for p in (*own, *core)) and (f := _under(ref / "sources", claim.source)):
            return f
    return None


def _text(f: Path) -> str:
    with open_regular(f, MAX_SOURCE, f"source {f.name}") as fh:
        return fh.read().decode("utf-8", "replace")


def unfound(claim) -> str:
    """Why a ``quote`` claim's words are not shown as a quote ("" when they are found in its source, or when
    its source is its paper's text and that is not here to check)."""
    if claim.source:
        f = shipped(claim)
        if f is None:
            return (f"its source {claim.source!r} is not a file its plugin ({claim.plugin or 'unknown'}) ships "
                    "(docs/plugins.md, Claims)")
        try:
            found = quote_found(claim.text, _text(f))
        except (OSError, ValueError) as exc:
            return f"its source {claim.source!r} cannot be read ({exc})"
        return "" if found else f"its words are not in its source {claim.source!r}"
    if claim.paper not in SEEDS:
        return "it names no source file its plugin ships (Claim(source=...); docs/plugins.md, Claims)"
    f = papers_dir() / SEEDS[claim.paper]
    if not f.is_file():
        return ""
    return "" if quote_found(claim.text, _text(f)) else f"its words are not in the {claim.paper} paper's text"


def demote(claim, why: str, kind: str):
    """``claim`` as ``kind`` (``our test``) whose source says why its quote was not verified."""
    return replace(claim, kind=kind, source=f"{UNFOUND} {why}")


def demoted(claim) -> bool:
    """Whether ``claim`` is a quote :func:`demote` turned into our test."""
    return claim.source.startswith(UNFOUND)
