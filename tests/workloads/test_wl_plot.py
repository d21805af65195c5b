"""workloads.plot: one PNG per kind of level (the CLI's ``lbbench workloads plot``)."""
import pytest

from workloads.plot import plot_level


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("name,params,level", [
    ("shock", {"scale": "0.05", "levels": "2"}, 2),
    ("arrays", {"dims": "2", "size": "32", "steps": "2"}, 1),
    ("arrays", {"dims": "3", "size": "8", "steps": "1"}, 1),
    ("bl", {"base": "9", "levels": "3", "steps": "2"}, 2),
    ("mini", {}, 1),
])
def test_plot_writes_a_png(tmp_path, name, params, level):
    out = tmp_path / f"{name}.png"
    assert plot_level(name, level, str(out), params=params) == str(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_level(tmp_path):
    with pytest.raises(ValueError, match="no level 7"):
        plot_level("arrays", 7, str(tmp_path / "x.png"), params={"steps": "2", "size": "8"})
