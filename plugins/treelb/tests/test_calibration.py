"""The constants of Eq. 3 fitted held out by P (fits.py): the stored terms give the core's figures, the committed
fits are what ``lbbench calibrate`` computes, and no cell is computed under a fit of its own printed value."""
import pandas as pd
import pytest

from harness import compare
from harness.claims import calibrate as cb
from lbbench_treelb import fits
from lbbench_treelb.protocol import P_LIST, RUN

SP2 = fits.value_of(40e-6, 1 / 36e6)


@pytest.fixture(scope="module")
def mlkp10(tmp_path_factory):
    """MLkP's six truss levels at P = 10 (under a second)."""
    return compare(["mlkp"], P=10, workload="truss", out=str(tmp_path_factory.mktemp("res")), progress=False,
                   **RUN).sort_values("level")


def test_terms_give_the_core_figures(mlkp10):
    """Eq. 8 from the stored terms under the SP2 constants is the core's (app_*); under the fit used at P = 10 it
    is the plugin's treelb_app_* (the main reading)."""
    texts = mlkp10["treelb_app_terms"].tolist()
    core = mlkp10["app_seq_iter_s"].sum() / mlkp10["app_iter_s"].sum()
    assert fits.smax(texts, **fits.parse(SP2)) == pytest.approx(core, rel=1e-7)  # rows keep 10 digits
    fitted = mlkp10["treelb_app_seq_iter_s"].sum() / mlkp10["treelb_app_iter_s"].sum()
    assert fits.smax(texts, **fits.constants(10)) == pytest.approx(fitted, rel=1e-7)
    assert fits.parse(fits.value_of(1.6e-4, 1e-6)) == {"t_setup": 1.6e-4, "t_c": 1e-6}


class OneCell:
    """Report options whose compare has only MLkP at P = 10 (the other cells absent)."""

    def __init__(self, rows):
        self.rows = rows

    def compare(self, methods, P=None, **kw):
        return self.rows if P == 10 else pd.DataFrame(columns=self.rows.columns)


@pytest.mark.parametrize("held", [30, 70])
def test_fit_reproduces_its_csv(mlkp10, tmp_path, held):
    """Rerun on one cell and two candidates (the chosen one and the grid's first): the committed CSV's figures."""
    committed = cb.read(fits.path(held))
    chosen = committed.loc[committed["chosen"].astype(str) == "True", "value"].iloc[0]
    other = fits.CANDIDATES[0]
    cal = fits.calibration(held, (chosen, other), tmp_path / "fit.csv")
    got = cb.fit(cal, OneCell(mlkp10))
    key = (got["P"] == "10") & (got["row"] == "MLkP")
    assert key.sum() == 2
    for value in (chosen, other):
        ours = got.loc[key & (got["value"] == value), "ours"].item()
        want = committed.loc[(committed["P"] == "10") & (committed["row"] == "MLkP") & (committed["value"] == value),
                             "ours"].astype(float).item()
        assert ours == pytest.approx(want, rel=1e-5)


def test_held_out_by_p():
    """Each fit reads Table 4 at the other three P and is used only at its own P: no cell of Tables 3-4 is
    computed with constants fitted on its own printed value, and every one is computed under exactly one fit."""
    applied = []
    for cal in fits.CALIBRATIONS:
        held = int(cal.name.rsplit("P", 1)[1])
        assert {int(k[2]) for k in cb.keys_of(cal.cells)} == set(P_LIST) - {held}
        assert {int(k[2]) for k in cb.keys_of(cal.applies)} == {held}
        assert not cb.own_keys(cal)
        applied.extend(cb.keys_of(cal.applies))
    assert len(applied) == len(set(applied)) == 2 * 48
    assert [fits.held_out(P) for P in (10, 20, 21, 40, 64, 128)] == [10, 10, 30, 30, 70, 70]
