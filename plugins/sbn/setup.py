"""Builds the balancer's C modules (lbbench_sbn/_queue.c: the priority queue and the vectorised steps;
lbbench_sbn/_opstate.c: the balancing operations' state); everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(f"lbbench_sbn.{m}", [f"lbbench_sbn/{m}.c"], extra_compile_args=["-O3", "-std=c99"])
                   for m in ("_queue", "_opstate")])
