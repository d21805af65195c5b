"""Judging the papers: claims and their verdicts (``claim``: ``Claim``, evaluate, judge, the history),
the papers' own values (``reference``), and report tables with the papers' numbers beside ours
(``reports``: ``Table``, ``ReportOptions``, ``level_table``, ``render``).

May import: ``harness.run`` and everything below it. Independent of ``harness.check``. Presentation only:
a change here leaves every stored cell's figures as they are (``harness.store.results.PRESENTATION``).
"""
