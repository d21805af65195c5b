"""Builds the C loops (lbbench_charm/_loops.c: lbaf-iat's transfer walk, GreedyLB's and GreedyRefine's placement);
everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("lbbench_charm._loops", ["lbbench_charm/_loops.c"], extra_compile_args=["-O2", "-std=c99"])])
