"""The ``lbbench`` command line. Every error is one line on stderr and exit code 2."""
from __future__ import annotations

import contextlib
import math
import os
import sys

import click

from ..claims.reports import FORMATS, ReportOptions, Table, level_table, render
from ..contract import plugins
from ..contract.lazy import lazy_module
from ..contract.spec import parse_call
from ..run import workloads

pd = lazy_module("pandas")  # read where a table is made: a rank of `mpiexec -n R lbbench compare` loads no pandas

FIRST_COLUMNS = ["workload", "workload_version", "level", "algorithm", "params", "P", "ranks", "machine", "initial",
                 "seed", "status", "pre_exec_cut_pct", "post_exec_cut_pct", "maxsr", "loadimb", "maxqwgt", "moved_weight"]


def _rank_env() -> str | None:
    """The MPI rank variable mpiexec set, if launched by it."""
    return next((v for v in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK") if v in os.environ), None)


def _rank() -> int:
    var = _rank_env()
    return int(os.environ[var]) if var else 0


def plugin_output():
    """While cells run: Python ``print`` from a plugin's hook goes to stderr, never into the command's output
    (``--format csv``)."""
    return contextlib.redirect_stdout(sys.stderr)


def echo(text: str) -> None:
    if _rank() == 0:
        click.echo(text, nl=not text.endswith("\n"))


MAX_LEVELS = 100_000


def parse_levels(text: str | None) -> list | None:
    if not text:
        return None
    out: set = set()
    try:
        for part in text.split(","):
            lo, dash, hi = part.partition("-")
            a, b = int(lo), int(hi) if dash else int(lo)
            if b < a or a < 0:
                raise ValueError
            if b - a + len(out) >= MAX_LEVELS:
                raise click.BadParameter(f"--levels {text!r}: more than {MAX_LEVELS} levels")
            out.update(range(a, b + 1))
    except ValueError:
        raise click.BadParameter(f"--levels {text!r}: expected ranges like 1-9 or 1,3,5-7") from None
    return sorted(out)


MAX_TIMEOUT = 7 * 24 * 3600.0  # a week per cell; larger values overflow the alarm timer


def check_timeout(timeout: float | None) -> None:
    if timeout is not None and not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT):
        raise click.BadParameter(f"--timeout {timeout:g}: must be a number of seconds in (0, {MAX_TIMEOUT:g}]")


def check_P(P: int | None, option: str = "-P") -> int | None:
    if P is not None and P < 1:
        raise click.BadParameter(f"{option} {P}: must be a positive number of processors")
    return P


def check_seed(seed: int) -> None:
    from ..run.api import MAX_SEED

    if not 0 <= seed <= MAX_SEED:
        raise click.BadParameter(f"--seed {seed}: must be an integer in [0, {MAX_SEED}]")


def parse_workload(text: str) -> tuple[str, dict]:
    call = parse_call(text)
    return call.name, dict(call.given)


def run_options(f):
    opts = [
        click.option("--workload", "-w", default="shock", show_default=True,
                     help="workload name, optionally with parameters: shock[scale=2]"),
        click.option("--levels", default=None, help="adaptation levels to run, e.g. 1-9 or 1,3,5"),
        click.option("--machine", default="uniform", show_default=True, help="uniform, sp2 or grid:C:I"),
        click.option("--out", default=None, help="results directory (default ./lbbench-results)"),
        click.option("--seed", default=0, show_default=True, type=int),
        click.option("--initial", default=None,
                     help="level-1 start: metis, block, slabs, root, trace (every level where the application ran it) "
                          "or a partitioning algorithm [default: trace on trace workloads (vt), else metis]"),
        click.option("--timeout", default=None, type=float, help="seconds per cell before it counts as failed"),
        click.option("--mpi", "mpi", default=None, type=int, help="relaunch under mpiexec -n R"),
        click.option("--no-cache", is_flag=True, help="recompute cells even if stored"),
        click.option("--reuse-failed", is_flag=True, help="reuse stored failed cells instead of retrying them"),
        click.option("--traceback", "show_traceback", is_flag=True, help="print the whole trace of a failing plugin"),
        click.option("--format", "fmt", default="text", type=click.Choice(FORMATS), show_default=True),
        click.option("--quiet", "-q", is_flag=True, help="no progress bar"),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def relaunch(ranks: int, P: int | None = None) -> None:
    """Run this same command under ``mpiexec -n ranks`` and exit with its code."""
    if ranks < 1:
        raise click.BadParameter(f"--mpi {ranks}: need at least one rank")
    if P is not None and ranks > P:
        raise click.BadParameter(f"--mpi {ranks}: more ranks than the P = {P} virtual processors")
    from ..engine.launch import mpiexec
    from ..engine.threads import share

    args, skip = [], False
    for a in sys.argv[1:]:
        if skip:
            skip = False
        elif a == "--mpi":
            skip = True
        elif not a.startswith("--mpi="):
            args.append(a)
    os.environ.update(share(ranks))  # each rank's share of the cores for its BLAS threads
    os.execv(mpiexec(), [mpiexec(), "-n", str(ranks), sys.executable, "-m", "harness.present.cli", *args])


def options_from(workload, levels, machine, out, seed, timeout, no_cache, quiet, initial=None,
                 reuse_failed=False, show_traceback=False, P=None) -> ReportOptions:
    check_timeout(timeout)
    check_seed(seed)
    for p in P or []:
        check_P(p)
    name, wparams = parse_workload(workload)
    initial = initial or workloads.get(name).initial
    workloads.resolve_params(workloads.get(name), wparams)  # unknown or bad workload parameters: refused now
    return ReportOptions(P=P, workload=name, workload_params=wparams, levels=parse_levels(levels),
                         machine=machine, seed=seed, out=out, timeout=timeout, cache=not no_cache,
                         progress=not quiet and _rank() == 0, initial=initial, reuse_failed=reuse_failed,
                         show_traceback=show_traceback)


def comparison_tables(df: pd.DataFrame) -> list[Table]:
    """Per algorithm a block like the SBN paper's Tables 4-7, then one summary row per algorithm."""
    tables, summary = [], []
    for alg, rows in df.groupby("algorithm", sort=False):
        first = rows.iloc[0]
        tables.append(Table(f"{alg} — {first['workload']}, P = {first['P']}, machine {first['machine']}",
                            level_table(rows)))
        ok = rows[rows["status"] == "ok"]
        summary.append({
            "Algorithm": alg,
            "Levels ok": f"{len(ok)}/{len(rows)}",
            "Pre-Exec Cut%": ok["pre_exec_cut_pct"].mean(),
            "Post-Exec Cut%": ok["post_exec_cut_pct"].mean(),
            "MaxSR": ok["maxsr"].mean(),
            "LoadImb": ok["loadimb"].mean(),
            "MaxQwgt": ok["lt_none_maxqwgt"].mean(),  # per-level Qwgt with Remap (MinEX §2.3)
            "Moved weight": float(ok["moved_weight"].sum()) if len(ok) else float("nan"),  # blank: nothing ran
            "Total time (s)": float(rows["time_total_s"].sum()),
        })
    tables.append(Table("Summary (averages over the levels that ran; Moved weight and Total time are sums)",
                        pd.DataFrame(summary)))
    return tables


def long_form(df: pd.DataFrame) -> str:
    cols = [c for c in FIRST_COLUMNS if c in df] + sorted(c for c in df if c not in FIRST_COLUMNS)
    return df[cols].to_csv(index=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lbbench")
def cli():
    """Benchmark dynamic load balancers for adaptive meshes."""


@cli.command("list")
def list_cmd():
    """Plugins, their algorithms (family, roles, parameters, accepted forms) and reports."""
    algs = plugins.algorithms()
    rows = [[a.plugin, a.version, a.name, a.family, ",".join(a.roles),
             ", ".join(f"{k}={v}" for k, v in a.params.items()) or "-", ",".join(a.accepts)]
            for a in algs.values()]
    text = render([Table("Algorithms", pd.DataFrame(rows, columns=[
        "Plugin", "Version", "Algorithm", "Family", "Roles", "Parameters (defaults)", "Accepts"]))])
    reps = plugins.reports()
    if reps:
        text += "\n" + render([Table("Reports", pd.DataFrame(
            [[r.name, r.plugin, r.title] for r in reps.values()], columns=["Report", "Plugin", "Title"]))])
    for name, why in plugins.broken().items():
        text += f"\nbroken plugin {name}: {why}"
    echo(text)


@cli.group("workloads", invoke_without_command=True)
@click.pass_context
def workloads_cmd(ctx):
    """List workloads; ``show`` prints per-level statistics, ``plot`` draws one level."""
    if ctx.invoked_subcommand is None:
        rows = []
        for name in workloads.available():
            wl = workloads.get(name)
            rows.append([name, wl.version, ",".join(wl.forms),
                         ", ".join(f"{k}={v}" for k, v in wl.params.items()) or "-", wl.description])
        echo(render([Table("Workloads", pd.DataFrame(
            rows, columns=["Workload", "Version", "Forms", "Parameters (defaults)", "Description"]))]))


@workloads_cmd.command("show")
@click.argument("name")
@click.option("--seed", default=0, type=int)
@click.option("--format", "fmt", default="text", type=click.Choice(FORMATS))
def workloads_show(name, seed, fmt):
    """Per level: vertices, edges, sum of pwgt, rwgt and cwgt."""
    from ..run.runner import graph_of

    wname, params = parse_workload(name)
    wl, params, levels = workloads.load(wname, params, seed)
    rows = []
    for lv in levels:
        g = graph_of(lv)
        rows.append({"level": lv.index, "vertices": g.n, "edges": g.nedges, "sum_pwgt": int(g.pwgt.sum()),
                     "sum_rwgt": int(g.rwgt.sum()), "sum_cwgt": int(g.cwgt.sum()) // 2})
    df = pd.DataFrame(rows)
    echo(df.to_csv(index=False) if fmt == "csv" else render([Table(f"{wl.name} {params}", df)], fmt))


@workloads_cmd.command("plot")
@click.argument("name")
@click.option("--level", default=1, type=int)
@click.option("-o", "--output", required=True, help="PNG file to write")
@click.option("--seed", default=0, type=int)
def workloads_plot(name, level, output, seed):
    """Draw one level of a workload to a PNG file."""
    wname, params = parse_workload(name)
    wl = workloads.get(wname)
    if wl.plot is None:
        raise click.ClickException(f"workload {wname!r} does not draw pictures (its Workload has no plot=; "
                                   "docs/plugins.md, Workloads)")
    wl.plot(wname, level, output, params=params, seed=seed)
    echo(f"wrote {output}")


def _compare(methods, P, opts: ReportOptions, fmt, export_vt=None) -> int:
    if export_vt is not None:
        from .export import check_target, export_states

        check_target(opts.workload, opts.workload_params, opts.seed, export_vt)
        states: dict = {}
        with plugin_output():
            df = opts.compare(methods, P=P, states=states)
        failed = {alg: f"level {r['level']}: {r['status']}" for alg, rows in df.groupby("algorithm", sort=False)
                  for _, r in rows[rows["status"] != "ok"].head(1).iterrows()}
        written = export_states(opts.workload, opts.workload_params, opts.seed, states, export_vt, failed)
    else:
        with plugin_output():
            df = opts.compare(methods, P=P)
    echo(long_form(df) if fmt == "csv" else render(comparison_tables(df), fmt))
    bad = df[df["status"] != "ok"]
    if _rank() == 0:
        for _, r in bad.iterrows():
            click.echo(f"lbbench: {r['algorithm']} level {r['level']}: {r['status']}", err=True)
        if len(bad):
            click.echo(f"lbbench: {len(bad)} of {len(df)} cells failed; see status", err=True)
        if export_vt is not None:
            click.echo(f"lbbench: wrote {written} (one directory per method, lbbench-export.json maps them"
                       f"{'; none for a method with a failed cell' if failed else ''})", err=True)
    return 1 if len(bad) else 0


P_HELP = "number of processors [default: a trace's ranks, else 32]"
EXPORT_HELP = ("write each method's assignment as vt LBDatafile files DIR/METHOD/STEM.RANK.json (trace workloads; "
               "DIR new, empty or an earlier export; lbbench-export.json maps methods to directories)")


@cli.command()
@click.option("--plugins", "methods", required=True, help="comma-separated methods: sbn,plum[partitioner=dmetis],metis/sbn")
@click.option("-P", "P", default=None, type=int, help=P_HELP)
@click.option("--export-vt", "export_vt", default=None, metavar="DIR", help=EXPORT_HELP)
@run_options
def compare(methods, P, export_vt, workload, levels, machine, initial, out, seed, timeout, mpi, no_cache, reuse_failed,
            show_traceback, fmt, quiet):
    """Run methods side by side through a workload's levels (exit 1 if a cell failed)."""
    check_P(P)
    if mpi is not None:
        relaunch(mpi, P)
    opts = options_from(workload, levels, machine, out, seed, timeout, no_cache, quiet, initial, reuse_failed,
                        show_traceback)
    raise click.exceptions.Exit(_compare(methods, P, opts, fmt, export_vt))


@cli.command()
@click.argument("method")
@click.option("-P", "P", default=None, type=int, help=P_HELP)
@click.option("--export-vt", "export_vt", default=None, metavar="DIR", help=EXPORT_HELP)
@run_options
def run(method, P, export_vt, workload, levels, machine, initial, out, seed, timeout, mpi, no_cache, reuse_failed,
        show_traceback, fmt, quiet):
    """Run one method (name[key=value,...] or mapper/balancer) through a workload's levels."""
    check_P(P)
    if mpi is not None:
        relaunch(mpi, P)
    from ..contract.spec import parse_methods

    if len(parse_methods(method)) != 1:
        raise click.BadParameter("run takes one method; use compare for several")
    opts = options_from(workload, levels, machine, out, seed, timeout, no_cache, quiet, initial, reuse_failed,
                        show_traceback)
    raise click.exceptions.Exit(_compare(method, P, opts, fmt, export_vt))


@cli.command()
@click.argument("name")
@click.option("-P", "P", default=None, help="processor counts, e.g. 2,4,8,16,32 (default: the report's own)")
@click.option("--plugins", "methods", default=None, help="methods, for reports that take them (e.g. levels)")
@run_options
def report(name, P, methods, workload, levels, machine, initial, out, seed, timeout, mpi, no_cache, reuse_failed,
           show_traceback, fmt, quiet):
    """Render a named paper table (``lbbench list`` shows them)."""
    if mpi is not None:
        relaunch(mpi)
    reps = plugins.reports()
    if name not in reps:
        raise LookupError(f"unknown report {name!r} (available: {', '.join(reps) or 'none'})")
    try:
        Ps = [int(p) for p in P.split(",")] if P else None
    except ValueError:
        raise click.BadParameter(f"-P {P!r}: expected integers like 2,4,8") from None
    opts = options_from(workload, levels, machine, out, seed, timeout, no_cache, quiet, initial, reuse_failed,
                        show_traceback, P=Ps)
    opts.methods = methods
    try:
        with plugin_output():
            tables = reps[name].build(opts)
    finally:
        opts.close()
    echo(render(tables, fmt))
    given = click.get_current_context().get_parameter_source("workload") != click.core.ParameterSource.DEFAULT
    used = opts.workloads_asked
    if given and used and opts.workload not in used and _rank() == 0:
        click.echo(f"lbbench: warning: report {name} ignores -w {workload}: it runs on its own workloads "
                   f"({', '.join(sorted(used))})", err=True)


@cli.command()
@click.option("--paper", default=None, help="only this paper's claims: sbn, minex, tree, mlb, amr, or a plugin's own paper")
@click.option("--strict", is_flag=True, help="exit 1 if a claim does not hold or cannot be judged")
@run_options
def claims(paper, strict, workload, levels, machine, initial, out, seed, timeout, mpi, no_cache, reuse_failed,
           show_traceback, fmt, quiet):
    """Check the papers' claims on our numbers: one row per claim with its verdict (exit 0 unless --strict)."""
    if mpi is not None:
        relaunch(mpi)
    from ..claims import claim as cl
    from ..claims.quotes import demoted
    from .reproduce import record_history

    chosen = cl.select(plugins.claims(), paper)
    opts = options_from(workload, levels, machine, out, seed, timeout, no_cache, quiet, initial, reuse_failed,
                        show_traceback)
    given = click.get_current_context().get_parameter_source("workload") != click.core.ParameterSource.DEFAULT
    with plugin_output():
        outcomes = cl.evaluate(chosen, opts, workload=opts.workload if given else None,
                               workload_params=opts.workload_params if given else None, progress=opts.progress)
    frame = cl.table(outcomes, fmt)
    echo(frame.to_csv(index=False) if fmt == "csv" else render([Table("Claims", frame, cl.summary(outcomes))], fmt))
    if _rank() == 0 and not given and levels is None:
        record_history(outcomes, out)
    if strict and any(not o.ok or demoted(o.claim) for o in outcomes):  # a quote not found in its source too
        raise click.exceptions.Exit(1)


_claims_w = next(p for p in claims.params if p.name == "workload")  # claims run on their own workloads
_claims_w.show_default = False
_claims_w.help = ("run every claim on this workload instead of its own (e.g. mini, a quick look; its verdicts are not "
                  "the papers') [default: each claim's own; shock where a claim names none]")


@cli.command()
@click.option("--paper", "papers", multiple=True, help="only this paper (repeatable): sbn, minex, tree, mlb, amr")
@click.option("-o", "--output", "site_dir", default="site", show_default=True, help="directory to write the site into")
@click.option("--out", default=None, help="results directory (default ./lbbench-results)")
@click.option("--timeout", default=None, type=float, help="seconds per cell before it counts as failed")
@click.option("--mpi", "mpi", default=None, type=int, help="relaunch under mpiexec -n R")
@click.option("--jobs", "-j", "workers", default=1, show_default=True, type=click.IntRange(0, 1024),
              help="processes computing cells of independent runs at once (0: one per available core; not with --mpi)")
@click.option("--format", "fmt", default="text", type=click.Choice(FORMATS), show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
def reproduce(papers, site_dir, out, timeout, mpi, workers, fmt, quiet):
    """Every report and claim of the papers (or of --paper), then the site; resumes from the store
    (exit 1 if a cell failed)."""
    workers = workers or len(os.sched_getaffinity(0))
    if workers > 1 and (mpi is not None or _rank_env()):
        raise click.BadParameter("--jobs > 1 runs processes of one rank each: not with --mpi or under mpiexec")
    if mpi is not None:
        relaunch(mpi)
    from . import reproduce as rp
    from .owned import check_owned

    check_timeout(timeout)
    check_owned(site_dir, "site", "reproduce -o")  # before any cell: the site could not be written there
    papers = [p for text in papers for p in text.split(",")]
    stdout = sys.stdout  # the log lines stay on stdout; a hook's print goes to stderr

    def log(text: str) -> None:
        if not quiet and _rank() == 0:
            click.echo(text, stdout, nl=not text.endswith("\n"))

    with plugin_output():
        result = rp.reproduce(papers or None, out=out, site=site_dir, progress=not quiet, timeout=timeout,
                              is_root=_rank() == 0, log=log, workers=workers)
    echo(render(rp.summary(result, rp.stored_by_key(out) if _rank() == 0 else None), fmt))
    echo(rp.line(result))
    if _rank() == 0 and not result.ok:
        for text in list(result.failed.values())[:20]:
            click.echo(f"lbbench: {text}", err=True)
        click.echo(f"lbbench: {len(result.failed)} cells failed", err=True)
    raise click.exceptions.Exit(0 if result.ok else 1)


def _fit_options(f):
    """The options ``calibrate`` and ``fidelity`` share with ``reproduce``."""
    for opt in reversed([
        click.option("--paper", "papers", multiple=True, help="only this paper (repeatable)"),
        click.option("--out", default=None, help="results directory (default ./lbbench-results)"),
        click.option("--timeout", default=None, type=float, help="seconds per cell before it counts as failed"),
        click.option("--jobs", "-j", "workers", default=1, show_default=True, type=click.IntRange(0, 1024),
                     help="processes computing cells at once (0: one per available core)"),
        click.option("--format", "fmt", default="text", type=click.Choice(FORMATS), show_default=True),
        click.option("--quiet", "-q", is_flag=True, help="no progress bar"),
    ]):
        f = opt(f)
    return f


def _papers(papers) -> list:
    return [p.strip() for text in papers for p in text.split(",") if p.strip()]


def _exit_on_errors(result) -> None:
    """Exit 1, each report's error on a line, if a report raised or a cell failed."""
    errors = [(name, err) for name, _, _, err in result.reports if err]
    for name, err in errors:
        click.echo(f"lbbench: {name}: {err}", err=True)
    if result.failed or errors:
        raise click.exceptions.Exit(1)


@cli.command()
@_fit_options
@click.option("--name", "names", multiple=True, help="only this calibration (repeatable)")
def calibrate(papers, out, timeout, workers, fmt, quiet, names):
    """Fit the papers' free parameters to their own printed figures (calibration cells no claim reads) and
    write each fit's CSV, which the plugins' defaults read; computes the cells not stored."""
    from .fits import calibrate as fit_all, fit_tables

    check_timeout(timeout)
    with plugin_output():
        fits, result = fit_all(_papers(papers), names, out, workers or len(os.sched_getaffinity(0)),
                               not quiet, timeout=timeout)
    echo(render(fit_tables(fits), fmt))
    for cal, _ in fits:
        echo(f"wrote {cal.path}")
    _exit_on_errors(result)


@cli.command()
@_fit_options
@click.option("--worst", default=10, show_default=True, type=click.IntRange(0, 1000), help="cells listed")
def fidelity(papers, out, timeout, workers, fmt, quiet, worst):
    """How many of our cells are within 0.67-1.5x of the papers' printed values, per paper and table
    (calibration cells left out), and the worst cells; computes the cells not stored."""
    from .fits import fidelity as pairs_of, fidelity_tables

    check_timeout(timeout)
    with plugin_output():
        pairs, result = pairs_of(_papers(papers), out, workers or len(os.sched_getaffinity(0)), not quiet,
                                 timeout=timeout)
    echo(render(fidelity_tables(pairs, worst), fmt))
    _exit_on_errors(result)


@cli.command()
@click.option("--out", default=None, help="results directory to read (default ./lbbench-results)")
@click.option("-o", "--output", default="site", show_default=True, help="directory to write the site into")
@click.option("--workload", "-w", default="shock", show_default=True,
              help="workload the reports (and, if given, the claims) are shown for")
@click.option("--plots", default="png", show_default=True, type=click.Choice(["png", "svg"]))
def site(out, output, workload, plots):
    """Build a static HTML site (report tables beside the papers', claims, per-level plots, provenance)
    from the stored results; computes nothing."""
    from .site import build

    name, wparams = parse_workload(workload)
    workloads.resolve_params(workloads.get(name), wparams)  # an unknown workload or parameter: refused now
    given = click.get_current_context().get_parameter_source("workload") != click.core.ParameterSource.DEFAULT
    index = build(out, output, image_format=plots, workload=name, workload_params=wparams, claims_workload=given)
    echo(f"wrote {index}")


@cli.command("test")
@click.argument("name")
@click.option("--workload", "-w", default=None, help="default: a small workload of the form the algorithm accepts")
@click.option("-P", "P", default=None, type=int, help="processors [default: a trace's ranks, else 4]")
@click.option("--ranks", default=2, show_default=True, type=int, help="MPI ranks for the identity check (0: skip)")
@click.option("--timeout", default=60.0, show_default=True, type=float, help="seconds per cell")
def test_cmd(name, workload, P, ranks, timeout):
    """Conformance checks for one algorithm (a new plugin proves itself here); exit 1 on a failed check."""
    from ..check.conformance import DEFAULT_P, FAIL, check_algorithm, processors

    check_P(P)
    check_timeout(timeout)
    if workload:
        wname, wparams = parse_workload(workload)
        workloads.resolve_params(workloads.get(wname), wparams)  # refused now, before any check
        P = processors(workload, P)
    if ranks < 0 or ranks > (P or DEFAULT_P):
        raise click.BadParameter(f"--ranks {ranks}: must be in [0, P = {P or DEFAULT_P}]")
    rows = check_algorithm(name, workload, P, ranks, timeout)
    echo(render([Table(f"Conformance of {name}", pd.DataFrame(rows, columns=["Check", "Result", "Detail"]))]))
    if any(r == FAIL for _, r, _ in rows):
        raise click.exceptions.Exit(1)


@cli.command("columns")
@click.option("--format", "fmt", default="text", type=click.Choice(FORMATS))
def columns_cmd(fmt):
    """The core result columns: name, definition and unit (harness.measure.columns)."""
    from ..measure.columns import SCHEMA

    df = pd.DataFrame([[k, d, u] for k, (d, u) in SCHEMA.items()], columns=["Column", "Definition", "Unit"])
    echo(render([Table("Core result columns", df)], fmt))


@cli.command("docs")
@click.option("-o", "--output", default=None, help="directory (default: docs/api of a source checkout, else ./lbbench-api)")
def docs_cmd(output):
    """Build the API reference (every public name and hook, from the docstrings, by pdoc)."""
    from .apidocs import build

    echo(f"wrote {build(output)}")


@cli.command("new-plugin")
@click.argument("name")
@click.option("--dir", "directory", default=None, help="where to write it (default: ./NAME)")
def new_plugin(name, directory):
    """Scaffold an installable plugin distribution: a balancer and a conformance test."""
    from .scaffold import scaffold

    path = scaffold(name, directory)
    echo(f"wrote {path}: pip install -e {path} && lbbench test {name}")


def _end_every_rank(code: int) -> None:
    """After Ctrl-C under mpiexec: abort every rank (a rank waiting in a collective for this one would wait
    forever, and so would this one in MPI's finalisation)."""
    from ..engine.vprocs import world

    comm = world()
    if comm is not None and comm.Get_size() > 1:
        sys.stderr.flush()
        comm.Abort(code)


def main(argv=None) -> int:
    interrupted = False
    try:
        rv = cli.main(args=argv, prog_name="lbbench", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        msg = exc.format_message()
    except (ValueError, LookupError, OSError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    except (KeyboardInterrupt, click.exceptions.Abort):
        msg, interrupted = "interrupted (finished cells are stored; run again to resume)", True
    if _rank() == 0:
        click.echo(f"lbbench: error: {msg}", err=True)
    if interrupted:
        _end_every_rank(2)
    return 2


def run_main() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run_main()
