"""The SBN paper's illustrative example (§3.6, Tables 1-3)."""
import numpy as np

from harness.measure import metrics

# Table 1, vertices 1..16
OWNER = np.array([2, 1, 3, 3, 2, 2, 3, 3, 2, 0, 3, 3, 0, 0, 0, 3])
WGT = np.array([1, 1, 2, 1, 1, 3, 4, 1, 1, 2, 3, 1, 1, 1, 2, 1], float)
COMM = np.array([6, 2, 3, 0, 3, 6, 12, 0, 5, 0, 3, 3, 3, 5, 2, 3], float)
REMAP = np.array([0, 0, 0, 0, 0, 0, 7, 0, 2, 1, 1, 0, 0, 0, 0, 1], float)


def test_table2_qwgt_and_wsysll():
    c = metrics.Costs(WGT, COMM, REMAP)
    q = metrics.qwgt(c, OWNER, 4)
    assert q.tolist() == [17, 3, 28, 46]
    assert metrics.wsysll(q) == 24
    for col, want in ((WGT, [6, 1, 6, 13]), (COMM, [10, 2, 20, 24]), (REMAP, [1, 0, 2, 9])):
        assert np.bincount(OWNER, weights=col, minlength=4).tolist() == want


def test_table3_delta_cut_and_move_of_vertex_7():
    v = np.array([3, 4, 7, 8, 11, 12, 16]) - 1
    remap_p1 = np.array([1, 2, 0, 3, 1, 1, 1], float)
    comm_p1 = np.array([6, 1, 11, 6, 3, 7, 1], float)
    on_p3 = metrics.Costs(WGT[v], COMM[v], REMAP[v])
    on_p1 = metrics.Costs(WGT[v], comm_p1, remap_p1)
    assert metrics.delta_cut(on_p3, on_p1, normalize=False).tolist() == [4, 3, -8, 9, 0, 5, -2]
    norm = metrics.delta_cut(on_p3, on_p1)
    assert norm.tolist() == [2, 3, -8, 9, 0, 5, -2]  # positive values divided by Wgt
    assert v[np.argmin(norm)] == 6  # MinV is vertex 7
    owner, comm, remap = OWNER.copy(), COMM.copy(), REMAP.copy()
    owner[6], comm[6], remap[6] = 1, 11, 0
    q = metrics.qwgt(metrics.Costs(WGT, comm, remap), owner, 4)
    assert q[3] == 23 and q[1] == 18
    assert metrics.wsysll(q) == 22
