"""The core metrics (harness.metrics, harness.latency) and the generic per-level report, as hook implementations."""
from harness import Report, Table, core_metrics, hookimpl, latency_figures, level_table


@hookimpl
def metrics(ctx, before, after):
    figs = core_metrics(ctx.graph, before, after, ctx.machine, executed=ctx.ran)
    # MinEX §2.3 per-level Qwgt with the redistribution cost, under both latency extremes
    figs.update(latency_figures(ctx.graph, before, after, ctx.machine))
    return figs


def levels_report(opts):
    """Per method and P, the SBN Tables 4-7 shape (``--plugins`` picks the methods; default none,metis)."""
    tables = []
    for P in opts.P or [32]:
        df = opts.compare(opts.methods or "none,metis", P=P)
        for alg, rows in df.groupby("algorithm", sort=False):
            tables.append(Table(f"{alg} — {opts.workload}, P = {P}", level_table(rows)))
    return tables


@hookimpl
def register_reports(register):
    register(Report("levels", levels_report, title="Per-level table (SBN paper Tables 4-7 shape)",
                    description="Adaptation Level, Pre-Exec Cut%, Post-Exec Cut%, MaxSR, LoadImb and Average"))
