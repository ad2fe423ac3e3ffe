import warnings

import pytest

from selectools import beta, deprecated, stable
from selectools.stability import stable as stable_from_module


def test_stable_and_beta_return_the_object_unchanged():
    def f(x):
        return x * 2

    assert stable(f) is f
    assert f.__stability__ == "stable"

    class C:
        pass

    assert beta(C) is C
    assert C.__stability__ == "beta"
    assert stable_from_module is stable


def test_deprecated_function_warns_on_every_call():
    @deprecated(since="0.19", replacement="NewProvider")
    def old_factory():
        return 42

    for _ in range(2):
        with pytest.warns(
            DeprecationWarning,
            match=r"old_factory is deprecated since v0\.19\. Use NewProvider instead\.",
        ):
            assert old_factory() == 42
    assert old_factory.__name__ == "old_factory"
    assert old_factory.__stability__ == "deprecated"
    assert old_factory.__deprecated_since__ == "0.19"
    assert old_factory.__deprecated_replacement__ == "NewProvider"


def test_deprecated_class_warns_on_every_instantiation():
    @deprecated(since="0.19")
    class OldAgent:
        def __init__(self, value):
            self.value = value

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert OldAgent(1).value == 1
        OldAgent(2)
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert len(messages) == 2
    assert messages[0] == "OldAgent is deprecated since v0.19."
    assert OldAgent.__deprecated_since__ == "0.19"
    assert OldAgent.__deprecated_replacement__ is None


def test_deprecation_warning_points_at_the_caller():
    @deprecated(since="1.0")
    def old():
        return None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old()
    assert caught[0].filename == __file__


def test_the_documented_public_api_carries_its_stability():
    """The Agent and Tools pages mark these stable; the new seams are beta."""
    import selectools
    from selectools.tools import ToolOptions

    for name in ("Agent", "AgentConfig", "Tool", "tool", "ToolParameter", "ToolRegistry"):
        assert getattr(selectools, name).__stability__ == "stable", name
    assert ToolOptions.__stability__ == "beta"
