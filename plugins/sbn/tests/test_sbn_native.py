"""SBN's message handlers in C against the Python reference path (README "Handlers in C"): every figure of a
level and the owners after it are the same bit for bit. The C paths: GetDistribute (``_queue.distribute``) and
the balancing operations' state (``_opstate``: BAL, NAK, ABORT, UP, DIST; operations completed and abandoned,
trees relabelled at P a power of two and built per root otherwise, at P = 24), a superstep's batch read
(``_queue.received``), the data messages, requests and locate messages (``arrive``, ``serve``, ``receivers``),
the re-pricing (``affected``, ``priced``) and §3.4's subset next to q's data (``near``, with
``subset_from=receiver``)."""
import math

import numpy as np
import pytest

from harness.run.api import compare
from lbbench_sbn import _queue, balancer

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
