"""Every parameter bounded (issue 40): the generators' parameters checked like mini's, the plugins' integer
parameters with upper bounds from what can finish; each refused before any work with one line, exit 2."""
import pytest

from harness.present.cli import main


@pytest.mark.parametrize("workload, expect", [
    ("shock[speed=inf]", "workload shock: speed=inf must be in [-10, 10]"),
    ("shock[scale=1e9]", "workload shock: scale=1000000000.0 must be in [0.001, 64]"),
    ("shock[levels=0]", "workload shock: levels=0 must be in [1, 1000]"),
    ("shock[radius=-1]", "workload shock: radius=-1.0 must be in [1e-06, 4]"),
    ("bl[base=100000]", "workload bl: base=100000 must be in [4, 256]"),
    ("bl[end=2]", "workload bl: end=2.0 must be in [0, 1]"),
    ("arrays[steps=100000000]", "workload arrays: steps=100000000 must be in [1, 10000]"),
    ("truss[refinements=9]", "workload truss: refinements=9 must be in [0, 5]"),
])
def test_generator_parameters_are_range_checked(capsys, workload, expect):
    assert main(["workloads", "show", workload]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expect in err, err


@pytest.mark.parametrize("method, expect", [
    ("sbn[checks=1000000000]", "sbn: checks=1000000000 must be in [1, 1000000]"),
    ("sbn[itnum=1000000]", "sbn: itnum=1000000 must be in [1, 1000]"),
    ("minex[passes=1000000000]", "minex: passes=1000000000 must be in [0, 10000]"),
    ("plum[F=1000]", "plum: F=1000 must be in [1, 64]"),
    ("plum-pmetis[iterations=1000000000]", "plum-pmetis: iterations=1000000000 must be in [0, 1000000]"),
    ("ae-mc[passes=1000000000]", "ae-mc: passes=1000000000 must be in [0, 10000]"),
    ("btlb[max_degree=100000]", "max_degree=100000 must be in [3, 1024]"),
    ("amr-itb[itb_iters=1000000000]", "amr-itb: itb_iters=1000000000 must be in [0, 100000]"),
    ("amr-sfc[block=100000]", "amr-sfc: block=100000 must be in [1, 1024]"),
    ("amr-wd[tol=inf]", "amr-wd: tol=inf must be in [0, 1e+06]"),
])
def test_plugin_parameters_have_upper_bounds(tmp_path, capsys, method, expect):
    assert main(["run", method, "-w", "mini", "-P", "2", "-q", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expect in err, err
    assert not any(tmp_path.iterdir())  # refused before any cell


def test_migration_bytes_are_declared_not_allocated(tmp_path):
    """Issue 40: a legal graph with one vertex of size 2^49 failed every METIS cell ("Unable to allocate 4.00 PiB"):
    the runner's accounting allocated its migration bytes. They are declared now, and counted."""
    from harness.run.api import compare

    n = 40
    for lvl in (1, 2):  # the heavy vertex moves: the load shifts from one end of the path to the other
        rows = [f"{n} {n - 1} 110"] + [" ".join(map(str, [2 ** 49 if v == 1 else 1, (v if lvl == 1 else n + 1 - v) ** 2]
                                                       + [u for u in (v - 1, v + 1) if 1 <= u <= n]))
                                       for v in range(1, n + 1)]
        (tmp_path / f"g{lvl}.graph").write_text("\n".join(rows) + "\n")
    df = compare("metis", workload="files", workload_params={"path": str(tmp_path)}, P=4, out=str(tmp_path / "out"),
                 cache=False)
    assert (df["status"] == "ok").all(), df["status"].tolist()
    assert (df["wire_migration_bytes"] == 8 * df["moved_weight"]).all() and df["moved_weight"].max() >= 2 ** 49
