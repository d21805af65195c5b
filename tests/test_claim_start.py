"""Claims on traces start where the application was (issue 50): ``lbbench claims`` runs a claim's cells on a vt
workload from the trace's placement, as ``compare`` does, and every claim's row says its start."""
import io

import pandas as pd

from harness import Claim, hookimpl
from harness.present.cli import main

TRACE = "vt-synthetic[ranks=4,phases=2,tasks=8]"


def _starts(df):
    return (set(df["initial"]) == {"trace"}, ",".join(sorted(set(df["initial"]))))


class TraceClaims:
    @hookimpl
    def register_claims(self, register):
        register(Claim("trace-start", "startpaper", "§1", "none starts where the trace ran", (
            {"methods": "none", "P": (4,), "workload": TRACE},), _starts, kind="our test", source="the trace"))
        register(Claim("mini-start", "startpaper", "§2", "none starts from METIS on mini", (
            {"methods": "none", "P": (4,), "workload": "mini"},), lambda df: (set(df["initial"]) == {"metis"}, "m"),
            kind="our test", source="mini"))


def test_a_claim_on_a_trace_starts_from_the_trace_and_its_row_says_so(register, tmp_path, capsys):
    register(TraceClaims(), "trace-claims")
    assert main(["claims", "--paper", "startpaper", "--out", str(tmp_path), "-q", "--format", "csv", "--strict"]) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("Claim")
    assert df["Start"].tolist() == ["trace", "metis"] and set(df["Verdict"]) == {"holds"}
