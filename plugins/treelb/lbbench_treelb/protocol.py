"""The tree paper's experiment (spec §2.3-2.5): its P, its 12 methods in its tables' order, its S_i, and how
every cell is run (``truss``, the SP2 machine, all nodes on processor 0 before level 1)."""
from __future__ import annotations

P_LIST = [10, 30, 50, 70]
MAPPERS = {"AE/MC": "ae-mc", "AE/ORB": "ae-orb", "MLkP": "mlkp"}
BALANCERS = {"": None, "MCSTLB": "mcstlb", "BTLB": "btlb", "CBTLB": "cbtlb"}
# the paper's row label -> our method, in the tables' order
METHODS = {(f"{m}/{b}" if b else m): (f"{ours}/{bal}" if bal else ours)
           for m, ours in MAPPERS.items() for b, bal in BALANCERS.items()}
ITERATIONS = 1000
RUN = dict(initial="root", machine="sp2")
