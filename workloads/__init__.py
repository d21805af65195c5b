"""Standard workload generators, readers for users' files, and the papers' reference values."""
