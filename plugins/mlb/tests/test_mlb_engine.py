"""The schedule on the engine's virtual processors, counted by the engine (MLB §3.1-§3.4, §4; M1, M2, M3, M5, M9)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from harness import Engine

from lbbench_mlb import execute
from lbbench_mlb.execute import run
from lbbench_mlb.hypercube import Cube
from lbbench_mlb.phases import bounds, bounds_from, desired, destinations


class Recording(Engine):
    """An engine that also notes (superstep, src, dst, kind) of every message posted or sent."""

    def __init__(self, P):
        super().__init__(P, comm=None)
        self.log = []

    def post(self, src, dst, payload, kind="balance"):
        self.log.append((self.superstep, src, dst, kind))
        super().post(src, dst, payload, kind)

    def send(self, tag, src, dst, values=None, counts=None, nbytes=None, kind="balance"):
        src, dst = np.broadcast_arrays(np.asarray(src).ravel(), np.asarray(dst).ravel())
        self.log.extend((self.superstep, int(a), int(b), kind) for a, b in zip(src, dst))
        super().send(tag, src, dst, values, counts, nbytes, kind)


def _case(d, n, rng, start):
    P = 1 << d
    load = rng.integers(0, 12, n)
    if start == "block":
        home = (np.arange(n) * P) // n
    elif start == "root":
        home = np.zeros(n, np.int64)
    else:
        home = rng.integers(0, P, n)
    dest = destinations(load, desired(load.sum(), d))
    return load, home, dest


@pytest.mark.parametrize("d", [0, 1, 2, 3, 5, 7])
@pytest.mark.parametrize("start", ["block", "root", "random"])
def test_step_counts_from_the_engine(d, start):
    rng = np.random.default_rng([d, len(start)])
    P, n = 1 << d, 40 * (1 << d) + 3
    load, home, dest = _case(d, n, rng, start)
    eng = Recording(P)
    cube = Cube((P,))
    out, steps = run(eng, cube, load, load, home, lambda T, p: bounds(T, p, d), np.arange(n), dest)
    assert out.loan_procedure == (start != "random" or d == 0) and np.array_equal(out.dest, dest)
    assert steps["phase1"] == d and steps["phase1_messages"] == d * P  # M2
    assert steps["phase3_messages"] == sum((level - 1) << level for level in range(1, d + 1))
    assert steps["phase3"] == d * (d - 1) // 2     # M5: l - 1 steps on level l (§4); §3.3 bounds it by d(d+1)/2
    assert steps["phase4"] == d                    # M1/M9: exactly log2 P supersteps
    assert steps["schedule"] <= d and steps["max_msgs"] <= 1 and steps["max_recv"] <= 1
    # every Phase 4 message of step s goes to the partner across edge d-1-s
    first = d + d * (d - 1) // 2  # Phase 4 follows Phases 1 and 3
    mig = [(s, a, b) for s, a, b, k in eng.log if k == "migration"]
    assert all(first <= s < first + d for s, _, _ in mig)
    for s, a, b in mig:
        assert b == cube.partner(a, d - 1 - (s - first))
    # Phase 1: one message per vproc per superstep, along edges 0, 1, ..., d-1
    p1 = [(s, a, b) for s, a, b, k in eng.log if k == "balance" and s < d]
    assert len(p1) == d * P and all(b == cube.partner(a, s) for s, a, b in p1)
    assert np.array_equal(out.L, np.bincount(dest, load, P)) and out.T == load.sum()
    assert np.array_equal(out.loans[0], np.zeros(P)) and np.array_equal(out.loans[-1], out.L - out.D)
    assert steps["phase4_messages"] == len(mig) <= d * P
    # pass-through: sent >= moved; the redistribution weight that moved is what the engine carried
    moved = load[home != dest].sum()
    assert out.sent_rwgt.sum() >= moved
    nb = eng.step_stats("migration")["bytes"]
    assert nb >= 8 * moved


def test_phase2_posts_nothing():
    rng = np.random.default_rng(1)
    load, home, dest = _case(4, 300, rng, "block")
    eng = Recording(16)

    def phase2(T, p):
        before = eng.pending()
        got = bounds(T, p, 4)
        assert eng.pending() == before == 0
        return got

    out, steps = run(eng, Cube((16,)), load, load, home, phase2, np.arange(load.size), dest)
    assert steps["phase1"] == 4 and steps["phase3"] == 6 and steps["phase4"] == 4 and out.loan_procedure


def test_example_of_section_1_5_on_the_engine():
    """8 unit loads on rank 0 of p = 4: {0->3: 4}, then {0->1: 2, 3->2: 2}; final loads 2, 2, 2, 2."""
    load = np.ones(8, np.int64)
    dest = destinations(load, desired(8, 2))
    eng = Engine(4, comm=None)
    out, steps = run(eng, Cube((4,)), load, load, np.zeros(8, np.int64), lambda T, p: bounds(T, p, 2), np.arange(8),
                     dest)
    assert out.sent.tolist() == [[4, 0, 0, 0], [2, 0, 0, 2]]
    assert out.L.tolist() == [2, 2, 2, 2] and steps["schedule"] == 2
    mat = eng.pair_matrix("migration", "messages")
    assert {(int(i), int(j)) for i, j in zip(*np.nonzero(mat))} == {(0, 3), (0, 1), (3, 2)}
    assert out.loans.max() == 0 == out.loans.min()  # unit loads: Phase 4 is Phase 3's schedule


def test_nd_cube_routes_axis0_bits_first():
    from lbbench_mlb.ndim import nd_destinations

    rng = np.random.default_rng(5)
    load = rng.integers(0, 9, (20, 24))
    mesh = (4, 4)
    owner, D, _, _ = nd_destinations(load, mesh)
    cube = Cube(mesh)
    home = rng.integers(0, 16, load.size)
    eng = Recording(16)
    out, steps = run(eng, cube, load.ravel(), load.ravel(), home, lambda T, p: bounds_from(D, p, 4), None,
                     owner.ravel())
    assert steps["phase4"] == 4 and steps["max_msgs"] <= 1
    first = 4 + 6
    for s, a, b, k in eng.log:
        if k == "migration":
            assert b == cube.partner(a, 3 - (s - first))
            # the first two steps cross the axis-0 (strip) bits: they change the strip a // 4
            assert (a // 4 != b // 4) == (s - first < 2)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), d=st.integers(0, 5), n=st.integers(1, 120))
def test_random_cases_deliver_everything_in_d_steps(data, d, n):
    """Any start, any loads (zeros included): d Phase 4 steps, <= 1 message per vproc per step, every cell
    delivered, rank-ordered intervals, |L - D| <= max element, sent >= moved."""
    P = 1 << d
    load = np.array(data.draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)))
    home = np.array(data.draw(st.lists(st.integers(0, P - 1), min_size=n, max_size=n)))
    rwgt = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    dest = destinations(load, desired(load.sum(), d))
    eng = Engine(P, comm=None)
    out, steps = run(eng, Cube((P,)), load, rwgt, home, lambda T, p: bounds(T, p, d), np.arange(n), dest)
    assert steps["phase4"] == d and steps["max_msgs"] <= 1 and steps["max_recv"] <= 1
    assert np.all(np.diff(out.dest) >= 0) and np.abs(out.L - out.D).max() <= max(load.max(), 0)
    assert out.sent_rwgt.sum() >= rwgt[home != out.dest].sum()
    assert eng.step_stats("migration")["bytes"] >= 8 * rwgt[home != out.dest].sum()


class TwoPerStep:
    """A mutation of Phase 4: every piece goes as two messages (same elements, same loan)."""

    def __init__(self, engine):
        self._engine = engine

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def send(self, tag, src, dst, values=None, counts=None, nbytes=None, kind="balance"):
        if tag != "piece":
            return self._engine.send(tag, src, dst, values, counts, nbytes, kind)
        m = int(values[0])
        ids, loads, pos = values[2:2 + m], values[2 + m:2 + 2 * m], values[2 + 2 * m:2 + 3 * m]
        h = m // 2
        first = np.concatenate([[h, values[1]], ids[:h], loads[:h], pos[:h]])
        second = np.concatenate([[m - h, 0], ids[h:], loads[h:], pos[h:]])
        self._engine.send(tag, src, dst, first, counts=first.size, nbytes=nbytes - 8 * second.size, kind=kind)
        self._engine.send(tag, src, dst, second, counts=second.size, kind=kind)


def _claim_frame(tmp_path, Ps):
    from harness import ReportOptions
    import pandas as pd
    opts = ReportOptions(workload="arrays", workload_params=dict(kind="peaks", dims=1, size=512, steps=2),
                         out=str(tmp_path), cache=False, progress=False, initial="block")
    return pd.concat([opts.compare("mlb", P=P) for P in Ps], ignore_index=True)


def with_sibling_steps(real):
    """A mutation of Phase 3: every level also exchanges along its siblings' edge (l steps on level l)."""
    def phase3(engine, cube, *args):
        out = real(engine, cube, *args)
        for level in range(1, cube.d + 1):
            for p in engine.local:
                engine.post(p, int(cube.partners[cube.d - level][p]), np.zeros(0, np.int64), kind="balance")
            engine.exchange()
        return out
    return phase3


@pytest.mark.parametrize("mutate", [None, "phase4-two-messages", "phase3-sibling-steps"])
def test_mutations_fail_a_claim(tmp_path, monkeypatch, mutate):
    """The claims are read from the engine's log: sending each Phase 4 piece as two messages breaks §3.4's
    "send and receive at most once along each edge"; talking along the siblings' edge on every level of
    Phase 3 (d(d+1)/2 steps) breaks §4's "l - 1 steps" (the predicates say does not hold)."""
    from lbbench_mlb.claims import make_claims

    if mutate == "phase4-two-messages":
        real = execute.loan_procedure
        monkeypatch.setattr(execute, "loan_procedure", lambda engine, *a, **k: real(TwoPerStep(engine), *a, **k))
    elif mutate == "phase3-sibling-steps":
        monkeypatch.setattr(execute, "phase3", with_sibling_steps(execute.phase3))
    Ps = (1, 2, 4, 8)
    df = _claim_frame(tmp_path, Ps)
    assert (df["status"] == "ok").all() and df["mlb_loan_procedure"].all()
    claims = {c.name: c for c in make_claims(Ps)}
    verdicts = {name: c.check(df) for name, c in claims.items()}
    fails = {"phase4-two-messages": {"mlb-phase4-once-per-edge"},
             "phase3-sibling-steps": {"mlb-phase3-section4"}}.get(mutate, set())
    for name, (holds, ours) in verdicts.items():
        assert holds is (name not in fails), (name, ours)
    assert ("2 / 2" in verdicts["mlb-phase4-once-per-edge"][1]) == (mutate == "phase4-two-messages")
    assert "P=8: 6 steps" in verdicts["mlb-phase3-log2"][1] if mutate == "phase3-sibling-steps" else \
        "P=8: 3 steps" in verdicts["mlb-phase3-log2"][1]
