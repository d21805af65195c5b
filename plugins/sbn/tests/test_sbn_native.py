"""SBN's message handlers in C against the Python reference path (README "Handlers in C"): every figure of a
level and the owners after it are the same bit for bit. The C paths: GetDistribute (``_queue.distribute``) and
the balancing operations' state (``_opstate``: BAL, NAK, ABORT, UP, DIST; operations completed and abandoned,
trees relabelled at P a power of two and built per root otherwise, at P = 24), a superstep's batch read
(``_queue.received``), the data messages, requests and locate messages (``arrive``, ``serve``, ``receivers``),
the re-pricing (``affected``, ``priced``; with the locates and the run of DATA and FETCH in one call, ``inbox``,
when they are all a processor received), §3.4's selection rounds in one call (``select``: the pool, R, the
search, and the subset next to q's data with ``subset_from=receiver``) and a gather entry's neighbour processors
(``holders``)."""
import math

import numpy as np
import pytest

from harness import LocationView, Machine, costs_if_on, initial_state, load_workload
from harness.run.api import compare
from lbbench_sbn import _queue, balancer
from lbbench_sbn.selection import rounds, select

# what a run measures on the clock, not what it computes: wall and CPU times, and the shares of them
_CLOCK = ("time_", "rank_", "texec_s", "git_commit")


def _figures(row: dict) -> dict:
    return {k: v for k, v in row.items() if not k.startswith(_CLOCK) and not k.endswith("_overhead_pct")}


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("method, P", [("sbn", 16), ("sbn", 24), ("sbn", 64), ("sbn[subset_from=receiver]", 64)])
def test_handlers_in_c_give_the_reference_figures_and_owners(monkeypatch, tmp_path, method, P):
    rows, owners = {}, {}
    for native in (False, True):
        monkeypatch.setattr(balancer, "NATIVE", native)
        states: dict = {}
        df = compare(method, workload="shock", P=P, levels=[1, 2], cache=False, out=str(tmp_path / str(native)),
                     states=states)
        rows[native] = [_figures(r) for r in df.to_dict("records")]
        owners[native] = states
    assert len(rows[True]) == len(rows[False]) == 2
    # every path of the operations' state ran: operations completed (DIST) and abandoned (ABORT), distributions
    ops = {k: sum(r[f"sbn_{k}_ops"] for r in rows[True]) for k in ("balance", "aborted", "distribute")}
    assert ops["balance"] > ops["aborted"] > 0 and ops["distribute"] > 0
    for ref, got in zip(rows[False], rows[True]):
        assert ref.keys() == got.keys()
        diff = [k for k in ref if not _same(ref[k], got[k])]
        assert not diff, f"level {ref['level']}: {diff}"
    for method, levels in owners[False].items():
        for level, owner in levels.items():
            assert np.array_equal(owner, owners[True][method][level])


def test_locate_messages_are_packed_one_per_receiver():
    """``Outbox.flush``'s locate messages in C (``_queue.locates``): the columns and words of the numpy steps
    (each message's words once per receiver, in order)."""
    locs = [(2, np.array([0, 3]), np.array([2, 7, 8])), (5, np.array([1]), np.array([5, 9])),
            (0, np.array([4, 6, 7]), np.array([0, 1, 2, 3]))]
    src, to, words = zip(*locs)
    n = np.array([len(t) for t in to])
    each = [w for w, k in zip(words, n.tolist()) for _ in range(k)]
    want = [np.repeat(src, n), np.concatenate(to), np.repeat([len(w) for w in words], n), np.concatenate(each)]
    cols = np.frombuffer(_queue.locates(locs), np.int64)
    k = int(cols[0])
    got = [*cols[1:1 + 3 * k].reshape(3, k), cols[1 + 3 * k:]]
    assert k == n.sum() and all(np.array_equal(a, b) for a, b in zip(got, want))


@pytest.mark.parametrize("near_q, machine", [(False, "uniform"), (True, "uniform"), (False, "grid:2:3.5")])
def test_selection_rounds_and_holders_in_c_are_the_reference(near_q, machine):
    """``selection.rounds`` (one C call, the mask marked from pinned and fixed and cleared in C, the queue priced on
    q as the search reads it) chooses what select's reference path chooses (numpy's rounds on the whole queue priced
    by costs_if_on, the mask marked in numpy), with the same sums and §5.4 counts; ``_queue.holders`` is the view's
    ``holders`` of the queue's neighbours without p."""
    _, _, levels = load_workload("mini", {}, 0)
    g, P = levels[1].data, 4
    m = Machine.parse(machine, P)
    s = initial_state(levels[1], P, 0)
    rng = np.random.default_rng(5)
    view = LocationView(s.home, P)
    moved = rng.choice(g.n, g.n // 8, replace=False)
    view.learn(moved, rng.integers(0, P, moved.size))  # p's view: some data elsewhere
    cost = costs_if_on(g, view, m, np.arange(g.n), s.owner)
    deg, slot, chosen = np.diff(g.xadj), np.zeros(g.n, np.int32), 0
    for trial in range(40):
        p, q = (int(x) for x in rng.choice(P, 2, replace=False))
        queue = np.flatnonzero(s.owner == p)
        pinned, fixed = rng.random(g.n) < 0.2, rng.random(g.n) < 0.05
        total = float(cost.total[queue].sum())
        amount, cap = (float(x) * total for x in rng.random(2) * rng.choice([0.05, 0.5, 2.0]))
        base, seed = float(rng.random() * total), int(rng.integers(1 << 30))
        want_avail = np.zeros(g.n, bool)
        want_avail[queue] = ~(pinned[queue] | fixed[queue])
        evaluated: list = []
        want = select(g, m, view, queue, want_avail, cost, q, amount, total, base, np.random.default_rng(seed), 8,
                      cap_p=cap, near_q=near_q, evaluated=evaluated, native=False)
        avail = np.zeros(g.n, bool)
        got = rounds(g, m, view, queue, avail, cost, q, amount, total, base, np.random.default_rng(seed), 8, 64, cap,
                     near_q, slot, (pinned, fixed))
        assert np.array_equal(got[0], want[0]) and got[1:3] == want[1:]
        assert got[3] == sum(evaluated) and got[4] == deg[want[0]].sum()
        assert not avail.any() and not slot.any()
        chosen += got[0].size > 0
        near = view.holders(g.neighbours_of(queue))
        assert np.array_equal(np.frombuffer(_queue.holders(g.xadj, g.adjncy, queue, view.base, view.keys,
                                                           view.values, P, p), np.int64), near[near != p])
    assert chosen > 10  # most trials move vertices


def test_a_native_batch_reads_as_the_reference_one():
    """``_Received`` on the C path (``_received``: ``_queue.received_in``, the message lists made when first read)
    gives the reference path's runs, lists and words; the processors with only the balance kind's messages are those
    below FETCH."""
    from harness import Batch
    from lbbench_sbn import messages as msg

    rng = np.random.default_rng(3)
    n = 40
    dst = np.sort(rng.integers(0, 9, n))
    counts = rng.integers(1, 6, n)
    values = rng.integers(0, 50, int(counts.sum()))
    values[np.concatenate(([0], np.cumsum(counts)[:-1]))] = rng.integers(0, 9, n)  # each message's code
    b = Batch(rng.integers(0, 9, n), dst, np.zeros(n, np.int64), counts * 8, counts, values)
    ref, got = balancer._Received(b), balancer._received(b)
    assert {p: (r.start, r.stop) for p, r in got.at.items()} == {p: (r.start, r.stop) for p, r in ref.at.items()}
    for name in ("start", "end", "size", "code", "src"):
        assert getattr(got, name) == getattr(ref, name), name
    assert all(np.array_equal(got.words(m), ref.words(m)) for m in range(n))
    assert got.ops_only == {p for p, r in ref.at.items() if max(ref.code[r.start:r.stop]) < msg.FETCH}
    empty = balancer._received(Batch.empty())
    assert empty.at == {} and empty.code == ()
