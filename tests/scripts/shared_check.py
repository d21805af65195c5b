"""Under mpiexec: harness.engine.shared's arrays on every rank (argv[1]: ``real``, the ranks that share memory
are a host, or ``two``, ranks split into two hosts by rank % 2); rank 0 prints what every rank saw (JSON)."""
import json
import sys

import numpy as np

from harness import Engine, State
from harness.engine.shared import HostArrays

P = 8
eng = Engine(P)
host = None if sys.argv[1] == "real" else eng.rank % 2
held = HostArrays(eng, host=host, small=0)  # every array in a window, however small
seen = {"rank": eng.rank}
a = held.computed(lambda: np.arange(5) * 10 + eng.rank)  # the host's first rank's numbers
seen["computed"] = a.tolist()
seen["read_only"] = not a.flags.writeable
sent = [held.sent(np.arange(4) * (root + 1) if eng.hosts(root) else None, root=root) for root in range(P)]
seen["sent"] = [s.tolist() for s in sent]
mine = np.flatnonzero(np.arange(10) % eng.R == eng.rank)  # vertices 0..9 by rank, 9 left out
mine = mine[mine < 9]
b = held.assembled(10, mine, mine * 100 + eng.rank)
seen["assembled"] = b.tolist()
st = State.settled(sent[0], 4)  # taken as it is: no copy
seen["state_shares"] = st.owner.__array_interface__["data"][0] == sent[0].__array_interface__["data"][0]
e = held.computed(lambda: np.zeros(0, np.int32))
seen["empty"] = [e.shape, e.dtype.str]
del st, sent
held.sweep()  # a, b and e are viewed: kept
seen["after_sweep"] = len(held._windows)
kept = b[2:4]
del a, b, e
held.sweep()  # only b's window is viewed (through ``kept``)
seen["after_del"] = len(held._windows)
held.release()
seen["kept"] = [len(held._windows), len(held._kept), kept.tolist()]
try:
    held.computed(lambda: 1 // 0)
except Exception as exc:
    seen["raised"] = type(exc).__name__
tiny = HostArrays(eng, host=host)  # the default: an array under 4 MiB is each rank's own copy, no window
t = tiny.computed(lambda: np.arange(5) * 10 + eng.rank)
u = tiny.assembled(10, mine, mine * 100 + eng.rank)
v = tiny.sent(np.arange(4) * 3 if eng.hosts(1) else None, root=1)
seen["small"] = [t.tolist(), u.tolist(), v.tolist(), len(tiny._windows), t.flags.writeable or u.flags.writeable]
got = eng.gather_ranks(seen)
if eng.is_root:
    print(json.dumps(got))
