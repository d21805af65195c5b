"""lbbench core: the public names plugins build on (docs/plugins.md).

Plugins import from here only (tests may also use ``harness.testing``); the
hooks a plugin implements are in ``harness.contract.hookspecs``. This reference is
built from the docstrings by ``lbbench docs``.

The core is layered by role (docs/architecture.md); this module only gathers
the public names of the layers below it:
``contract`` (what a plugin touches), ``engine`` (vprocs on MPI),
``measure`` (figures), ``store``, ``run`` (compare), ``claims`` (claims,
reports, the papers' values). ``present`` (the CLI, site, reproduce) and
``check`` (``lbbench test``) export nothing here.

Each name is imported from its layer's module when first read (PEP 562: the
module ``__getattr__`` below, by the table ``_PUBLIC``), so ``import harness``
or ``from harness import Engine`` loads that module and what it needs, not every
layer: a rank that runs a level never loads the claims layer and pandas, which
only claims and reports read (issue 52: a host's memory under several ranks).

Constants:

* ``BYTES_PER_UNIT``: migration bytes per unit of moved ``rwgt`` (8).
* ``IDX``: the integer dtype of every index and assignment array (``numpy.int64``).
* ``KINDS``: the message kinds the engine counts: ``balance``, ``migration``, ``application``.
* ``SCHEMA``: the core result columns, ``{column: (definition, unit)}`` (``lbbench columns``).
* ``T_TASK``: the tree paper's time of one task per tree node, in seconds (its application model).
"""
from importlib import import_module

from .engine.threads import share_cores

share_cores()  # before numpy loads: each MPI rank's share of the host's cores for BLAS threads

_PUBLIC = {  # the layer's module (under harness) -> the public names it gives ("name=its name there")
    "claims.claim": "Claim",
    "claims.calibrate": "Calibration Cells",
    "claims.reference": "paper_values",
    "claims.reports": "ReportOptions Table level_table render with_paper",
    "contract.context": "Context Timer",
    "contract.forms": "boxes_to_graph cell_vertices hilbert_index hilbert_order",
    "contract.fitted": "fitted",
    "contract.hookspecs": "hookimpl",
    "contract.mesh": "dual_edges",
    "contract.model": "IDX Boxes Costs Graph Level LoadArray Machine State breadth_first row_prod",
    "contract.lazy": "lazy_module",
    "contract.pieces": "BoxPieces lex_order overlap_join",
    "contract.plugins": "Algorithm Report Workload available_algorithms=algorithms check_params implements registers",
    "contract.spec": "parse_call resolve_params=resolve",
    "contract.view": "LocationView",
    "engine.shared": "HostArrays",
    "engine.vprocs": "KINDS Batch Engine",
    "measure.amrmetrics": "amr_figures",
    "measure.appmodel": "T_TASK app_figures app_proc_times app_speedup app_speedup_from_tables app_speedup_max "
                        "app_terms app_total_time",
    "measure.columns": "SCHEMA",
    "measure.figures": "cell_metrics",
    "measure.latency": "latency_model=get latency_figures=level_figures max_tolerance no_tolerance processor_costs "
                       "latency_qwgt=qwgt",
    "measure.metrics": "core_metrics costs_if_on cut_pct delta_cut load_figures loadimb loadimb_of maxsr qwgt "
                       "qwgt_maxsr vertex_costs work_loadimb wsysll",
    "run.api": "compare",
    "run.geometric": "curve_parts recursive_bisection",
    "run.partitioners": "metis_kway quiet_native",
    "run.runner": "BYTES_PER_UNIT as_form block_owner carry graph_of initial_state",
    "run.workloads": "available_workloads=available load_workload=load",
}
_WHERE = {n.split("=")[0]: (module, n.split("=")[-1]) for module, names in _PUBLIC.items() for n in names.split()}
__all__ = list(_WHERE)


def __getattr__(name: str):
    """A public name, imported from its layer's module when first read, then kept here (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    module, attr = _WHERE[name]
    value = globals()[name] = getattr(import_module(f"harness.{module}"), attr)
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
