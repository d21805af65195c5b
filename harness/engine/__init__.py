"""The engine: P virtual processors on the R ranks of an MPI communicator, in bulk-synchronous supersteps.

``vprocs``: ``Engine`` (send and post, exchange, the collectives, each rank's busy CPU, the vproc layouts),
``world``; ``batch``: ``Batch``, a tag's messages as numpy columns, and their wire form; ``counters``:
messages, bytes and modelled time per superstep, pair and kind (counted in C, ``harness.kernels._engine``,
over a superstep's columns); ``transport``:
the one MPI exchange every collective is made of (a header ``Alltoall`` and an ``Alltoallv`` of buffers),
abort and divergence, the crowded-host wait; ``timing``: repeated timings of a cell's timed part
(medians, spreads, every run); ``launch``: the ``mpiexec`` beside this Python and ``python script`` under
``mpiexec -n R``; ``threads``: each rank's share of its host's cores for the BLAS and OpenMP pools;
``shared``: ``HostArrays``, read-only arrays held once per host (an MPI shared-memory window), not once per rank.

May import: ``harness.contract`` (and ``harness.kernels``). It knows nothing of metrics, the store or
the runner.
"""
