"""One Mt-KaHyPar call in a fresh process (see libraries.py): graph as .npz on stdin, partition as .npy on stdout."""
import io
import os
import sys

import numpy as np


def main(preset: str) -> None:
    data = sys.stdin.buffer.read()
    result = os.dup(1)
    os.dup2(2, 1)  # whatever the library prints goes to stderr: stdout carries the partition only
    import mtkahypar

    d = np.load(io.BytesIO(data))
    k, seed = (int(x) for x in d["args"])
    ini = mtkahypar.initialize(1, False)
    mtkahypar.set_seed(seed)
    ctx = ini.context_from_preset(getattr(mtkahypar.PresetType, preset))
    ctx.set_partitioning_parameters(k, float(d["eps"][0]), mtkahypar.Objective.CUT)
    ctx.logging = False
    e = d["edges"]
    g = ini.create_graph(ctx, d["vw"].size, e.shape[0], e, d["vw"], d["ew"])
    if (d["fixed"] >= 0).any():
        g.add_fixed_vertices(d["fixed"], k)
    out = io.BytesIO()
    np.save(out, np.asarray(g.partition(ctx).get_partition(), np.int64))
    with os.fdopen(result, "wb") as f:
        f.write(out.getvalue())


if __name__ == "__main__":
    main(sys.argv[1])
