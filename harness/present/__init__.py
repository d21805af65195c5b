"""What a user sees: the ``lbbench`` command (``cli``), ``lbbench reproduce`` (``reproduce``), the results
site (``site``), trace exports (``export``), the API reference build (``apidocs``) and the plugin scaffold
(``scaffold``).

May import: every layer below it (``check``, ``claims``, ``run``, ...). Nothing in ``harness`` imports it;
the console script ``lbbench`` runs ``cli``.
"""
