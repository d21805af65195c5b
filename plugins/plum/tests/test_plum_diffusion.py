"""DMeTiS as multilevel diffusion (SBN paper §4.2, Schloegel/Karypis/Kumar): local coarsening, directed
diffusion, balance-keeping refinement; Scotch's repartitioner stays as ``partitioner=scotch``."""
import numpy as np
import pytest

from harness.run.api import compare
from harness.run.partitioners import metis_kway
from harness.run.workloads import load
from lbbench_plum import partitioners as pt


def mini(i):
    return load("mini", None, 0)[2][i].data


def loads(g, part, P):
    return np.bincount(part, weights=g.pwgt, minlength=P)


def cut(g, part):
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    return g.cwgt[part[src] != part[g.adjncy]].sum() / 2


def test_matching_stays_inside_partitions_and_contracts_weights():
    g = mini(2)
    old = metis_kway(g, 8, seed=0)
    rng = np.random.default_rng(0)
    cmap, nc = pt._match(g.xadj, g.adjncy, g.cwgt, old, rng)
    assert nc < 0.8 * g.n  # a real matching
    for c in range(nc):  # each coarse vertex is one vertex or one same-partition edge
        members = np.flatnonzero(cmap == c)
        assert len(members) in (1, 2) and len(set(old[members])) == 1
        if len(members) == 2:
            a, b = members
            assert b in g.adjncy[g.xadj[a]:g.xadj[a + 1]]
    xadj, adjncy, cwgt, pwgt = pt._contract(g.xadj, g.adjncy, g.cwgt, g.pwgt, cmap, nc)
    assert pwgt.sum() == g.pwgt.sum()
    internal = g.cwgt[cmap[np.repeat(np.arange(g.n), np.diff(g.xadj))] == cmap[g.adjncy]].sum()
    assert cwgt.sum() == g.cwgt.sum() - internal  # only edges inside a coarse vertex disappear
    assert np.all(np.repeat(np.arange(nc), np.diff(xadj)) != adjncy)


def test_flow_is_the_minimal_2norm_solution_that_balances():
    # a path of 3 partitions with loads 9, 3, 0 (mean 4): flows 5 then 4
    pa, pb = np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1])  # the cut edges, both directions
    f = pt._flow(pa, pb, np.array([9.0, 3.0, 0.0]), 4.0, 3)
    assert set(f) == {(0, 1), (1, 2)}
    assert f[(0, 1)] == pytest.approx(5.0) and f[(1, 2)] == pytest.approx(4.0)


def test_dmetis_rebalances_diffusively_and_deterministically():
    g1, g2 = mini(1), mini(2)
    P = 8
    old = metis_kway(g1, P, seed=0)  # balanced for the previous level, not for this one
    w0 = loads(g2, old, P)
    assert w0.max() / w0.mean() > 1.1
    new = pt.dmetis(g2, old, P, seed=4)
    w = loads(g2, new, P)
    assert w.max() <= pt.UBFACTOR * w.mean() + g2.pwgt.max()
    assert np.array_equal(new, pt.dmetis(g2, old, P, seed=4))
    # diffusion keeps far more data in place than a partition from scratch under the best relabelling
    scratch = metis_kway(g2, P, seed=0)
    S = np.zeros((P, P))
    np.add.at(S, (old, scratch), g2.rwgt)
    best_kept = max(S[np.arange(P), np.argsort(-S, axis=1)[:, 0]].sum(), 0)  # a generous bound for scratch
    kept = g2.rwgt[new == old].sum()
    assert kept > best_kept
    # and an already balanced partition is (almost) left alone; refinement may only lower the cut
    again = pt.dmetis(g2, new, P, seed=5)
    assert g2.rwgt[again != new].sum() < 0.05 * g2.rwgt.sum()
    assert cut(g2, again) <= cut(g2, new)


def test_dmetis_bad_input_and_trivial_cases():
    g = mini(0)
    with pytest.raises(ValueError, match="dmetis: old partition"):
        pt.dmetis(g, np.zeros(g.n - 1, np.int64), 4, 0)
    with pytest.raises(ValueError, match="dmetis: old partition"):
        pt.dmetis(g, np.full(g.n, 4), 4, 0)
    with pytest.raises(ValueError, match="ubfactor"):
        pt.dmetis(g, np.zeros(g.n, np.int64), 4, 0, ubfactor=0.9)
    assert not pt.dmetis(g, np.zeros(g.n, np.int64), 1, 0).any()


def test_plum_partitioners_run_and_differ(tmp_path):
    df = compare("plum[partitioner=dmetis],plum[partitioner=scotch],plum-dmetis", workload="mini", P=8,
                 out=str(tmp_path), cache=False)
    assert (df["status"] == "ok").all()
    assert set(df["algorithm"]) == {"plum[partitioner=dmetis]", "plum[partitioner=scotch]", "plum-dmetis"}
    # the diffusive DMeTiS and Scotch's repartitioner are different partitioners
    a = df[df["algorithm"] == "plum[partitioner=dmetis]"]["post_exec_cut_pct"].to_numpy()
    b = df[df["algorithm"] == "plum[partitioner=scotch]"]["post_exec_cut_pct"].to_numpy()
    assert not np.array_equal(a, b)
    with pytest.raises(ValueError, match="not one of pmetis, dmetis, scotch"):
        compare("plum[partitioner=chaco]", workload="mini", P=4, out=str(tmp_path / "x"), cache=False)
