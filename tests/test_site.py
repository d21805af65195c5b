"""``lbbench site``: a small compare, then the static site built from the stored results."""
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from harness import Report, Table, hookimpl
from harness.cli import main
from harness.site import StoredOptions, NotStored, ratio_class, stored_rows

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
    pages = [out / "index.html"] + sorted(out.glob("report-*.html"))
    assert out / "report-sbn-table5.html" in pages and out / "report-t-figure.html" in pages
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


def test_site_svg_plots(site, tmp_path):
    res, _ = site
    out = tmp_path / "svg"
    assert main(["site", "--out", str(res), "-o", str(out), "-w", "mini", "--plots", "svg"]) == 0
    svgs = list((out / "img").glob("levels-*.svg"))
    assert svgs and all(ET.parse(f).getroot().tag.endswith("svg") for f in svgs)


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


def test_ratio_classes():
    assert ratio_class(1.05, 1.0) == "good" and ratio_class(1.4, 1.0) == "mid" and ratio_class(3, 1) == "bad"
    assert ratio_class("x", 1.0) == "" and ratio_class(1.0, float("nan")) == "" and ratio_class(1.0, 0) == ""
