"""asv: the ratios issue 26 sets targets on (tracked, not asserted).

* ``HeadlineRatio``: ``lbbench compare --plugins sbn,minex,plum -P 32`` over
  ``lbbench compare --plugins metis -P 32``, timed in alternation (median of
  three each; cold result store, cached workload), as the issue measured it:
  through the command line (target: at most 2x), and in one process
  (``harness.run.api.compare``, no start-up in either: a stricter ratio);
  ``python3 -m benchmarks.ratios`` also prints the CPU of both and where it
  goes (:func:`split`: imports, plugin discovery, the levels' read, the
  initial partition, each method's hooks, metrics, store writes).
* ``RankBalance``: one SBN level at P = 256 through the runner under
  ``mpiexec -n R`` (levels 1-2 of ``shock``: level 2 is laid out by level 1's
  measured work): ``rank_balance`` of level 2 (target >= 0.85 at R = 2 and 4)
  and the busy CPU summed over the ranks over one rank's (issue 37's targets: at
  most 1.10x at R = 2, 1.15x at R = 4 and 1.30x at R = 8 on dedicated cores);
  medians of five runs of each R, taken in turn.
* ``LevelsSpeedup``: SBN's levels 1-3 at P = 2,048 on R ranks against one (the
  levels' cell time; target at least 10x at R = 16 on 16 dedicated cores).
* ``SuperstepBound``: the speed-up R ranks could give SBN's levels 1-2 at
  P = 2,048 at most, from the vprocs' CPU per superstep on one process.
* ``EngineSupersteps``: the engine's own CPU per superstep in SBN's use of it: SBN's calls to the engine at
  P = 256, levels 1-2 of ``shock`` (sends, ``each`` loops, exchanges, reads; 4,116 supersteps), recorded on one
  process and replayed without SBN on R ranks (each rank the sends of its vprocs; the cyclic collector
  paused, as in a level's hooks), outside the MPI calls, per rank (the busiest); the best of five replays.
* ``AmrBoxGraphs``: the 66 box graphs of ``bl`` read back from the workload
  cache (the second ``compare`` on ``bl``).
"""
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time

_LEVELS = r"""
import json, sys, tempfile
from harness.run.api import compare
from harness.engine.vprocs import world
P, L = int(sys.argv[1]), int(sys.argv[2])
df = compare("sbn", workload="shock", P=P, levels=list(range(1, L + 1)), out=tempfile.mkdtemp(), cache=False)
c = world()
if c is None or c.Get_rank() == 0:
    print("RESULT " + json.dumps({k: df[k].tolist() for k in
                                  ("level", "ranks", "rank_balance", "rank_busy_s_mean", "rank_busy_s_max",
                                   "rank_critical_s", "rank_step_balance", "time_total_s", "owners_hash",
                                   "moved_weight", "balance_messages")}))
"""


def _levels(ranks: int, P: int, L: int) -> dict:
    """SBN's levels 1..L of ``shock`` at P under ``mpiexec -n ranks``: per-level columns of the result rows."""
    from harness import load_workload
    from harness.testing import mpirun

    load_workload("shock", {}, 0)
    fd, script = tempfile.mkstemp(suffix=".py")
    with os.fdopen(fd, "w") as f:
        f.write(_LEVELS)
    try:
        res = mpirun(ranks, script, str(P), str(L), timeout=3600)
    finally:
        os.unlink(script)
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    if res.returncode != 0 or len(line) != 1:
        raise RuntimeError(res.stderr[-2000:])
    return json.loads(line[0][len("RESULT "):])


def _same_figures(runs: list[dict]) -> None:
    keys = ("owners_hash", "moved_weight", "balance_messages")
    if any(tuple(r[k] for k in keys) != tuple(runs[0][k] for k in keys) for r in runs):
        raise RuntimeError("figures differ between rank counts")


def _compare(methods, P, out):
    from harness.run.api import compare

    return compare(methods, workload="shock", P=P, cache=False, out=out)


def _compare_cli(methods, P, out):
    subprocess.run([sys.executable, "-m", "harness.present.cli", "compare", "--plugins", methods, "-P", str(P), "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


HEAD, METIS = "sbn,minex,plum", "metis"


def _paired(run, out, rounds: int = 3) -> dict:
    """The main command and the METIS-only run in alternation (``rounds`` each, a new store each time): their
    wall seconds and, for commands run as child processes, their CPU seconds (user + system)."""
    got: dict = {HEAD: [], METIS: [], f"{HEAD} cpu": [], f"{METIS} cpu": []}
    for _ in range(rounds):
        for methods in (HEAD, METIS):
            c, t = _children_cpu(), time.perf_counter()
            run(methods, 32, tempfile.mkdtemp(dir=out))
            got[methods].append(time.perf_counter() - t)
            got[f"{methods} cpu"].append(_children_cpu() - c)
    return got


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _alternate(run, out) -> float:
    got = _paired(run, out)
    return statistics.median(got[HEAD]) / statistics.median(got[METIS])


# one command in a fresh process, its CPU split by where it goes (exclusive seconds; ``python -c`` start excluded)
_SPLIT = r"""
import json, sys, time
from collections import Counter
cpu = time.process_time
t0 = cpu()
import harness.present.cli as cli
from harness.contract import plugins
from harness.run import api, runner
from harness.store.results import Store
t1 = cpu()
plugins.algorithms(), plugins.workloads()
t2 = cpu()
spent, stack = Counter(), []

def timed(owner, name, label):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        key = label(*args) if callable(label) else label
        stack.append(key)
        t = cpu()
        try:
            return inner(*args, **kwargs)
        finally:
            d = cpu() - t
            stack.pop()
            spent[key] += d
            if stack:
                spent[stack[-1]] -= d
    setattr(owner, name, wrapper)

timed(runner, "run_level", lambda roles, *a: "hooks of " + "/".join(sorted({s.name for s in roles.values()})))
timed(runner, "metrics_row", "metrics")
timed(Store, "put", "store writes")
timed(api, "load_levels", "levels read")
timed(api, "initial_state", "initial partition")
timed(api, "run_cell", "cells' accounting and rows")
cli.main(sys.argv[1:])
t3 = cpu()
print("SPLIT " + json.dumps({"imports": t1 - t0, "plugin discovery": t2 - t1, **spent,
                             "the rest (tables, store reads, ...)": t3 - t2 - sum(spent.values())}))
"""


def split(methods: str, out: str) -> dict:
    """Where one ``lbbench compare --plugins methods -P 32`` spends its CPU, by part (seconds, a new store)."""
    res = subprocess.run([sys.executable, "-c", _SPLIT, "compare", "--plugins", methods, "-P", "32", "-q",
                          "--out", tempfile.mkdtemp(dir=out)], capture_output=True, text=True, check=True)
    line = [x for x in res.stdout.splitlines() if x.startswith("SPLIT ")]
    return json.loads(line[-1][len("SPLIT "):])


_REPLAY = r"""
import json, pickle, sys, time
import numpy as np
from harness.engine.vprocs import Engine, world
from harness.run.runner import collector_paused
world()
P, calls = pickle.load(open(sys.argv[1], "rb"))
eng = Engine(P)
li, ops = eng.local_index, []
for c in calls:  # this rank's share: the sends of its vprocs, the loops over them
    if c[0] == "send":
        tag, src, dst, values, counts, nbytes, kind = c[1:]
        n = max(np.size(src), np.size(dst))
        m = li[np.broadcast_to(src, (n,))] >= 0
        if m.any():
            pick = lambda a: a if a is None or isinstance(a, str) or np.size(a) == 1 else a[m]
            if values is not None:
                values = values[np.repeat(m, np.ones(n, np.int64) if counts is None else np.broadcast_to(counts, (n,)))]
            ops.append(("send", tag, pick(src), pick(dst), values, pick(counts), pick(nbytes), pick(kind)))
    elif c[0] == "each":
        ops.append(("each", [p for p in c[1] if li[p] >= 0]))
    else:
        ops.append(c)
steps = sum(1 for c in ops if c[0] == "exchange")


def replay():
    eng.reset_counters()
    send = eng.sender()  # (as SBN's flush sends: the one C call, send itself for what it does not take)
    t, net = time.process_time(), eng._net.cpu if eng._net else 0.0
    for c in ops:
        if c[0] == "send":
            if send(*c[1:]) is not None:
                eng.send(*c[1:])
        elif c[0] == "exchange":
            eng.exchange(c[1])
        elif c[0] == "received":
            eng.received(c[1])
        else:
            for p in eng.each(c[1]):
                pass
    return (time.process_time() - t - ((eng._net.cpu if eng._net else 0.0) - net)) / steps * 1e6


with collector_paused():  # as the runner runs a level's hooks
    best = min(replay() for _ in range(5))
got = eng.gather_ranks(best)
if eng.is_root:
    print("RESULT " + json.dumps({"us": max(got), "supersteps": steps}))
"""


class EngineSupersteps:
    """The engine's CPU per superstep (outside the MPI calls, the busiest rank) as SBN uses it: SBN's engine
    calls recorded at P = 256 (levels 1-2 of ``shock``) and replayed without SBN under ``mpiexec -n R``."""

    params = [1, 2]
    param_names = ["ranks"]
    timeout = 900
    P = 256

    def setup_cache(self, ranks=None):
        import numpy as np

        from harness.engine.vprocs import Engine
        from harness.run.api import compare
        from harness.testing import mpirun

        calls, real = [], {k: getattr(Engine, k) for k in ("send", "sender", "exchange", "each", "received")}

        def record(tag, *args):
            calls.append(("send", tag, *(a if a is None or isinstance(a, str) else np.array(a) for a in args)))

        def send(eng, tag, src, dst, values=None, counts=None, nbytes=None, kind="balance"):
            record(tag, src, dst, values, counts, nbytes, kind)
            return real["send"](eng, tag, src, dst, values, counts, nbytes, kind)

        def sender(eng):  # a kernel's sends (replayed as sends): queued by the engine's own sender, recorded
            fast = real["sender"](eng)

            def recorded(*args):
                got = fast(*args)
                if got is None:  # (else the kernel calls send, which records it)
                    record(*args)
                return got
            return recorded

        def each(eng, vps):
            calls.append(("each", list(vps)))
            return real["each"](eng, calls[-1][1])

        def exchange(eng, tally=None):
            calls.append(("exchange", tally))
            return real["exchange"](eng, tally)

        def received(eng, tag):
            calls.append(("received", tag))
            return real["received"](eng, tag)

        Engine.send, Engine.sender, Engine.each, Engine.exchange = send, sender, each, exchange
        Engine.received = received
        try:
            compare("sbn", workload="shock", P=self.P, levels=[1, 2], out=tempfile.mkdtemp(), cache=False)
        finally:
            for k, f in real.items():
                setattr(Engine, k, f)
        files = [tempfile.mkstemp(suffix=s) for s in (".pkl", ".py")]
        try:
            with os.fdopen(files[0][0], "wb") as f:
                pickle.dump((self.P, calls), f)
            with os.fdopen(files[1][0], "w") as f:
                f.write(_REPLAY)
            out = {}
            for R in ranks or self.params:
                res = mpirun(R, files[1][1], files[0][1], timeout=600)
                line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
                if res.returncode != 0 or len(line) != 1:
                    raise RuntimeError(res.stderr[-2000:])
                out[R] = json.loads(line[0][len("RESULT "):])
            return out
        finally:
            for _, path in files:
                os.unlink(path)

    def track_engine_superstep_us(self, got, ranks):
        return got[ranks]["us"]

    track_engine_superstep_us.unit = "us per rank"


class HeadlineRatio:
    timeout = 900
    number = 1
    repeat = 1
    warmup_time = 0

    def setup(self):
        from harness import load_workload

        load_workload("shock", {}, 0)  # the workload is cached; the result store is not
        self.scratch = tempfile.TemporaryDirectory(prefix="asv-ratio-")
        self.out = self.scratch.name

    def teardown(self):
        self.scratch.cleanup()

    def track_headline_over_metis_P32(self):
        return _alternate(_compare_cli, self.out)

    def track_headline_over_metis_P32_in_process(self):
        return _alternate(_compare, self.out)

    track_headline_over_metis_P32.unit = "x (headline / METIS-only, command line)"
    track_headline_over_metis_P32_in_process.unit = "x (headline / METIS-only, one process)"


class RankBalance:
    params = [2, 4]
    param_names = ["ranks"]
    timeout = 1800
    P = 256
    ROUNDS = 5  # medians of five runs of each R

    def setup_cache(self, ranks=None, rounds=None):
        out = {R: [] for R in [1] + (ranks or self.params)}
        for _ in range(rounds or self.ROUNDS):  # R = 1, 2, 4 in turn: a load that comes and goes hits each alike
            for R in out:
                got = _levels(R, self.P, 2)
                out[R].append({"balance": got["rank_balance"][1], "busy_mean": got["rank_busy_s_mean"][1],
                               "figures": {k: got[k] for k in ("owners_hash", "moved_weight", "balance_messages")}})
        _same_figures([r["figures"] for runs in out.values() for r in runs])
        return {R: {"balance": statistics.median(r["balance"] for r in runs),
                    "busy_mean": statistics.median(r["busy_mean"] for r in runs),
                    "sums": [r["busy_mean"] * R for r in runs]} for R, runs in out.items()}

    def track_rank_balance_P256(self, got, ranks):
        return got[ranks]["balance"]

    def track_busy_over_one_rank_P256(self, got, ranks):
        return got[ranks]["busy_mean"] * ranks / got[1]["busy_mean"]

    track_rank_balance_P256.unit = "mean / max busy"
    track_busy_over_one_rank_P256.unit = "x (sum over ranks / one rank)"


class LevelsSpeedup:
    """SBN's levels 1-3 of ``shock`` at P = 2,048 on R ranks against one: the levels' cell time (the sum of
    ``time_total_s``) on one rank over that on R (issue 37's target: at least 10x at R = 16 on 16 dedicated
    cores). Every figure must be the same at each R."""

    params = [4, 16]
    param_names = ["ranks"]
    timeout = 3600
    P, LEVELS = 2048, 3

    def setup_cache(self, ranks=None):
        out = {R: _levels(R, self.P, self.LEVELS) for R in [1] + (ranks or self.params)}
        _same_figures(list(out.values()))
        return out

    def track_speedup_over_one_rank_P2048(self, got, ranks):
        return sum(got[1]["time_total_s"]) / sum(got[ranks]["time_total_s"])

    track_speedup_over_one_rank_P2048.unit = "x (one rank's cell time / R ranks')"


class SuperstepBound:
    """How far R ranks can speed SBN up at all: levels 1-2 at P = 2,048 on one process, the CPU each vproc's
    handlers take in each superstep (``Engine.working`` and ``Engine.each``, read at every exchange:
    ``Engine.charged``). A
    superstep lasts as long as its busiest rank, so with no exchange cost and no per-rank overhead R ranks
    take the sum over supersteps of the busiest rank's share: one rank's total over that sum bounds the
    speed-up under each of the engine's layouts (``Engine(layout=...)``: contiguous blocks cut by total work;
    interleave, ``harness.engine.vprocs.interleave``: hypercube neighbours on different ranks; round robin,
    vproc v on rank v mod R; profile, fitted to level 1's supersteps by ``vprocs.profile_layout``) and, for
    any layout at all, with the busiest single vproc of
    each superstep. The measured speed-up needs a plugin that runs under every layout (``Engine.local_index``
    rather than ``local.start``)."""

    params = [2, 4, 8, 16]
    param_names = ["ranks"]
    timeout = 900
    P = 2048

    def setup_cache(self):
        import numpy as np

        from harness.engine.vprocs import Engine
        from harness.run.api import compare

        steps, cells, exchange = [], [], Engine.exchange

        def recording(eng, *args, **kwargs):  # the vprocs' CPU since the last exchange (or the cell's start)
            now, (src, last) = eng.charged().copy(), getattr(eng, "_bound", (None, None))
            if src is not eng._vp_cpu:
                cells.append(len(steps))
            steps.append(now if src is not eng._vp_cpu else now - last)
            eng._bound = (eng._vp_cpu, now)
            return exchange(eng, *args, **kwargs)

        Engine.exchange = recording
        try:
            compare("sbn", workload="shock", P=self.P, levels=[1, 2], out=tempfile.mkdtemp(), cache=False)
        finally:
            Engine.exchange = exchange
        level2 = cells[1] if len(cells) > 1 else len(steps)  # level 1's supersteps: the profile layout's fit
        return {"W": np.array([w for w in steps if w.size == self.P]),
                "level1": np.array([w for w in steps[:level2] if w.size == self.P])}

    @staticmethod
    def _bound(got, R: int, layout: str) -> float:
        import numpy as np

        from harness.engine.vprocs import interleave, profile_layout

        W = got["W"]
        if layout == "any":  # any layout: the busiest vproc of a superstep, or an even share of its work
            return float(W.sum() / np.maximum(W.max(axis=1), W.sum(axis=1) / R).sum())
        if layout == "blocks":
            cum = np.concatenate([[0.0], np.cumsum(W.sum(axis=0))])
            starts = np.concatenate([[0], np.searchsorted(cum, cum[-1] * np.arange(1, R) / R)])
            rank = np.searchsorted(starts, np.arange(W.shape[1]), side="right") - 1
        elif layout == "interleave":
            rank = interleave(W.shape[1], R)
        elif layout == "roundrobin":
            rank = np.arange(W.shape[1]) % R
        else:
            rank = profile_layout(got["level1"], R)
        per_rank = np.zeros((W.shape[0], R))
        np.add.at(per_rank.T, rank, W.T)
        return float(W.sum() / per_rank.max(axis=1).sum())

    def track_speedup_bound_blocks_P2048(self, got, ranks):
        return self._bound(got, ranks, "blocks")

    def track_speedup_bound_interleave_P2048(self, got, ranks):
        return self._bound(got, ranks, "interleave")

    def track_speedup_bound_roundrobin_P2048(self, got, ranks):
        return self._bound(got, ranks, "roundrobin")

    def track_speedup_bound_profile_P2048(self, got, ranks):
        return self._bound(got, ranks, "profile")

    def track_speedup_bound_any_layout_P2048(self, got, ranks):
        return self._bound(got, ranks, "any")

    track_speedup_bound_blocks_P2048.unit = "x (at most, contiguous blocks)"
    track_speedup_bound_interleave_P2048.unit = "x (at most, hypercube neighbours apart)"
    track_speedup_bound_roundrobin_P2048.unit = "x (at most, round robin)"
    track_speedup_bound_profile_P2048.unit = "x (at most, fitted to level 1's profile)"
    track_speedup_bound_any_layout_P2048.unit = "x (at most, any layout)"


class AmrBoxGraphs:
    timeout = 900
    number = 1
    repeat = 3

    def setup(self):
        from harness import load_workload
        from harness.store import boxgraphs
        from harness.run.runner import graph_of

        self.levels = load_workload("bl", {}, 0)[2]
        for lv in self.levels:  # built (or read) once: in the workload cache now
            graph_of(lv)
        self.memory = boxgraphs._box_graphs

    def time_bl_box_graphs_from_cache(self):
        from harness.run.runner import graph_of

        self.memory.clear()  # as a new process: from the workload cache on disk
        for lv in self.levels:
            graph_of(lv)


def main(argv: list[str]) -> None:
    """python -m benchmarks.ratios                               the headline ratios once
       python -m benchmarks.ratios ranks [R ...] [--rounds N]    RankBalance (default R = 2 4, five rounds)
       python -m benchmarks.ratios speedup [R ...]               LevelsSpeedup (default R = 4 16)
       python -m benchmarks.ratios bound                         SuperstepBound
       python -m benchmarks.ratios engine [R ...]                EngineSupersteps (default R = 1 2)"""
    what, rest = (argv[0], argv[1:]) if argv else ("headline", [])
    rounds = None
    if "--rounds" in rest:
        i = rest.index("--rounds")
        rounds, rest = int(rest[i + 1]), rest[:i] + rest[i + 2:]
    ranks = [int(x) for x in rest] or None
    if what == "ranks":
        rb = RankBalance()
        got = rb.setup_cache(ranks, rounds)
        print(f"R = 1: {got[1]['busy_mean']:.3f} s busy (median); runs {[round(x, 3) for x in got[1]['sums']]}")
        for R in ranks or rb.params:
            pairs = sorted(b / a for a, b in zip(got[1]["sums"], got[R]["sums"]))
            print(f"R = {R}: rank_balance {rb.track_rank_balance_P256(got, R):.3f}, busy summed over ranks "
                  f"{rb.track_busy_over_one_rank_P256(got, R):.2f}x one rank's (median over median; pairwise "
                  f"{min(pairs):.2f}-{max(pairs):.2f}, median {statistics.median(pairs):.2f})")
    elif what == "speedup":
        ls = LevelsSpeedup()
        got = ls.setup_cache(ranks)
        for R, r in got.items():
            levels = [round(x, 1) for x in r["time_total_s"]]
            print(f"R = {R}: cell time {sum(r['time_total_s']):.1f} s (levels {levels}), "
                  f"rank_balance {[round(x, 2) for x in r['rank_balance']]}, busy max "
                  f"{[round(x, 1) for x in r['rank_busy_s_max']]}, superstep by superstep: critical "
                  f"{[round(x, 1) for x in r['rank_critical_s']]}, rank_step_balance "
                  f"{[round(x, 2) for x in r['rank_step_balance']]}"
                  + ("" if R == 1 else f": {ls.track_speedup_over_one_rank_P2048(got, R):.2f}x one rank"))
    elif what == "engine":
        for R, r in EngineSupersteps().setup_cache(ranks).items():
            print(f"R = {R}: the engine's CPU per superstep of SBN's calls {r['us']:.1f} us (the busiest rank, outside "
                  f"MPI; {r['supersteps']} supersteps)")
    elif what == "bound":
        sb = SuperstepBound()
        got = sb.setup_cache()
        print(f"{len(got['W'])} supersteps ({len(got['level1'])} at level 1), {got['W'].sum():.1f} s of the vprocs' CPU")
        for R in sb.params:
            print(f"R = {R}: speed-up at most " + ", ".join(f"{sb._bound(got, R, lay):.2f}x ({lay})" for lay in
                                                              ("blocks", "interleave", "roundrobin", "profile",
                                                               "any")))
    else:
        bench = HeadlineRatio()
        bench.setup()
        got = _paired(_compare_cli, bench.out)
        for methods in (HEAD, METIS):
            print(f"--plugins {methods}: {statistics.median(got[methods]):.2f} s wall (runs "
                  f"{[round(x, 2) for x in got[methods]]}), {statistics.median(got[methods + ' cpu']):.2f} s CPU")
        print(f"command line {statistics.median(got[HEAD]) / statistics.median(got[METIS]):.2f}x wall, "
              f"{statistics.median(got[HEAD + ' cpu']) / statistics.median(got[METIS + ' cpu']):.2f}x CPU; "
              f"one process {bench.track_headline_over_metis_P32_in_process():.2f}x")
        parts = {methods: split(methods, bench.out) for methods in (HEAD, METIS)}
        print(f"CPU seconds by part (one run each):\n{'part':44s} {HEAD:>15s} {METIS:>15s}")
        for part in dict.fromkeys(k for got in parts.values() for k in got):
            print(f"{part:44s} " + " ".join(f"{parts[m].get(part, 0.0):15.3f}" for m in (HEAD, METIS)))
        bench.teardown()

if __name__ == "__main__":
    main(sys.argv[1:])
