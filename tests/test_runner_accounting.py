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
