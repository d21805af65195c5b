"""Every figure, defined once: the papers' metrics of a state (``metrics``: QWgt, WSysLL, LoadImb, Cut%,
MaxSR, ...), MinEX's latency models (``latency``), the tree paper's application cost model (``appmodel``),
the core metrics hook's figures of a cell in one pass over its graph (``figures``), the AMR paper's §5
overheads of box pieces (``amrmetrics``) and the column catalogue with definitions and
units (``columns``, ``lbbench columns``).

May import: ``harness.contract`` (and ``harness.kernels``). Independent of ``harness.engine``: a figure
is a function of the data and the states, never of how the vprocs ran.
"""
