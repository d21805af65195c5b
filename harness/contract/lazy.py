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


_RESOLVED: set = set()  # the modules import_bound() has seen


def import_bound(module) -> None:
    """Import what ``module`` binds with :func:`lazy_module`, and what the modules of its own package that it
    imports bind so: the runner calls it for the plugin modules that implement a method's hooks before it
    times the method's cell, so that a cell's seconds never include an import (PLUM's first cell took 0.3 s
    more for ``scipy.optimize``). A plugin that is an object, not a module, binds nothing so."""
    if not isinstance(module, types.ModuleType) or module.__name__ in _RESOLVED:
        return
    package = module.__name__.rpartition(".")[0] or module.__name__
    own = [m for m in vars(module).values() if isinstance(m, types.ModuleType) and not isinstance(m, LazyModule)
           and m.__name__.startswith(package + ".")]
    for m in [module, *own]:
        for value in list(vars(m).values()):
            if isinstance(value, LazyModule):
                import_module(value.__name__)
    _RESOLVED.add(module.__name__)
