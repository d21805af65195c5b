"""PLUM's ``partitioner=scotch``: Scotch's repartitioning with migration cost (direction of emrat, determinism)."""
import numpy as np

from harness import load_workload as load
from harness import metis_kway
from lbbench_plum.partitioners import pmetis
from lbbench_plum.partitioners import scotch as dmetis


def mini(i):
    return load("mini", None, 0)[2][i].data


def test_migration_ratio_direction_and_determinism():
    g1, g2 = mini(0), mini(1)
    P = 8
    old = metis_kway(g2, P, seed=0)
    rng = np.random.default_rng(1)
    pert = old.copy()
    idx = rng.choice(g2.n, g2.n // 10, replace=False)
    pert[idx] = old[g2.adjncy[g2.xadj[idx]]]  # a slightly disturbed, still balanced partition
    moved = {e: g2.rwgt[dmetis(g2, pert, P, seed=0, emrat=e) != pert].sum() for e in (0.0, 1.0, 10.0)}
    # emrat = 0: migration is free, Scotch partitions afresh; larger emrat: migration costs more, less moves
    assert moved[0.0] > 10 * moved[1.0] and moved[1.0] >= moved[10.0]
    a = dmetis(g2, metis_kway(g1, P, seed=0), P, seed=3)
    b = dmetis(g2, metis_kway(g1, P, seed=0), P, seed=3)
    assert np.array_equal(a, b)
    w = np.bincount(a, weights=g2.pwgt, minlength=P)
    assert w.max() / w.mean() < 1.1 and len(np.unique(a)) == P


def test_pmetis_is_metis_from_scratch():
    g = mini(2)
    assert np.array_equal(pmetis(g, 8, seed=5), metis_kway(g, 8, seed=5))
