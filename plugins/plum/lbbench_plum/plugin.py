"""lbbench hooks for PLUM (SBN paper §4; MinEX paper §1): ``plum``, ``plum-pmetis``, ``plum-dmetis``.

One level (roles partition, remap, accept; the runner then migrates eagerly,
as PLUM does):

1. partition (§4.2): PMeTiS (global, from scratch) or DMeTiS (diffusive, from
   the current partition) into F*P partitions, computed on the host rank and
   broadcast;
2. remap (§4.3): the similarity matrix S is gathered on the engine from every
   vproc's row, the host maps partitions to processors (PLUM's heuristic or the
   optimal assignment) and sends the mapping to every vproc;
3. accept (§4.4): gain = (MaxQwgt before - MaxQwgt after) x iterations x
   work_s against cost = gamma x MaxSR + O, with gamma and O fitted to the
   (MaxSR, migration time) pairs of the run's earlier accepted levels
   (``ctx.previous``); rejected -> the old assignment stays.

What crosses hooks and levels is the typed :class:`PlumMemory`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from harness import Algorithm, check_params, hookimpl, implements, qwgt_maxsr

from . import costmodel, partitioners, reassign, similarity


@dataclass
class PlumMemory:
    """PLUM's per-run state: the F*P partition labels of the current distribution, the cost-model pairs,
    and this level's proposal on its way from partition to accept."""

    labels: np.ndarray | None = None       # labels describing the distribution the level starts from
    labels_proc: np.ndarray | None = None  # their processors (labels_proc[labels] == owner)
    pairs: list = field(default_factory=list)  # (MaxSR, seconds) of the earlier accepted migrations
    cur_labels: np.ndarray | None = None
    cur_labels_proc: np.ndarray | None = None
    parts: np.ndarray | None = None
    proc: np.ndarray | None = None


DEFAULTS = {
    "partitioner": "pmetis",   # pmetis | dmetis (multilevel diffusion) | scotch (Scotch's repart)
    "remapper": "heuristic",   # heuristic | optimal
    "F": 1,                    # partitions per processor (§4.3, Fig. 7 uses 2)
    "iterations": 10,          # solver iterations until the next adaptation (accept rule)
    "work_s": 1e-6,            # seconds per unit of QWgt per solver iteration
    "gamma": -1.0,             # seconds per unit of MaxSR; < 0: least-squares fit
    "overhead": -1.0,          # O in seconds; < 0: least-squares fit
    "timing": "modelled",      # time fitted: engine's modelled migration time, or wall
    "ufactor": 30,             # METIS load-imbalance tolerance (PMeTiS), thousandths
    "emrat": 1.0,              # Scotch migration cost per unit rwgt relative to edge cut (partitioner=scotch)
}
FIXED = {"plum-pmetis": "pmetis", "plum-dmetis": "dmetis"}
NAMES = ("plum", *FIXED)
CHOICES = {"partitioner": ("pmetis", "dmetis", "scotch"), "remapper": tuple(reassign.REMAPPERS),
           "timing": ("modelled", "wall")}


@hookimpl
def register_algorithms(register):
    roles = ("partition", "remap", "accept")
    kw = dict(family="global", roles=roles, memory=PlumMemory)
    register(Algorithm("plum", params=dict(DEFAULTS), validate=lambda p: settings("plum", p), **kw,
                       description="PLUM: repartition (PMeTiS, DMeTiS or Scotch), similarity-matrix processor "
                                   "reassignment, remap only when the gain exceeds gamma*MaxSR+O"))
    short = {k: v for k, v in DEFAULTS.items() if k not in ("partitioner", "ufactor", "emrat")}
    register(Algorithm("plum-pmetis", params={**short, "ufactor": DEFAULTS["ufactor"]}, **kw,
                       validate=lambda p: settings("plum-pmetis", p),
                       description="PLUM with PMeTiS (METIS k-way from scratch), SBN paper Table 6"))
    register(Algorithm("plum-dmetis", params=short, **kw, validate=lambda p: settings("plum-dmetis", p),
                       description="PLUM with DMeTiS (multilevel diffusion: coarsen within partitions, "
                                   "diffuse on the coarsest graph, refine in place), SBN paper Table 7"))


def settings(algorithm: str, params: dict) -> dict:
    """The algorithm's parameters, checked; ``partitioner`` fixed by the short names."""
    p = {**DEFAULTS, **params}
    p["partitioner"] = FIXED.get(algorithm, p["partitioner"])
    for key, allowed in CHOICES.items():
        if p[key] not in allowed:
            raise ValueError(f"{algorithm}: {key}={p[key]!r} is not one of {', '.join(allowed)}")
    if int(p["F"]) != p["F"] or p["F"] < 1:
        raise ValueError(f"{algorithm}: F must be a positive integer, got {p['F']}")
    if p["iterations"] < 0 or p["work_s"] < 0:
        raise ValueError(f"{algorithm}: iterations and work_s must be >= 0")
    if (p["gamma"] < 0) != (p["overhead"] < 0):
        raise ValueError(f"{algorithm}: give both gamma and overhead (>= 0), or neither (fit them)")
    if p["emrat"] < 0 or p["ufactor"] < 1:
        raise ValueError(f"{algorithm}: emrat must be >= 0 and ufactor >= 1")
    check_params(algorithm, p, BOUNDS)
    return p


# upper bounds from what can finish (F x P partitions; iterations of the modelled solver)
BOUNDS = {"F": (1, 64), "iterations": (0, 1_000_000), "work_s": (0.0, 1e3), "gamma": (-1.0, 1e6),
          "overhead": (-1.0, 1e6), "ufactor": (1, 1000), "emrat": (0.0, 1e6)}


def current_labels(ctx, F: int) -> tuple[np.ndarray, np.ndarray]:
    """The current distribution as F*P partition labels and their processors (``proc[labels] == owner``).

    With F = 1 the owner itself. With F > 1 the previous level's partitions
    (carried to this level's vertices through ``level.parent``) while they still
    describe the owners; otherwise each processor's vertices are split, in
    vertex order, into F consecutive pieces of about equal pwgt.
    """
    owner = np.asarray(ctx.state.owner, np.int64)
    if F == 1:
        return owner, np.arange(ctx.P)
    labels, lproc = ctx.memory.labels, ctx.memory.labels_proc
    if labels is not None and ctx.level.parent is not None:
        labels = labels[np.asarray(ctx.level.parent)]
    if (labels is not None and labels.size == owner.size and lproc.size == F * ctx.P
            and np.array_equal(lproc[labels], owner)):
        return labels, lproc
    g = ctx.graph
    order = np.argsort(owner, kind="stable")
    w = np.maximum(g.pwgt[order], 1).astype(float)
    csum = np.cumsum(w)
    starts = np.searchsorted(owner[order], np.arange(ctx.P + 1))
    base = np.concatenate([[0.0], csum])[starts[:-1]]          # weight before each processor's block
    tot = np.bincount(owner, weights=w, minlength=ctx.P)
    o = owner[order]
    frac = (csum - w - base[o]) / np.maximum(tot[o], 1e-300)  # weight fraction before the vertex
    out = np.empty_like(owner)
    out[order] = o * F + np.minimum((frac * F).astype(np.int64), F - 1)
    return out, np.arange(F * ctx.P) // F


def _seed(ctx) -> int:
    return int(ctx.rng("partition").integers(2**31 - 1))


@implements(*NAMES)
def partition(ctx):
    p = settings(ctx.algorithm, ctx.params)
    F, eng, g, mem = int(p["F"]), ctx.engine, ctx.graph, ctx.memory
    nparts = F * ctx.P
    mem.cur_labels, mem.cur_labels_proc = current_labels(ctx, F)
    parts = None
    if eng.is_root:
        if p["partitioner"] == "pmetis":
            parts = partitioners.pmetis(g, nparts, _seed(ctx), ufactor=int(p["ufactor"]))
        elif p["partitioner"] == "dmetis":
            parts = partitioners.dmetis(g, mem.cur_labels, nparts, _seed(ctx))
        else:
            parts = partitioners.scotch(g, mem.cur_labels, nparts, _seed(ctx), emrat=float(p["emrat"]))
    return eng.bcast(parts, root=0)


@implements(*NAMES)
def remap(ctx, parts):
    p = settings(ctx.algorithm, ctx.params)
    F, eng, mem = int(p["F"]), ctx.engine, ctx.memory
    parts = np.asarray(parts, np.int64)
    S = similarity.gather_similarity(eng, ctx.state.home, parts, ctx.graph.rwgt, F * ctx.P)
    proc = summary = None
    if S is not None:
        proc = reassign.REMAPPERS[p["remapper"]](S, F)
        summary = {"plum_kept": reassign.kept(S, proc), "plum_kept_identity": reassign.kept(S, np.arange(S.shape[1]) // F),
                   "plum_maxsr_similarity": reassign.maxsr_from_similarity(S, proc)}
    proc = similarity.scatter_mapping(eng, proc)
    ctx.record.update(eng.bcast(summary, root=similarity.HOST))
    mem.parts, mem.proc = parts, proc
    return proc


def learn(mem: PlumMemory, previous: dict | None, timing: str) -> None:
    """Add the previous level's (MaxSR, migration seconds) pair when PLUM remapped there (§4.4's fit)."""
    if not previous or not previous.get("plum_accepted") or previous.get("status") != "ok":
        return
    msr = float(previous.get("maxsr", 0.0))
    secs = float(previous.get("time_migration_s" if timing == "wall" else "modelled_migration_s", 0.0))
    if msr > 0:
        mem.pairs.append((msr, secs))


def cost_model(ctx, p: dict) -> costmodel.CostModel:
    if p["gamma"] >= 0:
        return costmodel.CostModel(float(p["gamma"]), float(p["overhead"]), "given")
    return costmodel.fit(ctx.memory.pairs, ctx.machine)


@implements(*NAMES)
def accept(ctx, proposed):
    p = settings(ctx.algorithm, ctx.params)
    g, m, before, mem = ctx.graph, ctx.machine, ctx.state, ctx.memory
    learn(mem, ctx.previous, p["timing"])
    after = proposed.migrated()
    loads_after, moved = qwgt_maxsr(g, before, after, m)
    q_before, q_after = float(qwgt_maxsr(g, before, before, m)[0].max()), float(loads_after.max())
    msr = moved["maxsr"]
    model = cost_model(ctx, p)
    gain_s = costmodel.gain(q_before, q_after, int(p["iterations"]), float(p["work_s"]))
    cost_s = model.cost(msr)
    ok = costmodel.decide(gain_s, cost_s)
    if int(p["F"]) > 1:  # the labels that describe the distribution the next level starts from
        keep = (mem.parts, mem.proc) if ok and mem.parts is not None else (mem.cur_labels, mem.cur_labels_proc)
        mem.labels, mem.labels_proc = keep
    mem.cur_labels = mem.cur_labels_proc = mem.parts = mem.proc = None
    ctx.record.update({
        "plum_accepted": bool(ok), "plum_gain_s": gain_s, "plum_cost_s": cost_s,
        "plum_gamma": model.gamma, "plum_overhead_s": model.overhead, "plum_model": model.source,
        "plum_maxsr_proposed": msr, "plum_maxqwgt_before": q_before, "plum_maxqwgt_proposed": q_after,
    })
    return ok


@hookimpl
def register_reports(register):
    from .reports import register as add_reports

    add_reports(register)
