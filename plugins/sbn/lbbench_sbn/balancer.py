"""The SBN dynamic load balancer running one adaptation level (SBN paper §3, Fig. 4, §3.5).

Every processor is one of the engine's virtual processors; the level is
processed in bulk-synchronous supersteps. One superstep is one "check for load
balancing activity" of §5.4 (``f`` checks per modelled second) and one hop of a
message. In each superstep every processor, in the order of Fig. 4's main line:

1. applies the locate messages received (§3.5: every processor keeps the
   location of every data set) and re-prices the queued vertices they affect;
2. handles the messages received: data arriving (lazy migration), data requests
   it must serve, jobs sent to it, and the balance / gather / distribution
   messages of the balancing operations passing through it (GetBalance,
   GetDistribute);
3. processes the chunk it selected two supersteps earlier (one superstep for
   the data request to reach the data's home, one for the data to come back),
   then selects the next chunk from its priority queue: vertices in increasing
   (Comm + Remap) / Wgt (§3.3, interior vertices first), as much load as one
   check's worth of processing (debt carries over so a large vertex is not
   starved). For every chosen vertex whose data is elsewhere, and for the
   adjacent vertices queued at the same processor (§3.5), it requests the data;
4. checks its weighted queue length QWgt(p) (§3.1): above MaxTh it distributes
   its excess (Distribute), below MinTh it starts a balancing operation
   (Balance), unless a balancing operation is still passing through it.

Balancing operation rooted at x (receiver-initiated, the 3 log P stages of §5.4):
the balance message goes down the broadcast tree T_x (topology.Trees), the
leaves start a gather that sums QWgt up the tree (GWLen) together with each
node's load and whether it is itself below MinTh, and the root computes
WSysLL = ceil(GWLen / P) and a plan: processors above WSysLL send their excess
to the processors below MinTh (largest surplus to largest deficit, in order).
The plan travels down T_x in distribution messages; every node updates its
thresholds (UpdateLoad) and sends the jobs the plan asks of it, chosen by ΔCut
and breadth-first search (selection.py), directly to their receivers.

Distribution (sender-initiated, QWgt(p) > MaxTh): p sends its excess down its
own tree T_p; every node keeps what brings it to WSysLL and passes the rest to
its successors in proportion to their subtree sizes; a node of the last stage
keeps the rest and, if that puts it above MaxTh, starts a balancing operation
instead of distributing further (the thrashing guard of §3).

Jobs move as vertex ids (kind ``balance``); the data of a vertex moves only
when the processor that will compute it requests it (kind ``migration``,
payload sized by rwgt, 8 bytes per unit), followed by a locate message to every
other processor (kind ``migration``). All decisions of a processor use its own
queue, what it received, and the replicated data-location view; random numbers
come from a per-processor stream of ``ctx.rng``: results are identical for any
number of MPI ranks.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from harness import Timer
from harness.metrics import Costs, costs_if_on, vertex_costs, qwgt as qwgt_of, wsysll
from harness.model import State

from . import thresholds as th
from .selection import _neighbours, carve, select
from .topology import Trees

BYTES_PER_UNIT = 8


def _own(a) -> np.ndarray:
    """A received array as a fresh int64 array with numpy's canonical dtype object.

    What arrived over MPI carries its own (equal but distinct) dtype instance, which
    pickle does not memoize together with other arrays; message sizes are counted from
    pickles, so they would differ between 1 and several ranks.
    """
    out = np.empty(len(a), np.int64)
    out[:] = a
    return out


@dataclass
class Params:
    """The balancer's parameters (plugin defaults in plugin.py)."""

    checks: int = 400          # supersteps to process the level's initial WSysLL (sets J_avg = W0 f / checks)
    f: float = 60.0            # checks per modelled second (§5.4)
    const_s: float = 0.1       # Const: seconds of processing load (§3, Fig. 4)
    minth: str = "const"       # "const" (Fig. 4) or "analysis" (§5.4 bound)
    maxth: str = "exp"         # "exp" (2 ** floor(W/Const)) or "linear" (2 floor(W/Const))
    subset: int = 8            # |R|, the random subset of §3.4
    fetch_adjacent: bool = True  # §3.5: move adjacent vertices' data together
    max_steps: int = 0         # safety bound (0: automatic)

    def validate(self) -> None:
        if self.checks < 1:
            raise ValueError(f"sbn: checks must be >= 1, got {self.checks}")
        if not self.f > 0 or not self.const_s > 0:
            raise ValueError("sbn: f and const_s must be > 0")
        if self.minth not in ("const", "analysis"):
            raise ValueError(f"sbn: minth must be 'const' or 'analysis', got {self.minth!r}")
        if self.maxth not in ("exp", "linear"):
            raise ValueError(f"sbn: maxth must be 'exp' or 'linear', got {self.maxth!r}")
        if self.subset < 1:
            raise ValueError("sbn: subset must be >= 1")


@dataclass
class VProc:
    """One processor's private state."""

    p: int
    rng: np.random.Generator
    thr: th.Thresholds
    Q: np.ndarray                                   # queued vertices (not yet chosen for processing)
    staged: deque = field(default_factory=deque)    # (due step, vertices, cost)
    credit: float = 0.0
    busy: int = 0                                   # balancing operations passing through
    ops: dict = field(default_factory=dict)         # op -> {"pending": set, "entries": list}
    seq: int = 0
    want_balance: bool = False
    cooldown: int = -1                              # step until which a Distribute is in flight
    hold: int = -1                                  # step until which planned jobs are still on their way
    promised: tuple | None = None                   # the operation p offered its deficit to
    promised_until: int = -1
    arrived: list = field(default_factory=list)     # data arrived this step (locates to send)
    processed: list = field(default_factory=list)
    processed_cost: float = 0.0
    busy_steps: int = 0
    last_busy: int = -1
    n_balance: int = 0
    n_distribute: int = 0
    n_guard: int = 0


class LevelRun:
    """One level of SBN processing on the engine's vprocs. ``run()`` returns the State after it."""

    def __init__(self, g, machine, engine, state: State, params: Params, rng_for, trees: Trees | None = None,
                 process: bool = True, init_thresholds: th.Thresholds | None = None, const: float | None = None,
                 trace: bool = False):
        params.validate()
        self.g, self.m, self.eng, self.prm = g, machine, engine, params
        self.P = P = machine.P
        self.n = n = g.n
        self.trees = trees if trees is not None and trees.P == P else Trees(P)
        self.timer = Timer()
        self.step = 0
        self.trace = [] if trace else None
        self.home = np.array(state.home, dtype=np.int64)            # replicated data-location view
        self._view = None
        self.data_at = self.home.copy()                              # where data physically is (local vprocs)
        self.requested = np.zeros(n, bool)                           # data request in flight
        self.holder = np.full(n, -1, np.int64)                       # local vproc holding v (queued or staged)
        self.queued = np.zeros(n, bool)                              # in a local queue, not staged
        self.pinned = np.zeros(n, bool)                              # not selectable for migration
        c0 = vertex_costs(g, state, machine)
        self.depth = boundary_depth(g, np.asarray(state.owner))
        self.cw, self.cc, self.cr = c0.wgt.copy(), c0.comm.copy(), c0.remap.copy()
        w0 = wsysll(qwgt_of(c0, state.owner, P))
        # processing speed: the level's initial WSysLL takes `checks` checks (J_avg = W0 f / checks per second)
        self.B = max(w0, 1) / params.checks if process else 0.0
        j_avg = self.B * params.f
        self.const = const if const is not None else max(params.const_s * j_avg, 1e-9)
        self.floor_minth = th.minth_bound(P, j_avg, params.f) if params.minth == "analysis" else 0.0
        owner = np.asarray(state.owner)
        self.vp: dict[int, VProc] = {}
        for p in engine.local:
            Q = np.flatnonzero(owner == p)
            self.holder[Q] = p
            self.queued[Q] = True
            if isinstance(init_thresholds, (list, tuple)):  # one (WSysLL, MinTh, MaxTh) per processor
                thr = th.Thresholds(*init_thresholds[p])
            else:
                thr = init_thresholds or th.initial(self.const, self.floor_minth)
            self.vp[p] = VProc(p, rng_for(p), th.Thresholds(thr.wsysll, thr.minth, thr.maxth), Q)
        self.process = process
        self.in_transit = 0
        self.locates_own: list = []
        d = self.trees.d
        self.cooldown_steps = 3 * d + 1
        self.max_steps = params.max_steps or (50 * params.checks + 200 * (d + 1) + 1000)

    # ------------------------------------------------------------------ views and costs
    @property
    def view(self) -> State:
        if self._view is None:
            self._view = State(np.zeros(self.n, np.int64), self.home.copy(), self.P)
        return self._view

    def _price(self, verts: np.ndarray, p) -> None:
        """Wgt, Comm, Remap of ``verts`` if computed on p (scalar or per vertex), from the location view."""
        if verts.size:
            c = costs_if_on(self.g, self.view, self.m, verts, p)
            self.cw[verts], self.cc[verts], self.cr[verts] = c.wgt, c.comm, c.remap

    def costs(self, verts) -> Costs:
        return Costs(self.cw[verts], self.cc[verts], self.cr[verts])

    def qwgt(self, v: VProc) -> float:
        """QWgt(p) (§3.1): Wgt + Comm + Remap of everything queued at p, staged chunks included."""
        Q = v.Q
        tot = float(np.sum(self.cw[Q] + self.cc[Q] + self.cr[Q]))
        return tot + sum(c for _, _, c in v.staged)

    # ------------------------------------------------------------------ run
    def run(self) -> State:
        """Superstep loop until every vertex is processed (or, with ``process=False``, until quiet)."""
        eng = self.eng
        first = next(iter(self.vp))
        while True:
            inbox = eng.exchange()
            self._apply_locates(inbox)
            for p, v in self.vp.items():
                self._receive(v, inbox.get(p, ()))
            for v in self.vp.values():
                self._process_and_select(v)
            with self.timer("balance"):
                for v in self.vp.values():
                    self._mainline(v)
            if self.process:  # work left: queued, chosen, or jobs on their way
                active = self.in_transit + sum(v.Q.size + len(v.staged) for v in self.vp.values())
            else:  # balancing only: messages on their way or operations open
                active = len(eng._outbox) + sum(v.busy for v in self.vp.values())
            self.in_transit = 0
            total = eng.reduce({p: (active if p == first else 0) for p in self.vp}, "sum")
            self.step += 1
            if total == 0:
                break
            if self.step > self.max_steps:
                raise RuntimeError(f"sbn: level did not finish within {self.max_steps} supersteps")
        eng.exchange()  # deliver (and count) the last locate messages
        return self._final_state()

    def _final_state(self) -> State:
        owner = np.full(self.n, -1, np.int64)
        if not self.process:  # balancing only (tests, the §3.6 example): the queues are the result
            held = {p: np.flatnonzero(self.holder == p) for p in self.vp}
            for p, verts in enumerate(self.eng.allgather(held)):
                owner[verts] = p
            return State(owner, self.home.copy(), self.P)
        done = {p: (np.concatenate(v.processed) if v.processed else np.zeros(0, np.int64)) for p, v in self.vp.items()}
        for p, verts in enumerate(self.eng.allgather(done)):
            owner[verts] = p
        if np.any(owner < 0):
            raise RuntimeError("sbn: some vertices were never processed")
        # lazy redistribution: a vertex's data is where it was computed
        return State(owner, owner.copy(), self.P)

    # ------------------------------------------------------------------ locate messages (§3.5)
    def _apply_locates(self, inbox) -> None:
        """Update the replicated location view from the locate messages of the last superstep."""
        with self.timer("migration"):
            first = next(iter(self.vp))
            # a locate message is a bare int64 array [processor, vertex, vertex, ...]
            locs = [(_own(pl[1:]), int(pl[0])) for _, _, pl in inbox.get(first, ()) if isinstance(pl, np.ndarray)]
            locs += self.locates_own  # the first local vproc's own locates (never sent to itself)
            self.locates_own = []
            if not locs:
                return
            verts = np.concatenate([ids for ids, _ in locs])
            self.home[verts] = np.concatenate([np.full(ids.size, q, np.int64) for ids, q in locs])
            self._view = None
            # re-price the queued vertices whose own data or a neighbour's data moved
            aff = np.unique(np.concatenate([verts, _neighbours(self.g, verts)]))
            aff = aff[self.queued[aff]]  # a staged chunk keeps the price it was chosen at
            self._price(aff, self.holder[aff])

    # ------------------------------------------------------------------ messages
    def _post(self, src: int, dst: int, payload, kind: str) -> None:
        self.eng.post(src, dst, payload, kind)

    def _receive(self, v: VProc, msgs) -> None:
        p = v.p
        for src, kind, pl in msgs:
            if isinstance(pl, np.ndarray):  # locate message, applied in _apply_locates
                continue
            tag = pl[0]
            if tag == "DATA":
                with self.timer("migration"):
                    ids = _own(pl[1])
                    self.data_at[ids] = p
                    self.requested[ids] = False
                    self.pinned[ids[self.queued[ids]]] = False  # prefetched neighbours become movable again
                    v.arrived.append(ids)
                    if self.trace is not None:
                        self.trace.append(("data", self.step, p, ids, src))
            elif tag == "FETCH":
                with self.timer("migration"):
                    ids = _own(pl[1])
                    if np.any(self.data_at[ids] != p):
                        raise RuntimeError(f"sbn: processor {p} asked for data it does not hold")
                    self.data_at[ids] = -2  # in flight
                    blob = np.zeros(int(self.g.rwgt[ids].sum()) * BYTES_PER_UNIT // 8, np.int64)
                    self._post(p, src, ("DATA", ids, blob), "migration")
            elif tag == "JOB":
                with self.timer("balance"):
                    self._accept_jobs(v, _own(pl[1]))
            elif tag == "DJOB":
                with self.timer("balance"):
                    self._get_distribute(v, src, pl)
            else:
                with self.timer("balance"):
                    self._get_balance(v, src, pl)
        if v.arrived:
            with self.timer("migration"):
                ids = np.concatenate(v.arrived)
                v.arrived = []
                loc = np.concatenate(([p], ids)).astype(np.int64)
                for q in range(self.P):
                    if q != p:
                        self._post(p, q, loc, "migration")
                if p == next(iter(self.vp)):
                    self.locates_own.append((ids, p))

    def _accept_jobs(self, v: VProc, ids: np.ndarray) -> None:
        if ids.size == 0:
            return
        self.holder[ids] = v.p
        self.queued[ids] = True
        self.pinned[ids] = False
        v.Q = np.concatenate([v.Q, ids])
        self._price(ids, v.p)

    def _drop(self, v: VProc, ids: np.ndarray) -> None:
        self.holder[ids] = -1
        self.queued[ids] = False
        v.Q = v.Q[self.queued[v.Q]]
        self.in_transit += int(ids.size)

    # ------------------------------------------------------------------ processing (§3.3, §3.5)
    def _process_and_select(self, v: VProc) -> None:
        p = v.p
        with self.timer("processing"):
            while v.staged and v.staged[0][0] <= self.step:
                _, chunk, cost = v.staged.popleft()
                if np.any(self.data_at[chunk] != p):
                    raise RuntimeError(f"sbn: processor {p} would compute vertices whose data has not arrived")
                self.holder[chunk] = -1
                self.pinned[chunk] = False
                v.processed.append(chunk)
                v.processed_cost += cost
                v.busy_steps += 1
                v.last_busy = self.step
                if self.trace is not None:
                    self.trace.append(("proc", self.step, p, chunk, p))
        if not self.process:
            return
        with self.timer("selection"):
            v.credit = min(v.credit, 0.0) + self.B
            Q = v.Q
            if Q.size == 0 or v.credit <= 0:  # nothing queued, or still busy with a large vertex
                return
            tot = self.cw[Q] + self.cc[Q] + self.cr[Q]
            if tot.sum() <= v.credit:
                k, order = Q.size, np.arange(Q.size)
            else:
                prio = (self.cc[Q] + self.cr[Q]) / np.maximum(self.cw[Q], 1e-12)
                order = np.lexsort((Q, -self.depth[Q], prio))
                before = np.cumsum(tot[order]) - tot[order]
                k = int(np.searchsorted(before, v.credit, side="left"))
            pick = order[:k]
            chunk = Q[pick]
            cost = float(tot[pick].sum())
            keep = np.ones(Q.size, bool)
            keep[pick] = False
            v.Q = Q[keep]
            v.credit -= cost
            self.queued[chunk] = False
            self.pinned[chunk] = True
            v.staged.append((self.step + 2, chunk, cost))
        with self.timer("migration"):
            need = chunk[(self.data_at[chunk] != p) & ~self.requested[chunk]]
            if self.prm.fetch_adjacent:
                nb = np.unique(_neighbours(self.g, chunk))
                nb = nb[(self.holder[nb] == p) & self.queued[nb] & (self.data_at[nb] != p) & ~self.requested[nb]]
                self.pinned[nb] = True
                if self.trace is not None and nb.size:
                    self.trace.append(("prefetch", self.step, p, nb, p))
                need = np.concatenate([need, nb])
            if need.size:
                self.requested[need] = True
                homes = self.home[need]
                if np.any(homes == p):
                    raise RuntimeError("sbn: location view out of date")
                order = np.argsort(homes, kind="stable")
                homes, need = homes[order], need[order]
                cuts = np.flatnonzero(np.diff(homes)) + 1
                for h, ids in zip(homes[np.r_[0, cuts]], np.split(need, cuts)):
                    self._post(p, int(h), ("FETCH", ids), "migration")

    # ------------------------------------------------------------------ main line (Fig. 4)
    def _mainline(self, v: VProc) -> None:
        if v.busy or self.step <= v.hold or v.promised is not None:
            return  # earlier balancing messages through this node are not yet processed
        if v.want_balance:  # thrashing guard (a last-stage node above MaxTh)
            v.want_balance = False
            self._balance(v, overloaded=True)
            return
        L = self.qwgt(v)
        if L > v.thr.maxth and self.step > v.cooldown:
            # §3: "a load balancing message will also be broadcast ... if distributing the excess
            # jobs will result in other processors exceeding MaxTh"
            if v.thr.wsysll + (L - v.thr.wsysll) / max(self.P - 1, 1) > v.thr.maxth:
                self._balance(v, overloaded=True)
            else:
                self._distribute(v, L)
        elif L < v.thr.minth:
            self._balance(v)

    def _entry(self, v: VProc, op) -> tuple:
        """What p reports in the gather: (p, QWgt, below MinTh, free to receive, neighbour processors).

        A processor offers itself as a receiver to one operation at a time: once it has
        reported a deficit it is "promised" until the jobs of that operation have arrived,
        so that concurrent operations (§3: O(log^2 P) for simultaneous ones) do not fill
        the same deficit twice.
        """
        L = self.qwgt(v)
        free = v.promised is None or v.promised == op
        free = free and self.step > v.promised_until
        req = bool(L < v.thr.minth) and free
        if req or (free and op[2]):  # op[2]: started by an overloaded processor, fills everyone below WSysLL
            v.promised = op
        return (v.p, L, req, self._neighbour_procs(v), free and v.promised == op)

    def _neighbour_procs(self, v: VProc) -> int:
        """Processors holding data adjacent to p's queued vertices (from the location view), as a bit set."""
        key = (self.step, v.p)
        if self.__dict__.get("_nbkey") != key:
            nb = _neighbours(self.g, v.Q)
            mask = np.zeros(self.P, bool)
            mask[self.home[nb]] = True
            mask[v.p] = False
            # an int, not bytes: pickle memoizes shared bytes objects, so message sizes would
            # depend on which entries happen to be the same object (different over MPI)
            self._nbkey, self._nbval = key, int.from_bytes(np.packbits(mask).tobytes(), "little")
        return self._nbval

    def _balance(self, v: VProc, overloaded: bool = False) -> None:
        """Balance: start a balancing operation rooted at p (balance message down T_p).

        An operation started by an overloaded processor fills every processor below
        WSysLL; one started by an underloaded processor fills those below MinTh.
        """
        p = v.p
        v.seq += 1
        v.n_balance += 1
        op = (p, v.seq, bool(overloaded))
        if v.promised is None:
            v.promised = op
        v.busy += 1
        kids = self.trees.children(p, p)
        if not kids:
            self._plan(v, op, [self._entry(v, op)])
            return
        v.ops[op] = {"pending": set(kids), "entries": []}
        for k in kids:
            self._post(p, k, ("BAL", op), "balance")

    def _get_balance(self, v: VProc, src: int, pl) -> None:
        """GetBalance: forward balance messages, gather GWLen up the tree, apply distribution messages."""
        tag, op = pl[0], pl[1]
        p, root = v.p, op[0]
        if tag == "BAL":
            v.busy += 1
            kids = self.trees.children(root, p)
            if kids:
                v.ops[op] = {"pending": set(kids), "entries": []}
                for k in kids:
                    self._post(p, k, ("BAL", op), "balance")
            else:
                self._post(p, int(self.trees.pred[root, p]), ("UP", op, [self._entry(v, op)]), "balance")
        elif tag == "UP":
            st = v.ops[op]
            st["entries"].extend(pl[2])
            st["pending"].discard(src)
            if not st["pending"]:
                del v.ops[op]
                entries = st["entries"] + [self._entry(v, op)]
                if p == root:
                    self._plan(v, op, entries)
                else:
                    self._post(p, int(self.trees.pred[root, p]), ("UP", op, entries), "balance")
        elif tag == "DIST":
            self._get_dist(v, op, pl[2], pl[3])
        else:
            raise RuntimeError(f"sbn: unknown message {tag!r}")

    def _plan(self, v: VProc, op, entries) -> None:
        """At the root: GWLen, WSysLL and who sends how much to whom; then the distribution messages."""
        gw = float(sum(e[1] for e in entries))
        self._get_dist(v, op, gw, plan(entries, gw, self.P, fill_all=op[2]))

    def _get_dist(self, v: VProc, op, gw: float, the_plan: dict) -> None:
        p, root = v.p, op[0]
        v.thr = th.update_load(gw, self.P, self.const, self.prm.maxth, self.floor_minth)
        for j, amount, base in the_plan.get(p, ()):
            self._send_jobs(v, j, amount, base)
        # jobs planned for p arrive one superstep after their sender gets the distribution message
        stage = self.trees.stage[root]
        for i, sends in the_plan.items():
            if any(j == p for j, _, _ in sends):
                v.hold = max(v.hold, self.step + int(stage[i] - stage[p]) + 1)
        if v.promised == op:
            v.promised = None
            v.promised_until = v.hold
        for k in self.trees.children(root, p):
            self._post(p, k, ("DIST", op, gw, the_plan), "balance")
        v.busy -= 1

    def _avail(self, v: VProc) -> np.ndarray:
        return self.queued & ~self.pinned & (self.holder == v.p)

    def _send_jobs(self, v: VProc, j: int, amount: float, base: float) -> None:
        """Send q = j up to ``amount`` of load (priced on j), never more than p's current excess over WSysLL."""
        L = self.qwgt(v)
        cap = L - v.thr.wsysll
        if amount <= 0 or cap <= 0 or v.Q.size == 0:
            return
        verts, _, _ = select(self.g, self.m, self.view, v.Q, self._avail(v), Costs(self.cw, self.cc, self.cr), j,
                             amount, L, base, v.rng, self.prm.subset, cap_p=cap)
        if verts.size:
            self._drop(v, verts)
            self._post(v.p, j, ("JOB", verts), "balance")

    # ------------------------------------------------------------------ distribution (sender-initiated)
    def _distribute(self, v: VProc, L: float) -> None:
        """Distribute: route the excess over WSysLL down T_p."""
        p = v.p
        W = v.thr.wsysll
        kids = self.trees.children(p, p)
        if W is None or not kids or L <= W or v.Q.size == 0:
            return
        v.cooldown = self.step + self.cooldown_steps
        v.n_distribute += 1
        verts, _, _ = select(self.g, self.m, self.view, v.Q, self._avail(v), Costs(self.cw, self.cc, self.cr),
                             kids[0], math.inf, L, -math.inf, v.rng, self.prm.subset, cap_p=L - W)
        if verts.size:
            self._drop(v, verts)
            self._post(p, kids[0], ("DJOB", p, verts), "balance")

    def _get_distribute(self, v: VProc, src: int, pl) -> None:
        """GetDistribute: keep what brings p to WSysLL, pass the rest on; thrashing guard at the last stage."""
        _, origin, ids = pl
        ids = _own(ids)
        p = v.p
        c = costs_if_on(self.g, self.view, self.m, ids, p).total
        W = v.thr.wsysll if v.thr.wsysll is not None else 0.0
        deficit = W - self.qwgt(v)
        kids = self.trees.children(origin, p)
        if not kids:
            keep, rest = ids, ids[:0]  # the last stage keeps the rest
        else:
            keep, rest = carve(self.g, ids, c, deficit)
        if rest.size:
            crest = costs_if_on(self.g, self.view, self.m, rest, p).total
            sizes = np.array([self._subtree(origin, q) for q in kids], float)
            share = sizes / sizes.sum() * crest.sum()
            for i, q in enumerate(kids):
                if i == len(kids) - 1:
                    mine = rest
                else:
                    mine, rest = carve(self.g, rest, crest, share[i])
                    crest = costs_if_on(self.g, self.view, self.m, rest, p).total
                if mine.size:
                    self.in_transit += int(mine.size)
                    self._post(p, q, ("DJOB", origin, mine), "balance")
        self._accept_jobs(v, keep)
        if not kids and self.qwgt(v) > v.thr.maxth:
            v.want_balance = True  # thrashing guard: balance instead of distributing further
            v.n_guard += 1

    def _subtree(self, x: int, n: int) -> int:
        key = (x, n)
        cache = self.__dict__.setdefault("_sizes", {})
        if key not in cache:
            cache[key] = self.trees.subtree_size(x, n)
        return cache[key]

    def thresholds(self) -> list:
        """Every processor's (WSysLL, MinTh, MaxTh) at the end of the level, in processor order (all ranks)."""
        return [tuple(t) for t in self.eng.allgather({p: (v.thr.wsysll, v.thr.minth, v.thr.maxth)
                                                      for p, v in self.vp.items()})]

    # ------------------------------------------------------------------ figures
    def figures(self) -> dict:
        """Per-level figures of the run (identical on every rank, timings aside)."""
        stats = self.eng.allgather({p: (v.processed_cost, v.busy_steps, v.last_busy, v.n_balance, v.n_distribute,
                                        v.n_guard) for p, v in self.vp.items()})
        cost = np.array([s[0] for s in stats])
        last = max(s[2] for s in stats)
        steps = last + 1
        tau = 1.0 / self.prm.f
        w = wsysll(cost) if cost.size else 0
        return {
            "sbn_makespan_s": steps * tau,
            "sbn_supersteps": int(self.step),
            "sbn_idle_pct": float(100.0 * max(0.0, 1 - cost.sum() / (self.P * max(steps, 1) * max(self.B, 1e-300)))),
            "sbn_processed_loadimb": float(cost.max() / w) if w > 0 else 1.0,
            "sbn_balance_ops": int(sum(s[3] for s in stats)),
            "sbn_distribute_ops": int(sum(s[4] for s in stats)),
            "sbn_thrashing_guards": int(sum(s[5] for s in stats)),
        }


def boundary_depth(g, owner: np.ndarray) -> np.ndarray:
    """Graph distance of every vertex to the nearest vertex with a neighbour on another processor.

    The tie-break of the priority queue among equal (Comm + Remap) / Wgt: deeper
    vertices first, so that what stays queued (and can still migrate) is the band
    along the partition boundary (§3.3: "internal vertices are processed before
    those on partition boundaries").
    """
    src = g.src
    cut = owner[src] != owner[g.adjncy]
    depth = np.full(g.n, -1, np.int64)
    front = np.unique(src[cut])
    if front.size == 0:
        return np.zeros(g.n, np.int64)
    d = 0
    depth[front] = 0
    while front.size:
        d += 1
        nb = np.unique(_neighbours(g, front))
        nb = nb[depth[nb] < 0]
        depth[nb] = d
        front = nb
    depth[depth < 0] = d
    return depth


def plan(entries, gwlen: float, P: int, fill_all: bool = False) -> dict:
    """The root's distribution plan: {sender: [(receiver, amount, receiver's load so far), ...]}.

    WSysLL = ceil(GWLen / P); senders are the processors above WSysLL, receivers the
    processors that reported QWgt < MinTh (every processor below WSysLL when
    ``fill_all``: an operation started by an overloaded processor), filled up to WSysLL. Receivers are served
    in order of decreasing deficit; each takes first from the senders that are its
    neighbours in the mesh (they share data-adjacent vertices, so the moved vertices
    can join the receiver's region instead of forming islands), largest surplus first,
    then from the others. Ties by processor number.
    """
    W = math.ceil(gwlen / P - 1e-9)
    surplus = {e[0]: e[1] - W for e in entries if e[1] > W}
    nbytes = (P + 7) // 8
    adj = {e[0]: np.unpackbits(np.frombuffer(int(e[3]).to_bytes(nbytes, "little"), np.uint8), count=P).astype(bool)
           if len(e) > 3 else np.zeros(P, bool) for e in entries}
    recv = sorted(((W - e[1], e[0], e[1]) for e in entries
                   if (e[2] or (fill_all and (len(e) < 5 or e[4]))) and e[1] < W), key=lambda t: (-t[0], t[1]))
    out: dict = {}
    for need, j, base in recv:
        order = sorted(surplus, key=lambda i: (not (adj[j][i] or adj[i][j]), -surplus[i], i))
        for i in order:
            if need <= 1e-9:
                break
            amt = min(need, surplus[i])
            if amt <= 1e-9:
                continue
            out.setdefault(i, []).append((j, float(amt), float(base)))
            surplus[i] -= amt
            need -= amt
            base += amt
    return out
