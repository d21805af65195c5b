"""Builds the harness's C kernels (harness/kernels/_cells.c: the per-cell passes over AMR box pieces;
harness/kernels/_graph.c: CSR neighbour rows, costs_if_on and the location view; harness/kernels/_engine.c: the
engine's per-superstep path; harness/kernels/_metrics.c: a cell's figures in one pass); everything else is in
pyproject.toml."""
from setuptools import Extension, setup

_C = ["-O2", "-std=c99"]
setup(ext_modules=[Extension("harness.kernels._cells", ["harness/kernels/_cells.c"], extra_compile_args=_C),
                   Extension("harness.kernels._graph", ["harness/kernels/_graph.c"], extra_compile_args=_C,
                             depends=["harness/kernels/_args.h", "harness/kernels/view_api.h"]),
                   Extension("harness.kernels._engine", ["harness/kernels/_engine.c"], extra_compile_args=_C,
                             depends=["harness/kernels/_args.h"]),
                   Extension("harness.kernels._metrics", ["harness/kernels/_metrics.c"],
                             extra_compile_args=[*_C, "-ffp-contract=off"], depends=["harness/kernels/_args.h"])])
