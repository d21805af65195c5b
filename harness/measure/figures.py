"""Every figure of the core ``metrics`` hook of one cell from one pass over the level's graph.

:func:`cell_metrics` is ``core_metrics`` (SBN §3.1-3.4, §5.2), the latency figures under ``none`` and ``max``
(MinEX §2.3) and the tree paper's application model (Eqs. 1-5) together: the C kernel
``harness.kernels._metrics.scan`` walks the adjacency once for what the numpy functions each compute in their
own passes (the Comm of every vertex before and after the level, QWgt, Wgt, Comm and Remap per processor,
MaxSR's sent and received cost, the boundary and the parts each vertex borders), adding the same terms in the
same order, and the figures come out of the same tails (:func:`harness.measure.metrics.core_figures`,
:func:`harness.measure.latency.totals_figures`, :func:`harness.measure.appmodel.terms_figures`). The numpy
functions stay the reference (:func:`harness.measure.latency.numpy_costs` for the latency totals, whose public
``processor_costs`` is this pass too): the figures are the same bit for bit.
"""
from __future__ import annotations

import numpy as np

from ..contract.model import Graph, Machine, State
from .appmodel import pair_terms, terms_figures
from .latency import totals_figures
from .metrics import core_figures, cut_pct_of, maxsr_of, partition_of, scan, work_loadimb_of


def cell_metrics(g: Graph, before: State, after: State, m: Machine, executed=None) -> dict:
    """``core_metrics(g, before, after, m, executed)``, then ``latency_figures(g, before, after, m)``, then
    ``app_figures(g, after, m)``, in that column order, from one pass over the graph (the same floats).

    Example:
        >>> figs = cell_metrics(ctx.graph, before, after, ctx.machine, executed=ctx.ran)
    """
    P = after.P
    comm_b, comm_a, sums, keys, boundary, cut, moved_w, moved = scan(g, m, before.owner, before.home, after.owner,
                                                                     after.home)
    settled, wgt, comm, remap, sent, recv, load = np.frombuffer(sums, np.float64).reshape(7, P)
    terms = pair_terms(load, np.frombuffer(keys, np.int64), P)
    edges = g.cwgt.sum() / 2
    figs = core_figures(cut_pct_of(edges, np.frombuffer(comm_b, np.float64)),
                        cut_pct_of(edges, np.frombuffer(comm_a, np.float64)), settled, executed, work_loadimb_of(load),
                        maxsr_of(sent, recv, moved_w, moved), partition_of(boundary, terms["delta"], cut))
    figs.update(totals_figures(wgt, comm, remap))
    figs.update(terms_figures(terms, g, m))
    return figs
