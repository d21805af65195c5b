"""The §3.6 example (workload sbn-example, Tables 1-3) through the balancer."""
import numpy as np

from harness import Machine, State

from harness.measure import metrics

from harness.run import workloads
from lbbench_sbn.balancer import plan
from lbbench_sbn.reports import example_balance, table2, table3

TABLE1_COMM = [6, 2, 3, 0, 3, 6, 12, 0, 5, 0, 3, 3, 3, 5, 2, 3]
TABLE1_REMAP = [0, 0, 0, 0, 0, 0, 7, 0, 2, 1, 1, 0, 0, 0, 0, 1]


def _example():
    _, _, levels = workloads.load("sbn-example", {}, 0)
    lv = levels[0]
    return lv.data, State(lv.meta["owner"], lv.meta["home"], 4), Machine.uniform(4)


def test_workload_gives_table1_and_table2():
    g, s, m = _example()
    assert g.n == 16 and g.nedges == 20
    c = metrics.vertex_costs(g, s, m)
    assert c.comm.tolist() == TABLE1_COMM
    assert c.remap.tolist() == TABLE1_REMAP
    q = metrics.qwgt(c, s.owner, 4)
    assert q.tolist() == [17, 3, 28, 46] and metrics.wsysll(q) == 24


def test_table3_delta_cut():
    g, s, m = _example()
    v = np.array([3, 4, 7, 8, 11, 12, 16]) - 1
    d = metrics.delta_cut(metrics.costs_if_on(g, s, m, v, 3), metrics.costs_if_on(g, s, m, v, 1), normalize=False)
    assert d.tolist() == [4, 3, -8, 9, 0, 5, -2]


def test_balancer_moves_vertex_7_from_p3_to_p1():
    g, s, m = _example()
    after, run = example_balance()
    assert np.flatnonzero(after.owner != s.owner).tolist() == [6]  # vertex 7 only
    assert after.owner[6] == 1
    assert np.array_equal(after.home, s.home)  # balancing alone moves no data (§3.5)
    q = metrics.qwgt(metrics.vertex_costs(g, after, m), after.owner, 4)
    assert q[3] == 23 and q[1] == 18 and metrics.wsysll(q) == 22
    # one balancing operation: 3 balance + 3 gather + 3 distribution messages, 1 job message
    tot = run.eng.totals()["balance"]
    assert tot["messages"] == 10
    assert run.vp[1].n_balance == 1 and sum(v.n_balance for v in run.vp.values()) == 1
    # every processor updated its thresholds from GWLen = 94
    assert all(v.thr.wsysll == 24 for v in run.vp.values())


def test_plan_fills_requesters_from_largest_surplus():
    entries = [(0, 17.0, False), (1, 3.0, True), (2, 28.0, False), (3, 46.0, False)]
    assert plan(entries, 94, 4) == {3: [(1, 21.0, 3.0)]}
    both = [(0, 17.0, True), (1, 3.0, True), (2, 28.0, False), (3, 46.0, False)]
    p = plan(both, 94, 4)
    sent = {(i, j): a for i, lst in p.items() for j, a, _ in lst}
    assert sent == {(3, 1): 21.0, (3, 0): 1.0, (2, 0): 4.0}


def test_reports_carry_paper_values():
    t2 = table2(None)[0].frame
    assert (t2["QWgt"].to_numpy()[:4] == t2["QWgt (paper)"].to_numpy()[:4]).all()
    t3 = table3(None)[0]
    assert (t3.frame["ΔCut"] == t3.frame["ΔCut (paper)"]).all()
    assert "vertices moved: [7]" in t3.note
