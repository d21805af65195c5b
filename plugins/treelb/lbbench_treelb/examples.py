"""The paper's Examples 1-3 (§3.1-3.3, Figs. 2-4): the 7-processor fixture and the printed step lists.

The figures are not in the text; this processor graph is consistent with all
three examples (spec §1.3): Kruskal gives Example 1's MCST and the grouping
rule gives Example 3's metaprocessors.
"""
from __future__ import annotations

from .balancers import LoadMover, balance_on
from .procgraph import ProcGraph
from .trees import Tree

EDGES = [(0, 1, 1), (0, 2, 5), (0, 3, 1), (1, 2, 5), (2, 3, 4), (2, 5, 4), (3, 4, 3), (3, 5, 1), (4, 5, 1),
         (4, 6, 1), (5, 6, 3)]
LOADS = [26, 10, 16, 13, 12, 13, 10]  # Fig. 2b, after the refinement (N = 100, M = 7)
# Example 2's binary tree as the printed schedule implies it: P3 -> {P2 -> {P0, P1}, P5 -> {P4, P6}}.
# Fig. 3b is not in the text; this tree is used only by the labelled replay (``paper_tree=True``).
BTLB_TREE = Tree.from_children(3, {3: [2, 5], 2: [0, 1], 5: [4, 6]}, 7)

PAPER_STEPS = {
    "mcstlb": [[(0, 2), (3, 4), (5, 6)], [(2, 1)], [(2, 3)], [(2, 5)]],
    "btlb": [[(0, 2), (5, 4)], [(2, 1), (5, 6)], [(2, 3)], [(3, 5)]],
    "cbtlb": [[(2, 5)], [(5, 6)], [(0, 1), (3, 2), (6, 4)], [(0, 3), (1, 2)]],
}
# final loads: Example 1 and 3 derived in spec §1.1/§1.3 (Figs. 2f, 4 are not in the text)
PAPER_FINAL = {"mcstlb": [14, 14, 14, 15, 14, 15, 14], "btlb": [14, 14, 15, 14, 14, 15, 14],
               "cbtlb": [15, 14, 14, 14, 14, 14, 15]}


def fixture() -> ProcGraph:
    return ProcGraph.from_edges(7, EDGES, LOADS)


def replay(method: str, paper_tree: bool = False):
    """(steps as [(phase, [(sender, receiver, amount)])], final loads, figures) on the fixture, with our
    own tree construction. ``paper_tree`` replays BTLB on the tree Example 2's schedule implies instead
    (a labelled replay: our construction roots elsewhere, spec §1.2)."""
    mv = LoadMover(LOADS)
    tree = BTLB_TREE if method == "btlb" and paper_tree else None
    rec = balance_on(method, fixture(), mv, tree=tree)
    return mv.steps, mv.load.tolist(), rec


def tree_text(tree: Tree) -> str:
    """A tree as ``root P5: P5 -> P6, P3; P3 -> P4, P2; ...`` (children in order), and its depth."""
    kids = "; ".join(f"P{v} -> " + ", ".join(f"P{c}" for c in tree.children[v])
                     for v in tree.order.tolist() if tree.children[v])
    return f"root P{tree.root}, depth {tree.depth}: {kids}"
