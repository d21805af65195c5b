"""PLUM through the runner level by level: MaxSR recomputed from the old and new states, owners from the mapping."""
import numpy as np
import pytest

from harness import (Engine, Machine, available_algorithms, carry, graph_of, initial_state, load_workload, maxsr)
from harness.run.api import compare
from harness.run.runner import plan, run_cell
from harness.contract.spec import parse_method


def run_levels(method, P, machine="uniform"):
    m = Machine.parse(machine, P)
    eng = Engine(P, m, comm=None)
    pl = plan(parse_method(method), available_algorithms())
    _, _, levels = load_workload("mini", None, 0)
    graphs = [graph_of(lv) for lv in levels]
    state, memory, out = initial_state(levels[0], P, 0), pl.new_memory(), []
    for lv, g in zip(levels, graphs):
        before = carry(state, lv)
        row, state = run_cell(pl.roles(lv is levels[0]), lv, g, before, m, eng, 0, memory, None)
        mem = next(iter(memory.values()))
        out.append((g, before, state, row, {"labels": mem.labels, "proc": mem.labels_proc}))
    return out


@pytest.mark.parametrize("method,machine", [("plum-pmetis", "uniform"), ("plum-dmetis[F=2]", "uniform"),
                                            ("plum[remapper=optimal]", "grid:2:4")])
def test_maxsr_equals_a_recomputation_from_the_states(method, machine):
    P = 8
    m = Machine.parse(machine, P)
    for g, before, after, row, memory in run_levels(method, P, machine):
        assert row["status"] == "ok"
        assert np.array_equal(after.home, after.owner)  # PLUM migrates eagerly
        assert row["maxsr"] == maxsr(g, before, after, m)["maxsr"]
        # recomputed by hand from the definition (SBN §5.2): max sent + max received, Remap = rwgt * Conn
        moved = before.home != after.home
        cost = g.rwgt[moved] * m.slowdown(before.home[moved], after.home[moved])
        sent = np.bincount(before.home[moved], weights=cost, minlength=P)
        recv = np.bincount(after.home[moved], weights=cost, minlength=P)
        assert row["maxsr"] == pytest.approx(sent.max() + recv.max())
        assert row["plum_accepted"] and row["plum_maxsr_proposed"] == row["maxsr"]
        if machine == "uniform":  # S alone predicts it when Conn is 1
            assert row["plum_maxsr_similarity"] == row["maxsr"]
        # the similarity kept by the mapping is exactly the weight that stayed
        assert row["plum_kept"] == g.rwgt[~moved].sum()


def test_f2_labels_carry_over_between_levels():
    runs = run_levels("plum-dmetis[F=2]", 4)
    for g, before, after, row, memory in runs:
        labels, proc = memory["labels"], memory["proc"]
        assert labels.max() < 8 and np.array_equal(proc[labels], after.owner)
        assert sorted(np.bincount(proc, minlength=4).tolist()) == [2, 2, 2, 2]


def test_pmetis_and_dmetis_differ_as_in_the_paper(tmp_path):
    """DMeTiS starts from the current partition: it keeps more data in place than PMeTiS."""
    df = compare("plum-pmetis,plum-dmetis", workload="mini", P=8, out=tmp_path)
    kept = df.groupby("algorithm").plum_kept_identity.mean()
    assert kept["plum-dmetis"] > kept["plum-pmetis"]
