"""The SBN dynamic load balancer running one adaptation level (SBN paper §3, Fig. 4, §3.5).

Every processor is one of the engine's virtual processors; the level is
processed in bulk-synchronous supersteps. One superstep is one "check for load
balancing activity" of §5.4 (``f`` checks per modelled second) and one hop of a
message. In each superstep every processor, in the order of Fig. 4's main line:

1. handles the messages received: locate messages (§3.5, applied first), data
   arriving (lazy migration), data requests it must serve, jobs sent to it, and
   the balance / gather / distribution messages of the balancing operations
   passing through it (GetBalance, GetDistribute); then re-prices the queued
   vertices whose own or neighbours' data moved in its view;
2. processes the chunk it selected two supersteps earlier (one superstep for
   the data request to reach the data, one for the data to come back), then
   selects the next chunk from its priority queue: vertices in increasing
   (Comm + Remap) / Wgt (§3.3, interior vertices first), as much load as one
   check's worth of processing (debt carries over so a large vertex is not
   starved). For every chosen vertex whose data is elsewhere, and for the
   adjacent vertices queued at the same processor (§3.5), it requests the data;
3. checks its weighted queue length QWgt(p) (§3.1): above MaxTh it distributes
   its excess (Distribute), below MinTh it starts a balancing operation
   (Balance), unless a balancing operation is still passing through it.

Steps 2 and 3 run for all local processors at once (one C call of ``_queue`` per
step over the processors, numpy's arithmetic in numpy's order; a processor's
queue stays sorted between changes), all of them in one call (``_queue.step``); only processors with messages,
or whose main line acts, are visited one by one (the turns over those with messages in one call,
``_queue.deliver``). A processor's locate messages and its run of ``DATA`` and ``FETCH`` are one C call
(``_queue.inbox``: what it learned merged into its view through ``LocationView.C_API``;
when the run is all it received, its locate message and the re-pricing around what it learned too); a run of ``DJOB`` messages is one C call
(``_queue.distribute``); the balancing operations' messages (``BAL``, ``NAK``, ``ABORT``, ``UP``, ``DIST``)
are handled by their state in C (``_opstate.Ops``), a processor's run of them in one call;
``NATIVE = False`` runs the Python reference path of them all.

Balancing operation rooted at x (receiver-initiated, the 3 log P stages of §5.4):
the balance message goes down the broadcast tree T_x (topology.Trees), the
leaves start a gather that sums QWgt up the tree (GWLen) together with each
node's load and whether it is itself below MinTh, and the root computes
WSysLL = ceil(GWLen / P) and a plan: processors above WSysLL send their excess
to the processors below MinTh (largest surplus to largest deficit, in order).
The plan travels down T_x in distribution messages; every node updates its
thresholds (UpdateLoad) and sends the jobs the plan asks of it, chosen by ΔCut
and breadth-first search (selection.py), directly to their receivers.

Simultaneous operations (§3: "a node does not initiate additional load
balancing activity until all the previous messages that have passed through the
node have been completely processed"; O(log² P) for simultaneous ones) are
combined: operations are ordered by (start superstep, root). A node already in
an earlier operation answers a later one's balance message with a refusal
(``NAK``) instead of forwarding it; a node that joins an earlier operation after
a later one reports ``NAK`` in the later one's gather. A root whose gather holds
a refusal abandons its operation (``ABORT`` down the nodes that joined it); the
earliest operation is never refused, so it completes and balances everyone it
reached, the abandoned roots included.

Distribution (sender-initiated, QWgt(p) > MaxTh): p sends its excess down its
own tree T_p; every node keeps what brings it to WSysLL and passes the rest to
its successors in proportion to their subtree sizes; a node of the last stage
keeps the rest and, if that puts it above MaxTh, starts a balancing operation
instead of distributing further (the thrashing guard of §3).

Jobs move as vertex ids (kind ``balance``); the data of a vertex moves only
when the processor that will compute it requests it (kind ``migration``,
payload sized by rwgt, 8 bytes per unit). Data location without broadcasts
(README "Message costs"): every processor's view of where data is starts from
the home processors of the level (where the data is at its start) and records
what it learned: data it received or sent, and locate messages, which go only
to the processors holding data adjacent to the moved vertices and to the
vertices' home processors. A request sent to a processor the data has left is
forwarded along the pointer that processor kept. All decisions of a processor
use its own queue, what it received and its own view; random numbers come from
a per-processor stream of ``ctx.rng``: results are identical for any number of
MPI ranks.
"""
from __future__ import annotations

import functools
import heapq
import math
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from harness import (Batch, Costs, HostArrays, LocationView, State, Timer, costs_if_on, qwgt as qwgt_of, vertex_costs,
                     wsysll)

from . import _opstate, _queue
from . import messages as msg
from .messages import DATA, DJOB, FETCH, JOB, UP
from . import thresholds as th
from .selection import ROUNDS, rounds, select, spread
from .topology import Trees

BYTES_PER_UNIT = 8
VIEW_API = LocationView.C_API  # the view's merge and pricing, for _queue.inbox's C
_NONE = np.empty(0, np.int64)
_NO_COLUMNS = (_NONE, np.zeros(1, np.int64), _NONE)  # an empty batch's values, offsets and sources
_NO_LOCS = slice(0, 0)  # a processor's locate messages when none came (their run in the superstep's batch)
_NO_MSGS = range(0)  # its sbn messages when none came
# the operation counts of §5.4's cost model, per processor (rows of LevelRun.ops; README "Table 9 on counts")
SEL, BAL, MIG = range(3)
# the message handlers in C (README "Handlers in C"); False: the Python reference path, which tests compare with
NATIVE = True
OPS = ("selection", "balance", "migration")
TIMES = ("processing", "selection", "migration", "balance")  # _queue.step's timed categories (Table 9), in its order
# §3.5: "broadcasting a job migration message" (a request) and "A locate-message is then broadcast": the bytes of
# those we send (targeted), and the messages and bytes of the broadcasts (P - 1 each), per processor
BCAST = ("sbn_fetch_bytes", "sbn_request_broadcast_messages", "sbn_request_broadcast_bytes", "sbn_locate_bytes",
         "sbn_locate_broadcast_messages", "sbn_locate_broadcast_bytes")
FETCHED, REQ_N, REQ_B, LOCATED, LOC_N, LOC_B = range(len(BCAST))


@dataclass
class Params:
    """The balancer's parameters (plugin defaults in plugin.py)."""

    checks: int = 400          # supersteps to process the level's initial WSysLL (sets J_avg = W0 f / checks)
    f: float = 60.0            # checks per modelled second (§5.4)
    const_s: float = 0.1       # Const: seconds of processing load (§3, Fig. 4)
    minth: str = "const"       # "const" (Fig. 4) or "analysis" (§5.4 bound)
    maxth: str = "exp"         # "exp" (2 ** floor(W/Const)) or "linear" (2 floor(W/Const))
    subset: int = 8            # |R|, the random subset of §3.4
    subset_from: str = "queue"  # R drawn from p's whole queue (§3.4) or "receiver": next to q's data (ours)
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
        if self.subset_from not in ("queue", "receiver"):
            raise ValueError(f"sbn: subset_from must be 'queue' or 'receiver', got {self.subset_from!r}")


@dataclass
class VProc:
    """One processor's private state (the scalars the vectorized steps read live in LevelRun's arrays, at ``i``)."""

    p: int
    i: int                                          # index among the rank's processors
    rng: np.random.Generator
    Qall: np.ndarray                                # Q with the chunks taken since its last sort (LevelRun.head)
    view: LocationView                              # where p believes the data of every vertex is (§3.5)
    bef: np.ndarray | None = None                   # Qall's exclusive prefix sums of Wgt+Comm+Remap (sorted Qall)
    fwd: dict = field(default_factory=dict)         # vertex -> processor p last sent its data to
    changed: list = field(default_factory=list)     # vertices whose location p learned this superstep
    arrived: list = field(default_factory=list)     # data arrived this superstep (locates to send)
    servers: set = field(default_factory=set)       # processors that sent p data this superstep
    backlog: deque = field(default_factory=deque)   # chunks due but waiting for forwarded data: (vertices, cost)
    ops: dict = field(default_factory=dict)         # op -> gather state {"pending", "rows", "nbd", "nak", ...}
    active: dict = field(default_factory=dict)     # op -> successors that joined it (awaiting DIST or ABORT)
    lost: set = field(default_factory=set)          # ops p joined before an earlier op reached it
    seq: int = 0
    promised: tuple | None = None                   # the operation p offered its deficit to
    n_balance: int = 0
    n_distribute: int = 0
    n_guard: int = 0
    run: object = field(default=None, repr=False)

    @property
    def Q(self) -> np.ndarray:
        """The queued vertices (not yet chosen), in priority order when clean: Qall past the chunks taken since
        its last sort (a view made when read, not at every chunk)."""
        h = self.run.head[self.i]
        return self.Qall[h:] if h else self.Qall

    @Q.setter
    def Q(self, q: np.ndarray) -> None:
        self.Qall = q
        self.run.head[self.i] = 0

    @property
    def thr(self) -> th.Thresholds:
        """p's (WSysLL, MinTh, MaxTh)."""
        r = self.run
        return th.Thresholds(r._wsysll(self.i), float(r.minth[self.i]), float(r.maxth[self.i]))


class LevelRun:
    """One level of SBN processing on the engine's vprocs. ``run()`` returns the State after it."""

    def __init__(self, g, machine, engine, state: State, params: Params, rng_for, trees: Trees | None = None,
                 process: bool = True, init_thresholds: th.Thresholds | None = None, const: float | None = None,
                 trace: bool = False, fixed: np.ndarray | None = None):
        params.validate()
        self.g, self.m, self.eng, self.prm = g, machine, engine, params
        self.P = P = machine.P
        self.n = n = g.n
        self.trees = trees if trees is not None and trees.P == P else Trees(P)
        self.timer = Timer()
        self.step = 0
        self.trace = [] if trace else None
        # the level's read-only per-vertex arrays: the state's own, or one copy per host (HostArrays; at R = 1 the
        # arrays themselves), freed when the cell is done with them (the runner's sweep)
        held = HostArrays.of(engine)
        self.home0 = np.asarray(state.home, np.int64)                # home processor: data location at level start
        # processors by vertex in int32 (P < 2^31): half the per-rank bytes of int64 (issue 52)
        self.data_at = self.home0.astype(np.int32)                   # where data physically is (local vprocs)
        self.requested = np.zeros(n, bool)                           # data request in flight
        self.holder = np.full(n, -1, np.int32)                       # local vproc holding v (queued or staged)
        self.queued = np.zeros(n, bool)                              # in a local queue, not staged
        self.pinned = np.zeros(n, bool)                              # not selectable for migration
        self.fixed = np.zeros(n, bool) if fixed is None else np.asarray(fixed, bool)  # Level.pinned: never moves
        self.done_by = np.full(n, -1, np.int32)                      # local vproc that processed v
        self.stale = np.ones(n, bool)                                # priced since its queue was last sorted
        self.slot = np.zeros(n, np.int32)                            # spread()'s and select()'s scratch
        self.avail = np.zeros(n, bool)                               # _select()'s scratch
        self.pmark = np.zeros(P, bool)                               # _locate()'s scratch
        owner = np.asarray(state.owner)
        # the rank's processors under any layout (engine.mine, sorted; engine.local_index: a processor's slot)
        self.mine, self.lix = engine.mine, engine.local_index
        L = self.mine.size
        mine = np.flatnonzero(self.lix[owner] >= 0)  # the rank's vertices (a rank sorts only its own) ...
        mine = mine[np.argsort(owner[mine], kind="stable")]  # ... by processor, then number
        slot = self.lix[owner[mine]]                # each one's processor's slot (ascending)
        # a rank prices its own processors' vertices; WSysLL from every processor's QWgt (a gather)
        c0 = vertex_costs(g, state, machine, mine)
        # §3.3's tie-break, a breadth-first search over the whole level: on each host's first rank only (under MPI
        # the others wait in the engine's collective, not in the search)
        self.depth = held.computed(lambda: boundary_depth(g, owner))
        self.cw, self.cc, self.cr = np.zeros(n), np.zeros(n), np.zeros(n)
        self.cw[mine], self.cc[mine], self.cr[mine] = c0.wgt, c0.comm, c0.remap
        self.costs = Costs(self.cw, self.cc, self.cr)                # the three above (_select's cost on p)
        q = qwgt_of(c0, slot, L)
        w0 = wsysll(np.array(engine.allgather(dict(zip(self.mine.tolist(), q)), "sbn-qwgt")))
        # processing speed: the level's initial WSysLL takes `checks` checks (J_avg = W0 f / checks per second)
        self.B = max(w0, 1) / params.checks if process else 0.0
        j_avg = self.B * params.f
        self.const = const if const is not None else max(params.const_s * j_avg, 1e-9)
        self.floor_minth = th.minth_bound(P, j_avg, params.f) if params.minth == "analysis" else 0.0
        # per-processor scalars, as arrays over the rank's processors (index: the slot, local_index[p])
        self.credit = np.zeros(L)
        self.qs = np.zeros(L)               # QWgt of the queue (clean)
        self.qlen = np.zeros(L, np.int64)   # its length (clean)
        self.unsorted = np.ones(L, bool)    # Q's membership or prices changed since its last sort
        self.WINDOW = 32                    # head of each queue looked at first when choosing a chunk (_queue.chunks)
        self.head = np.zeros(L, np.int64)   # the vertices of each Qall its chunks took since its last sort
        self.stg = np.zeros(L)              # QWgt of the chunks chosen but not yet processed
        self.nstaged = np.zeros(L, np.int64)  # how many such chunks
        self.busy = np.zeros(L, np.int64)   # balancing operations passing through
        self.hold = np.full(L, -1, np.int64)      # until which planned jobs are still on their way
        self.cooldown = np.full(L, -1, np.int64)  # until which a Distribute is in flight
        self.prom_until = np.full(L, -1, np.int64)
        self.want = np.zeros(L, bool)       # thrashing guard: balance at the next main line
        self.prom = np.zeros(L, bool)       # promised to an operation
        self.w = np.full(L, np.nan)         # WSysLL (nan: none yet)
        self.minth = np.zeros(L)
        self.maxth = np.zeros(L)
        self.proc_cost = np.zeros(L)
        self.updated: dict = {}             # GWLen -> UpdateLoad's thresholds (_update_at)
        self.deg = held.computed(lambda: np.diff(g.xadj))
        self.native = NATIVE
        self.log2 = held.computed(lambda: _log2(np.arange(n + 1)))  # _log2 of every queue length (§5.4's heap steps)
        self.ops = np.zeros((3, L))         # §5.4's operations per Table 9 phase (SEL, BAL, MIG)
        # §3.5's migration messages as we send them (targeted) and as the paper broadcasts them: per row of BCAST
        self.bcast = np.zeros((len(BCAST), L))
        self.busy_steps = np.zeros(L, np.int64)
        self.aborted = np.zeros(L, np.int64)  # operations abandoned at their root
        self.last_busy = np.full(L, -1, np.int64)
        self.holder[mine] = owner[mine]
        self.queued[self.holder >= 0] = True
        self.nheld = int(np.count_nonzero(self.queued))  # vertices queued or chosen at the rank's processors
        self.vp: dict[int, VProc] = {}
        cuts = np.searchsorted(slot, np.arange(L + 1))
        for i, p in enumerate(self.mine.tolist()):
            if isinstance(init_thresholds, (list, tuple)):  # one (WSysLL, MinTh, MaxTh) per processor
                thr = th.Thresholds(*init_thresholds[p])
            else:
                thr = init_thresholds or th.initial(self.const, self.floor_minth)
            self._set_thr(i, thr)
            self.vp[p] = VProc(p, i, rng_for(p), np.sort(mine[cuts[i]:cuts[i + 1]]), LocationView(self.home0, P),
                                run=self)
        self.vlist = list(self.vp.values())
        for v in self.vlist:  # §5.4: creating the priority queue costs O(V_p + E_p)
            self.ops[SEL, v.i] += v.Q.size + self.deg[v.Q].sum()
        self.dirty = set(range(L))
        self.process = process
        self.in_transit = 0
        self.due: dict = {}                 # step -> (vertices, their processors, per-processor cost)
        self.stalled: set = set()           # local indices with a backlog
        self.out = msg.Outbox()             # this superstep's messages (one engine send at the exchange)
        d = self.trees.d
        self.cooldown_steps = 3 * d + 1
        self.max_steps = params.max_steps or (50 * params.checks + 200 * (d + 1) + 1000)
        # the balancing operations' state in C (join, refuse, gather, abandon); None: the reference path below
        self.bound = None  # the _Received its batch was last bound to
        # what _queue.choose and _queue.fetch_chunks read and write, bound once
        self.chosen = _queue.bind("fifiifibbffio", self.credit, self.qlen, self.qs, self.head, self.mine, self.stg,
                                  self.nstaged, self.queued, self.pinned, self.ops[SEL], self.log2, self.deg, self.vlist)
        self.fetching = _queue.bind("bbnbniiifffo", self.queued, self.pinned, self.data_at, self.requested, self.holder,
                                    g.xadj, g.adjncy, self.lix, self.bcast[FETCHED], self.bcast[REQ_N],
                                    self.bcast[REQ_B], self.vlist)
        # what _queue.done and _queue.acting read and write, bound once
        self.finished = _queue.bind("nbnfifii", self.holder, self.pinned, self.done_by, self.stg, self.nstaged,
                                    self.proc_cost, self.busy_steps, self.last_busy)
        self.acts = _queue.bind("ffiirirff", self.qs, self.stg, self.busy, self.hold, self.prom, self.cooldown,
                                self.want, self.minth, self.maxth)
        # what _queue.sort reads and writes, bound once
        self.sorted = _queue.bind("bfffiifibooo", self.stale, self.cw, self.cc, self.cr, self.depth, self.head,
                                  self.qs, self.qlen, self.unsorted, np.frombuffer, np.dtype(np.int64),
                                  np.dtype(np.float64))
        self.inbox = self.native and self.trace is None  # the locates and the runs of DATA and FETCH in C
        self.no_locs = _NO_LOCS if self.inbox else ()  # (_receive's locs when none came)
        self.lcols = _NO_COLUMNS[:2]  # the superstep's locate messages' values and offsets (_locates, _inbox)
        # what _queue.inbox reads and writes, bound once (these arrays are never rebound; held until the level ends),
        # with its constants and the views' C_API
        self.inboxed = _queue.bind("nbbrifffio", self.data_at, self.requested, self.pinned, self.queued, g.rwgt,
                                   self.ops[MIG], self.bcast[LOC_N], self.bcast[LOC_B],
                                   np.array([P, DATA, FETCH, msg.WORD, BYTES_PER_UNIT], np.int64), VIEW_API)
        # and what the rest of _receive reads and writes there when the run took every message (the views' base
        # is home0; the outbox's locate list is cleared in place)
        self.tailed = _queue.bind("iinifiififfffbiffibioo", g.xadj, g.adjncy, self.holder, self.home0,
                                  self.bcast[LOCATED], g.cwgt, g.pwgt, machine.proc_of, machine.cluster, machine.conn,
                                  self.cw, self.cc, self.cr, self.stale, self.deg, self.ops[SEL], self.log2, self.head,
                                  self.unsorted, self.home0, self.out.locs, self.dirty)
        # a superstep's own steps after its messages in one C call (_queue.step), timed there per TIMES' category
        self.times = np.zeros(len(TIMES))
        self.stepped = _queue.bind("ooooooobiioooooffio", self.finished, self.sorted, self.chosen, self.fetching,
                                   self.acts, self.data_at, self.dirty, self.unsorted, self.mine, self.lix, self.vlist,
                                   engine.each, self.due, self.out.msgs, self._mainline, self.times,
                                   np.array([self.B]), np.array([self.WINDOW, params.fetch_adjacent, FETCH, P, msg.WORD,
                                                                 process], np.int64),
                                   self.out.bound(engine)) if self.inbox else None
        self.opstate = _opstate.Ops(self.trees.pow2, self.trees.arrays, self.busy, self.prom, self.prom_until,
                                    self.hold, self.minth, self.ops, self.aborted, self.qs, self.stg,
                                    self.unsorted, self._qwgt_at, self._holders_at,
                                    self._planned, (self.w, self.maxth, np.array([P, self.const, params.maxth == "exp",
                                                                                  self.floor_minth], float)),
                                    self._send_at, self._jobs_at,
                                    functools.partial(np.frombuffer, dtype=np.int64)) if self.native else None
        # the run loop's turns over the processors that received messages in one C call (_queue.deliver)
        self.delivering = _queue.bind("oooiooooof", self.inboxed, self.tailed, self.vlist, self.lix, engine.each,
                                      self.opstate.handle, self.out, self.out.msgs, self._rest,
                                      self.times) if self.inbox else None

    # ------------------------------------------------------------------ thresholds
    def _set_thr(self, i: int, t: th.Thresholds) -> None:
        self.w[i] = np.nan if t.wsysll is None else t.wsysll
        self.minth[i], self.maxth[i] = t.minth, t.maxth

    def _wsysll(self, i: int):
        w = float(self.w[i])
        return None if w != w else w  # nan: none yet

    # ------------------------------------------------------------------ timing (Table 9 categories)
    def _tick(self, cat: str, t0: float) -> float:
        t = time.perf_counter()
        self.timer.seconds[cat] += t - t0
        return t

    # ------------------------------------------------------------------ location view (§3.5)
    def _learn(self, v: VProc, ids: np.ndarray, where) -> None:
        """Record in p's view that the data of ``ids`` is at ``where`` (a later entry wins); re-price around them."""
        if ids.size:
            v.view.learn(ids, where)
            v.changed.append(ids)

    # ------------------------------------------------------------------ costs and the priority queue (§3.1, §3.3)
    def _price(self, v: VProc, verts: np.ndarray, c: Costs | None = None) -> None:
        """Wgt, Comm, Remap of ``verts`` if computed on p, from p's location view (``c``, when already known)."""
        if verts.size:
            if self.native:  # the count, the prices and the stale marks in C (_queue.priced)
                c = costs_if_on(self.g, v.view, self.m, verts, v.p) if c is None else c
                _queue.priced(verts, c.wgt, c.comm, c.remap, self.cw, self.cc, self.cr, self.stale, self.deg,
                              self.ops[SEL], v.i, self.log2[v.Q.size])
            else:
                # §5.4: each heap insertion or removal of v costs O(log V_p + δ_v) (its price is recomputed)
                self.ops[SEL, v.i] += verts.size * self.log2[v.Q.size] + np.add.reduce(self.deg[verts])
                c = costs_if_on(self.g, v.view, self.m, verts, v.p) if c is None else c
                self.cw[verts], self.cc[verts], self.cr[verts] = c.wgt, c.comm, c.remap
                self.stale[verts] = True
            self._touch(v)

    def _touch(self, v: VProc) -> None:
        self.unsorted[v.i] = True
        self.dirty.add(v.i)

    def _sort(self, v: VProc) -> None:
        """The priority min-queue of §3.3: (Comm + Remap) / Wgt ascending, deeper vertices first, then by number.

        Kept sorted between changes (jobs in or out, re-priced vertices): choosing the next chunk is then a
        prefix of Q, found by binary search in the prefix sums of the load.
        """
        _queue.sort(v, v.i, self.sorted)  # (Q in order, then Qall, bef, head, qlen, unsorted and qs set)

    def _clean(self) -> None:
        """Sort the queues changed since the last sort; nothing (not even a clock read) when none changed."""
        if not self.dirty:
            return
        vl = self.vlist
        dirty = [vl[i].p for i in sorted(self.dirty) if self.unsorted[i]]
        self.dirty.clear()
        if dirty:
            sort, bound, vp = _queue.sort, self.sorted, self.vp  # (_sort's call, without a frame per queue)
            for p in self.eng.each(dirty):
                v = vp[p]
                sort(v, v.i, bound)

    def costs(self, verts) -> Costs:
        return Costs(self.cw[verts], self.cc[verts], self.cr[verts])

    def qwgt(self, v: VProc) -> float:
        """QWgt(p) (§3.1): Wgt + Comm + Remap of everything queued at p, chosen chunks included."""
        if self.unsorted[v.i]:
            self._sort(v)
        return float(self.qs[v.i] + self.stg[v.i])

    # ------------------------------------------------------------------ run
    def run(self) -> State:
        """Superstep loop until every vertex is processed (or, with ``process=False``, until quiet)."""
        eng = self.eng
        active = None
        while True:
            # the work-left count of the last superstep rides on this exchange (one collective a superstep)
            eng.exchange(tally=active)
            if active is not None:
                if eng.tally == 0:
                    break  # this exchange delivered (and counted) the last locate messages
                if self.step > self.max_steps:
                    raise RuntimeError(f"sbn: level did not finish within {self.max_steps} supersteps")
            locate = self._locates(eng.received(msg.LOCATE))
            got = _received(eng.received(msg.TAG), self.opstate is not None)
            # per-vproc CPU (eng.each): the engine lays vprocs over ranks by it
            if got.at or locate:  # no clock read in a superstep with nothing delivered
                if self.delivering is not None:  # the turns in C: Ops.handle, inbox, the rest of _receive but a forward
                    if got.at:
                        self._bind(got)
                    _queue.deliver(self.delivering, got, got.at, got.ops_only, locate, *self.lcols, *got.columns,
                                   self.step)
                else:
                    self._turns(got, locate)
            if self.stepped is not None:  # process, select and the main line in one C call (_queue.step)
                if self.stalled:  # chunks waiting for forwarded data
                    self._process_all()
                batch = None if self.stalled else self.due.pop(self.step, None)
                done = _queue.step(self.stepped, self.step, batch)
                if done is None:  # a chunk's data not all there yet: _process_all's path
                    self.due[self.step] = batch
                    self._process_all()
                    done = _queue.step(self.stepped, self.step, None)
                self.nheld -= done
            else:
                self._process_all()
                if self.process:
                    self._select_all()
                t0 = time.perf_counter()
                self._mainline_all()
                self._tick("balance", t0)
                self.out.flush(eng)
            if self.process:  # work left: queued, chosen, or jobs on their way
                active = self.in_transit + self.nheld
            else:  # balancing only: messages on their way or operations open
                active = eng.pending() + int(self.busy.sum())
            self.in_transit = 0
            self.step += 1
        for cat, secs in zip(TIMES, self.times.tolist()):
            self.timer.seconds[cat] += secs
        return self._final_state()

    def _turns(self, got: "_Received", locate: dict) -> None:
        """The run loop's turns over the processors that received messages on the reference path (``_queue.deliver``'s
        in C): a processor with only messages of the balance kind and no locate message is the C state's at once (one
        call), any other is ``_receive``'s."""
        ops, at, vp, clock, other = got.ops_only, got.at, self.vp, time.perf_counter, 0.0
        if ops:
            self._bind(got)
        t0 = clock()
        for p in self.eng.each(sorted(set(at).union(locate)) if locate else at):
            if p in ops and p not in locate:
                r = at[p]
                self.opstate.handle(vp[p].i, p, r.start, r.stop, self.step, self.out)
            else:
                t1 = clock()
                self._receive(vp[p], got, locate.get(p, self.no_locs))
                other += clock() - t1
        if ops:  # the balance-only turns: the loop's time but _receive's (no clock read per turn)
            self.timer.seconds["balance"] += clock() - t0 - other

    def _gather_vertex_array(self, a: np.ndarray) -> np.ndarray:
        """A per-rank vertex array (-1 where not local; a vertex is local to one rank) as the whole level's, on
        every rank: one read-only copy per host (HostArrays.assembled)."""
        idx = np.flatnonzero(a >= 0)
        return HostArrays.of(self.eng).assembled(self.n, idx, a[idx])

    def _final_state(self) -> State:
        if not self.process:  # balancing only (tests, the §3.6 example): the queues are the result
            owner = self._gather_vertex_array(self.holder)
            return State(owner, self.home0, self.P)
        owner = self._gather_vertex_array(self.done_by)
        if np.any(owner < 0):
            raise RuntimeError("sbn: some vertices were never processed")
        # lazy redistribution: a vertex's data is where it was computed
        return State.settled(owner, self.P)

    # ------------------------------------------------------------------ messages
    def _locates(self, b) -> dict:
        """The superstep's locate messages by receiver: {p: their run in the batch (a slice)} for _inbox, whose
        columns are kept in ``lcols`` (the reference path: ``_rows_by_dst``'s lists)."""
        if not self.inbox:
            return _rows_by_dst(b)
        if not b.src.size:
            return {}
        self.lcols = (b.values, b.offsets)  # (a batch's columns are int64 arrays; _queue checks them)
        return _queue.runs(b.dst)

    def _receive(self, v: VProc, got: "_Received", locs, at: int | None = None, t0: float | None = None) -> None:
        """p's messages of the superstep (``locs``: its locate messages); ``at``: where the run loop's ``_inbox``
        stopped (p's locates taken there), ``t0``: when p's turn began."""
        p = v.p
        t0 = time.perf_counter() if t0 is None else t0
        ms = got.at.get(p, _NO_MSGS)
        m, end, native, inbox = ms.start if at is None else at, ms.stop, self.opstate, self.inbox
        # locate messages first (sent one superstep earlier, §3.5): int64 [processor, vertex, ...] each, by sender;
        # learned together, a later message's entry for a vertex winning over an earlier one's
        if inbox and at is None:
            m = self._inbox(v, got, locs, m, end, self.tailed)
            if m is None:  # every message taken, p's locate message and re-pricing done there too
                self.timer.seconds["migration"] += time.perf_counter() - t0  # (_tick)
                return
        elif locs:
            if len(locs) == 1:  # one sender: its processor for every vertex
                ids = locs[0][1:]
                self._learn(v, ids[self.data_at[ids] != p], locs[0][0])
            else:  # of a vertex in several messages, the last entry wins
                ids = np.concatenate([pl[1:] for pl in locs])
                at = np.repeat(np.array([pl[0] for pl in locs], np.int64), [pl.size - 1 for pl in locs])
                keep = self.data_at[ids] != p
                self._learn(v, ids[keep], at[keep])
            self.ops[MIG, v.i] += ids.size + len(locs)  # §5.4: a message handled costs its words
        cat = "migration"  # the category of the work since t0 (Table 9)
        if m < end:  # messages left to the loop (none, most often, after _inbox)
            codes, srcs, ops = got.code, got.src, got.ops
            count, size = self.ops[:, v.i], got.size
        while m < end:
            code = codes[m]
            now = "migration" if code >= FETCH else "balance"
            if now != cat:
                t0, cat = self._tick(cat, t0), now
            if native is not None and code < FETCH:  # a run of the balance kind's messages in C
                self._bind(got)
                m = native.handle(v.i, p, m, end, self.step, self.out)
                continue
            if inbox and code >= FETCH:  # a run of DATA and FETCH in C (a FETCH to forward stops it)
                k, m = m, self._inbox(v, got, _NO_LOCS, m, end)
                if m > k:
                    continue
            count[MIG if code >= FETCH else BAL] += size[m]
            if code <= msg.ABORT:
                self._control(v, srcs[m], code, ops[m], got.flag[m])
            elif code == DATA:
                ids = got.words(m)
                # §3.5: "A locate-message is then broadcast": P - 1 messages [p, vertices] per moved set
                self.bcast[LOC_N, v.i] += self.P - 1
                self.bcast[LOC_B, v.i] += (self.P - 1) * msg.WORD * (1 + ids.size)
                if self.native:  # the same steps in C (_queue.arrive)
                    count[MIG] += _queue.arrive(ids, p, self.data_at, self.requested, self.pinned, self.queued,
                                                self.g.rwgt)
                else:
                    count[MIG] += np.add.reduce(self.g.rwgt[ids])  # the data copied in: a word per rwgt unit
                    self.data_at[ids] = p
                    self.requested[ids] = False
                    self.pinned[ids[self.queued[ids]]] = False  # prefetched neighbours become movable again
                self._learn(v, ids, p)
                v.arrived.append(ids)
                v.servers.add(srcs[m])
                if self.trace is not None:
                    self.trace.append(("data", self.step, p, ids, srcs[m]))
            elif code == FETCH:
                words = got.words(m)
                self._serve(v, words[1:], int(words[0]))
            elif code == JOB:
                self._accept_jobs(v, got.words(m))
            elif code == DJOB:
                words = got.words(m)
                self._get_distribute(v, int(words[0]), words[1:])
            elif code == UP:
                self._get_up(v, srcs[m], ops[m], got.words(m)[4:])
            else:
                self._get_dist(v, ops[m], *msg.read_dist(got.words(m)[4:]))
            m += 1
        if cat != "migration":
            t0 = self._tick(cat, t0)
        if v.arrived:
            self._locate(v, np.concatenate(v.arrived))
            v.arrived = []
            v.servers = set()
        if v.changed:
            # re-price the queued vertices whose own data or a neighbour's data moved in p's view
            ch = v.changed[0] if len(v.changed) == 1 else np.concatenate(v.changed)
            v.changed = []
            if self.native:  # the same vertices in C (_queue.affected)
                self._price(v, np.frombuffer(_queue.affected(self.g.xadj, self.g.adjncy, ch, self.queued,
                                                             self.holder, p), np.int64))
            else:
                aff = self.g.neighbourhood(ch)
                aff = aff[self.queued[aff] & (self.holder[aff] == p)]  # a chosen chunk keeps its price
                self._price(v, aff)
        self._tick("migration", t0)

    def _inbox(self, v: VProc, got: "_Received", locs: slice, m: int, end: int, tail=None) -> int | None:
        """p's locate messages (``locs``: their run in ``lcols``), then its run of DATA and FETCH from message m, in
        one C call (``_queue.inbox``:
        the reference path's steps in its order, a FETCH whose data left p stopping the run); what p learned
        merged into its view at once (the later entry winning, as merges one by one). Returns where it stopped;
        with ``tail`` (``tailed``), None when the run took every message: the rest of ``_receive`` (the locate
        message of what arrived, the re-pricing around what p learned) done there too."""
        values, offsets, src = got.columns if m < end else _NO_COLUMNS
        buf = _queue.inbox(*self.lcols, locs.start, locs.stop, values, offsets, src, m, end, v.p, v.i, self.inboxed,
                           self.out.msgs, v.fwd, v.servers, v.view, v.Qall, tail)
        return None if buf is None else self._inboxed(v, buf)

    def _inboxed(self, v: VProc, buf: bytearray) -> int:
        """What ``_queue.inbox`` returned (``buf``) kept at p: what p learned and what arrived (for ``_receive``'s
        re-pricing and locate message); returns the message its run stopped at."""
        buf = np.frombuffer(buf, np.int64)
        m, nl, na, nd = buf[:4].tolist()
        if nl:
            v.changed.append(buf[4:4 + nl])
        if nd:
            v.arrived.append(buf[4 + nl:4 + nl + na])
        return m

    def _rest(self, v: VProc, got: "_Received", buf: bytearray, t0: float) -> None:
        """``_queue.deliver``'s call back at p when a ``FETCH`` is to be forwarded (``buf``: its runs' result, as
        inbox's; ``t0``: now): ``_receive`` from there."""
        self._receive(v, got, (), self._inboxed(v, buf), t0)

    def _bind(self, got: "_Received") -> None:
        """The C state reads the superstep's batch in place."""
        if self.bound is not got:
            self.opstate.bind(*got.columns)
            self.bound = got

    def _serve(self, v: VProc, ids: np.ndarray, requester: int) -> None:
        """A data request: send the data held here to the requester, forward the rest where it went."""
        p = v.p
        if self.native:  # the split, the in-flight marks and the words sent in C (_queue.serve)
            split = np.frombuffer(_queue.serve(ids, p, self.data_at, self.g.rwgt), np.int64)
            k, words = split[:2].tolist()
            mine, rest = split[2:2 + k], split[2 + k:]
        else:
            here = self.data_at[ids] == p
            mine, rest = ids[here], ids[~here]
            k = mine.size
            self.data_at[mine] = -2  # in flight
            words = int(np.add.reduce(self.g.rwgt[mine]))
        if k:
            sent = mine.tolist()
            self.out.add(p, requester, msg.DATA, sent, words * BYTES_PER_UNIT)
            v.fwd.update(dict.fromkeys(sent, requester))
            self._learn(v, mine, requester)
        if rest.size:  # it left since the requester's view was updated: follow the forwarding pointer
            nxt = np.array([v.fwd.get(int(x), -1) for x in rest], np.int64)
            if np.any(nxt < 0):
                raise RuntimeError(f"sbn: processor {p} asked for data it never held")
            self._fetch(v, rest, nxt, requester)

    def _fetch(self, v: VProc, ids: np.ndarray, dest: np.ndarray | None, requester: int) -> None:
        """Requests for the data of ``ids`` on behalf of ``requester``: one per destination (``dest``; None: where
        p's view has the data), in processor order (in C: ``_queue.fetches``)."""
        p = v.p
        if self.native:
            h = v.view
            groups = _queue.fetches(self.out.msgs, msg.FETCH, p, requester, ids, dest, h.base, h.keys, h.values)
        else:
            if dest is None:
                dest = v.view[ids]
                if np.count_nonzero(dest == p):
                    raise RuntimeError("sbn: location view out of date")
            parts = _groups(dest, ids)
            for h, part in parts:
                self.out.add(p, h, msg.FETCH, [requester, *part.tolist()])
            groups = len(parts)
        self.bcast[FETCHED, v.i] += msg.WORD * (2 * groups + ids.size)

    def _locate(self, v: VProc, ids: np.ndarray) -> None:
        """Locate message (§3.5) to the processors that need it, not to all: those holding data adjacent
        to the moved vertices (their queues hold the neighbours) and the vertices' home processors (the
        directory a stale request goes through); never to p itself or to the only processor that sent it."""
        p, g = v.p, self.g
        server = next(iter(v.servers)) if len(v.servers) == 1 else -1
        if self.native:  # the same processors in C (_queue.holders, but p; _queue.receivers)
            h = v.view
            near = np.frombuffer(_queue.holders(g.xadj, g.adjncy, ids, h.base, h.keys, h.values, self.P, p), np.int64)
            to = np.frombuffer(_queue.receivers(near, self.home0, ids, p, server), np.int64)
        else:  # the processors marked in a mask the level keeps (cleared again after)
            near = v.view.holders(g.neighbours_of(ids))
            mark = self.pmark
            mark[near] = True
            mark[self.home0[ids]] = True
            mark[p] = False
            if server >= 0:
                mark[server] = False
            to = np.flatnonzero(mark)  # sorted, each once
            mark[to] = False
        self.bcast[LOCATED, v.i] += to.size * msg.WORD * (1 + ids.size)
        self.out.locate(p, to, np.concatenate(([p], ids)))

    def _accept_jobs(self, v: VProc, ids: np.ndarray, c: Costs | None = None) -> None:
        """Queue jobs at p, priced on p (``c``: their prices, when already known)."""
        if ids.size == 0:
            return
        self.holder[ids] = v.p
        self.queued[ids] = True
        self.pinned[ids] = False
        self.nheld += int(ids.size)
        v.Q = np.concatenate([v.Q, ids])
        self._price(v, ids, c)
        self._touch(v)

    def _drop(self, v: VProc, ids: np.ndarray) -> None:
        self.holder[ids] = -1
        self.queued[ids] = False
        self.nheld -= int(ids.size)
        v.Q = v.Q[self.queued[v.Q]]
        self._touch(v)
        self.in_transit += int(ids.size)

    # ------------------------------------------------------------------ processing (§3.3, §3.5)
    def _process_all(self) -> None:
        """Every processor computes the chunk it chose two supersteps ago (once its data is all there)."""
        if not self.stalled and self.step not in self.due:  # nothing due this superstep
            return
        t0 = time.perf_counter()
        for i in sorted(self.stalled):  # chunks waiting for forwarded data, in order
            v = self.vlist[i]
            while v.backlog and np.all(self.data_at[v.backlog[0][0]] == v.p):
                chunk, cost = v.backlog.popleft()
                self._done(np.asarray(chunk), np.full(chunk.size, v.p), np.array([i]), np.array([cost]))
            if not v.backlog:
                self.stalled.discard(i)
        batch = self.due.pop(self.step, None)
        if type(batch) is bytearray:  # C: choose's result done at once when none waits and every vertex's data is there
            done = None if self.stalled else _queue.done_chosen(batch, self.step, self.finished, self.data_at)
            if done is not None:
                self.nheld -= done
                self._tick("processing", t0)
                return
            batch = _chunks(batch)
        if batch is not None and not (self.native and not self.stalled and self._done(*batch, self.data_at)):
            verts, procs, who, cost = batch
            bad = self.data_at[verts] != procs
            missing = np.count_nonzero(bad)  # data not there yet (forwarded requests)
            wait = self.stalled | set(np.unique(self.lix[procs[bad]]).tolist()) if missing else set(self.stalled)
            if wait:
                at = self.lix[procs]
                keep = ~np.isin(at, list(wait))
                for i in sorted(wait & set(who.tolist())):
                    self.vlist[i].backlog.append((verts[at == i], float(cost[who == i][0])))
                self.stalled |= wait & set(who.tolist())
                sel = ~np.isin(who, list(wait))
                verts, procs, who, cost = verts[keep], procs[keep], who[sel], cost[sel]
            self._done(verts, procs, who, cost)
        self._tick("processing", t0)

    def _done(self, verts, procs, who, cost, *data_at) -> bool:
        """The chunks processed (with data_at: only if every vertex's data is there; False: nothing done)."""
        if verts.size == 0:
            return True
        if not _queue.done(verts, procs, who, cost, self.step, self.finished, *data_at):
            return False  # (numpy's steps in C)
        self.nheld -= int(verts.size)
        if self.trace is not None:
            for i in who.tolist():
                p = int(self.mine[i])
                self.trace.append(("proc", self.step, p, verts[procs == p], p))
        return True

    def _select_all(self) -> None:
        """Every processor chooses its next chunk: a prefix of its sorted queue worth one check of processing."""
        t0 = time.perf_counter()
        self._clean()
        # take the vertices whose preceding load (in priority order) is below the credit; the last may overdraw
        # (each processor's queue advanced past its chunk in C, by its head index); then the queues' sums, credit
        # and staging; the chosen vertices leave their queues (numpy's steps in C); §5.4: a delete-min costs
        # O(log V_p + δ_v) (queue lengths before the chunks left)
        if self.native:  # ready, chunks and take in one C call, the count there too
            chosen = _queue.choose(self.chosen, self.B, self.WINDOW)
            if chosen is None:
                self._tick("selection", t0)
                return
            # due as choose's result itself, read in C (_queue.done_chosen, fetch_chunks; the trace: its arrays)
            self.due[self.step + 2] = chosen if self.trace is None else _chunks(chosen)
        else:  # the reference path: the three calls, and the count in numpy
            who = np.frombuffer(_queue.ready(self.credit, self.B, self.qlen), np.int64)
            if not who.size:
                self._tick("selection", t0)
                return
            act = [self.vlist[i] for i in who.tolist()]
            A = len(act)
            buf = _queue.chunks(None, None, self.credit[who], self.qs[who], self.WINDOW, act, self.head, who)
            k, rest = np.frombuffer(buf, np.int64, A), np.frombuffer(buf, np.float64, A, 8 * A)
            got = len(buf) // 16 - A
            chosen = np.frombuffer(buf, np.int64, got, 16 * A)
            seg = np.frombuffer(buf, np.int64, got, 8 * (2 * A + got))
            buf = _queue.take(who, k, rest, chosen, seg, self.mine, self.qs, self.qlen, self.credit, self.stg,
                              self.nstaged, self.queued, self.pinned)
            procs, cost = np.frombuffer(buf, np.int64, got), np.frombuffer(buf, np.float64, A, 8 * got)
            self.due[self.step + 2] = (chosen, procs, who, cost)
            ql = np.zeros(len(self.vlist))
            ql[who] = self.qlen[who] + k
            at = self.lix[procs]
            self.ops[SEL] += np.bincount(at, _log2(ql[at]) + self.deg[chosen],
                                         minlength=ql.size)
        t0 = self._tick("selection", t0)
        # §3.5: request the data of the chosen vertices and of the adjacent vertices queued at the same processor
        if self.native:  # the requests, their marks, messages and counts below in one C call
            buf = _queue.fetch_chunks(chosen, self.fetching, self.prm.fetch_adjacent, self.out.msgs, msg.FETCH, self.P,
                                      msg.WORD)
            if self.trace is None:
                self._tick("migration", t0)
                return
        else:
            g = self.g
            buf = _queue.requests(chosen, procs, self.queued, self.pinned, self.data_at, self.requested, self.holder,
                                  g.xadj, g.adjncy, self.prm.fetch_adjacent)
        r, m = np.frombuffer(buf, np.int64, 2).tolist()
        ids, rq = np.frombuffer(buf, np.int64, m, 16), np.frombuffer(buf, np.int64, m, 16 + 8 * m)
        if self.trace is not None:
            nb, pr = ids[r:], rq[r:]
            for p in np.unique(pr).tolist():
                self.trace.append(("prefetch", self.step, p, nb[pr == p], p))
        if ids.size and not self.native:
            self.requested[ids] = True
            for p, part in _groups(rq, ids):
                v = self.vp[p]
                self._fetch(v, part, None, p)  # to where p's view has the data
                # §3.5: the paper broadcasts the request, [requester, vertices] to the P - 1 others
                self.bcast[REQ_N, v.i] += self.P - 1
                self.bcast[REQ_B, v.i] += (self.P - 1) * msg.WORD * (2 + part.size)
        self._tick("migration", t0)

    # ------------------------------------------------------------------ main line (Fig. 4)
    def _mainline_all(self) -> None:
        """Fig. 4's checks for every processor at once; only those that act are visited."""
        self._clean()
        # free: no operation passing through, no jobs on their way, not promised; then Balance, Distribute or
        # the thrashing guard: want, or QWgt above MaxTh (cooldown over), or below MinTh
        acts = _queue.acting(self.step, self.acts)
        if acts:
            for p in self.eng.each(self.mine[np.frombuffer(acts, np.int64)].tolist()):
                self._mainline(self.vp[p])

    def _mainline(self, v: VProc) -> None:
        i = v.i
        if self.want[i]:  # thrashing guard (a last-stage node above MaxTh)
            self.want[i] = False
            self._balance(v, overloaded=True)
            return
        L = self.qwgt(v)
        W, maxth = self._wsysll(i), float(self.maxth[i])
        if L > maxth and self.step > self.cooldown[i]:
            # §3: "a load balancing message will also be broadcast ... if distributing the excess
            # jobs will result in other processors exceeding MaxTh"
            if W + (L - W) / max(self.P - 1, 1) > maxth:
                self._balance(v, overloaded=True)
            else:
                self._distribute(v, L)
        elif L < self.minth[i]:
            self._balance(v)

    def _promise(self, v: VProc, op) -> None:
        v.promised = op
        self.prom[v.i] = op is not None

    def _entry(self, v: VProc, op) -> tuple:
        """What p reports in the gather: a row [p, QWgt, flags] (1: below MinTh, 2: free to receive) and, when
        it may receive, the processors holding data adjacent to its queue (from p's view), as the columns
        (receivers, neighbour counts, neighbours) of an ``UP`` message (None when it may not).

        A processor offers itself as a receiver to one operation at a time: once it has
        reported a deficit it is "promised" until the jobs of that operation have arrived,
        so that concurrent operations do not fill the same deficit twice. Only a processor
        that may receive reports its neighbour processors (the plan's sender preference).
        """
        i = v.i
        L = self.qwgt(v)
        free = (v.promised is None or v.promised == op) and self.step > self.prom_until[i]
        req = bool(L < self.minth[i]) and free
        if req or (free and op[3]):  # op[2]: started by an overloaded processor, fills everyone below WSysLL
            self._promise(v, op)
        recv = free and v.promised == op
        row = np.array([[v.p, L, (1 if req else 0) + (2 if recv else 0)]], float)
        if not recv:
            return row, None
        procs = self._holders_at(i)
        return row, (np.array([v.p], np.int64), np.array([procs.size], np.int64), procs)

    def _holders_at(self, i: int) -> np.ndarray:
        """The processors other than p (local index i) holding data adjacent to p's queue, in p's view (in C:
        ``_queue.holders``; the reference path: the view's and the graph's calls)."""
        v = self.vlist[i]
        if self.native:
            h = v.view
            return np.frombuffer(_queue.holders(self.g.xadj, self.g.adjncy, np.ascontiguousarray(v.Q, np.int64),
                                                h.base, h.keys, h.values, self.P, v.p), np.int64)
        procs = v.view.holders(self.g.neighbours_of(v.Q))
        return procs[procs != v.p]

    def _qwgt_at(self, i: int) -> float:
        return self.qwgt(self.vlist[i])

    # ------------------------------------------------------------------ balancing operations
    def _balance(self, v: VProc, overloaded: bool = False) -> None:
        """Balance: start a balancing operation rooted at p (balance message down T_p).

        An operation started by an overloaded processor fills every processor below
        WSysLL; one started by an underloaded processor fills those below MinTh.
        Operations are ordered by (start superstep, root) when they meet (module doc).
        """
        p = v.p
        v.seq += 1
        v.n_balance += 1
        op = (self.step, p, v.seq, bool(overloaded))
        if self.opstate is not None:
            self.opstate.start(v.i, p, op, self.step, self.out)
            return
        if v.promised is None:
            self._promise(v, op)
        self._join(v, op, None)

    def _join(self, v: VProc, op, parent) -> None:
        """p takes part in ``op``: forward the balance message, or (a leaf) start the gather."""
        p, root = v.p, op[1]
        self.busy[v.i] += 1
        for x in v.active:
            if x > op:  # p was in a later operation: it reports a refusal there, and offers its deficit here
                v.lost.add(x)
                if v.promised == x:
                    self._promise(v, None)
        v.active[op] = ()
        kids = self.trees.children(root, p)
        v.ops[op] = {"pending": set(kids), "rows": [], "nbd": [], "nak": False, "joined": [], "parent": parent}
        for k in kids:
            self.out.add(p, k, msg.BAL, op)
        if not kids:
            self._gathered(v, op)

    def _gathered(self, v: VProc, op) -> None:
        """All successors answered: report up (UP with the entries, or NAK), or at the root plan or abandon."""
        st = v.ops.pop(op)
        v.active[op] = tuple(st["joined"])
        nak = st["nak"] or op in v.lost
        if op[1] == v.p:
            if nak:
                self.aborted[v.i] += 1
                self._abort(v, op)
            else:
                gw, entries, arrive = self._plan(v, op, *self._rows(v, op, st))
                self._get_dist(v, op, gw, tuple(zip(*entries)) or ((),) * 4,
                               (tuple(arrive), tuple(arrive.values())) if arrive else ((), ()))
        elif nak:
            self.out.add(v.p, st["parent"], msg.NAK, (*op, 1))
        else:
            self.out.add(v.p, st["parent"], msg.UP, msg.up_fields(op, *self._rows(v, op, st)))

    def _plan(self, v: VProc, op, rows: np.ndarray, nbd: tuple) -> tuple:
        """A gather complete at its root p: WSysLL and the plan (``plan_rows``); p's own DIST's GWLen, plan
        entries (sender, receiver, amount, base) and arrival depths {receiver: depth}."""
        keys, lens, procs = nbd
        gw = float(rows[:, 1].sum())
        ends, procs = np.cumsum(lens).tolist(), procs.tolist()  # each receiver's neighbour processors, a list
        nbd = {k: procs[a:b] for k, a, b in zip(keys.tolist(), [0, *ends], ends)}
        the_plan = plan_rows(rows, nbd, gw, self.P, fill_all=bool(op[3]))
        # when the last jobs for each receiver arrive: one superstep after its last sender is reached
        arrive: dict = {}
        for i, sends in the_plan.items():
            for j, _, _ in sends:
                arrive[j] = max(arrive.get(j, 0), self.trees.depth(op[1], i))
        return gw, [(i, *e) for i, sends in the_plan.items() for e in sends], arrive

    def _planned(self, i: int, op: tuple, rows: bytes, keys: bytes, lens: bytes, procs: bytes) -> np.ndarray:
        """``_plan`` for the gather the C state completed (its rows and neighbour columns as bytes): the fields
        of the root's own DIST, which the C state handles."""
        gw, entries, arrive = self._plan(self.vlist[i], op, np.frombuffer(rows, np.float64).reshape(-1, 3),
                                         tuple(np.frombuffer(x, np.int64) for x in (keys, lens, procs)))
        return np.array(msg.dist_fields(op, gw, entries, list(arrive.items())), np.int64)

    def _jobs_at(self, i: int, m: int, k: int) -> None:
        """Messages m .. k - 1 of the bound batch at processor i: one ``JOB`` (jobs sent to p), or a run of
        ``DJOB`` (GetDistribute), whose jobs are priced at once (nothing between them changes p's view)."""
        v, got = self.vlist[i], self.bound
        if got.code[m] == JOB:
            self._accept_jobs(v, got.words(m))
            return
        r = k - m  # the run's origins, sizes, offsets of each message's jobs and the jobs, read in C
        run = np.frombuffer(_queue.djobs(got.values, got.columns[1], m, k), np.int64)
        origins, size, offs, jobs = run[:r], run[r:2 * r], run[2 * r:3 * r + 1], run[3 * r + 1:]
        c = costs_if_on(self.g, v.view, self.m, jobs, v.p)
        W, g, p, j = self._wsysll(i) or 0.0, self.g, v.p, 0
        while j < k - m:  # in C up to a message whose jobs p keeps (p's queue is sorted again before the next)
            j, sends, q, kept, sent, guards, s = _queue.distribute(
                g.xadj, g.adjncy, self.trees.csr, p, origins, offs, size, j, jobs, c.wgt, c.comm, c.remap, W,
                self.qwgt(v), float(self.maxth[i]), self.want, self.slot, v.Q, self.holder, self.queued, self.pinned,
                self.cw, self.cc, self.cr, self.stale, self.deg, self.log2, self.ops, i)
            for x, fields in sends:
                self.out.add(p, x, msg.DJOB, fields)
            self.in_transit += sent
            v.n_guard += guards
            if kept:
                v.Q = np.frombuffer(q, np.int64)
                self.nheld += kept
                self._touch(v)
                if not s and self.qwgt(v) > self.maxth[i]:
                    self.want[i] = True  # thrashing guard: balance instead of distributing further
                    v.n_guard += 1

    def _update_at(self, i: int, gw: float) -> None:
        """UpdateLoad at processor i (Fig. 4) with the operation's GWLen (every node of an operation gets the
        same GWLen: the thresholds of each GWLen are computed once a level)."""
        t = self.updated.get(gw)
        if t is None:
            t = self.updated[gw] = th.update_load(gw, self.P, self.const, self.prm.maxth, self.floor_minth)
        self.w[i], self.minth[i], self.maxth[i] = t.wsysll, t.minth, t.maxth

    def _send_at(self, i: int, j: int, amount: float, base: float) -> None:
        self._send_jobs(self.vlist[i], j, amount, base)

    def _rows(self, v: VProc, op, st) -> tuple:
        """The gathered rows and neighbour sets of p's subtree, p's own last."""
        row, nb = self._entry(v, op)
        if nb is not None:
            st["nbd"].append(nb)
        nbd, rows = st["nbd"], st["rows"]
        nbd = nbd[0] if len(nbd) == 1 else tuple(np.concatenate(c) for c in zip(*nbd)) if nbd else (_NONE,) * 3
        return (np.concatenate(rows + [row]) if rows else row), nbd

    def _leave(self, v: VProc, op) -> tuple:
        kids = v.active.pop(op)
        v.lost.discard(op)
        self.busy[v.i] -= 1
        return kids

    def _abort(self, v: VProc, op) -> None:
        """ABORT: release the nodes that joined an abandoned operation."""
        for k in self._leave(v, op):
            self.out.add(v.p, k, msg.ABORT, op)
        if v.promised == op:
            self._promise(v, None)

    def _control(self, v: VProc, src: int, code: int, op: tuple, joined: int) -> None:
        """GetBalance for the fixed-size messages: join or refuse a balance message, a refusal in the gather,
        the release of an abandoned operation."""
        if code == msg.BAL:
            if v.active and min(v.active) < op:
                self.out.add(v.p, src, msg.NAK, (*op, 0))  # in an earlier operation: refuse
            else:
                self._join(v, op, src)
        elif code == msg.NAK:
            st = v.ops[op]
            st["pending"].discard(src)
            st["nak"] = True
            if joined:
                st["joined"].append(src)
            if not st["pending"]:
                self._gathered(v, op)
        else:
            self._abort(v, op)

    def _get_up(self, v: VProc, src: int, op: tuple, words: np.ndarray) -> None:
        """GetBalance, the gather: a successor's rows (GWLen up the tree) and its receivers' neighbours."""
        st = v.ops[op]
        st["pending"].discard(src)
        rows, nbd = msg.read_up(words)
        st["rows"].append(rows)
        st["nbd"].append(nbd)
        st["joined"].append(src)
        if not st["pending"]:
            self._gathered(v, op)

    def _get_dist(self, v: VProc, op, gw: float, the_plan: tuple, arrive: tuple) -> None:
        """The distribution message: UpdateLoad, p's own sends of the plan (sender, receiver, amount, base
        columns), the hold until its planned jobs arrive (receiver, depth columns); the rest down the tree."""
        p, root, i = v.p, op[1], v.i
        self._update_at(i, gw)
        plan = list(zip(*the_plan))  # (sender, receiver, amount, base), in plan order
        for _, j, amount, base in (e for e in plan if e[0] == p):
            self._send_jobs(v, j, amount, base)
        # jobs planned for p arrive one superstep after their sender gets the distribution message
        arr = list(zip(*arrive))  # (receiver, depth of its last sender)
        for _, d in (e for e in arr if e[0] == p):
            self.hold[i] = max(self.hold[i], self.step + d - self.trees.depth(root, p) + 1)
        if v.promised == op:
            self._promise(v, None)
            self.prom_until[i] = self.hold[i]
        kids = self._leave(v, op)
        if kids:
            # each successor gets the part of the plan for its own subtree (senders and receivers in it)
            plan, arr = [e for e in plan if e[0] != p], [e for e in arr if e[0] != p]
            part = {k: ([], []) for k in kids}
            for d, rows in ((0, plan), (1, arr)):
                if rows:
                    for k, e in zip(self.trees.branch(root, p, [e[0] for e in rows]).tolist(), rows):
                        part[k][d].append(e)
            for k in kids:
                self.out.add(p, k, msg.DIST, msg.dist_fields(op, gw, *part[k]))

    def _select(self, v: VProc, q: int, amount: float, L: float, base: float, cap: float) -> np.ndarray:
        """§3.4's selection (``selection.select``) from p's queue of what p may hand over to q: queued at p and
        not pinned, marked in a mask the level keeps (cleared again after)."""
        Q = v.Q
        near_q = self.prm.subset_from == "receiver"
        if self.native:  # the rounds in one C call (selection.rounds), the mask marked and cleared in C
            verts, _, _, ev, d = rounds(self.g, self.m, v.view, Q, self.avail, self.costs, q, amount, L, base, v.rng,
                                        self.prm.subset, ROUNDS, cap, near_q, self.slot, (self.pinned, self.fixed))
        else:
            evaluated: list = []
            self.avail[Q] = ~(self.pinned[Q] | self.fixed[Q])
            try:
                verts, _, _ = select(self.g, self.m, v.view, Q, self.avail, self.costs, q, amount, L, base, v.rng,
                                     self.prm.subset, ROUNDS, cap_p=cap, slot=self.slot, near_q=near_q,
                                     evaluated=evaluated, native=False)
            finally:
                self.avail[Q] = False
            ev, d = sum(evaluated), np.add.reduce(self.deg[verts])
        # §5.4's job migration: ΔCut of each r in R (δ_r), the breadth-first search (|V_mig| + Σ δ_v) and the
        # |V_mig| + 1 removals from the heap ((log V_p + δ_v) each)
        self.ops[BAL, v.i] += ev + verts.size * (1 + self.log2[Q.size]) + 2 * d
        return verts

    def _send_jobs(self, v: VProc, j: int, amount: float, base: float) -> None:
        """Send q = j up to ``amount`` of load (priced on j), never more than p's current excess over WSysLL."""
        L = self.qwgt(v)
        cap = L - self.w[v.i]
        if amount <= 0 or cap <= 0 or v.Q.size == 0:
            return
        verts = self._select(v, j, amount, L, base, cap)
        if verts.size:
            self._drop(v, verts)
            self.out.add(v.p, j, msg.JOB, verts.tolist())

    # ------------------------------------------------------------------ distribution (sender-initiated)
    def _distribute(self, v: VProc, L: float) -> None:
        """Distribute: route the excess over WSysLL down T_p."""
        p = v.p
        W = self._wsysll(v.i)
        kids = self.trees.children(p, p)
        if W is None or not kids or L <= W or v.Q.size == 0:
            return
        self.cooldown[v.i] = self.step + self.cooldown_steps
        v.n_distribute += 1
        verts = self._select(v, kids[0], math.inf, L, -math.inf, L - W)
        if verts.size:
            self._drop(v, verts)
            self.out.add(p, kids[0], msg.DJOB, [p, *verts.tolist()])

    def _get_distribute(self, v: VProc, origin: int, ids: np.ndarray) -> None:
        """GetDistribute: keep what brings p to WSysLL, pass the rest on; thrashing guard at the last stage (the
        reference path: a run of them is one C call, ``_queue.distribute``, in ``_jobs_at``)."""
        p = v.p
        c = costs_if_on(self.g, v.view, self.m, ids, p)  # the jobs priced on p (each on its own)
        self.ops[BAL, v.i] += ids.size + self.deg[ids].sum()  # the split by carves: a search over the jobs
        W = self._wsysll(v.i) or 0.0
        kids, parts = spread(self.g, ids, c.total, W - self.qwgt(v), self.trees.csr(origin), p, self.slot)
        keep = parts[0]
        for q, mine in zip(kids, parts[1:]):
            if mine.size:
                self.in_transit += int(mine.size)
                self.out.add(p, q, msg.DJOB, [origin, *ids[mine].tolist()])
        self._accept_jobs(v, ids[keep], Costs(c.wgt[keep], c.comm[keep], c.remap[keep]))
        if not kids and self.qwgt(v) > self.maxth[v.i]:
            self.want[v.i] = True  # thrashing guard: balance instead of distributing further
            v.n_guard += 1

    # ------------------------------------------------------------------ results
    def release(self) -> None:
        """Let the finished run go by reference counting, without the cyclic collector: every cycle through the run
        (its processors' ``run``, the C state's and the bound calls' references to its methods and processors)
        passes through its attributes, dropped here. Read its figures, thresholds and share first."""
        self.__dict__.clear()

    def thresholds(self) -> list:
        """Every processor's (WSysLL, MinTh, MaxTh) at the end of the level, in processor order (all ranks)."""
        return [tuple(t) for t in self.eng.allgather({v.p: (self._wsysll(v.i), float(self.minth[v.i]),
                                                            float(self.maxth[v.i])) for v in self.vlist})]

    def figures(self) -> dict:
        """Per-level figures of the run (identical on every rank, timings aside)."""
        stats = self.eng.allgather({v.p: (float(self.proc_cost[v.i]), int(self.last_busy[v.i]), v.n_balance,
                                          v.n_distribute, v.n_guard, int(self.aborted[v.i]), *self.ops[:, v.i].tolist(),
                                          *self.bcast[:, v.i].tolist()) for v in self.vlist})
        cost = np.array([s[0] for s in stats])
        ops = np.array([s[6:9] for s in stats]).sum(axis=0)
        bcast = np.array([s[9:] for s in stats]).sum(axis=0)
        last = max(s[1] for s in stats)
        steps = last + 1
        tau = 1.0 / self.prm.f
        return {
            "sbn_makespan_s": steps * tau,
            "sbn_supersteps": int(self.step),
            "sbn_idle_pct": float(100.0 * max(0.0, 1 - cost.sum() / (self.P * max(steps, 1) * max(self.B, 1e-300)))),
            "sbn_balance_ops": int(sum(s[2] for s in stats)),
            "sbn_aborted_ops": int(sum(s[5] for s in stats)),
            "sbn_distribute_ops": int(sum(s[3] for s in stats)),
            "sbn_thrashing_guards": int(sum(s[4] for s in stats)),
            # Table 9 on counts: §5.4's operations of each phase, and as a share of the processing (QWgt units)
            **{f"sbn_ops_{c}": float(x) for c, x in zip(OPS, ops)},
            "sbn_ops_processing": float(cost.sum()),
            **{f"sbn_{c}_ops_pct": float(100.0 * x / max(cost.sum(), 1e-300)) for c, x in zip(OPS, ops)},
            # §3.5's requests and locate messages: as sent (targeted), and as the paper broadcasts them
            **{name: float(x) for name, x in zip(BCAST, bcast)},
        }


_LISTS = ("start", "end", "size", "code", "src")  # _Received's lists of a native batch


class _Received:
    """The ``sbn`` messages one exchange delivered, read message by message in delivery order (the reference path's;
    :func:`_received` reads them natively)."""

    def __init__(self, b):
        self.values = b.values
        n = b.src.size  # (len(b), without its frame)
        self.at: dict = {}  # local processor -> the indices of its messages
        self.ops_only = frozenset()
        if not n:
            self.code = self.src = self.ops = self.flag = self.size = ()
            self.columns = _NO_COLUMNS
            return
        off = b.offsets
        self.columns = (b.values, off, b.src)  # for the C state's bind (int64 columns, checked there)
        self.start, self.end = off[:-1].tolist(), off[1:].tolist()
        self.size = (off[1:] - off[:-1]).tolist()  # words, the code included
        code = b.values[off[:-1]]
        self.code, self.src = code.tolist(), b.src.tolist()
        dst = b.dst
        first = np.concatenate(((True,), dst[1:] != dst[:-1])).nonzero()[0]  # each destination's first message
        cuts = first[1:].tolist()
        self.at = dict(zip(dst[first].tolist(), map(range, [0, *cuts], [*cuts, n])))
        # the op (the first four fields of the messages that carry one; overloaded as 0/1) and NAK's flag
        at = np.minimum(off[:-1, None] + np.arange(1, 6), b.values.size - 1)
        self.ops = list(zip(*b.values[at[:, :4]].T.tolist()))
        self.flag = b.values[at[:, 4]].tolist()

    def __getattr__(self, name: str):
        """A native batch's lists, made (in C, all five) when one is first read."""
        if name not in _LISTS or "dst" not in self.__dict__:
            raise AttributeError(name)
        self.start, self.end, self.size, self.code, self.src = _queue.received(*self.columns, self.dst, msg.FETCH,
                                                                               True)[:5]
        return self.__dict__[name]

    def words(self, m: int) -> np.ndarray:
        """Message m's fields (after its code)."""
        return self.values[self.start[m] + 1:self.end[m]]


def _received(b, native: bool = True) -> _Received:
    """A batch of ``sbn`` messages as a :class:`_Received`. ``native``: the balance kind's messages are the C state's
    (no ops or flags read here; ``ops_only``, the processors that received nothing else) and the lists of the
    messages (start, end, size, code, src) are made when first read (most supersteps need none: the C calls read the
    batch's columns); the runs, the processors and the fields in one C call (``_queue.received_in``), and one
    shared empty reading when nothing came."""
    if not native:
        return _Received(b)
    return _queue.received_in(_Received, b, msg.FETCH) if b.src.size else _NOTHING


_NOTHING = _Received(Batch.empty())  # a superstep's sbn messages when none came (never changed: read only)


def _rows_by_dst(b) -> dict:
    """``{dst: [rows, ...]}`` of a delivered batch, each destination's messages in delivery order (``by_dst``
    without the senders: the views of ``values`` the offsets cut): the reference path's locate messages."""
    if not len(b):
        return {}
    out: dict = {}
    off, values = b.offsets.tolist(), b.values
    for d, a, e in zip(b.dst.tolist(), off[:-1], off[1:]):
        out.setdefault(d, []).append(values[a:e])
    return out


def _chunks(buf: bytearray) -> tuple:
    """``_queue.choose``'s result as arrays: (chosen, their processors, who chose, each one's cost)."""
    A, got = np.frombuffer(buf, np.int64, 2).tolist()
    who, cost = np.frombuffer(buf, np.int64, A, 16), np.frombuffer(buf, np.float64, A, 16 + 16 * A)
    at = 16 + 24 * A
    return np.frombuffer(buf, np.int64, got, at), np.frombuffer(buf, np.int64, got, at + 8 * got), who, cost


def _log2(k):
    """log2 of a heap's size (at least 1: a heap of one still costs a step)."""
    return np.log2(np.maximum(k, 2))


def _groups(key: np.ndarray, ids: np.ndarray) -> list:
    """``ids`` grouped by ``key``: [(key, its ids in their order), ...] in increasing key (in C: ``_queue.groups``,
    a stable sort by key)."""
    out = np.frombuffer(_queue.groups(key, ids), np.int64)
    g = int(out[0])
    keys, cuts, grouped = out[1:1 + g].tolist(), out[1 + g:2 + 2 * g].tolist(), out[2 + 2 * g:]
    return [(h, grouped[a:b]) for h, a, b in zip(keys, cuts, cuts[1:])]


def boundary_depth(g, owner: np.ndarray) -> np.ndarray:
    """Graph distance of every vertex to the nearest vertex with a neighbour on another processor (a
    breadth-first search in C, ``_queue.depth``; vertices it does not reach get the largest distance + 1).

    The tie-break of the priority queue among equal (Comm + Remap) / Wgt: deeper
    vertices first, so that what stays queued (and can still migrate) is the band
    along the partition boundary (§3.3: "internal vertices are processed before
    those on partition boundaries").
    """
    return np.frombuffer(_queue.depth(g.xadj, g.adjncy, np.ascontiguousarray(owner, np.int64)), np.int64)


def plan(entries, gwlen: float, P: int, fill_all: bool = False) -> dict:
    """:func:`plan_rows` for entries given as tuples (p, QWgt, below MinTh[, neighbour processors, free])."""
    rows = np.array([[e[0], e[1], (1 if e[2] else 0) + (2 if (len(e) < 5 or e[4]) else 0)] for e in entries], float)
    nbd = {e[0]: np.asarray(e[3], np.int64).tolist() for e in entries if len(e) > 3}
    return plan_rows(rows.reshape(-1, 3), nbd, gwlen, P, fill_all)


def plan_rows(rows: np.ndarray, nbd: dict, gwlen: float, P: int, fill_all: bool = False) -> dict:
    """The root's distribution plan: {sender: [(receiver, amount, receiver's load so far), ...]}.

    ``rows``: one [p, QWgt, flags] per processor (flags 1: below MinTh, 2: free to receive);
    ``nbd``: p -> the processors holding data adjacent to p's queue (a sequence of ints). WSysLL = ceil(GWLen / P);
    senders are the processors above WSysLL, receivers the processors that reported
    QWgt < MinTh (every free processor below WSysLL when ``fill_all``: an operation started
    by an overloaded processor), filled up to WSysLL. Receivers are served in order of
    decreasing deficit; each takes first from the senders that are its neighbours in the
    mesh (they share data-adjacent vertices, so the moved vertices can join the receiver's
    region instead of forming islands), largest surplus first, then from the others. Ties
    by processor number.
    """
    W = math.ceil(gwlen / P - 1e-9)
    ids, L, flags = rows[:, 0].astype(np.int64), rows[:, 1], rows[:, 2].astype(np.int64)
    s_mask = L > W
    S, surplus = ids[s_mask], (L - W)[s_mask]
    o = np.argsort(S)
    S, surplus = S[o], surplus[o]
    r_mask = (((flags & 1) > 0) | (fill_all & ((flags & 2) > 0))) & (L < W)
    R, RL = ids[r_mask], L[r_mask]
    ro = np.lexsort((R, -(W - RL)))
    rev: dict = {}  # receiver -> senders that reported it as a neighbour
    for i in S.tolist():
        for q in nbd.get(i, ()):
            rev.setdefault(q, []).append(i)
    # the senders with something to give, by (largest surplus, number): a heap whose entry for a sender is
    # replaced when its surplus falls (a popped entry whose surplus is not the sender's now is dropped)
    Sl, sur = S.tolist(), surplus.tolist()
    at = {x: k for k, x in enumerate(Sl)}
    heap = [(-x, Sl[k], k) for k, x in enumerate(sur) if x > 1e-9]
    heapq.heapify(heap)
    out: dict = {}

    def give(k: int, j: int, need: float, base: float) -> tuple[float, float]:
        """Sender k fills what it can of receiver j's need; its heap entry is renewed if it has more."""
        amt = min(need, sur[k])
        out.setdefault(Sl[k], []).append((j, amt, float(base)))
        sur[k] -= amt
        if sur[k] > 1e-9:
            heapq.heappush(heap, (-sur[k], Sl[k], k))
        return need - amt, base + amt

    for j, base in zip(R[ro].tolist(), RL[ro].tolist()):
        need = W - base
        near = {at[x] for x in nbd.get(j, ()) if x in at} | {at[x] for x in rev.get(j, ())}
        for k in sorted(near, key=lambda k: (-sur[k], Sl[k])):  # the receiver's neighbours first
            if need <= 1e-9:
                break
            if sur[k] > 1e-9:
                need, base = give(k, j, need, base)
        aside = []
        while heap and need > 1e-9:  # then the others
            e = heapq.heappop(heap)
            if -e[0] != sur[e[2]]:
                continue
            if e[2] in near:
                aside.append(e)
            else:
                need, base = give(e[2], j, need, base)
        for e in aside:
            heapq.heappush(heap, e)
    return out
