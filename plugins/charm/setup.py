"""Builds the C walk of lbaf-iat's transfer stage (lbbench_charm/_walk.c); everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("lbbench_charm._walk", ["lbbench_charm/_walk.c"], extra_compile_args=["-O2", "-std=c99"])])
