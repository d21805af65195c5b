"""The similarity matrix built on the engine: each vproc's row, gathered on the host, mapping sent back."""
import numpy as np

from harness import Engine, Machine
from lbbench_plum.reassign import heuristic
from lbbench_plum.similarity import gather_similarity, scatter_mapping, similarity_matrix


def test_engine_gather_equals_the_whole_matrix_and_counts_messages():
    rng = np.random.default_rng(0)
    P, F, n = 8, 2, 3000
    home = rng.integers(0, P, n)
    home[home == 5] = 4  # vproc 5 holds nothing: its row is empty but still sent
    parts = rng.integers(0, F * P, n)
    rwgt = rng.integers(1, 40, n)
    eng = Engine(P, Machine.uniform(P), comm=None)
    S = gather_similarity(eng, home, parts, rwgt, F * P)
    assert np.array_equal(S, similarity_matrix(home, parts, rwgt, P, F * P))
    assert not S[5].any()
    proc = scatter_mapping(eng, heuristic(S, F))
    assert np.array_equal(proc, heuristic(S, F))
    t = eng.totals()["balance"]
    assert t["messages"] == P + (P - 1)  # P rows to the host, the mapping to the P - 1 others
    assert eng.pair_matrix("balance", "messages")[:, 0].sum() == P
