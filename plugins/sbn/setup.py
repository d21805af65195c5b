"""Builds the C priority-queue order of the balancer (lbbench_sbn/_queue.c); everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("lbbench_sbn._queue", ["lbbench_sbn/_queue.c"], extra_compile_args=["-O2", "-std=c99"])])
