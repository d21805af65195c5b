"""The runner's accounting of the data that moved: the same pairs and sums whichever way they are counted."""
import numpy as np

from harness.run.runner import pair_sums


def test_pair_sums_over_the_span_are_np_unique_and_bincount():
    rng = np.random.default_rng(3)
    for P, moved in ((8, 500), (64, 100), (64, 20_000), (300, 50), (5, 0)):
        key = rng.integers(0, P, moved) * P + rng.integers(0, P, moved)
        w = rng.integers(0, 1000, moved) * 2.0**40  # sums past 2**53: the order of the additions shows
        pairs, sums = pair_sums(key, w, P * P)
        want, inv = np.unique(key, return_inverse=True)
        assert np.array_equal(pairs, want) and pairs.dtype == want.dtype
        assert np.array_equal(sums, np.bincount(inv, weights=w, minlength=want.size))


def test_engine_row_takes_the_accounts_migration_statistics_only_while_no_superstep_followed():
    from harness.engine.vprocs import Engine
    from harness.run.runner import engine_row

    eng = Engine(4, comm=None)
    eng.send("data", np.array([0, 1]), np.array([2, 3]), nbytes=np.array([8, 16]), kind="migration")
    eng.exchange()
    seen = (eng.step_stats("migration"), eng.superstep)
    assert engine_row(eng, seen) == engine_row(eng) and engine_row(eng)["migration_supersteps"] == 1
    eng.send("data", np.array([0]), np.array([1]), nbytes=np.array([8]), kind="migration")
    eng.exchange()
    assert engine_row(eng, seen) == engine_row(eng) and engine_row(eng)["migration_supersteps"] == 2  # read again
