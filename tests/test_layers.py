"""The harness by role (docs/architecture.md): import-linter's contracts in pyproject.toml hold, and they
break on a planted upward import, a planted cycle or a module outside every layer."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint(cwd: Path, config: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(pythonpath)} if pythonpath else {}
    return subprocess.run([sys.executable, "-c", LINT, "--config", str(config), "--no-cache"], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_the_contracts_hold():
    res = lint(ROOT, ROOT / "pyproject.toml")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "0 broken" in res.stdout


def test_every_layer_is_a_package_with_its_rule():
    layers = next(c for c in CONFIG["contracts"] if c["type"] == "layers")
    names = [n.strip() for layer in layers["layers"] for n in layer.split("|")]
    assert layers["exhaustive"] and layers["containers"] == ["harness"]
    for name in names:
        path = ROOT / "harness" / name
        init = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        doc = init.read_text()
        assert doc.startswith('"""'), name
        if path.is_dir() and name != "builtin":
            assert "May import" in doc, f"harness/{name}/__init__.py does not say what it may import"


@pytest.fixture()
def copy(tmp_path):
    """The harness's sources in a scratch directory, with a config of only the harness's own contracts."""
    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    contracts = [c for c in CONFIG["contracts"] if c["id"] in ("layers", "acyclic")]
    lines = ['[tool.importlinter]', 'root_packages = ["harness"]']
    for c in contracts:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{k} = {_toml(v)}" for k, v in c.items()]
    (tmp_path / "lint.toml").write_text("\n".join(lines) + "\n")
    assert lint(tmp_path, tmp_path / "lint.toml", tmp_path).returncode == 0
    return tmp_path


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return '"' + str(v).replace('"', '\\"') + '"'


def plant(path: Path, line: str) -> None:
    path.write_text(path.read_text() + "\n" + line + "\n")


@pytest.mark.parametrize("module, line, refused", [
    ("contract/model.py", "from ..run import runner  # planted: contract -> run",
     "harness.contract is not allowed to import harness.run"),
    ("measure/metrics.py", "def _late():\n    from ..store import results  # planted, lazily\n    return results",
     "harness.measure is not allowed to import harness.store"),
    ("engine/vprocs.py", "from ..measure import columns  # planted: independent layers",
     "harness.engine is not allowed to import harness.measure"),
    ("claims/reports.py", "from ..check import conformance  # planted: independent layers",
     "harness.claims is not allowed to import harness.check"),
], ids=["upward", "upward-inside-a-function", "engine-measure", "claims-check"])
def test_a_planted_import_breaks_the_layers(copy, module, line, refused):
    plant(copy / "harness" / module, line)
    res = lint(copy, copy / "lint.toml", copy)
    assert res.returncode == 1
    assert refused in res.stdout, res.stdout[-2000:]


def test_a_planted_cycle_inside_a_layer_is_found(copy):
    plant(copy / "harness" / "contract" / "model.py", "from . import pins  # planted: pins imports model")
    res = lint(copy, copy / "lint.toml", copy)
    assert res.returncode == 1
    assert "no import cycle" in res.stdout and "BROKEN" in res.stdout, res.stdout[-2000:]


def test_a_module_outside_every_layer_is_refused(copy):
    (copy / "harness" / "stray.py").write_text('"""A module nobody placed."""\n')
    res = lint(copy, copy / "lint.toml", copy)
    assert res.returncode == 1
    assert "stray" in res.stdout, res.stdout[-2000:]
