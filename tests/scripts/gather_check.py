"""Under mpiexec: Engine.gather to each root's rank; rank 0 prints, per root, what every rank got (JSON)."""
import json
import sys

import numpy as np

from harness import Engine

P = int(sys.argv[1])
eng = Engine(P)
out = {}
for root in range(P):
    # numpy arrays (sent out of band, read where they arrived) of a few dtypes and shapes, and plain objects
    got = eng.gather({v: (v, eng.rank, np.arange(v) * 0.5, np.full((v, 2), v, np.int32)) for v in eng.local},
                     root=root, what="check")
    got = None if got is None else [[v, r, a.tolist(), b.tolist()] for v, r, a, b in got]
    out[root] = {"rank": int(eng.rank_of(root)), "got": eng.gather_ranks(got)}
if eng.is_root:
    print(json.dumps(out))
