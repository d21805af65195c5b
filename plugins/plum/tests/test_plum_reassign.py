"""Processor reassignment (SBN paper §4.3): Fig. 7, the heuristic's factor-2 bound, the optimal assignment."""
import itertools

import numpy as np
import pytest

from harness import Graph, Machine, State
from harness.measure.metrics import maxsr
from lbbench_plum.reassign import heuristic, kept, maxsr_from_similarity, optimal, sent_received
from lbbench_plum.similarity import similarity_matrix


def fig7() -> np.ndarray:
    S = np.zeros((4, 8), np.int64)
    for (i, j), v in {(0, 1): 1020, (0, 3): 120, (1, 2): 500, (1, 4): 443, (1, 5): 372, (2, 0): 129,
                      (2, 1): 130, (2, 3): 229, (2, 6): 43, (2, 7): 446, (3, 0): 13, (3, 1): 410,
                      (3, 2): 281, (3, 6): 198}.items():
        S[i, j] = v
    return S


def test_fig7_heuristic_gives_the_printed_assignment():
    proc = heuristic(fig7(), F=2)
    assert proc.tolist() == [3, 0, 1, 2, 1, 0, 3, 2]  # "New Processors" row under Fig. 7


def test_fig7_optimal_keeps_at_least_as_much_and_every_processor_gets_F():
    S = fig7()
    h, o = heuristic(S, 2), optimal(S, 2)
    assert np.bincount(o, minlength=4).tolist() == [2, 2, 2, 2]
    assert kept(S, h) == 1020 + 500 + 446 + 443 + 229 + 198 + 13 + 0
    assert kept(S, o) >= kept(S, h)


def brute_force_best(S, F):
    P, n = S.shape
    best = -1
    for perm in itertools.permutations(range(n)):
        proc = np.asarray(perm) // F  # slot k belongs to processor k // F
        best = max(best, kept(S, proc))
    return best


@pytest.mark.parametrize("P,F", [(3, 1), (4, 1), (2, 2), (3, 2), (2, 3)])
def test_random_matrices_half_of_optimal_and_optimal_never_beaten(P, F):
    rng = np.random.default_rng(P * 10 + F)
    for trial in range(40):
        S = rng.integers(0, 1000, size=(P, F * P))
        S[rng.random(S.shape) < 0.4] = 0  # sparse, like real similarity matrices
        h, o = heuristic(S, F), optimal(S, F)
        for proc in (h, o):
            assert sorted(np.bincount(proc, minlength=P).tolist()) == [F] * P
        best = brute_force_best(S, F) if F * P <= 7 else kept(S, o)
        assert kept(S, o) == best
        assert 2 * kept(S, h) >= kept(S, o)
        for _ in range(20):  # no random assignment beats the optimal one
            assert kept(S, np.random.default_rng(trial).permutation(F * P) // F) <= kept(S, o)


def test_larger_random_matrices_bound():
    rng = np.random.default_rng(7)
    for P, F in [(32, 1), (16, 2), (64, 1)]:
        S = rng.integers(0, 50, size=(P, F * P)) * (rng.random((P, F * P)) < 0.2)
        S[np.arange(P), rng.permutation(F * P)[:P]] += 500  # a dominant entry per row
        h, o = heuristic(S, F), optimal(S, F)
        assert kept(S, o) >= kept(S, h) >= kept(S, o) / 2


def test_bad_input():
    with pytest.raises(ValueError, match="F = 2 it must be 4 x 8"):
        heuristic(np.zeros((4, 4)), F=2)
    with pytest.raises(ValueError, match="negative"):
        optimal(-np.ones((2, 2)), F=1)


def test_maxsr_from_similarity_equals_the_metric():
    """§4.4: "MaxSR can be accurately computed from the similarity matrix" (unit Conn)."""
    rng = np.random.default_rng(3)
    n, P, F = 400, 6, 2
    g = Graph.from_edges(n, np.arange(n - 1), np.arange(1, n), rwgt=rng.integers(1, 30, n))
    home = rng.integers(0, P, n)
    parts = rng.integers(0, F * P, n)
    S = similarity_matrix(home, parts, g.rwgt, P, F * P)
    assert S.sum() == g.rwgt.sum()
    proc = heuristic(S, F)
    before = State.settled(home, P)
    after = State.settled(proc[parts], P)
    sent, recv = sent_received(S, proc)
    assert sent.sum() == recv.sum() == g.rwgt[home != after.owner].sum()
    assert maxsr_from_similarity(S, proc) == maxsr(g, before, after, Machine.uniform(P))["maxsr"]
