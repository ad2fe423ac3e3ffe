"""The three memories inside Agent: context before the model call, extraction after the turn."""

from __future__ import annotations

import asyncio
import json

import pytest

from selectools import Agent, AgentConfig, AgentObserver, ConversationMemory, Message, Role
from selectools.entity_memory import Entity, EntityMemory
from selectools.knowledge import KnowledgeMemory
from selectools.knowledge_graph import KnowledgeGraphMemory, Triple
from selectools.testing import ScriptedProvider, tool_call
from selectools.trace import StepType

ENTITIES = json.dumps(
    [
        {"name": "Alice", "entity_type": "person", "attributes": {"role": "engineer"}},
        {"name": "Acme Corp", "entity_type": "organization", "attributes": {}},
    ]
)
TRIPLES = json.dumps(
    [
        {"subject": "Alice", "relation": "works_at", "object": "Acme Corp", "confidence": 0.95},
        {"subject": "Acme Corp", "relation": "based in", "object": "Seattle", "confidence": 0.4},
    ]
)


class Recorder(AgentObserver):
    def __init__(self) -> None:
        self.events: list[tuple[str, tuple]] = []

    def on_entity_extraction(self, run_id, entities_extracted, entities_total, entities, **kw):
        self.events.append(
            ("entity", (entities_extracted, entities_total, [e.name for e in entities]))
        )

    def on_kg_extraction(self, run_id, triples_extracted, triples_total, triples, **kw):
        self.events.append(
            ("kg", (triples_extracted, triples_total, [t.relation for t in triples]))
        )

    def on_error(self, run_id, error, context, **kw):
        self.events.append(("error", (context["phase"], context.get("reply"))))


def _agent(tmp_path, entity_replies, kg_replies, answers, observers=()):
    em = EntityMemory(provider=ScriptedProvider(entity_replies))
    kg = KnowledgeGraphMemory(provider=ScriptedProvider(kg_replies))
    km = KnowledgeMemory(storage_dir=tmp_path / "memory")
    provider = ScriptedProvider(answers)
    agent = Agent(
        tools=[],
        provider=provider,
        memory=ConversationMemory(max_messages=50),
        config=AgentConfig(
            entity_memory=em, knowledge_graph=kg, knowledge_memory=km, observers=list(observers)
        ),
    )
    return agent, provider, em, kg, km


def test_extraction_after_the_turn_and_context_before_the_next_model_call(tmp_path):
    recorder = Recorder()
    agent, provider, em, _kg, km = _agent(
        tmp_path, [ENTITIES, "[]"], [TRIPLES, "[]"], ["Noted.", "Alice is an engineer."], [recorder]
    )
    first = agent.run([Message(role=Role.USER, content="Alice is an engineer at Acme Corp.")])
    assert [s.type for s in first.trace.steps] == [
        StepType.LLM_CALL,
        StepType.ENTITY_EXTRACTION,
        StepType.KG_EXTRACTION,
    ]
    # the first call had nothing to inject yet
    assert "[Known Entities]" not in provider.requests[0].system_prompt
    assert recorder.events == [
        ("entity", (2, 2, ["Alice", "Acme Corp"])),
        ("kg", (2, 2, ["works_at", "based_in"])),
    ]
    km.remember("Prefers Python", category="preferences", persistent=True)
    km.remember("Debugging the API", category="context")
    agent.run("What do you know about Alice?")
    prompt = provider.requests[1].system_prompt
    sections = [
        "[Known Entities]",
        "[Known Relationships]",
        "[Long-term Memory]",
        "[Recent Memory]",
    ]
    positions = [prompt.index(s) for s in sections]
    assert positions == sorted(positions)  # the documented order
    assert "- Alice (person): role=engineer" in prompt
    assert "- Alice works_at Acme Corp (0.95)" in prompt
    assert "Seattle" not in prompt  # below min_confidence
    assert "- Prefers Python" in prompt
    assert "(context) Debugging the API" in prompt
    # extraction used the extractor's own provider, with the documented prompt
    assert em.provider.requests[0].messages[-1].text.startswith("Extract all named entities")
    assert "Alice is an engineer at Acme Corp." in em.provider.requests[0].messages[-1].text


def test_malformed_extraction_reply_is_recorded_and_the_run_goes_on(tmp_path):
    recorder = Recorder()
    agent, _, em, kg, _ = _agent(
        tmp_path, ["Sure! Alice is a person."], [TRIPLES], ["Hello Alice."], [recorder]
    )
    result = agent.run("Alice works at Acme Corp")
    assert result.content == "Hello Alice."
    assert result.error is None or "extraction" not in str(result.error)
    errors = [s for s in result.trace.steps if s.type is StepType.ERROR]
    assert len(errors) == 1
    assert "malformed entity extraction reply" in errors[0].summary
    assert ("error", ("entity_extraction", "Sure! Alice is a person.")) in recorder.events
    assert len(em) == 0
    assert kg.store.count() == 2  # the other extractor still ran


def test_extraction_provider_failure_is_recorded(tmp_path):
    agent, _, _em, _, _ = _agent(tmp_path, [], ["[]"], ["ok"])
    result = agent.run("Alice")
    assert result.content == "ok"
    errors = [s for s in result.trace.steps if s.type is StepType.ERROR]
    assert errors and "entity extraction call failed" in errors[0].summary


def test_remember_tool_is_registered_and_writes_the_store(tmp_path):
    km = KnowledgeMemory(storage_dir=tmp_path / "m")
    provider = ScriptedProvider(
        [
            tool_call(
                "remember",
                content="User prefers dark mode",
                category="preferences",
                persistent=True,
            ),
            "Saved.",
        ]
    )
    agent = Agent(tools=[], provider=provider, config=AgentConfig(knowledge_memory=km))
    assert [t.name for t in agent.tools] == ["remember"]
    result = agent.run("Remember that I prefer dark mode")
    assert result.content == "Saved."
    assert km.get_persistent_facts() == {"preferences": ["User prefers dark mode"]}
    assert "## preferences\n- User prefers dark mode" in (tmp_path / "m" / "MEMORY.md").read_text()
    # a fresh agent on the same folder sees it in its prompt
    provider2 = ScriptedProvider(["Dark mode."])
    agent2 = Agent(
        provider=provider2, config=AgentConfig(knowledge_memory=KnowledgeMemory(tmp_path / "m"))
    )
    agent2.run("What do I prefer?")
    assert "- User prefers dark mode" in provider2.requests[0].system_prompt


def test_arun_and_stream_share_the_hooks(tmp_path):
    em = EntityMemory(provider=ScriptedProvider([ENTITIES, ENTITIES]))
    provider = ScriptedProvider(["one", "two"])
    agent = Agent(provider=provider, config=AgentConfig(entity_memory=em))
    result = asyncio.run(agent.arun("Alice at Acme Corp"))
    assert StepType.ENTITY_EXTRACTION in [s.type for s in result.trace.steps]
    chunks = list(agent.stream("again"))
    final = chunks[-1]
    assert StepType.ENTITY_EXTRACTION in [s.type for s in final.trace.steps]
    assert em.get_entity("Alice").mentions == 2
    assert "[Known Entities]" in provider.requests[1].system_prompt


def test_manual_memories_without_provider_only_inject(tmp_path):
    em = EntityMemory()
    em.update([Entity(name="Selectools", entity_type="product", attributes={"type": "library"})])
    kg = KnowledgeGraphMemory()
    kg.update([Triple(subject="selectools", relation="written_in", object="Python")])
    provider = ScriptedProvider(["It is a library."])
    agent = Agent(provider=provider, config=AgentConfig(entity_memory=em, knowledge_graph=kg))
    result = agent.run("What is selectools written in?")
    assert [s.type for s in result.trace.steps] == [StepType.LLM_CALL]
    prompt = provider.requests[0].system_prompt
    assert "- Selectools (product): type=library" in prompt
    assert "- selectools written_in Python (1.00)" in prompt


def test_config_rejects_wrong_objects():
    with pytest.raises(TypeError, match="entity_memory must be an object like EntityMemory"):
        AgentConfig(entity_memory="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="knowledge_memory"):
        AgentConfig(knowledge_memory=object())  # type: ignore[arg-type]


def test_a_user_tool_named_remember_conflicts_clearly(tmp_path):
    from selectools import tool

    @tool
    def remember(content: str) -> str:
        """Mine."""
        return content

    with pytest.raises(ValueError, match="two tools are named 'remember'"):
        Agent(tools=[remember], config=AgentConfig(knowledge_memory=KnowledgeMemory(tmp_path)))


def test_entities_and_in_memory_triples_are_saved_with_the_session(tmp_path):
    from selectools.sessions import SQLiteSessionStore

    store = SQLiteSessionStore(db_path=str(tmp_path / "sessions.db"))
    first = Agent(
        provider=ScriptedProvider(["Noted."]),
        memory=ConversationMemory(),
        config=AgentConfig(
            entity_memory=EntityMemory(provider=ScriptedProvider([ENTITIES])),
            knowledge_graph=KnowledgeGraphMemory(provider=ScriptedProvider([TRIPLES])),
            session_store=store,
            session_id="user-42",
        ),
    )
    first.run("Alice is an engineer at Acme Corp.")
    em, kg = EntityMemory(), KnowledgeGraphMemory()
    provider = ScriptedProvider(["Alice is an engineer."])
    second = Agent(
        provider=provider,
        memory=ConversationMemory(),
        config=AgentConfig(
            entity_memory=em, knowledge_graph=kg, session_store=store, session_id="user-42"
        ),
    )
    assert em.get_entity("alice").attributes == {"role": "engineer"}
    assert kg.store.count() == 2 and kg.turns == 1
    second.run("Who is Alice?")
    prompt = provider.requests[0].system_prompt
    assert "- Alice (person): role=engineer" in prompt
    assert "- Alice works_at Acme Corp (0.95)" in prompt


def test_verbose_reports_extractions(tmp_path, capsys):
    agent = Agent(
        provider=ScriptedProvider(["ok"]),
        config=AgentConfig(
            verbose=True,
            entity_memory=EntityMemory(provider=ScriptedProvider([ENTITIES])),
            knowledge_graph=KnowledgeGraphMemory(provider=ScriptedProvider([TRIPLES])),
        ),
    )
    agent.run("Alice is an engineer at Acme Corp.")
    out = capsys.readouterr().out
    assert "[agent] entities: 2 extracted (Alice, Acme Corp), 2 tracked" in out
    assert "[agent] knowledge graph: 2 triple(s) extracted, 2 stored" in out
