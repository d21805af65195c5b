"""Checking a plugin: the conformance suite of ``lbbench test NAME`` (``conformance``) and the pytest plugin
``lbbench`` with the ``conformance`` fixture (``pytest_plugin``; third-party tests import it from
``harness.testing``).

May import: ``harness.run`` and everything below it. Independent of ``harness.claims``.
"""
