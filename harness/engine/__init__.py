"""The engine: P virtual processors on the R ranks of an MPI communicator, in bulk-synchronous supersteps.

``vprocs``: ``Engine`` (post, exchange, the collectives, message and byte counters per superstep, pair and
kind, modelled time, step statistics, each rank's busy CPU), ``world`` and the crowded-host wait;
``timing``: repeated timings of a cell's timed part (medians, spreads, every run); ``launch``: the
``mpiexec`` beside this Python and ``python script`` under ``mpiexec -n R``.

May import: ``harness.contract`` (and ``harness.kernels``). It knows nothing of metrics, the store or
the runner.
"""
