import pytest

from harness.contract.spec import parse_method, parse_methods, resolve, parse_call


def test_parse_composition_and_params():
    ms = parse_methods("sbn,plum[partitioner=dmetis,F=2],mlkp/cbtlb[x=1]")
    assert [str(m) for m in ms] == ["sbn", "plum[partitioner=dmetis,F=2]", "mlkp/cbtlb[x=1]"]
    assert ms[1].calls[0].given == (("partitioner", "dmetis"), ("F", "2"))
    assert [c.name for c in ms[2].calls] == ["mlkp", "cbtlb"]


def test_resolve_types():
    call = parse_call("minex[throttle=inf,verbose=yes,levels=3]")
    got = resolve(call, {"throttle": 64.0, "verbose": False, "levels": 1, "name": "x"})
    assert got == {"throttle": float("inf"), "verbose": True, "levels": 3, "name": "x"}


@pytest.mark.parametrize("text, msg", [
    ("plum[", "unclosed"),
    ("plum]", "unbalanced"),
    ("plum[]", "empty parameter list"),
    ("plum[x]", "expected key=value"),
    ("plum[x=1,x=2]", "given twice"),
    ("a/b/c", "at most one '/'"),
    ("sbn,,plum", "empty entry"),
    ("s bn", "malformed method"),
])
def test_malformed(text, msg):
    with pytest.raises(ValueError, match=msg):
        parse_methods(text)


def test_resolve_errors():
    with pytest.raises(ValueError, match="has no parameter 'y'"):
        resolve(parse_call("a[y=1]"), {"x": 1})
    with pytest.raises(ValueError, match="x='z' is not a valid int"):
        resolve(parse_call("a[x=z]"), {"x": 1})
