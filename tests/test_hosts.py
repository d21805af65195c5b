"""Beyond one machine: a compare launched through an MPICH Hydra hostfile (this host, named twice)."""
import io
import socket
import subprocess
import sys

import pandas as pd
import pytest

from harness.present.cli import main
from harness.testing import mpiexec

METRICS = ["level", "algorithm", "status", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "maxqwgt",
           "moved_weight", "owners_hash"]


@pytest.mark.mpi
def test_compare_through_a_hostfile_naming_this_host_twice(tmp_path, capsys):
    host = socket.gethostname()
    hosts = tmp_path / "hosts"
    hosts.write_text(f"{host}:1\n{host}:1\n")  # one rank per "host"
    args = ["compare", "--plugins", "sbn,metis", "-P", "8", "-w", "mini", "--format", "csv", "-q"]
    res = subprocess.run([mpiexec(), "-f", str(hosts), "-n", "2", sys.executable, "-m", "harness.present.cli", *args,
                          "--out", str(tmp_path / "many")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    many = pd.read_csv(io.StringIO(res.stdout), dtype={"owners_hash": str})
    assert (many["ranks"] == 2).all() and (many["status"] == "ok").all() and len(many) == 6
    assert many["rank_balance"].between(0, 1, inclusive="right").all()
    # rank 0 alone wrote the results: one cell file each, no temporary file left behind
    assert len(list((tmp_path / "many" / "cells").glob("*.json"))) == 6
    assert not list((tmp_path / "many").rglob(".*.tmp"))

    assert main([*args, "--out", str(tmp_path / "one")]) == 0
    one = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"owners_hash": str})
    pd.testing.assert_frame_equal(one[METRICS], many[METRICS])
