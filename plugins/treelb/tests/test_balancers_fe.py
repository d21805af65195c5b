"""The balancers on an FE graph through the engine: load, messages, node selection (§3.1 Phase 4)."""
import numpy as np
import pytest

from harness import Engine, Graph, Machine
from lbbench_treelb.balancers import run
from lbbench_treelb.procgraph import processor_graph
from lbbench_treelb.transfer import select
from lbbench_treelb.trees import mcst


def _imbalanced(g, P):
    # strips along x with very different widths
    cuts = np.linspace(0, 1, P + 1) ** 1.7 * g.coords[:, 0].max() * 1.0001
    return np.clip(np.searchsorted(cuts, g.coords[:, 0], side="right") - 1, 0, P - 1)


@pytest.mark.parametrize("method", ["mcstlb", "btlb", "cbtlb"])
@pytest.mark.parametrize("P", [1, 2, 5, 8])
def test_balances_and_posts_one_message_per_transfer(grid, method, P):
    own = _imbalanced(grid, P)
    eng = Engine(P, Machine.sp2(P), comm=None)
    new, rec, steps = run(method, grid, own, P, eng)
    load = np.bincount(new, minlength=P)
    assert load.sum() == grid.n
    assert np.abs(load - grid.n / P).max() <= 1
    mig = eng.step_stats("migration")
    assert mig["supersteps"] == rec["tree_schedule_steps"] == len([s for s in steps if s[1]])
    assert mig["messages"] == rec["tree_transfers"]
    assert mig["bytes"] == 8 * rec["tree_nodes_moved"]
    if method != "cbtlb":
        assert mig["max_msgs_per_vproc"] <= 1 and mig["max_recv_per_vproc"] <= 1  # single port
    assert rec["tree_twa_supersteps"] == eng.step_stats("balance")["supersteps"]
    # counted T_exec: Phase 1 scans the largest part, each step costs 2 visits per node of its largest transfer
    largest = [max((m for _, _, m in st), default=0) for _, st in steps]
    assert rec["tree_node_visits"] == np.bincount(own, minlength=P).max() + 2 * sum(largest)
    assert 0 <= rec["tree_nodes_moved_twice"] <= rec["tree_nodes_moved"]


def test_everything_on_one_processor_uses_virtual_edges(grid):
    own = np.zeros(grid.n, np.int64)
    new, rec, _ = run("btlb", grid, own, 6)
    assert rec["tree_virtual_edges"] == 5
    assert np.abs(np.bincount(new, minlength=6) - grid.n / 6).max() <= 1


def test_transfer_takes_the_boundary_first(grid):
    own = (grid.coords[:, 0] >= 10).astype(np.int64)  # P0: x < 10, P1: the rest
    ids = select(grid, own, 1, 0, 20)
    assert ids.size == 20 and np.all(grid.coords[ids, 0] == 10)  # the first layer: the column next to P0
    ids = select(grid, own, 1, 0, 30)
    assert set(grid.coords[ids, 0]) == {10.0, 11.0}
    assert np.array_equal(np.sort(ids[:20]), np.flatnonzero(grid.coords[:, 0] == 10))


def test_transfer_between_non_adjacent_processors(grid):
    x = grid.coords[:, 0]
    own = np.where(x < 5, 0, np.where(x < 25, 1, 2))
    ids = select(grid, own, 0, 2, 15)  # P0 and P2 do not touch: the nodes of P0 nearest P2
    assert ids.size == 15 and np.all(x[ids] == 4)


def test_weighted_transfer_stops_near_the_amount():
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3], pwgt=[3, 3, 3, 1])
    own = np.array([0, 0, 0, 1])
    ids = select(g, own, 0, 1, 4)  # 3 first (boundary), then 3 more would overshoot by 2 > 1.5
    assert list(ids) == [2]


def test_processor_graph_counts_cut_edges(grid):
    own = (grid.coords[:, 0] >= 10).astype(np.int64)
    pg = processor_graph(grid, own, 2)
    assert pg.a.tolist() == [0] and pg.b.tolist() == [1]
    assert pg.w[0] == int((own[grid.src] < own[grid.adjncy]).sum())
    assert mcst(pg).edges() == {(0, 1)}


def test_boundary_node_edge_weight(grid):
    own = (grid.coords[:, 0] >= 10).astype(np.int64)
    pg = processor_graph(grid, own, 2, "boundary_nodes")
    assert pg.w.tolist() == [40]  # 20 nodes on each side of the cut
    with pytest.raises(ValueError, match="edge_weight"):
        processor_graph(grid, own, 2, "bytes")
    new, _, _ = run("cbtlb", grid, np.minimum(own * 3, 2), 3, edge_weight="boundary_nodes")
    assert np.abs(np.bincount(new, minlength=3) - grid.n / 3).max() <= 1


def test_cbtlb_case2_tops_up_adj_then_sends_m_from_adj():
    """§3.3 Phase 4 Case 2: if ADJ (the members of C_i adjacent to C_j) holds less than m, members of C_i first
    send to ADJ "such that the weights of processors in ADJ is greater than or equal to m"; then m nodes go from
    ADJ to C_j's processors adjacent to them. Two 2-cubes {0,1,2,3}, {4,5,6,7} joined by the edge 3-4."""
    from lbbench_treelb.balancers import expand_meta_step
    from lbbench_treelb.condense import condense
    from lbbench_treelb.procgraph import ProcGraph

    edges = [(0, 1, 1), (1, 3, 1), (3, 2, 1), (2, 0, 1), (4, 5, 1), (5, 7, 1), (7, 6, 1), (6, 4, 1), (3, 4, 1)]
    load = np.array([10, 10, 10, 2, 5, 5, 5, 5])
    pg = ProcGraph.from_edges(8, edges, load)
    cd = condense(pg)
    assert [sorted(m) for m in cd.members] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert expand_meta_step([(0, 1, 8)], cd, pg, load) == [[(0, 3, 6)], [(3, 4, 8)]]  # top up 6, then send m = 8
    assert expand_meta_step([(0, 1, 2)], cd, pg, load) == [[(3, 4, 2)]]  # ADJ holds m: it sends alone
