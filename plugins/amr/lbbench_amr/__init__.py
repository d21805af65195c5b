"""lbbench plugin: the AMR paper's six distribution schemes for adaptive grid hierarchies
(M. Shee, S. Bhavsar, M. Parashar, "Characterizing the Performance of Dynamic Distribution and
Load-Balancing Techniques for Adaptive Grid Hierarchies")."""
__version__ = "0.1.0"
