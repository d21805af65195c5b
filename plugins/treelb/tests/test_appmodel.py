"""harness.measure.appmodel (Eqs. 1-8) and the Eq. 7 consistency of the paper's own Tables 2-4 (spec §5.4)."""
import numpy as np
import pytest

from harness import (Graph, Machine, State, app_figures, app_speedup, app_speedup_from_tables, app_speedup_max,
                     app_total_time, paper_values)


def test_eq7_reproduces_all_48_table3_values_from_tables_2_and_4():
    t2, t3, t4 = (paper_values("tree", t).set_index(["row", "P"])["value"].astype(float) for t in "234")
    assert len(t3) == 48
    got = app_speedup_from_tables(t2.loc[t3.index].to_numpy(), t4.loc[t3.index].to_numpy(), 1000.0)
    assert np.abs(got - t3.to_numpy()).max() <= 0.035


def test_app_figures_by_hand():
    # a path 0-1-2-3 with owners [0, 0, 1, 2]: P0 sends node 1 to P1; P1 sends node 2 to P0 and P2 ...
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3])
    m = Machine(3, latency=1e-3, bandwidth=1e3)
    f = app_figures(g, State.settled(np.array([0, 0, 1, 2]), 3), m, t_task=1e-2)
    # P1: comp 1e-2, comm 2 * 1e-3 + 16 bytes * 1e-3 s/byte = 0.018 -> 0.028; P0: 0.02 + 0.009 = 0.029
    assert f["app_iter_s"] == pytest.approx(0.029) and f["app_iter_argmax_proc"] == 0
    assert f["app_comp_max_s"] == pytest.approx(0.02) and f["app_comm_max_s"] == pytest.approx(0.018)
    assert f["app_delta_max"] == 2 and f["app_phi_bytes_max"] == 16
    assert f["app_seq_iter_s"] == pytest.approx(0.04)
    g0 = app_figures(g, State.settled(np.array([0, 0, 1, 2]), 3), m, t_task=1e-2, t_setup=0.0, t_c=0.0)
    assert g0["app_iter_s"] == pytest.approx(0.02)


def test_eq7_eq8():
    it, seq = np.array([0.1, 0.2]), np.array([0.5, 1.0])
    assert app_speedup_max(it, seq) == pytest.approx(5.0)
    assert app_speedup(10.0, it, seq, 1000) == pytest.approx(1500.0 / (10.0 + 300.0))
    assert app_total_time(10.0, it, 1000) == pytest.approx(310.0)


def test_interconnect_slowdown_scales_each_pair():
    g = Graph.from_edges(4, [0, 1, 2], [1, 2, 3])
    owner = np.array([0, 0, 1, 2])
    flat = app_figures(g, State.settled(owner, 3), Machine(3, latency=1e-3, bandwidth=1e3), t_task=0.0)
    slow = app_figures(g, State.settled(owner, 3), Machine.grid(3, 3, 10.0), t_task=0.0, t_setup=1e-3, t_c=1e-3)
    assert slow["app_comm_max_s"] == pytest.approx(10 * flat["app_comm_max_s"])
