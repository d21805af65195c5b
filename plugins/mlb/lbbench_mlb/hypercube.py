"""Gray-code numbering of the processors and the hypercube edges (MLB paper §3).

Rank r has the Gray code g(r) = r XOR (r >> 1) ("mapping rank 0 to the zero
graycode and changing bits starting with the least significant one"). The
k-edge of a processor joins it to the processor whose code differs in bit k:
the 0-edge is the finest (least significant bit), the (d-1)-edge the coarsest.

A :class:`Cube` generalises this to the n-D extension (§5): a processor mesh
p_0 x p_1 (x p_2) of powers of two, ranks in C order of the mesh coordinates,
and the hypercube address of a rank the concatenation of the per-axis Gray
codes, axis 0 in the most significant bits. With one axis it is §3's numbering.
"""
from __future__ import annotations

import numpy as np


def gray(r):
    """Gray code of ``r`` (int or integer array)."""
    r = np.asarray(r, np.int64)
    return r ^ (r >> 1)


def gray_inverse(g):
    """The rank whose Gray code is ``g``: the prefix XOR of its bits."""
    r = np.array(g, np.int64, copy=True)
    shift = 1
    while shift < 64:
        r ^= r >> shift
        shift <<= 1
    return r


def log2_exact(P: int) -> int:
    """d with P = 2**d; MLB is defined for powers of two only (§3)."""
    P = int(P)
    if P < 1 or P & (P - 1):
        raise ValueError(f"mlb: P = {P} is not a power of two (MLB §3)")
    return P.bit_length() - 1


class Cube:
    """P = 2**d processors on a mesh ``shape`` (powers of two, C order) with Gray-coded hypercube addresses.

    ``addr[r]`` is rank r's d-bit address, ``rank[a]`` the rank with address a,
    ``partner(r, k)`` the rank across r's k-edge.
    """

    def __init__(self, shape):
        self.shape = tuple(int(s) for s in shape)
        self.bits = tuple(log2_exact(s) for s in self.shape)
        self.d = sum(self.bits)
        self.P = 1 << self.d
        coords = np.unravel_index(np.arange(self.P, dtype=np.int64), self.shape)
        addr = np.zeros(self.P, np.int64)
        for c, b in zip(coords, self.bits):
            addr = (addr << b) | gray(c)
        self.addr = addr
        self.rank = np.empty(self.P, np.int64)
        self.rank[addr] = np.arange(self.P, dtype=np.int64)
        self.partners = np.array([self.rank[self.addr ^ (1 << k)] for k in range(self.d)], np.int64).reshape(
            self.d, self.P)  # partners[k, r]: the rank across r's k-edge
        for a in (self.addr, self.rank, self.partners):
            a.setflags(write=False)

    def partner(self, r, k: int):
        """The rank(s) across the k-edge of rank(s) ``r``."""
        return self.partners[k][r]

    def route_location(self, src, dst, s: int):
        """Where e-cube routing (coarsest bit first) has taken items from ``src`` to ``dst`` before step s."""
        k = self.d - s  # bits >= k already follow the destination
        high = ~np.int64((1 << k) - 1)
        return self.rank[(self.addr[dst] & high) | (self.addr[src] & ~high)]
