"""Quotes a third party cannot fake (issue 50): a claim in quotation marks is found in a source its plugin ships,
when claims run; one that is not is shown as our test, with one warning, and ``--strict`` fails."""
import pytest

from harness import Claim, hookimpl
from harness.claims import claim as cl
from harness.claims.quotes import demoted, unfound
from harness.contract import plugins
from harness.present.cli import main

RCB = "RCB was first proposed as a static load-balancing algorithm by Berger and Bokhari"


def _claim(text, source="", plugin="", paper="third"):
    return Claim(f"third-{abs(hash((text, source, plugin))) % 10**6}", paper, "§1", text, (),
                 lambda df: (True, "ours"), source=source, plugin=plugin)


@pytest.mark.parametrize("text, source, plugin, why", [
    ("an invented sentence", "", "", "names no source file"),
    ("an invented sentence", "nosuch.txt", "", "is not a file its plugin"),
    (RCB, "../reference/sources/zoltan-ug-rcb.txt", "", "is not a file its plugin"),
    ("an invented sentence", "zoltan-ug-rcb.txt", "", "words are not in its source"),
    ("an invented sentence", "/etc/passwd", "", "is not a file its plugin"),
    ("Claims of KaHIP, Mt-KaHyPar", "claims.py", "lbbench-charm", "words are not in its source"),  # its own, not
    ("Claims of KaHIP, Mt-KaHyPar", "lbbench_partitioners/claims.py", "lbbench-charm", "is not a file its plugin"),
    ("the sentence you quote", "", "", "names no source file"),
])
def test_a_quote_not_in_a_source_its_plugin_ships_is_refused(text, source, plugin, why):
    assert why in unfound(_claim(text, source, plugin))


def test_a_quote_found_in_a_shipped_source_stands():
    assert unfound(_claim(RCB, "zoltan-ug-rcb.txt")) == ""  # the core's excerpts serve every plugin
    assert unfound(_claim("Claims of KaHIP, Mt-KaHyPar", "claims.py", "lbbench-partitioners")) == ""  # its own file


def test_every_registered_quote_is_still_a_quote(capsys):
    got = cl.checked(list(plugins.claims().values()))
    assert [c.name for c in got if demoted(c)] == [] and "warning" not in capsys.readouterr().err


class Fake:
    @hookimpl
    def register_claims(self, register):
        register(Claim("fake-quote", "fakepaper", "§2", "our method is twice as fast as every other", (),
                       lambda df: (True, "2x"), source="fake-paper.txt"))
        register(Claim("real-quote", "fakepaper", "§3", RCB, (), lambda df: (True, "yes"), source="zoltan-ug-rcb.txt"))


def test_a_fake_quote_is_our_test_with_one_warning_and_fails_strict(register, tmp_path, capsys):
    register(Fake(), "fake")
    args = ["claims", "--paper", "fakepaper", "--out", str(tmp_path / "r"), "--format", "csv", "-q"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert err.count("warning") == 1 and "'fake-quote' is shown as our test" in err and "fake-paper.txt" in err
    assert "Our test (quote not verified: its source 'fake-paper.txt'" in out
    assert "“RCB was first proposed" in out  # the real one stays a quote
    assert main([*args, "--strict"]) == 1
