import pytest

from harness.contract import plugins


@pytest.fixture
def register():
    """Register plugin objects for one test, exactly as an entry point would, and remove them after."""
    names = []

    def add(obj, name):
        plugins.add(obj, name, ("test-" + name, "0"))
        names.append(name)
        return obj

    yield add
    for name in names:
        plugins.manager().unregister(name=name)
