"""Helper for test_sbn_outcome.py, run under mpiexec; prints one ``RESULT <json>`` line (rank 0): for each of two
``mini`` levels at P = 4 through the harness, whether a level run was still alive when ``executed`` was called."""
import json
import sys
import weakref

from harness import Engine
from harness.run.api import compare

import lbbench_sbn.plugin as plugin

runs, alive = [], []


class Kept(plugin.LevelRun):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        runs.append(weakref.ref(self))


def executed(mine, gathered=plugin.executed):
    alive.append(any(r() is not None for r in runs))
    return gathered(mine)


plugin.LevelRun, plugin.executed = Kept, executed
df = compare("sbn", workload="mini", P=4, levels=[1, 2], cache=False, out=sys.argv[1])
if Engine(4, comm="world").is_root:
    print("RESULT " + json.dumps({"status": list(df["status"]), "alive": alive}))
