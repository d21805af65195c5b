"""asv: ``lbbench reproduce --paper sbn`` resumed, through the command line (issue 26: "a second run computes
nothing and takes seconds"; tracked, not asserted).

``setup_cache`` computes the paper's 180 cells once (in asv's cache directory); each sample then runs the
command again on that store: the plan, the reports, the claims and the site, from the stored rows, in a new
process as a user's second run is.
"""
import os
import subprocess
import sys


def _reproduce(out: str) -> None:
    subprocess.run([sys.executable, "-m", "harness.present.cli", "reproduce", "--paper", "sbn", "-j", "2", "--out", out,
                    "-o", os.path.join(out, "site"), "-q"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


class ReproduceResume:
    timeout = 1200
    number = 1
    repeat = 3
    warmup_time = 0

    def setup_cache(self):
        out = os.path.abspath("reproduce-sbn")
        _reproduce(out)  # from an empty store: every cell computed and stored
        return out

    def time_resume_paper_sbn(self, out):
        _reproduce(out)


if __name__ == "__main__":  # python -m benchmarks.reproduce: the resume once, on a store in a scratch directory
    import tempfile
    import time

    with tempfile.TemporaryDirectory(prefix="lbbench-bench-") as scratch:
        store = os.path.join(scratch, "reproduce-sbn")
        _reproduce(store)
        t = time.perf_counter()
        _reproduce(store)
        print(f"reproduce --paper sbn resumed: {time.perf_counter() - t:.1f} s")
