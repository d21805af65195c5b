"""The application cost model of the tree-LB paper (Liao & Chung §4.1, Eqs. 1-8), as pure numpy functions.

One Laplace (Jacobi-type) iteration on refinement i under a partition:

* (2) T_comp(L_i, P_j) = S x load_i(P_j) x T_task (load = sum of pwgt of
  the nodes P_j computes, scaled by the processor's slowdown Proc);
* (3) T_comm(L_i, P_j) = S x (delta_j x T_setup + phi_j x T_c): delta_j =
  number of processors P_j sends to, phi_j = bytes it sends =
  ``value_bytes`` x sum over q != j of |nodes of P_j adjacent to a node of q|
  (one value per boundary node per neighbour processor); each (j, q) term is
  scaled by the interconnect slowdown Conn;
* (1)/(5) T_i = max_j {T_comp + T_comm} with S = 1 (the unbound P_j of Eq. 5
  read as the max of Eq. 1);
* Seq_i = N_i x T_task (one sequential iteration, no communication);
* (6) T_total = T_exec + sum_i T_i S_i, (7) Speedup = sum_i Seq_i S_i /
  T_total, (8) Speedup_max = sum_i Seq_i / sum_i T_i (S_i -> infinity).

T_task defaults to 4.7226 µs (the paper's tables imply sum_i Seq_i = 1.00 s;
1 s / 211,749 nodes of our ``truss``); T_setup and T_c default to the
Machine's latency and 1/bandwidth.
"""
from __future__ import annotations

import numpy as np

T_TASK = 4.7226e-6
ITERATIONS = 1000


def distinct(keys: np.ndarray, kind: str = "quicksort", counts: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``np.unique(keys, return_counts=counts)`` by one sort of the values (``kind="stable"``, timsort, for keys
    that come in sorted runs), many times faster on millions of keys than numpy 2's hash-based ``unique``."""
    s = np.sort(keys, kind=kind)
    new = np.empty(s.size, bool)
    new[:1] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    if not counts:
        return s[new], None
    first = np.flatnonzero(new)
    return s[first], np.diff(first, append=s.size)


def app_terms(g, owner: np.ndarray, P: int, value_bytes: int = 8) -> dict:
    """Per-processor pieces of Eqs. 2-3: ``load``, ``delta``, ``phi_bytes`` and the (j, q, bytes) pairs."""
    owner = np.asarray(owner, np.int64)
    src, dst = g.src, g.adjncy
    po, qo = owner[src], owner[dst]
    cut = po != qo
    # (v, q) pairs: node v has a neighbour on processor q != owner[v]
    vq, _ = distinct(src[cut].astype(np.int64) * P + qo[cut], kind="stable", counts=False)  # by row: sorted runs
    v, q = vq // P, vq % P
    return pair_terms(np.bincount(owner, weights=g.pwgt, minlength=P), owner[v] * P + q, P, value_bytes)


def pair_terms(load: np.ndarray, keys: np.ndarray, P: int, value_bytes: int = 8) -> dict:
    """:func:`app_terms` from the loads and ``j * P + q`` of every distinct (node of P_j, neighbour processor q)."""
    jq, cnt = distinct(keys)
    pj, pq = jq // P, jq % P
    return {"load": load, "delta": np.bincount(pj, minlength=P),
            "phi_bytes": np.bincount(pj, weights=cnt * value_bytes, minlength=P),
            "pair_src": pj, "pair_dst": pq, "pair_bytes": cnt * value_bytes}


def app_proc_times(terms: dict, machine, t_task: float = T_TASK, t_setup: float | None = None,
                         t_c: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(T_comp_j, T_comm_j) for one iteration (S = 1), Eqs. 2-3."""
    t_setup = machine.latency if t_setup is None else t_setup
    t_c = 1.0 / machine.bandwidth if t_c is None else t_c
    P = machine.P
    comp = terms["load"] * t_task * machine.proc_of
    conn = machine.slowdown(terms["pair_src"], terms["pair_dst"])
    per_pair = (t_setup + terms["pair_bytes"] * t_c) * conn
    comm = np.bincount(terms["pair_src"], weights=np.broadcast_to(per_pair, terms["pair_src"].shape),
                       minlength=P)
    return comp, comm


def app_figures(g, state, machine, t_task: float = T_TASK, t_setup: float | None = None,
                t_c: float | None = None, value_bytes: int = 8) -> dict:
    """Per-level columns of the model for the partition ``state.owner`` (who computes each node)."""
    return terms_figures(app_terms(g, state.owner, machine.P, value_bytes), g, machine, t_task, t_setup, t_c)


def terms_figures(terms: dict, g, machine, t_task: float = T_TASK, t_setup: float | None = None,
                  t_c: float | None = None) -> dict:
    """:func:`app_figures` from the partition's :func:`app_terms`."""
    comp, comm = app_proc_times(terms, machine, t_task, t_setup, t_c)
    tot = comp + comm
    j = int(np.argmax(tot))
    return {"app_iter_s": float(tot[j]), "app_seq_iter_s": float(np.sum(g.pwgt) * t_task),
            "app_comp_max_s": float(comp.max()), "app_comm_max_s": float(comm.max()),
            "app_delta_max": int(terms["delta"].max()), "app_phi_bytes_max": int(terms["phi_bytes"].max()),
            "app_iter_argmax_proc": j}


def app_total_time(texec: float, iter_s, iterations=ITERATIONS) -> float:
    """Eq. 6: T_total = T_exec + sum_i T_i S_i."""
    return float(texec + np.sum(np.asarray(iter_s) * iterations))


def app_speedup(texec: float, iter_s, seq_iter_s, iterations=ITERATIONS) -> float:
    """Eq. 7: sum_i Seq_i S_i / (T_exec + sum_i T_i S_i), per-level arrays over refinements 0..5."""
    seq = float(np.sum(np.asarray(seq_iter_s) * iterations))
    return seq / app_total_time(texec, iter_s, iterations)


def app_speedup_max(iter_s, seq_iter_s) -> float:
    """Eq. 8: sum_i Seq_i / sum_i T_i."""
    return float(np.sum(seq_iter_s) / np.sum(iter_s))


def app_speedup_from_tables(texec, smax, seq_total: float = 1000.0):
    """Eq. 7 from a Table 2 value and a Table 4 value: with A = sum_i Seq_i S_i, sum_i T_i S_i = A / Speedup_max,
    so Speedup = A / (T_exec + A / Speedup_max) (the paper's tables imply A = 1000 s)."""
    texec, smax = np.asarray(texec, float), np.asarray(smax, float)
    return seq_total / (texec + seq_total / smax)
