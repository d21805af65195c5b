"""The tree claims judge T_exec on counts (README "T_exec"): our wall seconds never move a verdict."""
import numpy as np
import pandas as pd

from lbbench_treelb import claims
from lbbench_treelb.reports import METHODS, P_LIST


def frame(seed: int = 0) -> pd.DataFrame:
    """Synthetic result rows of the 12 methods at the four P, two levels each."""
    rng = np.random.default_rng(seed)
    rows = []
    for P in P_LIST:
        for k, m in enumerate(METHODS.values()):
            for lev in (1, 2):
                it = 0.01 * (1 + rng.random())
                rows.append(dict(algorithm=m, P=P, level=lev, status="ok", tree_node_visits=int(rng.integers(1e4, 1e6)),
                                 texec_model_s=0.01 * rng.random(), texec_s=rng.random(), time_balance_s=rng.random(),
                                 time_partition_s=rng.random(), treelb_app_iter_s=it, app_iter_s=it / 2,
                                 treelb_app_seq_iter_s=0.1, treelb_app_comp_max_s=it / 2,
                                 treelb_app_comm_max_s=it / 2))
    return pd.DataFrame(rows)


def verdicts(df):
    return [c.check(df) for c in claims.CLAIMS if c.cells]


def test_wall_seconds_do_not_move_a_verdict():
    for seed in range(3):
        df = frame(seed)
        before = verdicts(df)
        wall = df.copy()
        rng = np.random.default_rng(99 + seed)
        for col in ("texec_s", "time_balance_s", "time_partition_s"):
            wall[col] = rng.random(len(wall)) * 1e4
        assert verdicts(wall) == before


def test_texec_claims_read_the_counts():
    df = frame(1)
    lb = {c.name: c for c in claims.CLAIMS}["tree-lb-faster-than-mapping"]
    mappers = df["algorithm"].isin(["ae-mc", "ae-orb", "mlkp"])
    df.loc[mappers, "tree_node_visits"] = 10**8
    df.loc[~mappers, "tree_node_visits"] = 10
    assert lb.check(df)[0] is True
    df.loc[mappers, "tree_node_visits"] = 1
    assert lb.check(df)[0] is False


def test_two_readings_the_stricter_decides():
    """The fitted constants (treelb_app_iter_s, the main reading) and the SP2 constants (app_iter_s, the other):
    either can take a verdict away, neither gives one alone."""
    df = frame(2)
    c = {c.name: c for c in claims.CLAIMS}["tree-solver-lb-faster"]
    lb = df["algorithm"].str.contains("/")
    df.loc[lb, "treelb_app_iter_s"], df.loc[~lb, "treelb_app_iter_s"] = 0.001, 0.1  # fitted: LB faster
    df.loc[lb, "app_iter_s"], df.loc[~lb, "app_iter_s"] = 0.1, 0.001  # SP2: LB slower
    holds, text = c.check(df)
    assert holds is False and text.startswith("fitted constants: Σ T_i of M/LB < Σ T_i of M: 36/36")
    assert "SP2 constants: Σ T_i of M/LB < Σ T_i of M: 0/36" in text and c.other[1](df)[0] is False
    df.loc[lb, "app_iter_s"] = 0.0001  # SP2: LB faster
    df.loc[lb, "treelb_app_iter_s"] = 1.0  # fitted: LB slower
    assert c.check(df)[0] is False and c.other[1](df)[0] is True  # the fit takes it away; SP2 alone holds
    df.loc[lb, "treelb_app_iter_s"] = 0.001
    assert c.check(df)[0] is True and c.on_paper()[0] is True  # Table 4 orders it 36/36


def test_aemc_claim_judges_the_replay_with_the_papers_aemc_cost():
    """The AE/MC family's T_exec is the paper's Table 2 (AE/MC is not described in the paper): our AE/MC's
    counted visits do not move the verdict; our reconstruction is the other reading."""
    c = {c.name: c for c in claims.CLAIMS}["tree-aemc-smallest-speedup"]
    df = frame(3)
    df["tree_node_visits"], df["texec_model_s"] = 1000, 0.0  # every T_exec small: ours gives equal speedups
    df["app_iter_s"] = df["treelb_app_iter_s"] = 0.001
    df["treelb_app_seq_iter_s"] = 0.5  # Σ Seq_i = 1 s over the two levels, as the paper's
    holds, text = c.check(df)
    assert holds is True and "the plain reading" in text  # the paper's 24-3166 s against our 0.01 s
    assert c.other[1](df)[0] is False  # our AE/MC as cheap as the others: not much smaller
    aemc = df["algorithm"].str.startswith("ae-mc")
    df.loc[aemc, "tree_node_visits"] = 10**9
    assert c.check(df)[0] is True and c.other[1](df)[0] is True
    df.loc[~aemc, "tree_node_visits"] = 10**9  # the others as slow as the paper's AE/MC
    assert c.check(df)[0] is False
