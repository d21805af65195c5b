"""harness.run.heap (issue 52): an allocation of at least ``MAP_ABOVE`` bytes gets its own pages, handed back to
the system when it is freed, even after one as large was freed before (glibc raises its own threshold then)."""
import numpy as np
import pytest

from harness.run import heap


@pytest.mark.skipif(heap._INFO is None or heap._OPT is None, reason="glibc's mallopt and mallinfo2")
def test_a_large_array_is_mapped_apart_and_unmapped_when_freed():
    mapped = heap._INFO().hblkhd
    a = np.ones(2 * heap.MAP_ABOVE // 8)
    del a  # (glibc's own threshold would rise to its size here)
    b = np.ones(2 * heap.MAP_ABOVE // 8)
    assert heap._INFO().hblkhd >= mapped + b.nbytes  # mapped apart, not from the heap
    del b
    assert heap._INFO().hblkhd < mapped + heap.MAP_ABOVE  # and unmapped

