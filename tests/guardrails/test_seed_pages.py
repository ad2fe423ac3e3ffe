"""What the GUARDRAILS Quick Start says the model receives, checked on the wire."""

from __future__ import annotations

import json

import pytest

from selectools.testing import FakeLLMServer
from tests.seed_examples._catalog import EXAMPLES, execute


def test_guardrails_quick_start_sends_the_redacted_prompt(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    with FakeLLMServer() as server:
        for name, value in server.env(api_key="sk-test").items():
            monkeypatch.setenv(name, value)
        server.add("Customer found: John Doe.")
        run = execute(EXAMPLES["guardrails-01-quick-start"])
        (request,) = server.requests  # the blocked second ask never reached the model
    sent = json.dumps(request.json)
    assert "Look up customer [EMAIL:********]" in sent
    assert "john@example.com" not in sent
    error = run.namespace["__raised__"]
    assert str(error) == "Guardrail 'topic' blocked: Denied topics detected: politics"
