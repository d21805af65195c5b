"""``lbbench site``: a small compare, then the static site built from the stored results."""
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from harness import Report, Table, hookimpl
from harness.present.cli import main
from harness.present.site import StoredOptions, NotStored, ratio_class, stored_rows

PNG = b"\x89PNG\r\n\x1a\n"


def parse(path: Path) -> ET.Element:
    """The page as XML (the site writes well-formed XHTML-style HTML5): a strict parse."""
    text = path.read_text()
    assert text.startswith("<!DOCTYPE html>")
    return ET.fromstring(text.split("\n", 1)[1])


def fig_report(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pic = tmp_path / "tree-like.png"
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    fig.savefig(pic)
    plt.close(fig)

    class Plugin:
        @staticmethod
        @hookimpl
        def register_reports(register):
            frame = pd.DataFrame({"Row": ["a"], "T": [2.0], "T (paper)": [1.9]})
            register(Report("t-figure", lambda opts: [Table("a figure report", frame, figures=[str(pic)])],
                            "Test figure report"))
    return Plugin()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    res = tmp_path_factory.mktemp("res")
    out = tmp_path_factory.mktemp("site") / "site"
    common = ["-w", "mini", "--out", str(res), "-q"]
    assert main(["compare", "--plugins", "none,metis", "-P", "4", *common]) == 0
    assert main(["report", "sbn-table5", "-P", "4", *common]) == 0
    return res, out


def test_site_parses_links_images_and_paper_columns(site, register, tmp_path):
    res, out = site
    register(fig_report(tmp_path), "site-fig")
    assert main(["site", "--out", str(res), "-o", str(out), "-w", "mini"]) == 0
    index = parse(out / "index.html")
    pages = [out / "index.html"] + sorted(out.glob("report-*.html")) + sorted(out.glob("levels-*.html"))
    assert out / "report-sbn-table5.html" in pages and out / "report-t-figure.html" in pages
    assert len(list(out.glob("levels-mini_levels_3_points_900_P_4-*.html"))) == 1  # the curves of the run
    images = 0
    for page in pages:
        root = parse(page)
        for a in root.iter("a"):
            href = a.get("href")
            if href and not href.startswith(("#", "http")):
                assert (out / href).is_file(), href
        for img in root.iter("img"):
            f = out / img.get("src")
            data = f.read_bytes()
            assert data.startswith(PNG) or (f.suffix == ".svg" and ET.fromstring(data).tag.endswith("svg")), f
            images += 1
        if page.name.startswith("report-"):
            blocks = [d for d in root.iter("div") if d.get("class") == "report-table"]
            assert blocks, page.name
            for block in blocks:  # the paper's column, or (generic tables) a line saying the paper has none
                heads = [th.text or "" for th in block.iter("th")]
                nopaper = [p for p in block.iter("p") if "nopaper" in (p.get("class") or "")]
                assert any(h.endswith("(paper)") for h in heads) != bool(nopaper), (page.name, heads)
            if page.name.startswith("report-sbn-table"):
                assert all(any((th.text or "").endswith("(paper)") for th in b.iter("th")) for b in blocks)
    assert images >= 2  # the per-level plot of the stored runs and the figure report's picture
    text = (out / "index.html").read_text()
    assert "none" in text and "metis" in text and "Provenance" in text and "Claims" in text
    assert 'class="badge' in text and "lbbench report sbn-table4" in text  # a report not run says how to run it
    t5 = (out / "report-sbn-table5.html").read_text()
    assert re.search(r'class="n (good|mid|bad)"', t5) and 'class="n paper"' in t5
    assert index.find(".//h1").text == "lbbench results"
    # fidelity (sbn-table5 on mini beside the paper's Table 5) and the calibrations, with their fits
    heads = [h.text for h in index.iter("h2")]
    assert "Fidelity" in heads and "Calibration" in heads
    assert re.search(r"<td>sbn</td><td[^>]*>\d+</td>", text)  # the per-paper row counts sbn's cells
    assert "lbbench calibrate" in text and "Robustness" in text and "<th>Why</th>" in text


def test_site_svg_plots(site, tmp_path):
    res, _ = site
    out = tmp_path / "svg"
    assert main(["site", "--out", str(res), "-o", str(out), "-w", "mini", "--plots", "svg"]) == 0
    svgs = list((out / "img").glob("levels-*.svg"))
    assert svgs and all(ET.parse(f).getroot().tag.endswith("svg") for f in svgs)



def test_level_pictures_are_drawn_once_and_redrawn_when_their_data_change(site, tmp_path, monkeypatch):
    import shutil

    from harness.present import site as st

    res0, _ = site
    res = tmp_path / "res"
    shutil.copytree(res0, res)
    out, drawn = tmp_path / "kept", []
    real = st._draw
    monkeypatch.setattr(st, "_draw", lambda pics, img, fmt: drawn.append([p[2] for p in pics]) or real(pics, img, fmt))
    build = ["site", "--out", str(res), "-o", str(out), "-w", "mini"]
    assert main(build) == 0
    first = sorted(f.name for f in (out / "img").glob("levels-*.png"))
    assert first and sorted(sum(drawn, [])) == first
    drawn.clear()
    assert main(build) == 0  # the same stored rows: nothing drawn again
    assert sum(drawn, []) == [] and sorted(f.name for f in (out / "img").glob("levels-*.png")) == first
    # one stored figure changes: its run's picture is drawn again, and the old picture goes
    row_f = next(f for f in sorted((res / "cells").glob("*.json"))
                 if '"algorithm": "metis"' in f.read_text() and '"level": 2,' in f.read_text())
    row_f.write_text(re.sub(r'"maxsr": [0-9.e+-]+', '"maxsr": 1.5', row_f.read_text()))
    assert main(build) == 0
    now = sorted(f.name for f in (out / "img").glob("levels-*.png"))
    assert len(sum(drawn, [])) == 1 and len(now) == len(first) and set(now) - set(first) == set(sum(drawn, []))

def test_stored_options_serve_only_stored_cells(site):
    res, _ = site
    rows = stored_rows(str(res))
    opts = StoredOptions(rows, workload="mini", out=str(res))
    df = opts.compare("none,metis", P=4)
    assert list(df["algorithm"].unique()) == ["none", "metis"] and sorted(set(df["level"])) == [1, 2, 3]
    with pytest.raises(NotStored):
        opts.compare("metis", P=8)
    with pytest.raises(NotStored):
        opts.compare("none", P=4, machine="sp2")


def test_stored_options_give_what_the_run_compare_gives(site):
    """The run's own parameters, exactly: another stored run of the workload (other parameters, stored last)
    is never taken for the defaults asked for; and the frame is the one ``compare`` reads back (dtypes too)."""
    from harness import compare

    res, _ = site
    compare("metis", workload="mini", workload_params={"points": 600}, P=4, out=str(res))
    opts = StoredOptions(stored_rows(str(res)), workload="mini", out=str(res))
    for params in ({}, {"points": 600}, {"points": 600, "levels": 3}):
        got = opts.compare("none,metis", P=4, workload_params=params) if not params else \
            opts.compare("metis", P=4, workload_params=params)
        run = compare("none,metis" if not params else "metis", workload="mini", workload_params=params, P=4,
                      out=str(res))
        pd.testing.assert_frame_equal(got, run)
    assert set(got["workload_params"]) == {'{"levels": 3, "points": 600}'}
    with pytest.raises(NotStored):
        opts.compare("none", P=4, workload_params={"points": 600})


def test_ratio_classes():
    assert ratio_class(1.05, 1.0) == "good" and ratio_class(1.4, 1.0) == "mid" and ratio_class(3, 1) == "bad"
    assert ratio_class("x", 1.0) == "" and ratio_class(1.0, float("nan")) == "" and ratio_class(1.0, 0) == ""


def test_stored_options_find_a_method_by_label_or_resolved_parameters(site):
    res, _ = site
    opts = StoredOptions(stored_rows(str(res)), workload="mini", out=str(res))
    stored = opts.compare("sbn", P=4)
    # same algorithm, same resolved parameters, other spelling: the same cells, under the name asked for
    same = opts.compare("sbn[prepartition=false]", P=4)
    assert set(same["algorithm"]) == {"sbn[prepartition=false]"}
    assert same["owners_hash"].tolist() == stored["owners_hash"].tolist()
    with pytest.raises(NotStored):  # other parameters are other cells
        opts.compare("sbn[prepartition=true]", P=4)


def test_every_run_is_drawn_no_cap(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from harness.present.site import MAX_LINES, curve_pages, level_plots

    # count the pictures, do not render them (rendering is what test_site_svg_plots checks)
    monkeypatch.setattr(Figure, "savefig", lambda self, path, **kw: Path(path).write_text("<svg/>"))
    rows = []
    for run in range(41):  # more runs than the old silent cap of 40
        for m in range(MAX_LINES + 2 if run == 0 else 1):  # the first run has more methods than one picture holds
            for level in (1, 2):
                rows.append({"workload": "w", "workload_params": "{}", "P": 2 + run % 3, "machine": "uniform",
                             "initial": "metis", "seed": run, "algorithm": f"m{m}", "level": level, "status": "ok",
                             "loadimb": 1.0 + level / 10, "post_exec_cut_pct": 1.0, "maxsr": 2.0, "maxqwgt": 3.0,
                             "_mtime": float(run)})
    img = tmp_path / "img"
    img.mkdir()
    plots = level_plots(pd.DataFrame(rows), img, "svg")
    assert len(plots) == 42 and len(list(img.glob("*.svg"))) == 42
    by_two = tmp_path / "img2"  # drawn by two forked processes: the same pictures under the same names
    by_two.mkdir()
    assert level_plots(pd.DataFrame(rows), by_two, "svg", workers=2) == plots
    assert sorted(f.name for f in by_two.iterdir()) == sorted(f.name for f in img.iterdir())
    assert sum("(methods 1-10 of 12)" in c or "(methods 11-12 of 12)" in c for _, c, _ in plots) == 2
    pages = curve_pages(plots, tmp_path)
    assert sorted((g, n) for g, _, n in pages) == [("w, P = 2", 15), ("w, P = 3", 14), ("w, P = 4", 13)]
    for _, page, n in pages:
        assert len(list(parse(tmp_path / page).iter("img"))) == n


def test_a_single_level_run_reaches_the_site_and_numbers_have_one_format(tmp_path, monkeypatch):
    """Author faults 4 and 7: a trace comparison of one phase is drawn; 1,234 and 12,345 alike, ints or floats."""
    from matplotlib.figure import Figure

    from harness.present.site import _fmt, level_plots

    monkeypatch.setattr(Figure, "savefig", lambda self, path, **kw: Path(path).write_text("<svg/>"))
    rows = pd.DataFrame([{"workload": "vt", "workload_params": "{}", "P": 64, "machine": "uniform", "initial": "trace",
                          "seed": 0, "algorithm": m, "level": 1, "status": "ok", "loadimb": 1.2,
                          "post_exec_cut_pct": 1.0, "maxsr": 2.0, "maxqwgt": 3.0, "_mtime": 0.0} for m in ("a", "b")])
    (tmp_path / "img").mkdir()
    assert [g for g, _, _ in level_plots(rows, tmp_path / "img", "svg")] == ["vt, P = 64"]
    assert [_fmt(v) for v in (1234, 1234.0, 12345, 12345.6, 999, 0.5)] == ["1,234", "1,234", "12,345", "12,346",
                                                                          "999", "0.50"]
