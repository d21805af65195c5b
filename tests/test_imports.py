"""``import harness`` loads no layer until a public name is read (PEP 562; issue 52 items 3 and 6); plugin
discovery and a cached level load neither pandas nor scipy (``harness.lazy_module``, ``harness.fitted``)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import harness


def test_import_harness_loads_no_layer_nor_pandas():
    code = ("import sys, harness; from harness import Engine, State; "
            "print(sorted(m for m in sys.modules if m.startswith(('pandas', 'scipy', 'harness.claims', "
            "'harness.run', 'harness.store', 'harness.measure'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"



def test_the_cli_and_the_claims_layer_load_no_pandas_until_a_table_is_made():
    """Every rank of ``mpiexec -n R lbbench compare`` imports the CLI: it and the claims layer bind pandas and
    tabulate with ``lazy_module`` (issue 52 items 3 and 6)."""
    code = ("import sys, harness.present.cli, harness.claims.claim, harness.claims.reports; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'scipy', 'tabulate')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"

def test_every_public_name_resolves_from_its_layer():
    for name in harness.__all__:
        value = getattr(harness, name)
        assert value is getattr(harness, name)  # kept once read
    assert set(harness.__all__) <= set(dir(harness))
    from harness.engine.vprocs import Engine
    assert harness.Engine is Engine and harness.available_algorithms is harness.contract.plugins.algorithms
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        harness.nothing  # noqa: B018


PROBE = """
import sys, tempfile
from harness import hookimpl
from harness.contract import plugins
from harness.run.api import compare

HEAVY = ("pandas", "scipy", "tabulate")
seen = []


@hookimpl
def metrics(ctx, before, after):  # during the level: what the rank has loaded by then
    seen.append(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY))
    return {}


plugins.manager(), plugins.algorithms(), plugins.workloads(), plugins.latency_models()
print(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY or m.startswith("harness.claims")))
plugins.add(sys.modules[__name__], "probe")
compare("sbn", workload="mini", P=4, levels=[1], out=tempfile.mkdtemp(), cache=False)
print(seen)
"""


def test_discovery_and_a_cached_level_load_no_pandas_nor_scipy(tmp_path):
    """Every plugin's entry point, the algorithms and workloads, then one SBN level whose workload is cached:
    no pandas, tabulate, scipy or claims layer until the rows' DataFrame (issue 52 items 3 and 6)."""
    env = {**os.environ, "LBBENCH_CACHE": str(tmp_path)}
    run = [sys.executable, "-c", PROBE]
    first = subprocess.run(run, capture_output=True, text=True, timeout=120, check=True, env=env)  # caches mini
    assert first.stdout.splitlines()[0] == "[]", first.stdout
    second = subprocess.run(run, capture_output=True, text=True, timeout=120, check=True, env=env)
    assert second.stdout.splitlines() == ["[]", "[[]]"], second.stdout + second.stderr[-2000:]


def test_a_lazy_module_is_imported_when_first_read(tmp_path, monkeypatch):
    (tmp_path / "h36_lazy_probe.py").write_text("ANSWER = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = harness.lazy_module("h36_lazy_probe")
    assert "h36_lazy_probe" not in sys.modules and "lazy module" in repr(mod)
    assert mod.ANSWER == 42 and "h36_lazy_probe" in sys.modules
    with pytest.raises(AttributeError):
        mod.nothing  # noqa: B018
    monkeypatch.delitem(sys.modules, "h36_lazy_probe")



def test_import_bound_imports_what_a_plugin_module_and_its_own_modules_bind(tmp_path, monkeypatch):
    """The runner imports what a method's plugin binds with lazy_module before it times the cell: the module's
    own bindings and those of its package's modules it imports, nothing else."""
    pkg = tmp_path / "h_bound_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (tmp_path / "h_bound_a.py").write_text("A = 1\n")
    (tmp_path / "h_bound_b.py").write_text("B = 2\n")
    (tmp_path / "h_bound_c.py").write_text("C = 3\n")
    (pkg / "helper.py").write_text("import harness\nb = harness.lazy_module('h_bound_b')\n")
    (pkg / "other.py").write_text("import harness\nc = harness.lazy_module('h_bound_c')\n")
    (pkg / "plugin.py").write_text("import harness\nfrom . import helper\na = harness.lazy_module('h_bound_a')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from importlib import import_module

    from harness.contract.lazy import import_bound
    import_module("h_bound_pkg.other")
    plugin = import_module("h_bound_pkg.plugin")
    assert not {"h_bound_a", "h_bound_b"} & set(sys.modules)
    import_bound(plugin)
    assert {"h_bound_a", "h_bound_b"} <= set(sys.modules) and "h_bound_c" not in sys.modules
    for name in ("h_bound_a", "h_bound_b", "h_bound_pkg", "h_bound_pkg.plugin", "h_bound_pkg.helper",
                 "h_bound_pkg.other"):
        monkeypatch.delitem(sys.modules, name)

def test_fitted_reads_what_the_fit_chose(tmp_path):
    """``harness.fitted`` (the ``csv`` module) gives the committed fits' chosen values as pandas reads them."""
    from harness.claims import calibrate as cb
    paths = sorted(Path(harness.__file__).parents[1].glob("plugins/*/lbbench_*/calibration/*.csv"))
    assert paths
    for path in paths:
        df = cb.read(path)
        assert harness.fitted(path, str) == df[df["chosen"].astype(str) == "True"]["value"].unique().item()
    for text in ("", "value,chosen\n1,False\n", "value,chosen\n1,True\n2,True\n"):
        (tmp_path / "fit.csv").write_text(text)
        with pytest.raises(LookupError, match="no fitted value"):
            harness.fitted(tmp_path / "fit.csv")
    with pytest.raises(LookupError, match=r"run 'lbbench calibrate'"):
        harness.fitted(tmp_path / "missing.csv")
