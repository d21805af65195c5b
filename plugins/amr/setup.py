"""Builds the C placement loops of IGD and WD (lbbench_amr/_place.c); everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("lbbench_amr._place", ["lbbench_amr/_place.c"], extra_compile_args=["-O2", "-std=c99"])])
