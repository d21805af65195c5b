"""The plugin contract: everything a plugin author touches (docs/plugins.md), and nothing that runs it.

The hook specifications (``hookspecs``), what a hook receives (``context``: ``Context``, ``Timer``), the
data model (``model``: ``Graph``, ``Boxes``, ``LoadArray``, ``Machine``, ``State``, ``Level``, ``Costs``),
the level forms and their conversions (``forms``), AMR box pieces (``pieces``), pinned objects (``pins``),
a processor's view of where data lives (``view``), dual graphs of element meshes (``mesh``), method
specifications and parameters (``spec``), and the plugin registry with the declarations plugins register
(``plugins``: ``Algorithm``, ``Report``, ``Workload``, ``implements``); a fitted default read from its
calibration's CSV (``fitted``) and a third-party module imported when first used (``lazy``: ``lazy_module``).

May import: ``harness.kernels`` only. Every other layer builds on this one; a contract type names the
engine (``Context.engine``) without importing it.
"""
