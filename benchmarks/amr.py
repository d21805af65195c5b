"""asv: one regrid step of every AMR scheme the AMR reports use, on ``bl`` at P = 16 (issue 26, tracked, not
asserted; target: under 0.3 s).

``AmrStep.track_step_P16``: the runner's whole cell (``time_total_s``: the scheme's pieces, their check,
the data moved and its accounting, every metric including the ``amr_*`` figures) of step 33 of ``bl``,
the trace's largest (27,426 boxes; IGD: 403,664 pieces), after step 32 (so the data moved is counted).
The workload and its box graphs come from the workload cache; the result store is cold.
"""
import tempfile

SCHEMES = ["amr-sfc", "amr-igd", "amr-cgd", "amr-ild", "amr-itb", "amr-wd", "amr-ild[ild_split=planes]",
           "amr-igd[igd_deal=rotate]"]


class AmrStep:
    params = SCHEMES
    param_names = ["scheme"]
    timeout = 900
    number = 1
    repeat = 1
    STEP = 33

    def setup_cache(self):
        from harness import load_workload
        from harness.run.runner import graph_of

        for lv in load_workload("bl", {}, 0)[2][self.STEP - 2:self.STEP]:
            graph_of(lv)  # the box graphs: built once, then read from the workload cache

    def track_step_P16(self, scheme):
        from harness.run.api import compare

        with tempfile.TemporaryDirectory(prefix="asv-amr-") as out:
            df = compare(scheme, workload="bl", P=16, levels=[self.STEP - 1, self.STEP], cache=False, out=out)
        row = df[df["level"] == self.STEP].iloc[0]
        if row["status"] != "ok":
            raise RuntimeError(f"{scheme}: {row['status']}")
        return float(row["time_total_s"])

    track_step_P16.unit = "s (one step, runner's whole cell)"


if __name__ == "__main__":  # python -m benchmarks.amr: every scheme once
    b = AmrStep()
    b.setup_cache()
    for s in SCHEMES:
        print(f"{s}: {b.track_step_P16(s):.3f} s")
