"""Graph contraction (MinEX paper §3.5).

MinEX picks a random set of adjacent vertex pairs that are assigned to the
same processor and merges the pair (v, w) with the largest
``Cwgt_(v,w) / (Rwgt_v + Rwgt_w)``: heavy communication inside, little data
to move. It merges one pair at a time until the graph is small enough.

The random set: ``sample`` active vertices are drawn uniformly from VMap.
Each drawn vertex brings all its same-processor pairs (v, w), with
Cwgt_(v,w) summed over the EList records that Find resolves to w. The paper
does not say how large the set is, so ``sample`` is a parameter. After 64
draws in a row find no same-processor pair, contraction stops early: every
processor's part is then a set of isolated coarse vertices.
"""
from __future__ import annotations

MAX_FAILS = 64
MASK = (1 << 64) - 1


class SplitMix64:
    """The random stream of contraction: splitmix64 doubles in [0, 1).

    It is the same stream in the Python reference and in the C kernel, so the
    two make the same choices. It is seeded from ``ctx.rng``, so it depends on
    (seed, level, algorithm) and is the same on every rank.
    """

    def __init__(self, seed: int):
        self.s = int(seed) & MASK

    def random(self) -> float:
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        return (z >> 11) * (1.0 / 9007199254740992.0)


def contract(mesh, target: int, seed: int, sample: int = 4) -> int:
    """Contract ``mesh`` until it has at most ``target`` active vertices; returns the merges made."""
    if sample < 1:
        raise ValueError(f"minex: sample must be >= 1, got {sample}")
    vmap, nbr, cw, merge, owner, rwgt = mesh.vmap, mesh.nbr, mesh.cw, mesh.merge, mesh.owner, mesh.rwgt
    find = mesh.find
    rand = SplitMix64(seed).random
    fails = 0
    merges = 0
    while len(vmap) > target:
        best = None
        best_r = -1.0
        nv = len(vmap)
        for _ in range(sample):
            v = vmap[int(rand() * nv)]
            pv = owner[v]
            acc: dict = {}
            get = acc.get
            for x, c in zip(nbr[v], cw[v]):
                if merge[x] != -1:
                    x = find(x)
                if owner[x] == pv:
                    acc[x] = get(x, 0) + c
            if not acc:
                continue
            rv = rwgt[v]
            for x, c in acc.items():
                den = rv + rwgt[x]
                r = c / den if den > 0 else float(c)
                if r > best_r:
                    best_r = r
                    best = (v, x)
        if best is None:
            fails += 1
            if fails >= MAX_FAILS:
                break
            continue
        fails = 0
        mesh.merge_pair(*best)
        merges += 1
    return merges
