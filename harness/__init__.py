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

Constants:

* ``BYTES_PER_UNIT``: migration bytes per unit of moved ``rwgt`` (8).
* ``IDX``: the integer dtype of every index and assignment array (``numpy.int64``).
* ``KINDS``: the message kinds the engine counts: ``balance``, ``migration``, ``application``.
* ``SCHEMA``: the core result columns, ``{column: (definition, unit)}`` (``lbbench columns``).
* ``T_TASK``: the tree paper's time of one task per tree node, in seconds (its application model).
"""
from .engine.threads import share_cores

share_cores()  # before numpy loads: each MPI rank's share of the host's cores for BLAS threads

from .claims.claim import Claim  # noqa: E402 (the share must come first)
from .claims.calibrate import Calibration, Cells, fitted
from .claims.reference import paper_values
from .claims.reports import (ReportOptions, Table, level_table, render,
                             with_paper)
from .contract.context import Context, Timer
from .contract.forms import (boxes_to_graph, cell_vertices, hilbert_index,
                             hilbert_order)
from .contract.hookspecs import hookimpl
from .contract.mesh import dual_edges
from .contract.model import (IDX, Boxes, Costs, Graph, Level, LoadArray,
                             Machine, State, breadth_first, row_prod)
from .contract.pieces import BoxPieces, lex_order, overlap_join
from .contract.plugins import Algorithm, Report, Workload
from .contract.plugins import algorithms as available_algorithms
from .contract.plugins import check_params, implements, registers
from .contract.spec import parse_call
from .contract.spec import resolve as resolve_params
from .contract.view import LocationView
from .engine.shared import HostArrays
from .engine.vprocs import KINDS, Batch, Engine
from .measure.amrmetrics import amr_figures
from .measure.appmodel import (T_TASK, app_figures, app_proc_times, app_speedup,
                               app_speedup_from_tables, app_speedup_max,
                               app_terms, app_total_time)
from .measure.columns import SCHEMA
from .measure.figures import cell_metrics
from .measure.latency import get as latency_model
from .measure.latency import level_figures as latency_figures
from .measure.latency import max_tolerance, no_tolerance, processor_costs
from .measure.latency import qwgt as latency_qwgt
from .measure.metrics import (core_metrics, costs_if_on, cut_pct, delta_cut,
                              load_figures, loadimb, loadimb_of, maxsr, qwgt,
                              vertex_costs, work_loadimb, wsysll)
from .run.api import compare
from .run.geometric import curve_parts, recursive_bisection
from .run.partitioners import metis_kway, quiet_native
from .run.runner import (BYTES_PER_UNIT, as_form, block_owner, carry, graph_of,
                         initial_state)
from .run.workloads import available as available_workloads
from .run.workloads import load as load_workload

__all__ = [
    "Algorithm", "Batch", "BYTES_PER_UNIT", "Calibration", "Cells", "Claim", "fitted", "amr_figures", "compare", "app_figures", "app_proc_times", "app_terms", "app_speedup", "app_speedup_from_tables",
    "app_speedup_max", "app_total_time", "T_TASK", "BoxPieces", "available_algorithms", "breadth_first", "available_workloads", "Boxes", "Context", "Costs", "Engine", "Graph", "HostArrays", "IDX", "KINDS", "Level",
    "LoadArray", "LocationView", "Machine", "Report", "ReportOptions", "SCHEMA", "State", "Table", "Timer", "Workload", "as_form",
    "block_owner", "boxes_to_graph", "check_params", "carry", "cell_metrics", "cell_vertices", "core_metrics", "costs_if_on", "curve_parts", "cut_pct", "delta_cut",
    "dual_edges", "graph_of", "hilbert_index", "hilbert_order", "hookimpl", "implements", "initial_state",
    "latency_figures", "latency_model", "latency_qwgt", "level_table", "load_figures", "load_workload", "loadimb", "loadimb_of",
    "lex_order", "row_prod", "max_tolerance", "maxsr", "metis_kway", "no_tolerance", "overlap_join", "paper_values", "parse_call", "processor_costs",
    "quiet_native", "qwgt", "recursive_bisection", "registers", "render", "resolve_params", "vertex_costs", "with_paper", "work_loadimb", "wsysll",
]
