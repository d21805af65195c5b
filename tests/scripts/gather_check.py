"""Under mpiexec: Engine.gather to each root's rank; rank 0 prints, per root, what every rank got (JSON)."""
import json
import sys

from harness import Engine

P = int(sys.argv[1])
eng = Engine(P)
out = {}
for root in range(P):
    got = eng.gather({v: [v, eng.rank] for v in eng.local}, root=root, what="check")
    out[root] = {"rank": int(eng.rank_of(root)), "got": eng.gather_ranks(got)}
if eng.is_root:
    print(json.dumps(out))
