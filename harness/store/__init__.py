"""What is kept on disk, as data only (JSON and ``.npz``, never a pickle), and nothing stored is trusted.

``results``: the result store (one cell per key, resumable; provenance: versions, commit, the core's
source hash); ``validate``: the checks every stored file and row passes (regular files of bounded size,
figures in their domains, memories against their dataclass types); ``wlcache``: the workload cache and its
directory; ``boxgraphs``: AMR levels' box graphs, built once; ``contain``: keeping native libraries'
output off the terminal.

May import: ``harness.measure`` (the column catalogue) and ``harness.contract``. Independent of
``harness.engine``.
"""
