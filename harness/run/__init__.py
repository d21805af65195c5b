"""Running cells: ``api.compare`` (methods x levels -> DataFrame, resuming from the store), the per-level
protocol of one cell (``runner``: initial state, partition -> remap -> accept, balance, accounting of data
movement, cell failures, ``as_form``), loading workloads through the cache (``workloads``), and the
built-in partitioner calls (``partitioners``: METIS through pymetis; ``geometric``: RCB, RIB, curve cuts).

May import: ``harness.store``, ``harness.measure``, ``harness.engine``, ``harness.contract``.
"""
