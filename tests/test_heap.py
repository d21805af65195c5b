"""harness.run.heap (issue 52): where mpiexec started several ranks on the host, an allocation of at least
``MAP_ABOVE`` bytes gets its own pages, handed back to the system when it is freed, even after one as large was
freed before (glibc raises its own threshold then); one process keeps glibc's own behaviour."""
import json
import os
import subprocess
import sys

import pytest

from harness.run import heap

PROBE = """
import json, numpy as np
from harness.run import heap
mapped = heap._INFO().hblkhd
a = np.ones(2 * heap.MAP_ABOVE // 8)
del a  # (glibc's own threshold rises to its size here)
b = np.ones(2 * heap.MAP_ABOVE // 8)
grew = heap._INFO().hblkhd - mapped
del b
print(json.dumps([grew, heap._INFO().hblkhd - mapped]))
"""


def _mapped(local_ranks: str) -> list[int]:
    env = {k: v for k, v in os.environ.items() if k not in ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**env, "MPI_LOCALNRANKS": local_ranks},
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.skipif(heap._INFO is None or heap._OPT is None, reason="glibc's mallopt and mallinfo2")
def test_a_large_array_is_mapped_apart_and_unmapped_when_freed_where_ranks_share_the_host():
    grew, left = _mapped("2")
    assert grew >= 2 * heap.MAP_ABOVE and left < heap.MAP_ABOVE  # mapped apart, then unmapped
    grew, _ = _mapped("1")
    assert grew < heap.MAP_ABOVE  # one process: from the heap, as glibc does
