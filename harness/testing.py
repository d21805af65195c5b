"""Helpers for plugin tests (the public test API, beside ``harness``): run code under a real
``mpiexec -n R`` (:func:`mpirun`, :func:`mpi_result`) and check an algorithm with the ``conformance`` fixture,
which the pytest plugin ``lbbench`` provides to every test.

Example:
    >>> def test_mine_conforms(conformance):
    ...     conformance("mine", P=4, ranks=2)
    >>> def test_same_on_two_ranks():
    ...     assert mpi_result(2, "run_mine.py") == mpi_result(1, "run_mine.py")
"""
from .check.pytest_plugin import conformance, mpi_result
from .engine.launch import mpiexec, mpirun

__all__ = ["conformance", "mpi_result", "mpiexec", "mpirun"]
