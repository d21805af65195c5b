"""The standard workloads and the papers' reference values, registered like any plugin's."""
from dataclasses import replace
from pathlib import Path

from harness import hookimpl

from . import arrays, bl, files, plot, sbn_example, shock, truss, vt, vt_synthetic


@hookimpl
def register_workloads(register):
    for module in (sbn_example, shock, files, truss, bl, arrays):
        register(replace(module.WORKLOAD, plot=plot.plot_level))
    register(vt.WORKLOAD)
    register(vt_synthetic.WORKLOAD)


@hookimpl
def register_references(register):
    register(Path(__file__).parent / "reference")
