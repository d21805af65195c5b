"""The API reference (``lbbench docs``, pdoc) covers every public name and hook, and its docstrings stay true."""
import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import harness
from harness.contract import hookspecs
from harness.present.cli import main

ROOT = Path(__file__).resolve().parents[1]

# what an author calls or subclasses: these need Args/Returns for every parameter and a short Example
AUTHOR_CALLS = ["Algorithm", "Claim", "Claim.average", "Graph", "Graph.from_edges", "Level", "Report",
                "ReportOptions", "ReportOptions.compare", "ReportOptions.figure_path", "State", "State.settled",
                "Table", "Workload", "Context", "Context.rng", "Context.executed", "Engine.post", "Engine.exchange",
                "costs_if_on", "delta_cut", "implements", "registers", "paper_values", "with_paper", "level_table",
                "vertex_costs"]
HOOKS = [n for n, f in vars(hookspecs).items() if callable(f) and hasattr(f, "lbbench_spec")]


def _obj(path: str):
    obj = harness
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _public_methods(cls):
    for name, v in vars(cls).items():
        if name.startswith("_"):
            continue
        f = v.__func__ if isinstance(v, (classmethod, staticmethod)) else v.fget if isinstance(v, property) else v
        if inspect.isfunction(f):
            yield f"{cls.__name__}.{name}", f


def _documented():
    """(name, object) for every public name, its public methods and every hook."""
    for name in harness.__all__:
        obj = getattr(harness, name)
        if inspect.isclass(obj) or callable(obj):
            yield name, obj
        if inspect.isclass(obj):
            yield from _public_methods(obj)
    for name in HOOKS:
        yield f"hookspecs.{name}", getattr(hookspecs, name)


def section(doc: str, title: str) -> list[str] | None:
    """The entry names of a Google-style section (``Args:``), None if the docstring has none."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"{title}:":
            indent = len(line) - len(line.lstrip())
            names, inner = [], None
            for nxt in lines[i + 1:]:
                if not nxt.strip():
                    continue
                ind = len(nxt) - len(nxt.lstrip())
                if ind <= indent:
                    break
                inner = inner or ind
                if ind == inner:
                    m = re.match(r"\s*\**([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?:", nxt)
                    if m:
                        names.append(m.group(1))
            return names
    return None


def parameters(obj) -> list[str]:
    if inspect.isclass(obj):
        if dataclasses.is_dataclass(obj):
            return [f.name for f in dataclasses.fields(obj)] + \
                [n for n, t in obj.__dataclass_fields__.items() if t._field_type is dataclasses._FIELD_INITVAR]
        obj = obj.__init__
    return [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]


def test_every_public_name_and_hook_has_a_docstring():
    missing = [name for name, obj in _documented() if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, f"no docstring: {missing}"
    constants = [n for n in harness.__all__ if not (inspect.isclass(getattr(harness, n)) or callable(getattr(harness, n)))]
    assert constants and all(f"``{n}``" in harness.__doc__ for n in constants), constants


def test_documented_parameters_exist():
    stale = []
    for name, obj in _documented():
        for title in ("Args", "Attributes"):
            for p in section(inspect.getdoc(obj) or "", title) or []:
                if p not in parameters(obj) and not (title == "Attributes" and hasattr(obj, p)):
                    stale.append(f"{name}: {title} names {p!r}")
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize("name", AUTHOR_CALLS + [f"hookspecs.{h}" for h in HOOKS])
def test_what_an_author_calls_has_arguments_returns_and_an_example(name):
    obj = getattr(hookspecs, name.split(".")[1]) if name.startswith("hookspecs.") else _obj(name)
    doc = inspect.getdoc(obj) or ""
    params = [p for p in parameters(obj) if p not in ("kw", "kwargs", "args")]
    listed = (section(doc, "Args") or []) + (section(doc, "Attributes") or [])
    assert set(params) <= set(listed), f"{name}: parameters not described: {sorted(set(params) - set(listed))}"
    if not inspect.isclass(obj) and inspect.signature(obj).return_annotation not in (None, "None"):
        assert re.search(r"^Returns:", doc, re.M), f"{name}: no Returns: section"
    if not name.startswith("hookspecs.register"):
        assert re.search(r"^Examples?:", doc, re.M), f"{name}: no Example: section"


def test_a_stale_parameter_is_caught():
    def f(a, b):
        """Something.

        Args:
            a: one.
            c: gone.
        """
    assert section(inspect.getdoc(f), "Args") == ["a", "c"] and "c" not in parameters(f)


def test_lbbench_docs_builds_the_reference_and_plugins_md_links_resolve(tmp_path):
    assert main(["docs", "-o", str(tmp_path)]) == 0
    pages = {p.relative_to(tmp_path).as_posix(): p.read_text() for p in tmp_path.rglob("*.html")}
    assert {"index.html", "harness.html", "harness/contract/hookspecs.html", "harness/testing.html"} <= set(pages)
    for name in harness.__all__:
        assert f'id="{name}"' in pages["harness.html"], name
    for hook in HOOKS:
        assert f'id="{hook}"' in pages["harness/contract/hookspecs.html"], hook
    links = re.findall(r"\]\(api/([^)#]+)(?:#([^)]+))?\)", (ROOT / "docs" / "plugins.md").read_text())
    assert len(links) >= 20
    bad = [f"{page}#{anchor}" for page, anchor in links
           if page not in pages or anchor and f'id="{anchor}"' not in pages[page]]
    assert not bad, bad
    assert "harness/" not in re.sub(r"\]\(api/[^)]*\)", "", (ROOT / "docs" / "plugins.md").read_text()
                                     ).replace("harness/builtin", "")  # no links or pointers into source


def test_troubleshooting_table_quotes_messages_the_code_gives():
    doc = (ROOT / "docs" / "plugins.md").read_text()
    table = doc[doc.index("## Troubleshooting"):]
    code = "\n".join(p.read_text() for p in (ROOT / "harness").rglob("*.py"))
    for fragment in ("implements unknown hook", "no plugin registers an algorithm", "belongs to the broken plugin",
                     "is declared but no", "has dtype", "expected integers", "returned {type(state).__name__}, not a State",
                     "has parts outside", "ranks computed different owners", "timed out after",
                     "is not a column of the table", "does not draw pictures", "pinned objects"):
        shown = fragment.replace("{type(state).__name__}", "NoneType")
        assert shown in table, fragment
        assert fragment in code, fragment
