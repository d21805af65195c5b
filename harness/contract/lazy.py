"""Third-party modules a plugin needs only in some calls, imported when first used (issue 52 items 3 and 6).

``lazy_module(name)`` at module level binds a name to a stand-in for the module: reading one of its
attributes imports the module (``importlib.import_module``) and reads it there, so a rank that never calls
the code that needs it never loads it (scipy is 20-30 MiB a process). It is not an import cycle's dodge:
only third-party modules are deferred this way, never the harness's own layers.

Example:
    >>> ndimage = lazy_module("scipy.ndimage")   # nothing imported yet
    >>> ndimage.label                             # doctest: +SKIP  (scipy.ndimage imported here)
"""
from __future__ import annotations

import types
from importlib import import_module


class LazyModule(types.ModuleType):
    """A stand-in for the module ``name``, which it imports when one of its attributes is first read."""

    def __getattr__(self, attr: str):
        return getattr(import_module(self.__name__), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__name__!r}>"


def lazy_module(name: str) -> LazyModule:
    """The module ``name``, imported when one of its attributes is first read (``sys.modules`` holds it only
    from then on)."""
    return LazyModule(name)
