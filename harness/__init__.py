"""lbbench core: the public names plugins build on (docs/plugins.md).

Plugins import from here only (tests may also use ``harness.testing``); the
hooks a plugin implements are in ``harness.hookspecs``. This reference is
built from the docstrings by ``lbbench docs``.

Constants:

* ``BYTES_PER_UNIT``: migration bytes per unit of moved ``rwgt`` (8).
* ``IDX``: the integer dtype of every index and assignment array (``numpy.int64``).
* ``KINDS``: the message kinds the engine counts: ``balance``, ``migration``, ``application``.
* ``SCHEMA``: the core result columns, ``{column: (definition, unit)}`` (``lbbench columns``).
"""
from .amrmetrics import amr_figures
from .api import compare
from .appmodel import app_figures, app_proc_times, app_terms, app_speedup, app_speedup_from_tables, app_speedup_max, app_total_time
from .adapters import as_form, boxes_to_graph, cell_vertices, hilbert_index, hilbert_order
from .claims import Claim
from .columns import SCHEMA
from .context import Context
from .engine import KINDS, Engine, Timer
from .geometric import curve_parts, recursive_bisection
from .hookspecs import hookimpl
from .latency import level_figures as latency_figures
from .latency import get as latency_model
from .latency import max_tolerance, no_tolerance, processor_costs
from .latency import qwgt as latency_qwgt
from .mesh import dual_edges
from .metrics import (Costs, core_metrics, costs_if_on, cut_pct, delta_cut, load_figures, loadimb, loadimb_of, maxsr, qwgt,
                      vertex_costs, work_loadimb, wsysll)
from .model import IDX, Boxes, Graph, Level, LoadArray, Machine, State, row_prod
from .partitioners import metis_kway, quiet_native
from .pieces import BoxPieces, lex_order, overlap_join
from .plugins import Algorithm, Report, implements, registers
from .plugins import algorithms as available_algorithms
from .reference import paper_values
from .view import LocationView
from .spec import parse_call
from .spec import resolve as resolve_params
from .reports import ReportOptions, Table, level_table, render, with_paper
from .runner import BYTES_PER_UNIT, block_owner, carry, graph_of, initial_state
from .workloads import Workload
from .workloads import available as available_workloads
from .workloads import load as load_workload

__all__ = [
    "Algorithm", "BYTES_PER_UNIT", "Claim", "amr_figures", "compare", "app_figures", "app_proc_times", "app_terms", "app_speedup", "app_speedup_from_tables",
    "app_speedup_max", "app_total_time", "BoxPieces", "available_algorithms", "available_workloads", "Boxes", "Context", "Costs", "Engine", "Graph", "IDX", "KINDS", "Level",
    "LoadArray", "LocationView", "Machine", "Report", "ReportOptions", "SCHEMA", "State", "Table", "Timer", "Workload", "as_form",
    "block_owner", "boxes_to_graph", "carry", "cell_vertices", "core_metrics", "costs_if_on", "curve_parts", "cut_pct", "delta_cut",
    "dual_edges", "graph_of", "hilbert_index", "hilbert_order", "hookimpl", "implements", "initial_state",
    "latency_figures", "latency_model", "latency_qwgt", "level_table", "load_figures", "load_workload", "loadimb", "loadimb_of",
    "lex_order", "row_prod", "max_tolerance", "maxsr", "metis_kway", "no_tolerance", "overlap_join", "paper_values", "parse_call", "processor_costs",
    "quiet_native", "qwgt", "recursive_bisection", "registers", "render", "resolve_params", "vertex_costs", "with_paper", "work_loadimb", "wsysll",
]
