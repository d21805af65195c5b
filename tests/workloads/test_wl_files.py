"""files workload: METIS/Chaco graph files and meshio meshes, good and malformed."""
import numpy as np
import pytest

from harness.run import workloads
from harness.contract.mesh import dual_edges
from workloads import files, shock

GOOD = """% a weighted graph: two vertex weights, edge weights
4 4 011 2
1 5  2 3 3 1
2 6  1 3 4 2
3 7  1 1 4 4
4 8  2 2 3 4
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_metis_with_two_vertex_weights_and_edge_weights(tmp_path):
    g = files.read_graph(write(tmp_path, "g.graph", GOOD))
    assert g.n == 4 and g.nedges == 4
    assert g.pwgt.tolist() == [1, 2, 3, 4] and g.rwgt.tolist() == [5, 6, 7, 8]
    w = {(int(u) + 1, int(v) + 1): int(c) for u, v, c in zip(g.src, g.adjncy, g.cwgt)}
    assert w == {(1, 2): 3, (2, 1): 3, (1, 3): 1, (3, 1): 1, (2, 4): 2, (4, 2): 2, (3, 4): 4, (4, 3): 4}
    assert g.coords is None


def test_plain_metis_vertex_sizes_and_coordinates(tmp_path):
    g = files.read_graph(write(tmp_path, "p.graph", "3 2\n2\n1 3\n2\n"))
    assert g.pwgt.tolist() == [1, 1, 1] and g.nedges == 2
    write(tmp_path, "s.xyz", "0 0\n1 0\n2 0\n")
    g = files.read_graph(write(tmp_path, "s.graph", "3 2 110\n7 2 2\n8 3 1 3\n9 4 2\n"))
    assert g.rwgt.tolist() == [7, 8, 9] and g.pwgt.tolist() == [2, 3, 4]  # vsize -> rwgt
    assert g.coords.shape == (3, 2)


def test_chaco_vertex_numbers(tmp_path):
    g = files.read_graph(write(tmp_path, "c.chaco", "3 2 111\n1 5 2 9\n2 6 1 9 3 4\n3 7 2 4\n"))
    assert g.pwgt.tolist() == [5, 6, 7] and sorted(g.cwgt.tolist()) == [4, 4, 9, 9]


@pytest.mark.parametrize("text,line,what", [
    ("3 2\n2\n1 3\nx\n", 4, "not an integer"),
    ("3 2\n2\n1 3\n1\n", 3, "does not list"),
    ("3 2\n2\n1 3\n", 4, "only 2 vertex lines"),
    ("3 3\n2\n1 3\n2\n", 1, "announces 3 edges"),
    ("3 2\n2\n1 4\n2\n", 3, "out of range"),
    ("3 2\n2 1\n1 3\n2\n", 2, "self loop"),
    ("2 1 1\n2 5\n1 6\n", 2, "weight 5 here"),
    ("2 1\n2\n1\n1\n", 4, "more vertex lines"),
    ("2\n", 1, "header"),
    ("", 1, "empty graph file"),
    ("2 1 2\n2\n1\n", 1, "fmt"),
    ("2 1 011\n1 2 5\n1 1\n", 3, "leading value"),
])
def test_malformed_graph_names_file_and_line(tmp_path, text, line, what):
    p = write(tmp_path, "bad.graph", text)
    with pytest.raises(ValueError) as e:
        files.read_graph(p)
    assert f"{p}:{line}:" in str(e.value) and what in str(e.value)


def test_meshio_mesh_becomes_its_dual_graph(tmp_path):
    import meshio

    pts, tets = shock.initial_mesh(0.02, 0)
    w = (np.arange(len(tets)) % 3 + 1)
    path = tmp_path / "m.vtu"
    meshio.write(path, meshio.Mesh(pts, [("tetra", tets)], cell_data={"pwgt": [w]}))
    g = files.read(path)
    a, b = dual_edges(tets)
    assert g.n == len(tets) and g.nedges == a.size
    assert g.pwgt.tolist() == w.tolist() and np.array_equal(g.rwgt, g.pwgt)
    assert np.allclose(g.coords, pts[tets].mean(axis=1))
    # quads: a 3 x 2 grid of squares
    P = np.array([[x, y, 0.0] for y in range(3) for x in range(4)])
    Q = np.array([[y * 4 + x, y * 4 + x + 1, y * 4 + x + 5, y * 4 + x + 4] for y in range(2) for x in range(3)])
    qpath = tmp_path / "q.vtk"
    meshio.write(qpath, meshio.Mesh(P, [("quad", Q)]))
    gq = files.read(qpath)
    assert gq.n == 6 and gq.nedges == 7


def test_malformed_mesh(tmp_path):
    p = write(tmp_path, "broken.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\nnot a number\n")
    with pytest.raises(ValueError, match="broken.msh"):
        files.read(p)


def test_directory_and_glob_are_multi_level(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    write(d, "step10.graph", "3 2\n2\n1 3\n2\n")
    write(d, "step10.xyz", "0 0\n1 0\n2 0\n")
    write(d, "step2.graph", "2 1\n2\n1\n")
    write(d, "step2.xyz", "0 0\n2 0\n")
    levels = files.generate(path=str(d))
    assert [lv.meta["file"].rsplit("/", 1)[1] for lv in levels] == ["step2.graph", "step10.graph"]
    assert levels[0].parent is None
    assert levels[1].parent.tolist() == [0, 0, 1]  # nearest vertex of the previous level
    assert len(files.generate(path=str(d / "step*.graph"))) == 2
    wl, params, lv = workloads.load("files", {"path": str(d)})
    assert params["path"] == str(d) and len(lv) == 2


def test_levels_of_different_size_need_coordinates(tmp_path):
    write(tmp_path, "a1.graph", "2 1\n2\n1\n")
    write(tmp_path, "a2.graph", "3 2\n2\n1 3\n2\n")
    with pytest.raises(ValueError, match="coordinates"):
        files.generate(path=str(tmp_path / "a*.graph"))
    with pytest.raises(ValueError, match="no files match"):
        files.generate(path=str(tmp_path / "nothing*"))
    with pytest.raises(ValueError, match="path="):
        files.generate(path="")


@pytest.mark.parametrize("text", ["", "# vtk DataFile Version 4.2\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0"])
def test_a_mesh_reader_that_exits_or_prints_is_one_error_line(tmp_path, capsys, text):
    path = tmp_path / "m.vtk"
    path.write_text(text)
    with pytest.raises(ValueError) as err:  # never SystemExit
        files.read_mesh(path)
    assert str(err.value).startswith(f"{path}: cannot read mesh") and "\n" not in str(err.value)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
