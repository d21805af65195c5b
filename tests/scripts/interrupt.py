"""A partitioner that holds rank 0 while the other ranks wait in a collective: Ctrl-C of the run must end
every rank (issue 40). ``interrupt.py OUT``; prints ``waiting`` on rank 0 (to stderr, as every hook's print) once the cell runs."""
import sys
import time
from types import SimpleNamespace

import numpy as np

from harness import Algorithm, hookimpl, implements
from harness.contract import plugins
from harness.present.cli import main


@hookimpl
def register_algorithms(register):
    register(Algorithm("sleeper", "test"))


@implements("sleeper")
def partition(ctx):
    eng = ctx.engine
    if eng.is_root:
        print("waiting", flush=True)  # (stderr: the command redirects a hook's print)
        time.sleep(120)  # a long cell on rank 0 (as a partitioner computing there before its bcast)
    return eng.bcast(np.zeros(ctx.graph.n, np.int64))


if __name__ == "__main__":
    plugins.add(SimpleNamespace(register_algorithms=register_algorithms, partition=partition), "sleeper",
                ("test-sleeper", "0"))
    sys.exit(main(["compare", "--plugins", "sleeper", "-w", "mini", "-P", "2", "--levels", "1", "-q",
                   "--no-cache", "--out", sys.argv[1]]))
