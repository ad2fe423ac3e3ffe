"""The provider table is the one list: exports, fallback families and the notebook read it."""

from __future__ import annotations

import pytest

import selectools
import selectools.providers as providers
from selectools.exceptions import ProviderConfigurationError
from selectools.providers._specs import PROVIDER_SPECS


def test_every_spec_is_exported_lazily_from_both_packages():
    for spec in PROVIDER_SPECS:
        cls = getattr(selectools, spec.class_name)
        assert getattr(providers, spec.class_name) is cls
        assert cls.__module__ == spec.import_path
        assert cls.name == spec.name
    assert providers.__all__ == sorted(providers._LAZY)
    assert set(providers.__all__) <= set(dir(providers))


@pytest.mark.parametrize("spec", [s for s in PROVIDER_SPECS if s.key_env], ids=lambda s: s.name)
def test_a_missing_key_names_the_tables_variable(spec, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env here
    for spec_ in PROVIDER_SPECS:
        for var in spec_.key_env:
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT", "gpt-4o")
    with pytest.raises(ProviderConfigurationError, match=spec.key_env[0]):
        getattr(selectools, spec.class_name)()
    monkeypatch.setenv(spec.key_env[-1], "k-from-env")
    assert getattr(selectools, spec.class_name)().name == spec.name


def test_notebook_names_come_from_the_table():
    from selectools.notebook.providers import PROVIDERS, keys_found

    assert list(PROVIDERS) == [s.name for s in PROVIDER_SPECS] + ["scripted"]
    for spec in PROVIDER_SPECS:
        assert PROVIDERS[spec.name].env_vars == spec.key_env
    assert set(keys_found({})) == {v for s in PROVIDER_SPECS for v in s.key_env}


def test_fallback_families_come_from_the_table():
    from selectools.exceptions import ProviderError
    from selectools.providers import FallbackProvider
    from selectools.testing import ScriptedProvider

    down = ScriptedProvider([ProviderError("down", retryable=True)], model="gpt-4o-mini")
    claude = ScriptedProvider(["hi"], name="anthropic", model="claude-sonnet-4-6")
    local = ScriptedProvider(["hi"], name="mine", model="my-model")
    FallbackProvider([down, claude]).complete(model="gpt-4o", system_prompt="", messages=[])
    assert claude.requests[0].model == "claude-sonnet-4-6"  # the table: gpt-4o is not anthropic's
    down.add(ProviderError("down", retryable=True))
    FallbackProvider([down, local]).complete(model="gpt-4o", system_prompt="", messages=[])
    assert local.requests[0].model == "gpt-4o"  # not in the table: the model is passed on
