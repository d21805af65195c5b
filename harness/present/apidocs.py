"""``lbbench docs``: the API reference, generated from the code's docstrings by pdoc.

pdoc (https://pdoc.dev) was chosen over mkdocs + mkdocstrings because it needs
no configuration file and no site layout: it reads the signatures and the
docstrings (Google style: ``Args:``, ``Returns:``, ``Example:``) and writes a
directory of static HTML. It documents three modules:

* ``harness``: every name a plugin may import (``harness.__all__``);
* ``harness.contract.hookspecs``: the hooks a plugin implements;
* ``harness.testing``: the ``conformance`` fixture and the mpiexec helpers.

docs/plugins.md links into ``docs/api/`` (the default output in a source
checkout). ``tests/test_apidocs.py`` fails when a public name has no docstring
or a docstring's ``Args:`` names a parameter the signature does not have.
"""
from __future__ import annotations

from pathlib import Path

from .owned import check_owned, fresh_beside, mark, swap_in

MODULES = ("harness", "harness.contract.hookspecs", "harness.testing")


def default_dir() -> Path:
    """``docs/api`` of the source checkout harness runs from, else ``./lbbench-api``."""
    root = Path(__file__).resolve().parents[2]
    return root / "docs" / "api" if (root / "docs" / "plugins.md").exists() else Path("lbbench-api")


def build(out: str | Path | None = None) -> Path:
    """Write the reference to ``out`` (default :func:`default_dir`) and return its ``index.html``.

    Args:
        out: the output directory: new, empty, or an earlier build (it holds ``.lbbench-docs``), which is
            replaced whole; any other directory is refused (ValueError).

    Returns:
        The path of ``index.html`` (open it from disk; no server needed).
    """
    import pdoc
    import pdoc.render

    out = check_owned(out, "docs", "docs -o") if out else default_dir()
    new = fresh_beside(out)
    pdoc.render.configure(docformat="google", show_source=False, search=False,
                          footer_text="lbbench API reference (lbbench docs)")
    pdoc.pdoc(*MODULES, output_directory=new)
    mark(new, "docs")
    return swap_in(new, out) / "index.html"
