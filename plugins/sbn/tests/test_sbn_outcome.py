"""What a level run hands back (lbbench_sbn.outcome, issue 52): the run is gone before what ran is put together."""
import weakref

import numpy as np

import lbbench_sbn.plugin as plugin
from harness.run.api import compare


def test_the_level_run_is_freed_before_what_ran_is_gathered(monkeypatch, tmp_path):
    runs, alive = [], []

    class Kept(plugin.LevelRun):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            runs.append(weakref.ref(self))

    def executed(mine):
        alive.append(any(r() is not None for r in runs))
        return gathered(mine)

    gathered = plugin.executed
    monkeypatch.setattr(plugin, "LevelRun", Kept)
    monkeypatch.setattr(plugin, "executed", executed)
    df = compare("sbn", workload="mini", P=4, levels=[1, 2], cache=False, out=str(tmp_path))
    assert list(df["status"]) == ["ok", "ok"] and alive == [False, False]  # (under the runner's paused collector)
    assert np.all(df["loadimb"] >= 1)
