"""``import harness`` loads no layer until a public name is read (PEP 562; issue 52 items 3 and 6)."""
import subprocess
import sys

import pytest

import harness


def test_import_harness_loads_no_layer_nor_pandas():
    code = ("import sys, harness; from harness import Engine, State; "
            "print(sorted(m for m in sys.modules if m.startswith(('pandas', 'scipy', 'harness.claims', "
            "'harness.run', 'harness.store', 'harness.measure'))))")
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
