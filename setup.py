"""Builds the harness's C kernels (harness/_cells.c: the per-cell passes over AMR box pieces;
harness/_graph.c: CSR neighbour rows, costs_if_on and the location view); everything else is in
pyproject.toml."""
from setuptools import Extension, setup

_C = ["-O2", "-std=c99"]
setup(ext_modules=[Extension("harness._cells", ["harness/_cells.c"], extra_compile_args=_C),
                   Extension("harness._graph", ["harness/_graph.c"], extra_compile_args=_C)])
