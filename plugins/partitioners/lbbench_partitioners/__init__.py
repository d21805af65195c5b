"""KaHIP, Mt-KaHyPar and Zoltan-style geometric partitioners for lbbench (see README.md)."""
