"""``lbbench site``: a static HTML report of the stored results (no server, no JavaScript, opens from disk).

Everything comes from the result store (``--out``); nothing is computed:

* ``index.html``: the reports with their state, the claims with verdict
  badges, the per-level plots, provenance (versions, commit, machines, seeds);
* ``report-NAME.html``: each report's tables, the paper's values beside ours,
  our cell coloured by ours/paper (within 10 %, within 50 %, further), and the
  report's pictures (tree and AMR figures);
* ``img/``: per-level line plots (PNG or SVG, matplotlib) of LoadImb, Cut%,
  MaxSR and MaxQwgt, one line per method, for each stored run
  (workload, P, machine, initial, seed); a picture's name carries a digest
  of what it shows, so a rebuild draws only the pictures whose data changed.

A report is built with :class:`StoredOptions`, whose ``compare`` answers from
the stored rows and raises :class:`NotStored` for a cell never run: first
with the report's own processor counts, then one stored P at a time; what
is missing is listed as "not run" with the command that runs it.
"""
from __future__ import annotations

import hashlib
import html
import json
import math
import os
import re
import shutil
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..claims import calibrate as cb
from ..claims import claim as cl
from ..claims import fidelity as fd
from ..claims.claim import FAILS, HOLDS, NOISE, NOT_IN_PAPER
from ..claims.reports import ReportOptions, Table
from ..contract import plugins
from ..run import workloads
from .owned import check_owned, fresh_beside, mark, swap_in
from ..run.api import _methods
from ..run.runner import plan
from ..store.results import git_commit, stored, versions, warn

PLOT_COLUMNS = {"LoadImb": "loadimb", "Cut%": "post_exec_cut_pct", "MaxSR": "maxsr", "MaxQwgt": "maxqwgt"}
RUN_KEYS = ["workload", "workload_params", "P", "machine", "initial", "seed"]
CELL_KEYS = RUN_KEYS + ["algorithm", "level"]
CAPTION_CHARS = 150  # per line of a level plot's caption (13-inch figure, 9-point type)
MAX_LINES = 10  # lines per picture; a run with more methods gets more pictures
PLOT_VERSION = 1  # of how :func:`_draw` draws: a change redraws every kept picture


class NotStored(LookupError):
    """A cell a report or claim needs is not in the result store."""


def stored_rows(out: str | None) -> pd.DataFrame:
    """Every stored row, the newest per cell (workload, parameters, P, machine, initial, seed, method, level).

    Read only: an unreadable row is skipped with one warning line, as ``compare`` warns (it moves it aside
    when it next runs).
    """
    skipped: list = []
    rows = [{**row, "_mtime": mtime, "_row": row} for _, row, mtime in stored(out, skipped)
            if all(k in row for k in CELL_KEYS)]
    if skipped:
        name, why = skipped[0]
        warn(f"{len(skipped)} stored row{'s' if len(skipped) > 1 else ''} unreadable, not shown (cells/{name}: "
             f"{why}); lbbench compare moves {'them' if len(skipped) > 1 else 'it'} aside")
    if not rows:
        return pd.DataFrame(columns=CELL_KEYS + ["status", "_mtime", "_row"])
    df = pd.DataFrame(rows)
    df["P"] = df["P"].astype(int)
    df = df.sort_values("_mtime").drop_duplicates(CELL_KEYS, keep="last")
    return df.reset_index(drop=True)


class StoredOptions(ReportOptions):
    """Report options whose ``compare`` serves the stored rows only (raises NotStored for a missing cell)."""

    def __init__(self, rows: pd.DataFrame, **kw):
        super().__init__(**kw)
        self.rows = rows

    def compare(self, methods, P=None, **overrides) -> pd.DataFrame:
        P = int(P if P is not None else (self.P or [32])[0])
        workload = overrides.get("workload", self.workload)
        wparams = overrides.get("workload_params", self.workload_params) or {}
        machine = overrides.get("machine", self.machine)
        initial = overrides.get("initial", self.initial)
        seed = overrides.get("seed", self.seed)
        levels = overrides.get("levels", self.levels)
        repeats = int(overrides.get("repeats") or 1)
        r = self.rows
        if r.empty:
            raise NotStored("no stored results")
        # the run compare would store: the workload's parameters resolved (defaults filled in), exactly
        resolved = json.dumps(workloads.resolve_params(workloads.get(workload), wparams), sort_keys=True)
        r = r[(r["workload"] == workload) & (r["workload_params"] == resolved) & (r["P"] == P)
              & (r["machine"] == machine) & (r["initial"] == initial) & (r["seed"].astype(int) == int(seed))]
        if repeats > 1:  # a wall-time claim: only cells whose timed part ran at least that often
            r = r[r["timing_repeats"].fillna(1).astype(int) >= repeats] if "timing_repeats" in r else r.iloc[:0]
        parts = []
        for m in _methods(methods):
            got = r[method_rows(r, m)]
            if levels:
                got = got[got["level"].isin(levels)]
            if got.empty:
                raise NotStored(f"{m} on {workload} at P = {P}, machine {machine} is not stored")
            got = got.sort_values("_mtime").drop_duplicates("level", keep="last").sort_values("level")
            parts += [{**row, "algorithm": str(m)} for row in got["_row"]]
        return pd.DataFrame(parts)  # as the run compare returns the stored rows: one frame of the rows read


def cell_key(method) -> str:
    """The key a method's cells are found by: its resolved parameters per algorithm (the stored ``params``).

    ``plum-pmetis``, ``sbn[prepartition=true]`` and ``sbn[prepartition=True]``
    are each found under what they resolve to, as ``lbbench compare`` stores
    them; a method whose algorithm is not installed falls back to its label.
    """
    try:
        return plan(method, plugins.algorithms()).params_json()
    except (LookupError, ValueError):
        return ""


def method_rows(rows: pd.DataFrame, method) -> pd.Series:
    """Which stored rows are ``method``'s cells: same label, or same resolved parameters (``cell_key``)."""
    sel = rows["algorithm"] == str(method)
    key = cell_key(method)
    if key and "params" in rows:
        sel |= rows["params"] == key
    return sel


# -- HTML pieces ---------------------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em auto;max-width:78em;color:#222;
padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em;margin-bottom:.3em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.86em}
th,td{border:1px solid #d0d0d0;padding:.22em .5em;vertical-align:top}
th{background:#f0f2f5;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
td.paper{color:#555;background:#fafafa}
td.good{background:#d9f2dd}td.mid{background:#fff1c2}td.bad{background:#f9d4d0}
.badge{display:inline-block;border-radius:.8em;padding:.05em .6em;font-size:.85em;font-weight:600;white-space:nowrap}
.holds{background:#1f883d;color:#fff}.fails{background:#cf222e;color:#fff}.na{background:#8c959f;color:#fff}
.notpaper{background:#8250df;color:#fff}.noise{background:#bf8700;color:#fff}
.muted{color:#666;font-size:.9em}.quote{font-style:italic}
figure{display:inline-block;margin:.5em 1em .5em 0}figcaption{font-size:.85em;color:#555}
img{max-width:100%;border:1px solid #e0e0e0}
.legend span{margin-right:1em}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n<title>{_e(title)}</title>\n'
            f'<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n')


def _fmt(v) -> str:
    """One number format on every page: thousands separators from 1,000 on (integers and floats alike), two
    decimals below (four under 0.01)."""
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            return ""
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.2f}" if abs(v) >= 0.01 or v == 0 else f"{v:.4f}"
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def ratio_class(ours, paper) -> str:
    """``good`` within 10 % of the paper's value, ``mid`` within 50 %, ``bad`` further; "" if not comparable."""
    try:  # a report may show ours as text ("1,234", "12.5%"): any table with a paper column is coloured
        a, b = (float(v.replace(",", "").rstrip("% ")) if isinstance(v, str) else float(v) for v in (ours, paper))
    except (TypeError, ValueError):
        return ""
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0 or a <= 0 and b > 0 or a >= 0 and b < 0:
        return ""
    r = abs(math.log(a / b)) if a else math.inf
    return "good" if r <= math.log(1.1) else "mid" if r <= math.log(1.5) else "bad"


def table_html(t: Table) -> str:
    """A Table as HTML: paper columns shaded, our column coloured by ours/paper."""
    df = t.frame
    cols = list(df.columns)
    paper_of = {c[: -len(" (paper)")]: c for c in cols if c.endswith(" (paper)")}
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = []
    for row in df.itertuples(index=False):
        vals = dict(zip(cols, row))
        cells = []
        for c in cols:
            v = vals[c]
            num = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            cls = ["n"] if num else []
            if c.endswith(" (paper)"):
                cls.append("paper")
            elif c in paper_of:
                rc = ratio_class(v, vals[paper_of[c]])
                if rc:
                    cls.append(rc)
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{_e(_fmt(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = f'<p class="muted">{_e(t.note)}</p>' if t.note else ""
    if not paper_of:
        note += '<p class="muted nopaper">The paper prints no values for this table.</p>'
    return (f'<div class="report-table">\n<h3>{_e(t.title)}</h3>\n<table>\n<thead><tr>{head}</tr></thead>\n'
            "<tbody>\n" + "\n".join(body) + f"\n</tbody>\n</table>\n{note}\n</div>")


LEGEND = ('<p class="legend muted">Our value beside the paper\'s: <span class="badge" style="background:#d9f2dd">'
          'within 10 %</span><span class="badge" style="background:#fff1c2">within 50 %</span>'
          '<span class="badge" style="background:#f9d4d0">further</span> (ratio ours / paper).</p>')


def badge(verdict: str) -> str:
    cls = {HOLDS: "holds", FAILS: "fails", NOT_IN_PAPER: "notpaper", NOISE: "noise"}.get(verdict, "na")
    return f'<span class="badge {cls}">{_e(verdict)}</span>'


# -- plots ---------------------------------------------------------------------------------------------------

def _slug(text: str) -> str:
    """A file name for ``text``: itself when it is one, else a readable part and a digest of the whole (two
    texts never share a page)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:100]
    if slug == text and slug:
        return slug
    return f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def level_plots(rows: pd.DataFrame, img: Path, fmt: str = "png", workers: int = 1) -> list[tuple[str, str, str]]:
    """Per stored run (workload, P, machine, initial, seed): LoadImb, Cut%, MaxSR, MaxQwgt per level.

    Every run is drawn (a run of one level, a trace's single phase, as points), every method of it: at most
    MAX_LINES lines per picture, further pictures for the other methods.
    Returns (group, caption, file name) per picture, the group being the
    run's workload and P (one page of curves each), newest runs first.
    ``workers`` > 1: the pictures are drawn by that many forked processes.
    """
    ok = rows[rows["status"] == "ok"] if "status" in rows else rows
    runs = []
    for key, g in ok.groupby(RUN_KEYS, sort=False):
        runs.append((g["_mtime"].max(), key, g))
    runs.sort(key=lambda x: -x[0])
    pictures = []  # (group, caption, file name, the run's rows, its methods)
    for _, key, g in runs:
        workload, wparams, P, machine, initial, seed = key
        params = "" if wparams in ("{}", "", None) else f" {wparams}"
        group = f"{workload}{params}, P = {P}"
        caption = f"{workload}{params}, P = {P}, machine {machine}, initial {initial}, seed {seed}"
        every = list(dict.fromkeys(g.sort_values("_mtime")["algorithm"]))
        for first in range(0, len(every), MAX_LINES):
            methods = every[first:first + MAX_LINES]
            part = f" (methods {first + 1}-{first + len(methods)} of {len(every)})" if len(every) > MAX_LINES else ""
            digest = _digest(caption + part, methods, g[g["algorithm"].isin(methods)])
            # the index keeps long captions apart; the digest of what is drawn names a picture that can stay
            name = f"levels-{len(pictures):03d}-{digest}-{_slug(caption)[:80]}.{fmt}"
            pictures.append((group, caption + part, name, g, methods))
    names = {p[2] for p in pictures}
    for f in img.glob(f"levels-*.{fmt}"):  # pictures of runs gone or changed
        if f.name not in names:
            f.unlink()
    todo = [p for p in pictures if not (img / p[2]).is_file()]  # a picture already drawn is kept as it is
    workers = max(1, min(int(workers), len(todo)))
    if workers == 1:
        _draw(todo, img, fmt)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            list(pool.map(_draw, [todo[k::workers] for k in range(workers)], [img] * workers, [fmt] * workers))
    return [(group, caption, name) for group, caption, name, _, _ in pictures]


def _digest(caption: str, methods: list, rows: pd.DataFrame) -> str:
    """12 hex digits of what a picture shows: its caption, its methods in legend order and the values drawn."""
    cols = ["algorithm", "level"] + [c for c in PLOT_COLUMNS.values() if c in rows]
    data = rows[cols].sort_values(["algorithm", "level"]).to_csv(index=False)
    return hashlib.sha256("\0".join([str(PLOT_VERSION), caption, *map(str, methods), data]).encode()).hexdigest()[:12]


def _draw(pictures: list, img: Path, fmt: str) -> None:
    """Draw :func:`level_plots`' pictures with one figure, redrawn for every picture (much faster)."""
    if not pictures:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 4, figsize=(13, 2.9))
    fig.subplots_adjust(left=.05, right=.99, bottom=.17, top=.8, wspace=.28)
    for _, caption, name, g, methods in pictures:
        for ax, (title, col) in zip(axes, PLOT_COLUMNS.items()):
            ax.clear()
            for m in methods:
                r = g[g["algorithm"] == m].sort_values("level")
                if col in r:
                    ax.plot(r["level"], r[col].astype(float), marker="o", ms=3, lw=1.3, label=m)
            ax.set_title(title, fontsize=10)
            ax.set_xlabel("adaptation level", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=.3)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].legend(fontsize=6, loc="best")
        title = textwrap.wrap(caption, CAPTION_CHARS) or [""]  # a long caption wraps, never runs off
        fig.suptitle("\n".join(title), fontsize=9)
        fig.subplots_adjust(top=.8 - .06 * (len(title) - 1))
        fig.savefig(img / name, dpi=72 if fmt == "png" else None)
    plt.close(fig)


def curve_pages(plots: list, site: Path) -> list[tuple[str, str, int]]:
    """One page of per-level curves per (workload, P): (group, page file, pictures), in the plots' order."""
    groups: dict = {}
    for group, caption, name in plots:
        groups.setdefault(group, []).append((caption, name))
    out = []
    for group, figs in groups.items():
        page = f"levels-{_slug(group)}.html"
        body = [f'<p><a href="index.html">&#8592; index</a></p>\n<h1>Per-level curves: {_e(group)}</h1>',
                f'<p class="muted">{len(figs)} pictures, every stored run of this workload and P.</p>']
        body += [f'<figure><img src="img/{_e(name)}" alt="{_e(caption)}"/><figcaption>{_e(caption)}</figcaption>'
                 "</figure>" for caption, name in figs]
        (site / page).write_text(_page(f"Per-level curves: {group}", "\n".join(body)))
        out.append((group, page, len(figs)))
    return out


# -- the site ------------------------------------------------------------------------------------------------

def _report_tables(rep, rows: pd.DataFrame, base: dict) -> tuple[list[Table], str]:
    """Build one report from the stored rows: its own P list, else each stored P that works."""
    try:
        return rep.build(StoredOptions(rows, **base)), ""
    except NotStored as exc:
        first = str(exc)
    except Exception as exc:  # noqa: BLE001 - one report's failure is shown, the site goes on
        return [], f"error: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    tables, missing = [], first
    Ps = sorted(set(rows[rows["workload"] == base["workload"]]["P"])) if len(rows) else []
    for P in Ps:
        try:
            tables += rep.build(StoredOptions(rows, **{**base, "P": [int(P)]}))
        except Exception:  # noqa: BLE001 - that P is not (fully) stored
            continue
    return tables, ("" if tables else f"not run: {missing}")


def _copy_figure(path, img: Path) -> str | None:
    src = Path(path)
    if not src.is_file() or src.suffix.lower() not in (".png", ".svg"):
        return None
    name = "fig-" + _slug(src.name)
    shutil.copyfile(src, img / name)
    return name


def build(out: str | None, output: str | os.PathLike = "site", image_format: str = "png",
          workload: str = "shock", workload_params: dict | None = None, claims_workload: bool = False,
          reports: list | None = None, workers: int = 1, tables: dict | None = None,
          outcomes: list | None = None) -> Path:
    """Write the site into ``output`` from the results under ``out``; returns the path of index.html.

    ``workload`` is the workload the reports are built on; ``claims_workload``
    makes the claims use it too (otherwise each claim's own); ``workers``: processes drawing the per-level
    curves (:func:`level_plots`). ``tables`` (report name -> tables) and ``outcomes`` (claims judged) are
    what a reproduction built from the same store: shown as they are, the other reports and claims built here.
    """
    final = check_owned(output, "site", "site -o")
    site = fresh_beside(final)  # built beside, renamed into place: a rebuild replaces the site whole
    try:
        _build(site, final, out, image_format, workload, workload_params, claims_workload, reports, workers, tables,
               outcomes)
    except BaseException:
        shutil.rmtree(site, ignore_errors=True)
        raise
    return swap_in(site, final) / "index.html"


def _build(site: Path, final: Path, out, image_format, workload, workload_params, claims_workload, reports, workers,
           tables, outcomes) -> None:
    t0 = time.perf_counter()
    img = site / "img"
    img.mkdir()
    _keep_pictures(final / "img", img)
    rows = stored_rows(out)
    base = dict(workload=workload, workload_params=dict(workload_params or {}), out=out, progress=False)

    # reports
    reps = plugins.reports()
    if reports:
        reps = {k: v for k, v in reps.items() if k in reports}
    rep_state = []
    given = tables or {}
    shown_tables: dict = {}  # report -> the tables on its page (the fidelity section's pairs)
    for name, rep in reps.items():
        tables, why = (given[name], "") if name in given else _report_tables(rep, rows, base)
        shown_tables[name] = tables
        if tables:
            parts = [f'<p><a href="index.html">&#8592; index</a></p>\n<h1>{_e(rep.title or name)}</h1>',
                     f'<p class="muted">{_e(rep.description)} (report <code>{_e(name)}</code>, plugin '
                     f'{_e(rep.plugin)})</p>', LEGEND]
            for t in tables:
                parts.append(table_html(t))
                for f in t.figures:
                    copied = _copy_figure(f, img)
                    if copied:
                        parts.append(f'<figure><img src="img/{_e(copied)}" alt="{_e(t.title)}"/>'
                                     f'<figcaption>{_e(Path(f).name)}</figcaption></figure>')
            (site / f"report-{_slug(name)}.html").write_text(_page(rep.title or name, "\n".join(parts)))
        rep_state.append((name, rep, len(tables), why))

    # claims, from the stored cells only
    judged = {o.claim.name: o for o in outcomes or () if not claims_workload}
    rest = [c for c in plugins.claims().values() if c.name not in judged]
    rest = dict(zip([c.name for c in rest], cl.evaluate(rest, StoredOptions(rows, **base),
                                                       workload=workload if claims_workload else None,
                                                       workload_params=workload_params if claims_workload else None)))
    outcomes = [judged.get(c.name) or rest[c.name] for c in plugins.claims().values()]
    hist = cl.history(out)

    # plots and provenance
    plots = level_plots(rows, img, image_format, workers) if len(rows) else []
    body = [f"<h1>lbbench results</h1>\n<p class=\"muted\">Built {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f" from {len(rows)} stored cells in <code>{_e(out or os.environ.get('LBBENCH_RESULTS', 'lbbench-results'))}"
            f"</code>; workload of the reports: <code>{_e(workload)}</code>.</p>",
            '<p><a href="#reports">Reports</a> · <a href="#fidelity">Fidelity</a> · <a href="#claims">Claims</a> · '
            '<a href="#levels">Per-level curves</a> · <a href="#provenance">Provenance</a> · '
            '<a href="#calibration">Calibration</a></p>']
    body.append('<h2 id="reports">Reports</h2>\n<table>\n<thead><tr><th>Report</th><th>Title</th><th>Plugin</th>'
                "<th>Tables</th></tr></thead>\n<tbody>")
    for name, rep, n, why in rep_state:
        if n:
            extra = f' <span class="muted">({_e(why)})</span>' if why else ""
            body.append(f'<tr><td><a href="report-{_e(_slug(name))}.html">{_e(name)}</a></td><td>{_e(rep.title)}'
                        f"</td><td>{_e(rep.plugin)}</td><td>{n}{extra}</td></tr>")
    body.append("</tbody>\n</table>")
    missing = [(name, why) for name, _, n, why in rep_state if not n]
    if missing:
        body.append('<p class="muted">Not in the store yet (run <code>lbbench report NAME</code>): '
                    + "; ".join(f'<span title="{_e(why)}"><code>lbbench report {_e(name)}</code></span>'
                                for name, why in missing) + ".</p>")

    body.extend(fidelity_html(shown_tables))
    body.append(f'<h2 id="claims">Claims</h2>\n<p class="muted">{_e(cl.summary(outcomes))} on the stored cells '
                "(<code>lbbench claims</code> runs the missing ones). A claim in quotation marks is its source's "
                "sentence, verbatim, found in a source its plugin ships when the claims ran; one marked “Our test” is "
                "our wording, its source named (a quote not found there is shown so). The reading of vague words is "
                "under Where; Start is where its cells started. Why names the cause of a “does not hold”: the paper's own "
                "numbers or text, our workload, the reading (both readings shown under Ours), or our implementation; "
                "Robustness is the verdict again on variants (other P, seeds, calibrated values).</p>")
    body.append('<p class="counts">' + " ".join(f"{badge(v)} {n}" for v, n in cl.counts(outcomes).items()) + "</p>")
    body.append("<table>\n<thead><tr><th>Verdict</th><th>Paper</th><th>Where</th><th>Start</th><th>Claim</th>"
                "<th>Ours</th><th>Paper's figures</th><th>Why</th><th>Robustness</th></tr></thead>\n<tbody>")
    for o in outcomes:
        c = o.claim
        body.append(f"<tr><td>{badge(o.verdict)}</td><td>{_e(c.paper)}</td><td>{_e(c.where)}</td><td>{_e(o.start)}</td>"
                    f'<td class="{"quote" if c.kind == cl.QUOTE else "ours"}">{_e(cl.shown(c))}</td><td>{_e(o.ours)}{_e(f" [other reading, {o.other}]" if o.other else "")}</td>'
                    f'<td>{_e(o.paper or c.reported)}</td><td>{_e(o.why)}</td><td>{_e(o.robust)}</td></tr>')
    body.append("</tbody>\n</table>")
    if len(hist):
        piv = hist.drop_duplicates(["commit", "claim"], keep="last")
        commits = list(dict.fromkeys(piv["commit"]))[-8:]
        body.append("<h3>Verdicts over commits (<code>lbbench claims</code> runs)</h3>\n<table>\n<thead><tr>"
                    "<th>Claim</th>" + "".join(f"<th>{_e(str(c)[:10])}</th>" for c in commits)
                    + "</tr></thead>\n<tbody>")
        for claim, g in piv.groupby("claim", sort=False):
            by = dict(zip(g["commit"], g["verdict"]))
            body.append(f"<tr><td>{_e(claim)}</td>" + "".join(
                f"<td>{badge(by[c]) if c in by else ''}</td>" for c in commits) + "</tr>")
        body.append("</tbody>\n</table>")

    body.append('<h2 id="levels">Per-level curves</h2>')
    if not plots:
        body.append('<p class="muted">No stored run with two levels or more.</p>')
    else:
        pages = curve_pages(plots, site)
        body.append(f'<p class="muted">{len(plots)} pictures of every stored run, one page per workload and P:</p>'
                    "\n<ul>" + "".join(f'<li><a href="{_e(page)}">{_e(group)}</a> ({n} pictures)</li>'
                                       for group, page, n in pages) + "</ul>")

    body.append('<h2 id="provenance">Provenance</h2>\n<table>\n<tbody>')
    prov = [("lbbench and plugins (now)", versions()), ("git commit (now)", git_commit())]
    for col, label in (("git_commit", "commits of the stored cells"), ("versions", "versions of the stored cells"),
                       ("machine", "machines"), ("seed", "seeds"), ("initial", "initial distributions"),
                       ("ranks", "MPI ranks"), ("workload", "workloads")):
        if col in rows and len(rows):
            vals = sorted({str(v) for v in rows[col].dropna()})
            prov.append((label, "; ".join(vals[:12]) + (f" (+{len(vals) - 12} more)" if len(vals) > 12 else "")))
    for k, v in prov:
        body.append(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>")
    body.append("</tbody>\n</table>")
    body.extend(calibration_html())
    body.append(f'<p class="muted">Static files only; built in {time.perf_counter() - t0:.1f} s.</p>')
    (site / "index.html").write_text(_page("lbbench results", "\n".join(body)))
    mark(site, "site")


def fidelity_html(tables: dict) -> list[str]:
    """The fidelity section: per paper and per table, our cells within 0.67-1.5x of the paper's printed ones
    (calibration cells left out), and the worst cells."""
    pairs = fd.all_pairs(tables, cb.calibration_keys(plugins.calibrations().values()))
    out = ['<h2 id="fidelity">Fidelity</h2>\n<p class="muted">Our cells beside the papers\' printed values: how many '
           "lie within 0.67-1.5x of the paper's (<code>lbbench fidelity</code>), leaving out only cells "
           "computed under a fit that was fitted on them.</p>"]
    if pairs.empty:
        return out + ['<p class="muted">No report table with the paper\'s values is built yet.</p>']
    worst = fd.worst(pairs, 15).assign(cell=lambda d: d["cell"].map(fd.cell_text))
    return out + [table_html(Table("Per paper", fd.totals(pairs))),
                  table_html(Table("Per table", fd.summary(pairs))),
                  table_html(Table("The cells furthest from the paper's", worst))]


def calibration_html() -> list[str]:
    """Every fitted parameter: the cells it was fitted on, each candidate's residual, the value chosen."""
    cals = list(plugins.calibrations().values())
    out = ['<h2 id="calibration">Calibration</h2>\n<p class="muted">Free parameters the papers leave open, fitted by '
           "<code>lbbench calibrate</code> to the papers' own printed cells (mean |log(ours / paper)|, the lowest "
           "wins); no claim reads a calibration cell computed under that fit (a fit held out, used only at the "
           "cells it names, is fitted on others).</p>"]
    for cal in cals:
        fit = cb.read(cal.path)
        cells, used = ("; ".join(fd.cell_text((b.paper, b.table, ",".join(map(str, b.P)), ",".join(map(str, b.rows)),
                                               ", ".join(b.columns) or "every column")) for b in blocks)
                       for blocks in (cal.cells, cal.applies))
        out.append(f"<h3>{_e(cal.name)}: <code>{_e(cal.parameter)}</code></h3>\n<p>{_e(cal.why)} Cells: {_e(cells)}."
                   + (f" Used at: {_e(used)}." if used else "") + "</p>")
        out.append(table_html(Table(cal.name, cb.summary(fit))) if len(fit) else
                   f'<p class="muted">Not fitted yet: <code>lbbench calibrate --name {_e(cal.name)}</code>.</p>')
    return out if cals else out + ['<p class="muted">No calibration is registered.</p>']


def _keep_pictures(old: Path, img: Path) -> None:
    """Link the last build's pictures into the new one (:func:`level_plots` redraws only changed ones)."""
    if not old.is_dir() or old.is_symlink():
        return
    for f in old.iterdir():
        if f.is_file() and not f.is_symlink():
            try:
                os.link(f, img / f.name)
            except OSError:
                shutil.copy2(f, img / f.name)
