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


def test_step_stats_read_again_at_the_same_superstep_are_the_first_reads():
    from harness.engine.vprocs import Engine

    eng = Engine(4, comm=None)
    reads = []
    gather = eng._gather
    eng._gather = lambda x, what: reads.append(what) or gather(x, what)
    eng.send("data", np.array([0, 1]), np.array([2, 3]), nbytes=np.array([8, 16]), kind="migration")
    eng.exchange()
    first = eng.step_stats("migration")
    first["supersteps"] = 99  # the caller's copy
    assert eng.step_stats("migration")["supersteps"] == 1 and reads == ["step_stats"]  # read once
    eng.send("data", np.array([0]), np.array([1]), nbytes=np.array([8]), kind="migration")
    eng.exchange()
    assert eng.step_stats("migration")["supersteps"] == 2 and len(reads) == 2  # a superstep followed: read again
    eng.reset_counters()
    assert eng.step_stats("migration")["supersteps"] == 0 and len(reads) == 3  # a new cell
