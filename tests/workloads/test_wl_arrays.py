"""arrays workload: MLB's structured integer load functions."""
import numpy as np
import pytest

from workloads import arrays


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_shapes_and_kinds(dims):
    size = 16 if dims == 3 else 64
    for kind in arrays.KINDS:
        lv = arrays.generate(seed=1, kind=kind, dims=dims, size=size, steps=4, base=2)
        assert [x.index for x in lv] == [1, 2, 3, 4]
        for x in lv:
            assert x.form == "array" and x.data.load.shape == (size,) * dims and x.data.load.min() >= 0
        if kind == "uniform":
            assert all(np.all(x.data.load == 2) for x in lv)


def test_peaks_move_and_are_amr_like():
    lv = arrays.generate(seed=0, kind="peaks", dims=2, size=64, steps=5, base=1, npeaks=2)
    loads = [x.data.load for x in lv]
    assert set(np.unique(loads[0])) <= {1, 8, 64}  # 2**((dims+1)*level) for levels 0, 1, 2
    assert not np.array_equal(loads[0], loads[-1])
    assert lv[0].meta["centres"] != lv[-1].meta["centres"]


def test_deterministic_and_bad_parameters():
    a = arrays.generate(seed=5, kind="random", steps=2)
    b = arrays.generate(seed=5, kind="random", steps=2)
    assert all(np.array_equal(x.data.load, y.data.load) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="kind"):
        arrays.generate(kind="spiky")
    with pytest.raises(ValueError):
        arrays.generate(dims=4)
