"""The core metrics (harness.measure.metrics, harness.measure.latency) and the generic per-level report, as hook implementations."""
import harness
from harness import Boxes, Report, amr_figures, cell_metrics, hookimpl


@hookimpl
def metrics(ctx, before, after):
    # core_metrics; MinEX §2.3 per-level Qwgt with the redistribution cost, under both latency extremes; the tree
    # paper's application cost model (Eqs. 1-5) of the distribution after the level: from one pass over the graph
    figs = cell_metrics(ctx.graph, before, after, ctx.machine, executed=ctx.ran)
    if isinstance(ctx.original, Boxes) and after.pieces is not None:  # the AMR paper's §5 metrics
        figs.update(amr_figures(ctx.original, before.pieces, after.pieces, ctx.P, ctx.level.meta, graph=ctx.graph))
    return figs


def levels_report(opts):
    """Per method and P, the SBN Tables 4-7 shape (``--plugins`` picks the methods; default none,metis).

    ``harness.Table`` and ``harness.level_table`` are read here, not imported with the module: they load the
    claims layer, pandas and tabulate, which registering the plugin and running a level never need (issue 52).
    """
    tables = []
    for P in opts.P or [None]:  # None: the workload's own P (a trace's ranks, else 32)
        df = opts.compare(opts.methods or "none,metis", P=P)
        for alg, rows in df.groupby("algorithm", sort=False):
            tables.append(harness.Table(f"{alg} — {opts.workload}, P = {int(rows['P'].iloc[0])}",
                                        harness.level_table(rows)))
    return tables


@hookimpl
def register_reports(register):
    register(Report("levels", levels_report, title="Per-level table (SBN paper Tables 4-7 shape)",
                    description="Adaptation Level, Pre-Exec Cut%, Post-Exec Cut%, MaxSR, LoadImb and Average"))
