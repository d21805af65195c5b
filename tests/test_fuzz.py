"""Fuzzing the parsers users feed by hand: they return or raise one clear ValueError, never anything else."""
import tempfile
from pathlib import Path

import click
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import parse_levels
from harness.spec import parse_methods

SCRATCH = Path(tempfile.mkdtemp(prefix="lbbench-fuzz-"))
FAST = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SPEC_CHARS = st.sampled_from(list("abcmetis[]=,/-_.0123456789 ") + ["sbn", "plum", "[k=v]", "//", "[[", "]]"])


@FAST
@given(st.lists(SPEC_CHARS, max_size=30).map("".join))
def test_method_specs(text):
    try:
        methods = parse_methods(text)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert methods and all(m.calls for m in methods)


@FAST
@given(st.lists(st.sampled_from(list("0123456789-, ") + ["1000000000", "-1"]), max_size=20).map("".join))
def test_level_ranges(text):
    try:
        levels = parse_levels(text)
    except click.BadParameter as exc:
        assert "--levels" in exc.format_message()
        return
    assert levels is None or (levels == sorted(set(levels)) and len(levels) < 100_000)


@FAST
@given(st.lists(st.one_of(st.integers(-3, 12).map(str), st.sampled_from(["%c", "\n", "\n", " ", "011", "x",
                                                                             "99999999999", "1e3"])),
                max_size=40).map(" ".join))
def test_graph_files(text):
    from workloads.files import read_graph

    path = SCRATCH / "x.graph"
    path.write_text(text)
    try:
        g = read_graph(path)
    except ValueError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    assert g.n >= 0
