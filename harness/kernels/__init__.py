"""The C kernels, compiled on install by ``setup.py``: the bottom layer.

``_graph`` (``_graph.c``): CSR neighbour rows (``Graph.rows``), the location view's lookups and merges
(``LocationView``), and ``costs_if_on``'s pricing of vertices on other processors (SBN §3.1); the merge and the
pricing also as a capsule for a plugin's C code (``view_api``, ``LocationView.C_API``: ``view_api.h``).
``_cells`` (``_cells.c``): the per-cell passes over AMR box pieces (painting, data moved between two
steps' pieces, the ghost-face and coarse-fine counts of the AMR figures) and the bucketed box pair search.
``_engine`` (``_engine.c``): the engine's per-superstep path (a send's checks and columns, the counters, the
cut by destination rank and the wire form, the delivery order by destination, source and arrival, and
``Engine.each``'s iterator, which times each turn, and the charge of a superstep's turns).
``_metrics`` (``_metrics.c``): every core figure of a cell in one pass over the level's graph
(``harness.measure.figures.cell_metrics``, ``harness.measure.latency.processor_costs``), and the engine's
per-superstep counter records as columns (``harness.engine.counters.Counters.columns``).
Every kernel does what a numpy expression beside it in the caller documents, in the same order of
operations, so a figure is the same to the bit whichever runs.

May import: nothing of ``harness``.
"""
