"""bl workload: Berger-Oliger hierarchy of a diagonal Buckley-Leverette front (AMR paper §5)."""
import numpy as np
import pytest

from harness import overlap_join
from harness import as_form
from workloads import bl


def check_hierarchy(b, base):
    """Disjoint boxes per level, proper nesting, parents under the box centres."""
    levels = int(b.level.max()) + 1
    assert np.sum(b.level == 0) == 1 and np.all(b.lo[0] == 0) and np.all(b.hi[0] == base - 1)
    for lev in range(levels):
        idx = np.nonzero(b.level == lev)[0]
        n = base * 2 ** lev
        assert b.lo[idx].min() >= 0 and b.hi[idx].max() <= n - 1
        i, j, _ = overlap_join(b.lo[idx], b.hi[idx], b.lo[idx], b.hi[idx])
        assert np.all(i == j)  # boxes of one level do not overlap
        if lev == 0:
            continue
        coarse = np.nonzero(b.level == lev - 1)[0]
        nc = base * 2 ** (lev - 1)
        # proper nesting: coarsened and grown by one coarse cell (inside the domain), a box is covered
        glo = np.maximum(b.lo[idx] // 2 - 1, 0)
        ghi = np.minimum(b.hi[idx] // 2 + 1, nc - 1)
        gi, gj, vol = overlap_join(glo, ghi, b.lo[coarse], b.hi[coarse])
        covered = np.bincount(gi, vol, minlength=idx.size)
        assert np.array_equal(covered, np.prod(ghi - glo + 1, axis=1))
        # the parent is on the coarser level and holds the box's centre
        p = b.parent[idx]
        assert np.all(b.level[p] == lev - 1)
        c = ((b.lo[idx] + b.hi[idx]) // 2) // 2
        assert np.all((b.lo[p] <= c) & (c <= b.hi[p]))
        # refinement ratio 2: fine boxes start and end on coarse cell boundaries
        assert np.all(b.lo[idx] % 2 == 0) and np.all(b.hi[idx] % 2 == 1)


@pytest.fixture(scope="module")
def mid_step():
    """One regrid at the paper's configuration (33^3, 5 levels), the front across the middle."""
    return bl.to_boxes(bl.regrid(33, 5, 0.5, 2, 0.7, 4))


def test_paper_configuration_nests_properly(mid_step):
    b = mid_step
    check_hierarchy(b, 33)
    counts = np.bincount(b.level)
    assert counts.size == 5  # 5 levels of factor-2 refinement
    assert np.all(np.diff(counts) > 0)  # the front needs more boxes on each finer level
    # every fine box touches the band around the front x + y + z = 1.5 (unit cube)
    for lev in range(1, 5):
        idx = np.nonzero(b.level == lev)[0]
        n = 33 * 2 ** lev
        lo, hi = b.lo[idx] / n, (b.hi[idx] + 1) / n
        smin, smax = lo.sum(1), hi.sum(1)
        band = 3 * np.sqrt(3) * (2 + 0.5) / (n / 2)
        assert np.all((smin <= 1.5 + band) & (smax >= 1.5 - band))


def test_boxes_graph_of_the_paper_configuration(mid_step):
    g = as_form(mid_step, "graph")
    assert g.n == mid_step.n and g.pwgt.sum() == mid_step.work.sum()
    # every box above the base is joined to at least one coarser box
    nb_levels = [set(mid_step.level[g.neighbours(v)].tolist()) for v in range(g.n)]
    assert all(int(mid_step.level[v]) - 1 in s for v, s in enumerate(nb_levels) if mid_step.level[v] > 0)


def test_berger_rigoutsos_on_known_tags():
    # two separated blocks of tags: the hole in the signature separates them exactly
    a = np.argwhere(np.ones((4, 4, 4), bool))
    tags = np.vstack([a, a + [10, 0, 0]])
    boxes = bl.berger_rigoutsos(tags, 0.9, 2)
    got = sorted((tuple(lo), tuple(hi)) for lo, hi in boxes)
    assert got == [((0, 0, 0), (3, 3, 3)), ((10, 0, 0), (13, 3, 3))]
    # an L shape needs two boxes at efficiency 1; every tag covered, no box empty
    L = np.vstack([np.argwhere(np.ones((8, 2, 1), bool)), np.argwhere(np.ones((2, 6, 1), bool)) + [0, 2, 0]])
    boxes = bl.berger_rigoutsos(L, 1.0, 1)
    cover = np.zeros((8, 8, 1), int)
    for lo, hi in boxes:
        cover[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1] += 1
    ref = np.zeros((8, 8, 1), int)
    ref[tuple(L.T)] = 1
    assert np.array_equal(cover, ref)


def test_trace_steps_and_parents():
    lv = bl.generate(base=12, levels=4, steps=4)
    assert [x.index for x in lv] == [1, 2, 3, 4] and lv[0].parent is None
    assert [x.meta["time_step"] for x in lv] == [0, 4, 8, 12]  # regrid every fourth time step
    for prev, cur in zip(lv[:-1], lv[1:]):
        check_hierarchy(cur.data, 12)
        p = cur.parent
        assert p.shape == (cur.data.n,) and p.min() >= 0 and p.max() < prev.data.n
        assert np.all(prev.data.level[p] <= cur.data.level)
    # the front moves: the hierarchies differ
    assert not np.array_equal(lv[0].data.lo, lv[-1].data.lo)
    with pytest.raises(ValueError):
        bl.generate(efficiency=1.5)


def test_deterministic_by_hash():
    import hashlib

    def digest(levels):
        h = hashlib.sha256()
        for lv in levels:
            for a in (lv.data.level, lv.data.lo, lv.data.hi, lv.data.parent):
                h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    a = bl.generate(base=10, levels=3, steps=3)
    b = bl.generate(base=10, levels=3, steps=3)
    c = bl.generate(base=10, levels=3, steps=3, efficiency=0.5)
    assert digest(a) == digest(b) != digest(c)


def test_meta_of_every_level_and_the_small_variant():
    """Every level carries what the AMR metrics need (regrid_every, dims, ratio); the small variant used by
    conformance is tiny and nests properly."""
    lv = bl.generate(**bl.SMALL)
    assert len(lv) == bl.SMALL["steps"]
    for x in lv:
        m = x.meta
        assert m["regrid_every"] == bl.DEFAULTS["regrid_every"] and m["ratio"] == 2
        assert m["dims"] == [bl.SMALL["base"]] * 3
        assert m["boxes_per_level"] == np.bincount(x.data.level).tolist()
        assert 0 < x.data.n < 200
        check_hierarchy(x.data, bl.SMALL["base"])
    lv = bl.generate(base=12, levels=3, steps=2, regrid_every=2)
    assert [x.meta["time_step"] for x in lv] == [0, 2] and lv[1].meta["regrid_every"] == 2
