"""Builds the C loops (lbbench_charm/_walk.c: lbaf-iat's transfer walk; _greedy.c: GreedyLB's and GreedyRefine's);
everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(f"lbbench_charm.{m}", [f"lbbench_charm/{m}.c"], extra_compile_args=["-O2", "-std=c99"])
                   for m in ("_walk", "_greedy")])
