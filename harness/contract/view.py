"""A processor's view of where vertex data is (SBN paper §3.5: data location without broadcasts).

The view starts from the home processors of a level and records what the
processor learned since (data it received or sent, locate messages). It reads
like a State's ``home`` (``view.home[verts]``), so :func:`harness.costs_if_on`
prices vertices from it. Lookups and merges are C (``harness/kernels/_graph.c``), and a plugin's C code
calls the merge and the pricing through ``LocationView.C_API``.
"""
from __future__ import annotations

import numpy as np

from ..kernels import _graph

_NONE = np.zeros(0, np.int64)


class LocationView:
    """``home`` overridden by a sorted map of learned (vertex, processor) entries.

    Args:
        home: where every vertex's data was at the start (int64, not copied: do not change it).
        P: the number of processors (the ``State``-like ``P`` costs_if_on may read).

    Example:
        >>> view = LocationView(state.home, P)
        >>> view.learn(np.array([4, 9]), 3)     # p was told that 4 and 9 now live on 3
        >>> view.home[[4, 5]]                   # array([3, home[5]])
        >>> costs_if_on(g, view, m, verts, p)   # priced from what p knows
    """

    __slots__ = ("base", "keys", "values", "P")
    #: a capsule of the view's C kernels for a plugin's C code (``harness/kernels/_graph.c``, ``view_api``: costs_if_on's
    #: pricing and :meth:`learn`, called without Python in between)
    C_API = _graph.view_api

    def __init__(self, home: np.ndarray, P: int):
        self.base = np.ascontiguousarray(home, np.int64)
        self.keys, self.values, self.P = _NONE, _NONE, P

    @property
    def home(self) -> "LocationView":
        """The view itself: it stands in for a State whose ``home`` it is."""
        return self

    def __getitem__(self, verts) -> np.ndarray:
        verts = np.ascontiguousarray(verts, np.int64)
        return np.frombuffer(_graph.lookup(self.base, self.keys, self.values, verts.reshape(-1), 0),
                             np.int64).reshape(verts.shape)

    def holders(self, verts) -> np.ndarray:
        """The processors holding the data of ``verts`` in this view: ``np.unique(view[verts])``."""
        verts = np.ascontiguousarray(verts, np.int64).reshape(-1)
        return np.frombuffer(_graph.lookup(self.base, self.keys, self.values, verts, self.P), np.int64)

    def learn(self, ids: np.ndarray, where) -> None:
        """Record that the data of ``ids`` is at ``where`` (one processor or one per id; of a vertex listed
        twice, the later entry wins)."""
        ids = np.ascontiguousarray(ids, np.int64)
        if ids.size:  # keys and values replaced by the merged map's (C: _graph.learn)
            _graph.learn(self, ids, np.ascontiguousarray(where, np.int64).reshape(-1))

    def __len__(self) -> int:
        """How many vertices p learned a location for."""
        return self.keys.size
