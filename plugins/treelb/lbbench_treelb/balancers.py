"""MCSTLB, BTLB and CBTLB (§3.1-3.3) run on the engine's virtual processors.

Every rank holds the FE graph and the assignment, so the decisions (trees,
schedule, node selection) are computed identically everywhere; the traffic
is real: the TWA gathers subtree (load, size) up the tree and broadcasts N/M
down (kind ``balance``, one superstep per tree level each way), and every
transfer is one ``migration`` message from the sender's vproc carrying the
moved node ids, sized 8 bytes per unit of rwgt (per node on ``truss``), one
superstep per schedule step.

Node visits (``tree_node_visits``, the count T_exec is priced by, README
"T_exec"), on the critical path: Phase 1, every processor scans its own
nodes (the largest part); each schedule step lasts as long as its largest
transfer, whose nodes the sender selects and packs and the receiver
unpacks (2 visits per moved node).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .condense import Condensed, condense
from .dem import dem_steps
from .procgraph import ProcGraph, processor_graph
from .transfer import select
from .trees import Tree, binary_tree, mcst
from .twa import flows, planned_final, round_flow, schedule, target_flows

METHODS = ("mcstlb", "btlb", "cbtlb")


@dataclass
class Mover:
    """Applies transfers to the owner array, one engine superstep per call."""

    g: object
    owner: np.ndarray
    P: int
    engine: object = None
    steps: list = field(default_factory=list)  # (phase, [(sender, receiver, moved weight), ...])
    nodes_moved: int = 0
    visits: int = 0  # critical-path node visits of the steps: 2 x the largest transfer's nodes per step
    movable: np.ndarray | None = None  # False for pinned nodes (their weight stays as fixed load)

    def __post_init__(self):
        self.owner = np.asarray(self.owner, np.int64).copy()
        self.load = np.bincount(self.owner, weights=self.g.pwgt, minlength=self.P).astype(np.int64)
        self.times_moved = np.zeros(self.g.n, np.int64)  # per node, this level (CBTLB: tree phase, then DEM)

    def step(self, transfers, phase: str) -> None:
        done, largest = [], 0
        for s, r, m in transfers:
            ids = select(self.g, self.owner, s, r, m, self.movable)
            largest = max(largest, int(ids.size))
            self.times_moved[ids] += 1
            self.owner[ids] = r
            amount = int(self.g.pwgt[ids].sum())
            self.load[s] -= amount
            self.load[r] += amount
            self.nodes_moved += int(ids.size)
            done.append((s, r, amount))
            if self.engine is not None and s in self.engine.local:
                # the moved nodes' ids, declaring one 8-byte word per unit of rwgt: the data it stands for
                self.engine.send("moved", s, r, ids.astype(np.int64), counts=ids.size,
                                 nbytes=8 * int(self.g.rwgt[ids].sum()), kind="migration")
        if self.engine is not None:
            self.engine.exchange()
        self.visits += 2 * largest
        self.steps.append((phase, done))


def twa_on_engine(engine, tree: Tree, leader, node_load, node_size, rounding: str) -> np.ndarray:
    """The TWA's messages: (subtree load, size) up the tree, N/M down; returns every flow (all ranks).

    ``leader[v]`` is the vproc acting for tree node v. Without an engine the
    same sums are formed directly.
    """
    K = tree.K
    acc = np.stack([np.asarray(node_load, float), np.asarray(node_size, float)], axis=1)
    if engine is None:
        return flows(tree, node_load, node_size, rounding)
    node_of = {int(p): v for v, p in enumerate(leader)}
    mine = [v for v in range(K) if leader[v] in engine.local]
    for d in range(tree.depth, 0, -1):
        for v in mine:
            if tree.depth_of[v] == d:
                engine.post(int(leader[v]), int(leader[tree.parent[v]]), acc[v].copy(), kind="balance")
        for dst, msgs in engine.exchange().items():
            for _, kind, payload in msgs:
                if kind == "balance":
                    acc[node_of[dst]] += payload
    avg = np.full(K, np.nan)
    if tree.root in mine:
        avg[tree.root] = acc[tree.root, 0] / acc[tree.root, 1]
    for d in range(tree.depth):
        for v in mine:
            if tree.depth_of[v] == d:
                for c in tree.children[v]:
                    engine.post(int(leader[v]), int(leader[c]), np.array([avg[v]]), kind="balance")
        for dst, msgs in engine.exchange().items():
            for _, kind, payload in msgs:
                if kind == "balance":
                    avg[node_of[dst]] = payload[0]
    local = {}
    for p in engine.local:
        v = node_of.get(p)
        local[p] = None if v is None or v == tree.root else int(round_flow(
            np.array([acc[v, 1] * avg[v] - acc[v, 0]]), rounding)[0])
    got = engine.allgather(local)
    f = np.zeros(K, np.int64)
    for v in range(K):
        if v != tree.root:
            f[v] = got[int(leader[v])]
    return f


def _feasible(flow, tree: Tree, node_load, proc_load, node_of, rec: dict) -> np.ndarray:
    """Keep the rounded flows unless a node would end with a negative load; then use ``target_flows``."""
    bad = bool((planned_final(tree, flow, node_load) < 0).any())
    rec["tree_flow_fallback"] = int(bad)
    return target_flows(tree, proc_load, node_of) if bad else flow


def _run_tree(mv: Mover, tree: Tree, flow: np.ndarray) -> int:
    steps = schedule(tree, flow, mv.load)
    for st in steps:
        mv.step(st, "tree")
    return len(steps)


def _pack(transfers) -> list:
    """Single-port rounds keeping each processor's transfers in order."""
    last: dict = {}
    rounds: list = []
    for s, r, m in transfers:
        k = max(last.get(s, -1), last.get(r, -1)) + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append((s, r, m))
        last[s] = last[r] = k
    return rounds


def expand_meta_step(meta_step, cd: Condensed, pg: ProcGraph, load: np.ndarray) -> list:
    """§3.3 Case 2 for each metaprocessor transfer (Ci -> Cj, m) of one step: processor transfers.

    ADJ = members of Ci adjacent in G to Cj (all of Ci over a virtual edge). If
    their weight is below m, non-ADJ members (heaviest first) first send to the
    lightest ADJ member. Then ADJ members, heaviest first, each send
    min(remaining, own load) to their G-neighbour in Cj of smallest load (ties:
    most cut edges with the sender, then lowest id).
    """
    W = pg.weight_matrix()
    w = load.astype(np.int64).copy()
    out = []
    for ci, cj, m in meta_step:
        A = np.asarray(cd.members[ci])
        B = np.asarray(cd.members[cj])
        adj_mask = (W[np.ix_(A, B)] > 0).any(axis=1)
        ADJ = A[adj_mask] if adj_mask.any() else A
        rest = [int(p) for p in A if p not in set(ADJ.tolist())]
        need = m - int(w[ADJ].sum())
        for p in sorted(rest, key=lambda p: (-w[p], p)):
            if need <= 0:
                break
            q = int(min(ADJ.tolist(), key=lambda q: (w[q], q)))
            amt = int(min(need, w[p]))
            if amt > 0:
                out.append((p, q, amt))
                w[p] -= amt
                w[q] += amt
                need -= amt
        remaining = m
        for s in sorted(ADJ.tolist(), key=lambda p: (-w[p], p)):
            if remaining <= 0:
                break
            amt = int(min(remaining, w[s]))
            if amt <= 0:
                continue
            nbr = [int(q) for q in B if W[s, q] > 0] or [int(q) for q in B]
            r = min(nbr, key=lambda q: (w[q], -W[s, q], q))
            out.append((int(s), r, amt))
            w[s] -= amt
            w[r] += amt
            remaining -= amt
    return _pack(out)


@dataclass
class LoadMover:
    """Replays a schedule on loads alone (the paper's Examples 1-3 have no FE graph)."""

    load: np.ndarray
    steps: list = field(default_factory=list)
    nodes_moved: int = 0
    engine: object = None

    def __post_init__(self):
        self.load = np.asarray(self.load, np.int64).copy()

    def step(self, transfers, phase: str) -> None:
        for s, r, m in transfers:
            self.load[s] -= m
            self.load[r] += m
            self.nodes_moved += m
        self.steps.append((phase, list(transfers)))


def run(method: str, g, owner, P: int, engine=None, rounding: str = "nearest", max_degree: int = 3,
        edge_weight: str = "cut_edges", pinned: np.ndarray | None = None):
    """One level of ``method`` on the FE graph ``g``: (new owner, per-level figures, executed steps).
    Nodes with ``pinned[v] >= 0`` stay where they are."""
    owner = np.asarray(owner, np.int64)
    mv = Mover(g, owner, P, engine, movable=None if pinned is None else np.asarray(pinned) < 0)
    rec = balance_on(method, processor_graph(g, owner, P, edge_weight), mv, rounding, max_degree)
    rec["tree_node_visits"] = int(np.bincount(owner, minlength=P).max()) + mv.visits
    rec["tree_nodes_moved_twice"] = int((mv.times_moved > 1).sum())
    return mv.owner, rec, mv.steps


def balance_on(method: str, pg: ProcGraph, mv, rounding: str = "nearest", max_degree: int = 3,
               tree: Tree | None = None) -> dict:
    """Phases 2-4 (CBTLB: 2-5) on the processor graph ``pg``; transfers go through ``mv``.
    ``tree`` overrides the constructed (condensed) tree (a test fixture)."""
    engine, P = mv.engine, pg.P
    rec = {"tree_procgraph_edges": int(pg.a.size)}
    if method in ("mcstlb", "btlb"):
        if tree is None:
            tree = mcst(pg) if method == "mcstlb" else binary_tree(pg, max_degree)
        flow = twa_on_engine(engine, tree, np.arange(P), pg.load, np.ones(P), rounding)
        flow = _feasible(flow, tree, pg.load, pg.load, None, rec)
        rec["tree_twa_supersteps"] = 2 * tree.depth
        rec["tree_schedule_steps"] = _run_tree(mv, tree, flow)
    elif method == "cbtlb":
        cd = condense(pg)
        if tree is None:
            tree = binary_tree(cd.gc, max_degree)
        leader = np.array([min(mem) for mem in cd.members], np.int64)
        gather = bool(cd.dim.max() > 0)
        node_load = cd.gc.load
        if engine is not None:  # members report their loads to the metaprocessor's leader
            node_load = np.zeros(cd.K, np.int64)  # known for the local leaders only
            for c in range(cd.K):
                if leader[c] in engine.local:
                    node_load[c] = pg.load[leader[c]]
            if gather:
                for p in engine.local:
                    if leader[cd.cube[p]] != p:
                        engine.post(p, int(leader[cd.cube[p]]), np.array([pg.load[p]], np.int64), kind="balance")
                for dst, msgs in engine.exchange().items():
                    for _, kind, payload in msgs:
                        if kind == "balance":
                            node_load[cd.cube[dst]] += int(payload[0])
        size = np.array([len(mem) for mem in cd.members])
        flow = twa_on_engine(engine, tree, leader, node_load, size, rounding)
        flow = _feasible(flow, tree, cd.gc.load, pg.load, cd.cube, rec)
        rec["tree_twa_supersteps"] = 2 * tree.depth + int(gather)
        meta_load = cd.gc.load.copy()
        tree_steps = 0
        for st in schedule(tree, flow, meta_load):
            for rnd in expand_meta_step(st, cd, pg, mv.load):
                mv.step(rnd, "tree")
                tree_steps += 1
        dem_count = 0
        for pairs in cd.dem_dims():
            (st,), _ = dem_steps([pairs], mv.load)
            mv.step(st, "dem")
            dem_count += 1
        rec.update(tree_schedule_steps=tree_steps + dem_count, cbtlb_tree_steps=tree_steps,
                   cbtlb_dem_steps=dem_count, cbtlb_metaprocessors=cd.K,
                   cbtlb_max_cube_dim=int(cd.dim.max()))
    else:
        raise ValueError(f"unknown tree balancer {method!r}")
    avg = mv.load.sum() / P
    root = int(tree.root) if method != "cbtlb" else int(leader[tree.root])  # CBTLB: the root's leader
    rec.update(tree_depth=tree.depth, tree_root=root, tree_max_children=tree.max_children,
               tree_virtual_edges=tree.virtual_edges,
               tree_transfers=sum(len(s) for _, s in mv.steps), tree_nodes_moved=mv.nodes_moved,
               tree_final_max_dev=float(np.abs(mv.load - avg).max()))
    return rec
