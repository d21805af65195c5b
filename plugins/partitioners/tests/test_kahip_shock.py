"""KaHIP's strong preset against METIS on shock at P = 32, measured: no larger cut (the first level only:
strong takes 15-100 s a level here; `lbbench claims --paper kahip` judges all nine)."""
from harness import compare


def test_kahip_strong_cuts_no_more_than_metis(tmp_path):
    df = compare("kahip[preset=strong],metis", workload="shock", P=32, levels=[1], out=str(tmp_path), progress=False)
    assert (df["status"] == "ok").all()
    cut = df.set_index("algorithm")["post_exec_cut_pct"]
    assert cut["kahip[preset=strong]"] <= cut["metis"]
