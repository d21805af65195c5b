"""MinEX §3.3 criteria, checked move by move against harness.measure.latency / harness.measure.metrics, and the C kernel
against the Python reference."""
import math

import numpy as np
import pytest

from harness import Graph, Machine, compare
from harness.measure import latency as lt
from harness.builtin.mini import generate
from harness import initial_state
from lbbench_minex import minex as mx
from lbbench_minex.criteria import Criteria, Loads
from lbbench_minex.mesh import Mesh
from lbbench_minex.runs import accumulated


@pytest.fixture(scope="module")
def mini():
    levels = generate(seed=0, points=900, levels=3)
    return levels, initial_state(levels[0], 8, 0)


def minvar(q):
    return float(((q - q.min()) ** 2).sum())


def replay(g, m, owner, home, trace, latency, gain="sum"):
    """Re-apply each traced move at the fine level; return (brute gain, brute ΔMinVar, QwgtTot0, record) per move.

    Gain is the change of §2.3's additive QwgtTot (``gain="sum"``) or of the latency model's; ΔMinVar and
    QwgtTot0 (the ThroTtle scale) are always under the latency model."""
    cur = np.array(owner, copy=True)
    q0 = lt.qwgt(*lt.processor_costs(g, m, cur, home), latency)
    gmodel = "none" if gain == "sum" else latency
    out = []
    tot0 = q0.sum()
    for rec in trace:
        assert np.all(cur[rec["members"]] == rec["p"])
        costs = lt.processor_costs(g, m, cur, home)
        before, gb = lt.qwgt(*costs, latency), lt.qwgt(*costs, gmodel)
        cur[rec["members"]] = rec["q"]
        costs = lt.processor_costs(g, m, cur, home)
        after, ga = lt.qwgt(*costs, latency), lt.qwgt(*costs, gmodel)
        out.append((ga.sum() - gb.sum(), minvar(after) - minvar(before), tot0, rec))
    return out, cur


@pytest.mark.parametrize("latency,gain", [("none", "sum"), ("max", "sum"), ("max", "model")])
@pytest.mark.parametrize("machine", ["uniform", "grid:2:3"])
def test_each_move_lowers_minvar_and_respects_throttle(mini, latency, gain, machine):
    levels, start = mini
    P = 8
    m = Machine.parse(machine, P)
    g = levels[1].data
    home = start.owner.copy()
    home[::11] = (home[::11] + 1) % P  # some data held elsewhere, so Remap matters
    T = 4.0
    trace = []
    parts, stats = mx.minex(g, start.owner, home, m, seed=3, throttle=T, latency=latency, impl="python",
                            trace=trace, gain=gain)
    assert stats.coarse_moves + stats.expand_moves == len(trace) > 10
    moves, final = replay(g, m, start.owner, home, trace, latency, gain)
    assert np.array_equal(final, parts)
    for gain, dmv, tot0, rec in moves:
        assert gain == pytest.approx(rec["gain"], abs=1e-6 * tot0)
        assert dmv == pytest.approx(rec["dminvar"], rel=1e-9, abs=1e-6 * tot0)
        assert dmv < 0, "an accepted move must lower MinVar"
        assert -gain / dmv * tot0 < T * (1 + 1e-9), "ThroTtle gate -Gain/ΔMinVar < ThroTtle (loads / QwgtTot0)"


def test_throttle_zero_never_raises_qwgttot(mini):
    levels, start = mini
    P = 8
    m = Machine.parse("grid:2:3", P)
    g = levels[2].data
    trace = []
    parts, _ = mx.minex(g, start.owner, start.owner, m, seed=1, throttle=0.0, impl="python", trace=trace)
    moves, _ = replay(g, m, start.owner, start.owner, trace, "none")
    assert moves, "with ThroTtle = 0 MinEX still takes moves that lower QwgtTot"
    assert all(gain < 0 for gain, *_ in moves)
    before = lt.qwgt(*lt.processor_costs(g, m, start.owner, start.owner), "none").sum()
    after = lt.qwgt(*lt.processor_costs(g, m, parts, start.owner), "none").sum()
    assert after < before


def test_throttle_trend(mini):
    """Table 1's trend: a larger ThroTtle admits more QwgtTot for a better balance (lower MaxQwgt)."""
    levels, start = mini
    m = Machine.parse("uniform", 8)
    g = levels[1].data
    res = {}
    for T in (0.0, math.inf):
        parts, _ = mx.minex(g, start.owner, start.owner, m, seed=0, throttle=T)
        q = lt.qwgt(*lt.processor_costs(g, m, parts, start.owner), "none")
        res[T] = (q.max(), q.sum())
    assert res[math.inf][0] < res[0.0][0] and res[math.inf][1] > res[0.0][1]


def test_throttle_gates_balance_under_max_tolerance(mini):
    """Our reading of §3.3 (README): Gain is the change of §2.3's additive QwgtTot, so under maximum latency
    tolerance a balancing move still costs its Remap and ThroTtle gates it, as in Table 1. With Gain under the
    latency model (``gain=model``) a move that only shifts processing has Gain 0 and passes any ThroTtle > 0."""
    levels, start = mini
    P = 8
    m = Machine.parse("uniform", P)
    g = levels[1].data
    imb = {}
    for gain in ("sum", "model"):
        for T in (0.5, 64.0, math.inf):
            parts, _ = mx.minex(g, start.owner, start.owner, m, seed=0, throttle=T, latency="max", gain=gain)
            q = lt.qwgt(*lt.processor_costs(g, m, parts, start.owner), "max")
            imb[gain, T] = P * q.max() / q.sum()
    assert imb["sum", 0.5] > 1.5 * imb["sum", 64.0] and imb["sum", 64.0] < 1.05 and imb["sum", math.inf] < 1.05
    assert imb["model", 0.5] < 1.05 and abs(imb["model", 0.5] - imb["model", math.inf]) < 0.05


def with_zero_cwgt(g):
    """``g`` with the Cwgt of every third edge (by its ends' sum, so both entries) set to 0."""
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    cwgt = np.where((src + g.adjncy) % 3 == 0, 0, g.cwgt)
    return Graph(g.xadj, g.adjncy, pwgt=g.pwgt, rwgt=g.rwgt, cwgt=cwgt)


@pytest.mark.skipif(mx._kernel is None, reason="C kernel not built")
@pytest.mark.parametrize("machine,latency,T,gain,zero,sample", [("uniform", "none", 16.0, "sum", False, 1),
                                                                ("grid:4:3", "max", 64.0, "sum", False, 1),
                                                                ("grid:4:3", "max", 64.0, "model", False, 1),
                                                                ("grid:3:10", "overlap:0.5", math.inf, "sum", False, 1),
                                                                ("grid:2:3", "none", 0.0, "sum", False, 1),
                                                                ("uniform", "max", 64.0, "sum", True, 1),
                                                                ("uniform", "none", 16.0, "sum", False, 3)])
def test_c_kernel_equals_python_reference(mini, machine, latency, T, gain, zero, sample):
    """On one cluster with positive Cwgt the kernel keeps each vertex's KList up to date; otherwise (several clusters, or
    a zero Cwgt: ``zero``) it rescans EList at every evaluation. Both give the reference's owners. With several draws
    a round (``sample``) the pair merged is not always the last draw's (the kernel finds its vertex's neighbours
    again)."""
    levels, _ = mini
    P = 16
    m = Machine.parse(machine, P)
    start = initial_state(levels[0], P, 0)
    g = with_zero_cwgt(levels[2].data) if zero else levels[2].data
    home = start.owner.copy()
    home[::5] = (home[::5] + 3) % P
    a, sa = mx.minex(g, start.owner, home, m, seed=99, throttle=T, latency=latency, impl="python", gain=gain,
                     sample=sample)
    b, sb = mx.minex(g, start.owner, home, m, seed=99, throttle=T, latency=latency, impl="c", gain=gain, sample=sample)
    assert sa.impl == "python" and sb.impl == "c"
    assert np.array_equal(a, b)
    assert (sa.merges, sa.coarse_moves, sa.expand_moves, sa.passes) == \
        (sb.merges, sb.coarse_moves, sb.expand_moves, sb.passes)


@pytest.mark.skipif(mx._kernel is None, reason="C kernel not built")
def test_c_kernel_keeps_no_state_between_calls(mini):
    """The kernel keeps its buffers from one call to the next: a call after calls on larger and smaller graphs, on
    other machines, gives what it gives first."""
    levels, _ = mini
    P = 16
    start = initial_state(levels[0], P, 0)
    g = levels[2].data
    home = start.owner.copy()
    home[::5] = (home[::5] + 3) % P

    def run(graph, owner, machine, latency="none"):
        parts, st = mx.minex(graph, owner, owner if graph is not g else home, Machine.parse(machine, P), seed=7,
                             throttle=64.0, latency=latency, impl="c")
        return parts, (st.merges, st.coarse_moves, st.expand_moves, st.passes)

    first = run(g, start.owner, "uniform")
    big = generate(seed=1, points=3000, levels=1)[0]
    run(big.data, initial_state(big, P, 0).owner, "grid:4:3", "max")
    run(levels[0].data, start.owner, "uniform")
    again = run(g, start.owner, "uniform")
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]


def test_contraction_respects_processors_and_target(mini):
    levels, start = mini
    g = levels[0].data
    from lbbench_minex.contract import contract
    from lbbench_minex.mesh import Mesh
    mesh = Mesh(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, start.owner, start.owner)
    contract(mesh, 8 * 8, seed=5, sample=2)
    assert mesh.nactive <= 64
    for v, w in mesh.stack:  # only same-processor pairs are merged (§3.5)
        assert mesh.owner[v] == mesh.owner[w]
    fine = mesh.fine_owner()
    assert np.array_equal(fine, start.owner)
    assert sum(mesh.pwgt[v] for v in mesh.vmap) == int(g.pwgt.sum())


def test_bad_parameters(mini):
    levels, start = mini
    m = Machine.uniform(8)
    g = levels[0].data
    for kw in ({"throttle": -1.0}, {"coarse": 0}, {"sample": 0}, {"normalize": "x"}, {"impl": "fortran"},
               {"latency": "nonsense"}, {"gain": "max"}):
        with pytest.raises(ValueError):
            mx.minex(g, start.owner, start.owner, m, seed=0, **kw)
    with pytest.raises(ValueError):
        mx.minex(g, start.owner, start.owner, m, seed=0, latency="harness.measure.latency:no_tolerance_x")


def test_unbounded_throttle_balances_every_cluster_count(tmp_path):
    """Table 1's ThroTtle = inf column: with no gate MinEX balances every cluster count (the paper's LoadImb
    1.00-1.01 at C = 1-8, I = 3, maximum latency tolerance), here on mini from slabs, P = 8, over its levels."""
    for C in range(1, 9):
        df = compare("minex[throttle=inf,latency=max]", workload="mini", P=8, machine=f"grid:{C}:3",
                     initial="slabs", out=str(tmp_path), cache=False)
        assert (df["status"] == "ok").all()
        assert accumulated(df, "max", 8)[1] < 1.01, C


@pytest.mark.parametrize("C,admissible", [(1, True), (3, False)])
def test_remap_across_clusters_can_stop_the_flow(C, admissible):
    """Why Table 1's rows rise on our start (README, "Table 1's rises"): the receiver of a move pays its Remap,
    Rwgt x Conn (§2.3), so across clusters (I = 3) it gains more Qwgt than the sender sheds, and §3.3's
    ΔMinVar < 0 rejects the move that the same processors admit inside one cluster. A chain: processor 0 holds
    four refined vertices (Pwgt 8, Rwgt 9), processor 1 one vertex whose data is on processor 2 (the lightest)."""
    g = Graph.from_edges(6, [0, 1, 2, 3, 4], [1, 2, 3, 4, 5], pwgt=np.array([8, 8, 8, 8, 4, 1]),
                         rwgt=np.array([9, 9, 9, 9, 4, 1]))
    owner, home = np.array([0, 0, 0, 0, 1, 2]), np.array([0, 0, 0, 0, 2, 2])
    m = Machine.grid(3, C, 3)
    crit = Criteria(Mesh(g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, owner, home), m,
                    Loads(g, m, owner, home, math.inf, "max"))
    moved = owner.copy()
    moved[3] = 1
    before, after = (lt.qwgt(*lt.processor_costs(g, m, o, home), "max") for o in (owner, moved))
    assert before[0] - after[0] == 8  # the sender sheds the vertex's Pwgt
    assert (minvar(after) < minvar(before)) == admissible
    best = crit.evaluate(3)
    assert (best is not None and best[2] == 1) == admissible
