"""Gain, ΔMinVar and the ThroTtle gate (MinEX paper §3.3), with incremental processor loads.

Every processor p keeps its totals of one level (MinEX §2.3): ``W[p] = Σ Wgt``,
``C[p] = Σ Comm``, ``R[p] = Σ Remap`` over the vertices assigned to it, and
``Q[p] = f(W[p], C[p], R[p])`` under the latency model f (harness.measure.latency).
Comm counts the processors the vertices are *assigned* to: after the
partition is applied, the data lives where it is computed. Remap counts the
move from the processor that holds a vertex's data now (``home``). The
starting totals come from :func:`harness.measure.latency.processor_costs`, so
harness.measure.metrics computes them, and each move updates them exactly.

Moving active vertex V from p to q changes:

* W[p] by ``-Pwgt_V Proc_p`` and W[q] by ``+Pwgt_V Proc_q``;
* R[p] by ``-Remap_V(p)`` and R[q] by ``+Remap_V(q)``, where
  ``Remap_V(x) = Σ_h Rwgt_V,h Conn(h, x)`` over V's data holders h != x;
* C[p] by ``-Comm_V(p) + k_p Conn(p, q)`` (V's neighbours on p now see V remote),
  C[q] by ``+Comm_V(q) - k_q Conn(q, p)``, and C[r] of every other neighbouring
  processor r by ``k_r (Conn(r, q) - Conn(r, p))``, where ``k_r`` is the Cwgt
  between V and its neighbours on r.

``Gain = Σ ΔQ`` is the change in QwgtTot. ``MinVar = Σ_p (Q_p - MinQwgt)^2``,
and ΔMinVar is computed exactly from the affected processors. The new
MinQwgt is the smaller of the new affected loads and the least unaffected
load, which a sorted list of (Q, p) gives. The rest is
``(m - m') (2 S_unaffected - n_unaffected (m + m'))``.

ThroTtle is compared with normalised loads. MinVar is measured in squared
load units and Gain in load units, so the raw ratio -Gain/ΔMinVar depends on
the mesh's weight scale, and the paper's ThroTtle values (0 to 128, best
between P and 2P) cannot be raw. With ``normalize="total"`` (the default) the
loads are taken as fractions of the QwgtTot at the start of the call, Q0.
The gate -Gain/ΔMinVar < ThroTtle then reads ``Gain < -ThroTtle ΔMinVar / Q0``,
and the best ThroTtle grows with P, as §3.3 reports. ``"mean"`` divides by
Q0/P instead and ``"none"`` uses raw units. ``unit`` (the plugin's default is
fitted, ``lbbench calibrate --paper minex``) measures the loads in units of
Q0/unit: unit = 1 is ``"total"``, unit = P is ``"mean"`` at that P. A move is accepted when
ΔMinVar < 0 and the gate holds. ThroTtle = 0 then means Gain < 0, and
ThroTtle = inf means any move that lowers MinVar.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from harness import latency_model, no_tolerance, processor_costs

NORMALIZE = ("total", "mean", "none")
GAINS = ("sum", "model")


class Loads:
    """The starting processor totals of one MinEX call and the constants of its ThroTtle gate."""

    def __init__(self, graph, machine, owner, home, throttle: float, latency="none", normalize: str = "total",
                 gain: str = "sum", unit: float = 1.0):
        if gain not in GAINS:
            raise ValueError(f"minex: gain must be one of {', '.join(GAINS)}, got {gain!r}")
        if normalize not in NORMALIZE:
            raise ValueError(f"minex: normalize must be one of {', '.join(NORMALIZE)}, got {normalize!r}")
        if not throttle >= 0:
            raise ValueError(f"minex: ThroTtle must be >= 0 (inf allowed), got {throttle}")
        self.P = machine.P
        self.model = latency_model(latency)
        self.gsum = gain == "sum" and self.model is not no_tolerance
        W, C, R = processor_costs(graph, machine, owner, home)
        self.W, self.C, self.R = W.tolist(), C.tolist(), R.tolist()
        self.Q = [float(self.model(w, c, r)) for w, c, r in zip(self.W, self.C, self.R)]
        self.S1 = math.fsum(self.Q)
        self.Q0 = self.S1
        scale = {"total": 1.0 / self.Q0 if self.Q0 > 0 else 1.0,
                 "mean": self.P / self.Q0 if self.Q0 > 0 else 1.0, "none": 1.0}[normalize]
        self.limit = throttle * scale * unit  # accept when Gain < -limit * ΔMinVar
        self.inf = math.isinf(throttle)
        # a genuine MinVar decrease, not float noise
        self.tol = 1e-12 * max(self.Q0, 1.0) ** 2 / self.P


class Criteria:
    """Processor loads of one MinEX call, the move evaluation of §3.3 and the move itself."""

    def __init__(self, mesh, machine, loads: Loads, trace: list | None = None):
        self.mesh = mesh
        self.P = machine.P
        self.model = loads.model
        self.linear = self.model is no_tolerance
        self.W, self.C, self.R, self.Q = list(loads.W), list(loads.C), list(loads.R), list(loads.Q)
        self.S1 = loads.S1
        self.Q0 = loads.Q0
        self.limit, self.inf, self.tol = loads.limit, loads.inf, loads.tol
        self.gsum = loads.gsum
        self.sl = sorted((q, p) for p, q in enumerate(self.Q))
        self.cl = machine.cluster.tolist()
        self.conn = machine.conn.tolist()
        self.proc = machine.proc_of.tolist()
        self.uniform = machine.C == 1
        self.c0 = float(machine.conn[0, 0])
        self.trace = trace
        self.moves = 0

    # ------------------------------------------------------------- MinVar
    def minvar(self) -> float:
        m = self.sl[0][0]
        return math.fsum((q - m) * (q - m) for q in self.Q)

    def delta_minvar(self, newq: dict) -> float:
        """ΔMinVar if the processors in ``newq`` took those loads."""
        Q, sl = self.Q, self.sl
        m = sl[0][0]
        m_un = math.inf
        for qv, a in sl:
            if a not in newq:
                m_un = qv
                break
        m2 = min(newq.values())
        if m_un < m2:
            m2 = m_un
        d = 0.0
        s_aff = 0.0
        for a, nq in newq.items():
            oq = Q[a]
            a1 = nq - m2
            a0 = oq - m
            d += a1 * a1 - a0 * a0
            s_aff += oq
        if m2 != m:
            d += (m - m2) * (2.0 * (self.S1 - s_aff) - (self.P - len(newq)) * (m + m2))
        return d

    # ------------------------------------------------------------ evaluate
    def evaluate(self, V: int):
        """V's best admissible move (§3.3) as (Gain, ΔMinVar, q, deltas), or None.

        Candidates are the processors of V's neighbours. The best is the one
        with the smallest Gain among those with ΔMinVar < 0 and
        -Gain/ΔMinVar < ThroTtle. Also refreshes V's border flag. None for a fixed (pinned) vertex.
        """
        mesh = self.mesh
        if mesh.fixed[V]:  # a pinned vertex (or a contraction holding one) never moves
            return None
        merge, owner, find = mesh.merge, mesh.owner, mesh.find
        p = owner[V]
        k: dict = {}
        get = k.get
        for x, c in zip(mesh.nbr[V], mesh.cw[V]):
            if merge[x] != -1:
                x = find(x)
            r = owner[x]
            k[r] = get(r, 0) + c
        if not k or (len(k) == 1 and p in k):
            mesh.border[V] = False
            return None
        mesh.border[V] = True
        W, C, R, Q, model = self.W, self.C, self.R, self.Q, self.model
        pw = mesh.pwgt[V]
        rh = mesh.rhome[V]
        conn, cl = self.conn, self.cl
        cp = cl[p]
        kp = get(p, 0)
        # Remap_V(p) and Comm_V(p): what V costs where it is
        remap_p = 0.0
        for h, rw in rh.items():
            if h != p:
                remap_p += rw * conn[cl[h]][cp]
        if self.uniform:
            tot = sum(k.values())
            comm_p = (tot - kp) * self.c0
        else:
            row = conn[cp]
            comm_p = 0.0
            for r, c in k.items():
                if r != p:
                    comm_p += c * row[cl[r]]
        dWp = -pw * self.proc[p]
        best = None
        for q in k:
            if q == p:
                continue
            cq = cl[q]
            kq = k[q]
            remap_q = 0.0
            for h, rw in rh.items():
                if h != q:
                    remap_q += rw * conn[cl[h]][cq]
            if self.uniform:
                c0 = self.c0
                deltas = {p: (dWp, -comm_p + kp * c0, -remap_p),
                          q: (pw * self.proc[q], (tot - kq) * c0 - kq * c0, remap_q)}
            else:
                rowq = conn[cq]
                comm_q = 0.0
                for r, c in k.items():
                    if r != q:
                        comm_q += c * rowq[cl[r]]
                deltas = {p: (dWp, -comm_p + kp * conn[cp][cq], -remap_p),
                          q: (pw * self.proc[q], comm_q - kq * rowq[cp], remap_q)}
                for r, c in k.items():
                    if r != p and r != q:
                        cr = conn[cl[r]]
                        d = c * (cr[cq] - cr[cp])
                        if d:
                            deltas[r] = (0.0, d, 0.0)
            newq = {}
            gain = 0.0
            if self.linear:
                for a, (dw, dc, dr) in deltas.items():
                    nq = Q[a] + dw + dc + dr
                    newq[a] = nq
                    gain += dw + dc + dr
            else:
                for a, (dw, dc, dr) in deltas.items():
                    nq = float(model(W[a] + dw, C[a] + dc, R[a] + dr))
                    newq[a] = nq
                    gain += dw + dc + dr if self.gsum else nq - Q[a]
            dmv = self.delta_minvar(newq)
            if dmv >= -self.tol:
                continue
            if not self.inf and not gain < -self.limit * dmv:
                continue
            if best is None or gain < best[0] or (gain == best[0] and (dmv, q) < (best[1], best[2])):
                best = (gain, dmv, q, deltas)
        return best

    # ---------------------------------------------------------------- move
    def move(self, V: int, rec) -> None:
        """Reassign active vertex V as ``rec`` (from :meth:`evaluate`) says, updating every structure."""
        gain, dmv, q, deltas = rec
        mesh = self.mesh
        W, C, R, Q, sl, model = self.W, self.C, self.R, self.Q, self.sl, self.model
        p = mesh.owner[V]
        if self.trace is not None:
            self.trace.append({"v": V, "p": p, "q": q, "gain": gain, "dminvar": dmv,
                               "members": mesh.members(V), "limit": self.limit, "inf": self.inf})
        for a, (dw, dc, dr) in deltas.items():
            old = Q[a]
            del sl[bisect.bisect_left(sl, (old, a))]
            W[a] += dw
            C[a] += dc
            R[a] += dr
            nq = W[a] + C[a] + R[a] if self.linear else float(model(W[a], C[a], R[a]))
            Q[a] = nq
            self.S1 += nq - old
            bisect.insort(sl, (nq, a))
        mesh.owner[V] = q
        mesh.border[V] = True
        merge, owner, border, find = mesh.merge, mesh.owner, mesh.border, mesh.find
        for x in mesh.nbr[V]:
            if merge[x] != -1:
                x = find(x)
            if owner[x] != q:
                border[x] = True
        self.moves += 1

    def loads(self) -> np.ndarray:
        return np.array(self.Q)
