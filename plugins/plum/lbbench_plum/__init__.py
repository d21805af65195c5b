"""PLUM for lbbench (SBN paper §4; MinEX paper §1).

Modules: ``partitioners`` (PMeTiS, DMeTiS; §4.2), ``similarity`` (S on the
engine; §4.3), ``reassign`` (heuristic and optimal processor reassignment;
§4.3), ``costmodel`` (gamma x MaxSR + O and the accept rule; §4.4),
``plugin`` (the lbbench hooks), ``reports`` (sbn-table6, sbn-table7),
``bench`` (benchmark set-up).
"""
