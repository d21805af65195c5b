"""Charm++ load balancers and GrapevineLB for lbbench (see README.md)."""
