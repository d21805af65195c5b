"""The result columns the core defines: name -> (definition, unit), in one place.

Reports, the CLI (``lbbench columns``), conformance and docs read this table;
:mod:`harness.measure.metrics` computes the figures, the runner the accounting and
timing columns. Plugins add their own columns with their name as prefix.
Columns ending in ``_<kind>_*`` exist for each engine message kind
(``balance``, ``migration``, ``application``) and ``time_<phase>_s`` for each
timed phase.
"""
from __future__ import annotations

SCHEMA: dict[str, tuple[str, str]] = {
    # identity and provenance
    "workload": ("workload name", ""),
    "workload_version": ("workload version", ""),
    "workload_params": ("workload parameters (JSON)", ""),
    "level": ("adaptation level", ""),
    "algorithm": ("method as given (name[k=v], mapper/balancer)", ""),
    "params": ("resolved parameters of every algorithm of the method (JSON)", ""),
    "P": ("number of (virtual) processors", ""),
    "machine": ("machine preset (uniform, sp2, grid:C:I)", ""),
    "initial": ("level-1 start distribution (metis, block, root, trace or an algorithm)", ""),
    "seed": ("seed of every random stream", ""),
    "ranks": ("MPI ranks the cell ran on", ""),
    "status": ("ok, or failed: why", ""),
    "owners_hash": ("hash of the owners after the cell (identical on every rank)", ""),
    "git_commit": ("commit of the harness", ""),
    "versions": ("versions of the core packages and of every plugin distribution (JSON)", ""),
    # SBN §5.2 / MinEX §2.3 figures (harness.measure.metrics)
    "pre_exec_cut_pct": ("Cut% of the state before the level: 100 * (sum Comm / 2) / sum edge cwgt, each cut edge "
                         "once (Comm weighs an edge by its Conn slowdown: above 100 possible on a grid machine)", "%"),
    "post_exec_cut_pct": ("Cut% of the state after the level", "%"),
    "wsysll": ("WSysLL = ceil(sum QWgt / P), QWgt of what ran", "weight"),
    "loadimb": ("LoadImb = max QWgt / WSysLL of what ran (executed load for balancers that process work, else the end state)", ""),
    "maxqwgt": ("max QWgt (Wgt + Comm + Remap) over processors, of what ran", "weight"),
    "minqwgt": ("min QWgt over processors, of what ran", "weight"),
    "qwgttot": ("sum of QWgt over processors, of what ran", "weight"),
    "empty_parts": ("processors with no load", ""),
    "settled_loadimb": ("LoadImb of the end state (after all data moved)", ""),
    "settled_maxqwgt": ("max QWgt of the end state", "weight"),
    "work_loadimb": ("max_p sum pwgt / (sum pwgt / P): computation only", ""),
    "maxsr": ("MaxSR = max sent + max received redistribution cost (rwgt * Conn)", "weight"),
    "moved_weight": ("sum rwgt of vertices whose data moved (home before != home after)", "weight"),
    "moved_vertices": ("vertices whose data moved", ""),
    "changed_weight": ("sum rwgt of the level's vertices its adaptation created or changed (no parent, a parent "
                       "split among several, pwgt or rwgt not the parent's); absent at a run's first level", "weight"),
    "edge_cut": ("sum cwgt of edges between different owners, each once", "weight"),
    "boundary_vertices": ("vertices with a neighbour on another owner", ""),
    "max_neighbour_parts": ("most neighbouring parts of one part", ""),
    "avg_neighbour_parts": ("mean neighbouring parts per part", ""),
    # MinEX latency tolerance (harness.measure.latency)
    "lt_none_maxqwgt": ("MinEX §2.3 max Qwgt with Remap, no latency tolerance", "weight"),
    "lt_none_minqwgt": ("MinEX §2.3 min Qwgt, no latency tolerance", "weight"),
    "lt_none_qwgttot": ("MinEX §2.3 sum Qwgt, no latency tolerance", "weight"),
    "lt_none_loadimb": ("LoadImb of the lt_none Qwgt (max / WSysLL)", ""),
    "lt_max_maxqwgt": ("MinEX §2.3 max Qwgt = max(Wgt, Comm + Remap), maximum latency tolerance", "weight"),
    "lt_max_minqwgt": ("min Qwgt, maximum latency tolerance", "weight"),
    "lt_max_qwgttot": ("sum Qwgt, maximum latency tolerance", "weight"),
    "lt_max_loadimb": ("LoadImb of the lt_max Qwgt (max / WSysLL)", ""),
    # accounting by the runner (harness.run.runner)
    "migration_bytes": ("data moved, derived from homes before and after: 8 bytes per unit of moved rwgt", "bytes"),
    "migration_messages": ("data-movement messages derived: one per (source, destination) pair", ""),
    "wire_migration_bytes": ("bytes the engine carried in migration messages (>= migration_bytes)", "bytes"),
    "wire_migration_messages": ("migration messages the engine carried", ""),
    "balance_bytes": ("bytes of balancing messages", "bytes"),
    "balance_messages": ("balancing messages", ""),
    "application_bytes": ("bytes of application messages", "bytes"),
    "application_messages": ("application messages", ""),
    "balance_supersteps": ("supersteps that carried a balancing message", ""),
    "migration_supersteps": ("supersteps that carried a migration message", ""),
    "modelled_balance_s": ("modelled time of balancing messages (latency + bytes / bandwidth, x Conn; max over senders per superstep)", "s"),
    "modelled_migration_s": ("modelled time of migration messages", "s"),
    "modelled_application_s": ("modelled time of application messages", "s"),
    "texec_s": ("wall partition + remap + balance time plus modelled balance and migration time (tree paper Eq. 6)", "s"),
    "texec_model_s": ("modelled balance + migration time", "s"),
    "time_total_s": ("wall time of the cell, max over ranks", "s"),
    "rank_busy_s_max": ("CPU time of the cell (the method's hooks and the data movement, not the metrics) outside collectives, max over MPI ranks", "s"),
    "rank_busy_s_mean": ("the same CPU time, mean over MPI ranks", "s"),
    "rank_balance": ("rank_busy_s_mean / rank_busy_s_max: how evenly the ranks shared the work (1: evenly)", ""),
    "rank_critical_s": ("the busiest rank's busy CPU of each superstep, summed over the cell's supersteps: its time "
                        "with a free exchange (rank_busy_s_max at one rank)", "s"),
    "rank_step_balance": ("the mean rank's busy CPU of each superstep, summed, over rank_critical_s: how evenly each "
                          "superstep's work fell on the ranks (1: evenly)", ""),
    "timing_repeats": ("runs of the cell's timed part (compare(..., repeats=k), wall-time claims; absent: 1)", ""),
    "timing_runs": ("every repeated run's figure of each timed column (texec_s, time_<phase>_s), a JSON object "
                    "column -> list", "s"),
    "timing_group": ("the methods whose cells' timed parts ran interleaved with this one's (run k of each, then "
                     "run k + 1), comma-separated", ""),
    "timing_session": ("the session those interleaved runs were made in (one id per timed group's run)", ""),
    # pinned objects (docs/plugins.md)
    "pinned_reassigned": ("pinned vertices a partitioner placed elsewhere, put back on their processor by the runner", ""),
    "pinned_reassigned_pwgt": ("sum of pwgt of those vertices", ""),
}


def describe(name: str) -> tuple[str, str] | None:
    """(definition, unit) of a core column, including the per-kind and per-phase families."""
    if name in SCHEMA:
        return SCHEMA[name]
    if name.startswith("time_") and name.endswith("_s"):
        return (f"wall time in phase {name[5:-2]!r}, max over ranks", "s")
    for suffix, what in (("_median", "median"), ("_spread", "spread (max - min)")):  # harness.engine.vprocs.timing
        if name.endswith(suffix) and describe(name[:-len(suffix)]):
            return (f"{what} of the repeated runs' {name[:-len(suffix)]}", "s")
    return None
