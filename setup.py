"""Builds the harness's C kernel (harness/_cells.c: the per-cell passes over AMR box pieces); everything
else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("harness._cells", ["harness/_cells.c"], extra_compile_args=["-O2", "-std=c99"])])
