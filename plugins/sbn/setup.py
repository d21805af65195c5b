"""Builds the balancer's C modules (lbbench_sbn/_queue.c: the priority queue and the vectorised steps;
lbbench_sbn/_opstate.c: the balancing operations' state); everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import Extension, setup

# harness/kernels/view_api.h (the location view's C kernels, LocationView.C_API), from the repository's core
_CORE = Path(__file__).resolve().parents[2] / "harness" / "kernels"
setup(ext_modules=[Extension(f"lbbench_sbn.{m}", [f"lbbench_sbn/{m}.c"], extra_compile_args=["-O3", "-std=c99"],
                             include_dirs=[str(_CORE)],
                             depends=[str(_CORE / "view_api.h"), "lbbench_sbn/_fastargs.h"])
                   for m in ("_queue", "_opstate")])
