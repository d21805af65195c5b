"""The engine's totals and step statistics from the counters' records as numpy columns (issue 52, item 6) against
the per-superstep Python loops they replace (kept here as the reference): the same figures, types and floats."""
import numpy as np
import pytest

from harness import Engine, Machine
from harness.engine.batch import KINDS
from harness.kernels import _engine, _metrics


def _reference_totals(eng: Engine) -> dict:
    """Engine.totals at R = 1 as the loops over each superstep's records computed it."""
    c = eng._counters
    longest = {(step, KINDS[k]): st[3] for step, stats in c._sent for k, st in enumerate(stats)
               if st is not None and st[3] is not None}
    out = {}
    for kind in KINDS:
        _, msgs, nbytes = c.pairs(kind)
        secs = sum(t for (s, k), t in sorted(longest.items()) if k == kind)
        out[kind] = {"messages": int(msgs.sum()), "bytes": int(nbytes.sum()), "modelled_s": float(secs)}
    return out


def _reference_step_stats(eng: Engine, kind: str, since: int) -> dict:
    c, mine = eng._counters, {}
    for st, stats in c._sent:
        e = stats[KINDS.index(kind)]
        if e is not None and st >= since:
            mine[st] = [e[2], e[0], e[1], 0]
    for st, most in c._recv:
        m = most[KINDS.index(kind)]
        if m >= 0 and st >= since:
            mine.setdefault(st, [0, 0, 0, 0])[3] = m
    return {"supersteps": sum(1 for a in mine.values() if a[1]),
            "max_msgs_per_vproc": max((a[0] for a in mine.values()), default=0),
            "max_recv_per_vproc": max((a[3] for a in mine.values()), default=0),
            "messages": sum(a[1] for a in mine.values()), "bytes": sum(a[2] for a in mine.values())}


def _same(got: dict, want: dict):
    assert got == want
    assert all(type(got[k]) is type(want[k]) for k in want)


@pytest.mark.parametrize("machine", ["uniform", "grid:2:3"])
def test_totals_and_step_stats_are_the_loops_over_the_records(machine):
    P = 6
    eng = Engine(P, Machine.parse(machine, P), comm=None)
    _same(eng.totals(), _reference_totals(eng))  # nothing sent yet
    rng = np.random.default_rng(11)
    for step in range(60):
        if step % 7 == 3:  # an empty superstep
            eng.exchange()
            continue
        n = int(rng.integers(1, 30))
        src = np.sort(rng.integers(0, P, n))
        dst = src if step % 5 == 0 else rng.integers(0, P, n)  # some supersteps keep every message on its vproc
        eng.send("t", src, dst, nbytes=rng.integers(0, 10**7, n), kind=rng.integers(0, 2 + step % 2, n))
        if step % 4 == 1:  # the object path too
            eng.post(int(rng.integers(0, P)), int(rng.integers(0, P)), b"x" * int(rng.integers(1, 999)),
                     kind=KINDS[step % 3])
        eng.exchange()
    want = _reference_totals(eng)
    assert all(want[k]["modelled_s"] > 0 for k in KINDS)
    _same(eng.totals(), want)
    for kind in KINDS:
        for since in (0, 17, 59, 99):
            _same(eng.step_stats(kind, since), _reference_step_stats(eng, kind, since))
    eng.send("t", 0, 1, nbytes=123, kind=1)  # one more superstep after the reads: read anew
    eng.exchange()
    assert eng.totals()["migration"]["bytes"] == want["migration"]["bytes"] + 123
    _same(eng.totals(), _reference_totals(eng))
    _same(eng.step_stats("migration", 50), _reference_step_stats(eng, "migration", 50))


def test_records_refuse_what_is_not_a_record():
    with pytest.raises(TypeError, match="superstep, one entry per kind"):
        _metrics.records([(0, (None, None))], [], 3)
    with pytest.raises(TypeError, match="messages, bytes, most, longest"):
        _metrics.records([(0, ((1, 2, 3), None, None))], [], 3)
    with pytest.raises(TypeError, match="holds ints"):
        _metrics.records([], [(0, (1, 2.0, 3))], 3)
    ss, cnt, lon, rs, rm = _metrics.records([(4, ((1, 8, 1, 0.5), None, (2, 9, 2, None)))], [(4, (1, -1, 2))], 3)
    assert np.frombuffer(cnt, np.int64).tolist() == [1, 8, 1, 1, 0, 0, 0, 0, 2, 9, 2, 0]
    assert np.frombuffer(lon, np.float64).tolist() == [0.5, 0.0, 0.0]
    assert np.frombuffer(ss, np.int64).tolist() == np.frombuffer(rs, np.int64).tolist() == [4]
    assert np.frombuffer(rm, np.int64).tolist() == [1, -1, 2]


def test_a_superstep_is_booked_in_c_as_counters_kept_it():
    """``_engine.book`` (Counters._book's keeping, in C; ``outgoing`` and ``local`` book as they count): (step,
    stats) and the message columns logged, the declared bytes and the messages added; 1 once more messages are
    held than the limit (the log is merged), 2 past 2^53 bytes (nothing kept: the caller raises)."""
    def i64(*v):
        return np.array(v, np.int64)

    counted = _engine.counted([(i64(0, 0), i64(0, 1), i64(1, 2), i64(8, 16))], np.arange(4, dtype=np.int64), 4, 1e-6,
                              1e9, 1.0, np.ones((1, 1)), np.zeros(4, np.int64))
    sent, log, state = [], [], np.array([0.0, 0.0, 2.0])
    assert _engine.book((sent, log, state), 7, counted) == 0
    assert sent == [(7, counted[0])] and log == [counted[1:4]] and state.tolist() == [24.0, 2.0, 2.0]
    assert _engine.book((sent, log, state), 8, counted) == 1 and state[1] == 4
    assert _engine.book((sent, log, state), 9, counted[:4] + (2.0 ** 53,)) == 2 and len(sent) == len(log) == 2
