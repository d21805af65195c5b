"""``sbn-example``: the illustrative example of the SBN paper (§3.6, Fig. 5, Tables 1-3).

A mesh of 16 vertices and 20 edges on four processors P0-P3. Vertex ``v`` of
the paper is graph vertex ``v - 1``.

Fig. 5 itself is not in the paper's text, so the graph is reconstructed from
what Tables 1-3 and §3.6 fix:

* owners (Table 1, row p) and data locations (§3.6: the data of vertex 7 is on
  P1, of 10 on P2, of 9, 11 and 16 on P0, every other vertex's on its owner);
* pwgt = Wgt (Table 1); rwgt = the redistribution cost where Table 1 or
  Table 3 shows one (vertices 3, 4, 7, 8, 9, 10, 11, 12, 16) and rwgt = pwgt
  for the seven vertices whose cost the tables never reveal;
* 20 edges with positive integer weights such that harness.measure.metrics gives
  exactly Table 1's Comm row for every vertex on its owner and Table 3's
  Comm_P1 for the vertices of P3, with the edge 10-11 of weight 3 named in
  §3.6, and a connected mesh. The edge set was found with an integer
  program (scipy.optimize.milp) minimizing the edges between processors; it
  is one of several graphs consistent with the tables.

``meta`` carries the example's assignment (``owner``, ``home``) and the
``MinTh`` = 10 of §3.6. The level runs through the harness like any workload
(the runner then starts from its own initial distribution); the SBN plugin's
``sbn-table2`` / ``sbn-table3`` reports use ``meta`` to reproduce the tables.
"""
import numpy as np

from harness import Graph, Level, Workload

# (paper vertex a, paper vertex b, communication cost)
EDGES = [(1, 9, 6), (2, 7, 5), (2, 13, 2), (3, 7, 1), (3, 8, 1), (3, 9, 1), (3, 12, 3), (3, 16, 1), (4, 8, 1),
         (5, 9, 3), (6, 9, 6), (7, 9, 4), (7, 12, 3), (7, 16, 3), (8, 12, 4), (10, 11, 3), (10, 13, 1),
         (10, 14, 5), (10, 15, 2), (14, 15, 1)]
# Table 1 (paper vertices 1..16)
OWNER = [2, 1, 3, 3, 2, 2, 3, 3, 2, 0, 3, 3, 0, 0, 0, 3]
WGT = [1, 1, 2, 1, 1, 3, 4, 1, 1, 2, 3, 1, 1, 1, 2, 1]
# §3.6: data of 7 on P1, of 10 on P2, of 9, 11, 16 on P0
HOME = [2, 1, 3, 3, 2, 2, 1, 3, 0, 2, 0, 3, 0, 0, 0, 0]
# redistribution costs: Table 1 (7, 9, 10, 11, 16), Table 3 (3, 4, 8, 12); the rest = Wgt
RWGT = [1, 1, 1, 2, 1, 3, 7, 3, 2, 1, 1, 1, 1, 1, 2, 1]
MINTH = 10
P = 4


def graph() -> Graph:
    a, b, w = (np.array(x) - d for x, d in zip(zip(*EDGES), (1, 1, 0)))
    return Graph.from_edges(16, a, b, w, pwgt=WGT, rwgt=RWGT, name="sbn-example")


def generate(seed: int = 0):
    meta = {"owner": list(OWNER), "home": list(HOME), "minth": MINTH, "P": P,
            "source": "SBN paper §3.6, Fig. 5, Tables 1-3 (graph reconstructed)"}
    return [Level(1, graph(), meta=meta)]


WORKLOAD = Workload("sbn-example", generate, version="1", params={}, level_indices=lambda p: range(1, 2),
                    description="SBN paper §3.6 example: 16 vertices, 20 edges, 4 processors (Tables 1-3)")
