"""Exercise the engine on P vprocs; rank 0 prints a JSON summary that must not depend on the rank count."""
import json
import sys

import numpy as np

from harness import Engine, Machine

P = int(sys.argv[1])
eng = Engine(P, Machine.parse("grid:2:3", P))
log, rows_log = {}, {}
for step in range(3):
    for v in eng.local:
        eng.post(v, (v + 1) % P, np.arange(v + step, dtype=np.int64), kind="balance")
        eng.post(v, (v % 3 + step) % P, {"from": v, "step": step}, kind="application")  # senders on several ranks
    # the batch path: a ragged float payload (v + step rows of 2) to two vprocs, and a declared-bytes stream
    src = np.repeat(eng.mine, 2)
    dst = (src * 5 + np.tile([1, 2], src.size // 2) + step) % P
    counts = (src + step) % 3
    rows = np.stack([src.repeat(counts), dst.repeat(counts)], axis=1) + step / 2  # the same at every R
    eng.send("rows", src, dst, rows, counts=counts, kind="balance")
    eng.send("bulk", src, dst, nbytes=100 + src, kind="balance")
    inbox = eng.exchange()
    got = {v: [(s, k, p.tolist() if isinstance(p, np.ndarray) else p) for s, k, p in msgs]
           for v, msgs in inbox.items()}
    rows = eng.received("rows")
    got_rows = [(int(d), int(s), r.tolist()) for d, s, r in zip(rows.dst, rows.src, rows.split())]
    bulk = eng.received("bulk")
    assert bulk.values is None and (bulk.nbytes == 100 + bulk.src).all()
    log[step] = {str(v): x for v, x in sorted(
        (v, x) for part in eng.gather_ranks(got) for v, x in part.items())}
    rows_log[step] = sorted((m for part in eng.gather_ranks(got_rows) for m in part), key=lambda m: m[:2])
# each vproc sends only to itself: no rank sends another a byte, so every rank leaves the Alltoallv out alike
eng.send("self", eng.mine, eng.mine, np.stack([eng.mine, eng.mine * 2], axis=1))
eng.exchange(tally=len(eng.mine))
own, tally = eng.received("self"), eng.tally
own_rows = sorted(m for part in eng.gather_ranks([(int(d), int(s), r.tolist()) for d, s, r in
                                                  zip(own.dst, own.src, own.split())]) for m in part)
home_before = np.arange(4 * P) % P
home_after = (home_before + 1) % P
eng.migrate(home_before, home_after, np.full(4 * P, 3))
out = {
    "inbox": log,
    "rows": rows_log,
    "self": {"rows": own_rows, "tally": tally},
    "sum": eng.reduce({v: np.array([v, 1]) for v in eng.local}).tolist(),
    "max": int(eng.reduce({v: v * v for v in eng.local}, "max")),
    "gather": eng.allgather({v: str(v) for v in eng.local}),
    "bcast": eng.bcast({"x": list(eng.local)[0]} if eng.is_root else None, root=0),
    "hosts": all(eng.gather_ranks(sorted(v for v in range(P) if eng.hosts(v)) == sorted(eng.local))),
    "totals": eng.totals(),
    "stats": {kind: eng.step_stats(kind) for kind in ("balance", "application", "migration")},
    "stats_since_1": eng.step_stats("application", since=1),
    "pairs": eng.pair_matrix("migration").tolist(),
    "supersteps": eng.superstep,
}
if eng.is_root:
    print(json.dumps(out, sort_keys=True))
    print(f"crowded={eng._crowded}", file=sys.stderr)
