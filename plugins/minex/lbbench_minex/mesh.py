"""MinEX's adaptive mesh structure (MinEX paper §3.4) with the Union/Find of Fig. 2.

``Mesh = {|V|, |E|, vTot, *VMap, *VList, *EList}``. VList holds every vertex,
the original ones (ids ``0 .. n0-1``) followed by the merged ones in the
order contraction made them (§3.5), so that ``vTot``, the total vertex count,
is also the first unused id. VList is stored as parallel Python lists
(struct-of-arrays): scalar access to Python lists is what the sequential,
one-pair-at-a-time algorithm does most, and it is several times faster on
lists than on numpy arrays. The fields of the paper's vertex record:

======================  ==========================================================
``pwgt[v]``, ``rwgt[v]`` Pwgt_v and Rwgt_v (a merged vertex sums its two halves)
``rhome[v]``            Rwgt_v by the processor that holds the data now
                        ({home: rwgt}); Remap needs it (§2.3)
``nbr[v]``, ``cw[v]``   ``|e|`` and ``*e``: v's EList records {w, Cwgt_(v,w)}.
                        w is the vertex the record was made for. It may have been
                        merged since, and Find gives the active vertex that holds it
``merge[v]``            the merged vertex M that v went into (-1 while v is active)
``lookup[v]``           cached active vertex containing v (-1 when not merged), Fig. 2
``vpos[v]``             ``*vmap``: the position of v in VMap
``border[v]``           v may be adjacent to a vertex on another processor. The flag is
                        conservative: it is never False for a border vertex
``owner[v]``            the processor an active vertex is assigned to
======================  ==========================================================

The ``*Heap`` pointer lives in :class:`lbbench_minex.heap.GainHeap` (its ``pos``).
The Stack of collapsed pairs is ``stack``.

Fig. 2's condition "lookup <= vTot" (1-based ids) becomes ``lookup < vTot``
here: a lookup pointing at an id that expansion has removed is stale, and
Find then follows ``merge`` instead. This needs the paper's order: every
contraction comes before every expansion, so that a removed id is never
given out again. :meth:`Mesh.merge_pair` enforces this.
"""
from __future__ import annotations

import numpy as np


class Mesh:
    """The contracted/expanded graph of one MinEX call."""

    def __init__(self, xadj, adjncy, cwgt, pwgt, rwgt, owner, home, border=None, fixed=None):
        n = len(xadj) - 1
        self.n0 = n
        adj = np.asarray(adjncy).tolist()
        cws = np.asarray(cwgt).tolist()
        xa = np.asarray(xadj).tolist()
        self.nbr = [adj[xa[i]:xa[i + 1]] for i in range(n)]
        self.cw = [cws[xa[i]:xa[i + 1]] for i in range(n)]
        self.pwgt = np.asarray(pwgt).tolist()
        self.rwgt = np.asarray(rwgt).tolist()
        self.rhome = [{h: r} for h, r in zip(np.asarray(home).tolist(), self.rwgt)]
        self.merge = [-1] * n
        self.lookup = [-1] * n
        self.owner = np.asarray(owner).tolist()
        if border is None:
            border = [True] * n
        self.border = list(border)
        self.fixed = [False] * n if fixed is None else list(fixed)  # pinned (Level.pinned): never moved
        self.vmap = list(range(n))  # VMap: the active vertices
        self.vpos = list(range(n))  # *vmap
        self.vtot = n  # vTot
        self.nedges = int(xa[-1])  # |E|, counted as EList records
        self.stack: list = []  # Stack of collapsed pairs (v, w)
        self.expanding = False

    # ------------------------------------------------------------------ sizes
    @property
    def nactive(self) -> int:
        """|V|: the number of active vertices."""
        return len(self.vmap)

    # ------------------------------------------------------------ Union/Find
    def find(self, v: int) -> int:
        """The active vertex that contains v (Fig. 2), setting ``lookup`` on the path to it."""
        merge, lookup = self.merge, self.lookup
        if merge[v] == -1:
            return v
        vtot = self.vtot
        path = []
        x = v
        while merge[x] != -1:
            path.append(x)
            lk = lookup[x]
            x = lk if (lk != -1 and lk < vtot) else merge[x]
        for y in path:
            lookup[y] = x
        return x

    # --------------------------------------------------------------- contract
    def merge_pair(self, v: int, w: int) -> int:
        """Collapse the edge (v, w) into a new vertex M (§3.5); returns M."""
        if self.expanding:
            raise RuntimeError("MinEX contracts before it expands: no merge after a split")
        merge, nbr, cw = self.merge, self.nbr, self.cw
        if merge[v] != -1 or merge[w] != -1 or v == w:
            raise ValueError(f"cannot merge {v} and {w}: both must be distinct active vertices")
        find = self.find
        acc: dict = {}
        get = acc.get
        for lst, cws in ((nbr[v], cw[v]), (nbr[w], cw[w])):
            for x, c in zip(lst, cws):
                if merge[x] != -1:
                    x = find(x)
                if x != v and x != w:
                    acc[x] = get(x, 0) + c
        M = self.vtot
        nbr.append(list(acc))
        cw.append(list(acc.values()))
        self.pwgt.append(self.pwgt[v] + self.pwgt[w])
        self.rwgt.append(self.rwgt[v] + self.rwgt[w])
        rh = dict(self.rhome[v])
        for h, r in self.rhome[w].items():
            rh[h] = rh.get(h, 0) + r
        self.rhome.append(rh)
        self.merge.append(-1)
        self.lookup.append(-1)
        self.owner.append(self.owner[v])
        self.border.append(self.border[v] or self.border[w])
        self.fixed.append(self.fixed[v] or self.fixed[w])
        merge[v] = merge[w] = M
        self.lookup[v] = self.lookup[w] = M
        # VMap: M takes v's place, w is removed (the last entry fills its slot)
        vmap, vpos = self.vmap, self.vpos
        pv = vpos[v]
        vmap[pv] = M
        vpos.append(pv)
        pw = vpos[w]
        last = vmap.pop()
        if pw < len(vmap):
            vmap[pw] = last
            vpos[last] = pw
        self.vtot = M + 1
        self.nedges += len(acc)
        self.stack.append((v, w))
        return M

    # ----------------------------------------------------------------- expand
    def split_top(self) -> tuple[int, int, int]:
        """Undo the last merge (§3.7): returns (v, w, M); v and w inherit M's processor and border flag."""
        self.expanding = True
        v, w = self.stack.pop()
        M = self.vtot - 1
        owner, border = self.owner, self.border
        owner[v] = owner[w] = owner[M]
        border[v] = border[w] = border[M]
        self.merge[v] = self.merge[w] = -1
        self.lookup[v] = self.lookup[w] = -1
        vmap, vpos = self.vmap, self.vpos
        pm = vpos[M]
        vmap[pm] = v
        vpos[v] = pm
        vpos[w] = len(vmap)
        vmap.append(w)
        self.nedges -= len(self.nbr[M])
        for lst in (self.nbr, self.cw, self.pwgt, self.rwgt, self.rhome, self.merge, self.lookup,
                    self.owner, self.border, self.fixed, self.vpos):
            lst.pop()
        self.vtot = M
        return v, w, M

    # ---------------------------------------------------------------- helpers
    def members(self, v: int) -> np.ndarray:
        """The original vertices that active vertex v contains (for tests and traces; O(n0))."""
        return np.array([u for u in range(self.n0) if self.find(u) == v], dtype=np.int64)

    def fine_owner(self) -> np.ndarray:
        """The processor of every original vertex under the current (possibly contracted) assignment."""
        find, owner = self.find, self.owner
        return np.array([owner[find(u)] for u in range(self.n0)], dtype=np.int64)
