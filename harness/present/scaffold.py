"""``lbbench new-plugin NAME``: an installable plugin distribution to start from.

The generated balancers are a real (if simple) diffusive scheme: each round,
every processor above the mean load hands the vertices with the lowest ΔCut
to a lighter processor until it reaches the mean (the SBN paper's §3.4 ΔCut,
through ``harness.costs_if_on``): ``NAME`` to its lightest neighbouring
processor, ``NAME-global`` to the lightest of all; pinned vertices
(``ctx.level.pinned``) never move. One ``@implements``
function serves both and reads ``ctx.algorithm``. As generated, it installs,
passes ``lbbench test NAME`` (and ``NAME-global``) and its own pytest, and
shows up in ``lbbench compare``. It also registers its paper's figures
(``reference/NAME.csv``, placeholders, packaged in the wheel by
pyproject.toml's package-data) and one claim judged on them and on ours
(``lbbench claims --paper NAME``), and holds asv benchmarks of its methods
(``asv.conf.json``, ``benchmarks/``: the recipe for a plugin outside lbbench's
repository, timing the installed code).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..contract import plugins
from ..run import workloads

PYPROJECT = '''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "lbbench-{name}"
version = "0.1.0"
description = "{name}: a load balancer for lbbench"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["lbbench", "numpy>=1.26"]

[project.entry-points.lbbench]
{name} = "{pkg}.plugin"

[tool.setuptools.packages.find]
include = ["{pkg}*"]

[tool.setuptools.package-data]
{pkg} = ["reference/*.csv", "sources/*.txt"]

[tool.pytest.ini_options]
addopts = "-p no:cacheprovider"
'''

PLUGIN = '''"""``{name}`` and ``{name}-global``: greedy diffusion (a starting point; replace it with your algorithm).

Each of ``rounds`` rounds, every processor whose load (sum of pwgt) is above
the mean moves vertices, lowest ΔCut first (SBN paper §3.4), to a lighter
processor until it is down to the mean: ``{name}`` moves boundary vertices to
its lightest neighbouring processor, ``{name}-global`` any of its vertices to
the lightest processor of all. One function serves both algorithms
(``@implements("{name}", "{name}-global")``); ``ctx.algorithm`` says which
one is running. Pinned vertices (``ctx.level.pinned[v] >= 0``) stay where
they are: their weight counts, but they are never candidates.
"""
from __future__ import annotations

import numpy as np

from pathlib import Path

from harness import Algorithm, Claim, State, costs_if_on, delta_cut, hookimpl, implements


def _validate(params):
    if params["rounds"] < 1:
        raise ValueError("{name}: rounds must be >= 1")


@hookimpl
def register_algorithms(register):
    register(Algorithm("{name}", family="diffusive", params={{"rounds": 4}}, roles=("balance",),
                       accepts=("graph",), validate=_validate,
                       description="greedy boundary diffusion to the lightest neighbouring processor"))
    register(Algorithm("{name}-global", family="diffusive", params={{"rounds": 4}}, roles=("balance",),
                       accepts=("graph",), validate=_validate,
                       description="greedy diffusion to the lightest processor of all"))


def _target(ctx, owner, load, p):
    """(destination processor, candidate vertices) for the overloaded processor p, or (None, None)."""
    g = ctx.graph
    if ctx.algorithm == "{name}-global":
        q = int(np.argmin(load))
        return (q, np.flatnonzero(owner == p)) if q != p else (None, None)
    nbrs = owner[g.adjncy[owner[g.src] == p]]
    nbrs = np.unique(nbrs[nbrs != p])
    if nbrs.size == 0:
        return None, None
    q = int(nbrs[np.argmin(load[nbrs])])
    return q, np.unique(g.src[(owner[g.src] == p) & (owner[g.adjncy] == q)])


@implements("{name}", "{name}-global")
def balance(ctx, state):
    g, P, m = ctx.graph, ctx.P, ctx.machine
    owner = state.owner.copy()
    movable = np.ones(g.n, bool) if ctx.level.pinned is None else ctx.level.pinned < 0
    for _ in range(ctx.params["rounds"]):
        load = np.bincount(owner, weights=g.pwgt, minlength=P)
        mean = load.sum() / P
        for p in np.flatnonzero(load > mean):  # processors in id order: identical on every rank
            q, cand = _target(ctx, owner, load, p)
            if q is None or load[q] >= mean:
                continue
            cand = cand[movable[cand]]
            now = State(owner, state.home, P)
            dc = delta_cut(costs_if_on(g, now, m, cand, p), costs_if_on(g, now, m, cand, q), normalize=False)
            order = cand[np.argsort(dc, kind="stable")]
            room = min(load[p] - mean, mean - load[q])
            take = order[np.cumsum(g.pwgt[order]) <= room]
            owner[take] = q
            load[p] -= g.pwgt[take].sum()
            load[q] += g.pwgt[take].sum()
    return State.settled(owner, P)


@hookimpl
def register_references(register):
    """Your paper's printed figures (``reference/{name}.csv``, packaged with the wheel: pyproject.toml)."""
    register(Path(__file__).parent / "reference")


def _lower_imbalance(df):
    ours, none = Claim.average(df, "{name}-global", "loadimb", P=4), Claim.average(df, "none", "loadimb", P=4)
    return ours < none, f"LoadImb {{Claim.num(ours)}} vs {{Claim.num(none)}} (none)"


@hookimpl
def register_claims(register):
    """A claim of your paper, judged on our numbers and, through ``on_paper``, on the paper's own.

    It is ``our test`` (our wording, its source named). To quote your paper instead, put the passage in
    ``sources/{name}.txt`` beside this file (packaged: pyproject.toml), give ``source="sources/{name}.txt"``
    and drop ``kind``: the quote is checked against that file whenever claims run.
    """
    register(Claim("{name}-lowers-imbalance", paper="{name}",
                   where="mini at P = 4 (put your paper's section and table here)",
                   text="{name}-global leaves a lower load imbalance than no balancing",
                   kind="our test", source="your paper, §N (name the section the claim comes from)",
                   cells=({{"methods": "{name}-global,none", "P": (4,), "workload": "mini"}},),
                   check=_lower_imbalance, on_paper=lambda: _lower_imbalance(Claim.reference(
                       "{name}", {{"{name}-global": "1", "none": "2"}}, {{"LoadImb": "loadimb"}}))))
'''

REFERENCE = '''paper,table,P,row,column,value
{name},1,4,1,LoadImb,1.05
{name},1,4,2,LoadImb,1.06
{name},1,4,3,LoadImb,1.05
{name},2,4,1,LoadImb,1.40
{name},2,4,2,LoadImb,1.52
{name},2,4,3,LoadImb,1.47
'''

TEST = '''"""The conformance checks lbbench asks of every algorithm (``lbbench test {name}``).

``conformance`` is a pytest fixture that lbbench installs as a pytest plugin.
"""


def test_{pkg}_conforms(conformance):
    conformance("{name}")


def test_{pkg}_global_conforms(conformance):
    conformance("{name}-global")
'''

ASV = '''{{
    "version": 1,
    "project": "lbbench-{name}",
    "repo": ".",
    "environment_type": "existing",
    "benchmark_dir": "benchmarks",
    "results_dir": ".asv/results",
    "html_dir": ".asv/html"
}}
'''

BENCH = '''"""asv benchmarks of {name}: lbbench's recipe for a plugin outside its repository (docs/plugins.md, "Benchmarks").

With lbbench and this plugin installed (``pip install -e .``), from this folder:

    asv run --python=same --quick      # one run of each, now
    asv run --python=same               # timed, recorded under .asv/results (commit by commit: a git checkout)
    asv publish && asv preview          # the history as a web page

``environment_type: existing`` (asv.conf.json) times the installed code; nothing is built.
"""
import shutil
import tempfile

from harness import compare, load_workload


class Compare:
    """Every level of ``mini`` at P = 8, each method's cells computed (nothing read from a store)."""

    params = ["{name}", "{name}-global"]
    param_names = ["method"]
    timeout = 600

    def setup(self, method):
        load_workload("mini")  # generated (or read from the workload cache) outside the timing
        self.out = tempfile.mkdtemp(prefix="asv-{name}-")

    def teardown(self, method):
        shutil.rmtree(self.out, ignore_errors=True)

    def time_compare(self, method):
        compare(method, workload="mini", P=8, cache=False, out=self.out, progress=False)
'''

README = '''# {name}

A load balancer for [lbbench](https://github.com/lbbench/lbbench), made by `lbbench new-plugin`.

    pip install -e .
    lbbench test {name} && lbbench test {name}-global
    lbbench compare --plugins {name},{name}-global,metis -P 8 -w mini
    python -m pytest
    asv run --python=same --quick    # benchmarks/: asv's recipe for a plugin outside lbbench's repository

Write your algorithm in `{pkg}/plugin.py`; the contract is in lbbench's `docs/plugins.md`
and its API reference (`lbbench docs` writes it). `{pkg}/reference/{name}.csv` holds your
paper's printed figures (`paper,table,P,row,column,value`; the rows there are placeholders:
replace them) and is packaged with the wheel; `lbbench claims --paper {name}` judges the claim
in `plugin.py` on our numbers and on the paper's.
'''


def scaffold(name: str, directory: str | None = None) -> Path:
    """Write the distribution ``lbbench-NAME`` (package ``lbbench_NAME``) and return its directory."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise ValueError(f"plugin name {name!r}: use lower-case letters, digits and '-' (starting with a letter)")

    if name in plugins.algorithms() or name in workloads.available():
        raise ValueError(f"plugin name {name!r} is already registered (lbbench list); choose another name")
    pkg = "lbbench_" + name.replace("-", "_")
    root = Path(directory or name)
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    files = {
        "pyproject.toml": PYPROJECT, "README.md": README, f"{pkg}/__init__.py": '"""{name} for lbbench."""\n',
        f"{pkg}/plugin.py": PLUGIN, f"tests/test_{pkg}.py": TEST, f"{pkg}/reference/{name}.csv": REFERENCE,
        "asv.conf.json": ASV, "benchmarks/__init__.py": "", f"benchmarks/bench_{pkg}.py": BENCH,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(name=name, pkg=pkg))
    return root
