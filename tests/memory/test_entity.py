"""EntityMemory on its own: documented merge rules, LRU, context, extraction, persistence."""

from __future__ import annotations

import json

import pytest

from selectools.entity_memory import Entity, EntityMemory, ExtractionError
from selectools.exceptions import SelectoolsError
from selectools.testing import ScriptedProvider


def test_merge_rules_keep_first_name_and_type_union_aliases_and_count_mentions():
    em = EntityMemory(max_entities=50)
    em.update([Entity(name="Alice", entity_type="person", attributes={"role": "engineer"})])
    em.update(
        [
            Entity(
                name="alice",
                entity_type="organization",
                attributes={"location": "Seattle", "role": "lead"},
                aliases=["Ali"],
            )
        ]
    )
    alice = em.get_entity("ALICE")
    assert alice is not None
    assert (alice.name, alice.entity_type, alice.mentions) == ("Alice", "person", 2)
    assert alice.attributes == {"role": "lead", "location": "Seattle"}
    assert alice.aliases == ["Ali"]  # "alice" differs only in case: not an alias
    assert em.get_entity("ali") is alice  # aliases find the entity too
    assert len(em) == 1
    assert alice.first_seen is not None and alice.last_seen >= alice.first_seen


def test_lru_evicts_the_least_recently_mentioned():
    em = EntityMemory(max_entities=3)
    for name in "ABC":
        em.update([Entity(name=name, entity_type="person")])
    em.update([Entity(name="A", entity_type="person")])  # A is now the most recent
    em.update([Entity(name="D", entity_type="person")])
    assert em.get_entity("B") is None
    assert [e.name for e in em.get_all_entities()] == ["D", "A", "C"]


def test_build_context_format():
    em = EntityMemory()
    assert em.build_context() == ""
    em.update([Entity(name="Seattle", entity_type="location")])
    em.update(
        [Entity(name="Alice", entity_type="person", attributes={"role": "eng", "company": "Acme"})]
    )
    assert em.build_context() == (
        "[Known Entities]\n- Alice (person): role=eng, company=Acme\n- Seattle (location)"
    )


def test_extraction_uses_the_documented_prompt_and_normalises_types():
    reply = json.dumps(
        [
            {"name": "Alice", "entity_type": "person", "attributes": {"role": "engineer"}},
            {"name": "Atlas", "entity_type": "spaceship", "attributes": {}},
            {"entity_type": "person"},  # no name: dropped
        ]
    )
    provider = ScriptedProvider([f"```json\n{reply}\n```"])
    em = EntityMemory(provider=provider, extraction_model="tiny")
    found = em.extract_entities("Alice works on Atlas.")
    assert [(e.name, e.entity_type) for e in found] == [("Alice", "person"), ("Atlas", "other")]
    request = provider.requests[0]
    assert request.model == "tiny"
    prompt = request.messages[-1].text
    assert prompt.startswith("Extract all named entities from the following text.")
    assert '"person", "organization", "location", "product", "concept", "event", "other"' in prompt
    assert "Alice works on Atlas." in prompt


def test_without_provider_extraction_is_skipped():
    assert EntityMemory().extract_entities("Alice") == []


@pytest.mark.parametrize("reply", ["I found Alice", '{"name": "Alice"}', "[1, 2]"])
def test_malformed_extraction_reply_is_a_clear_error(reply):
    em = EntityMemory(provider=ScriptedProvider([reply]))
    with pytest.raises(ExtractionError) as info:
        em.extract_entities("Alice")
    assert isinstance(info.value, SelectoolsError)
    assert "entity extraction" in str(info.value)
    assert info.value.reply == reply


def test_to_dict_round_trip_and_file_save_load(tmp_path):
    em = EntityMemory(max_entities=7)
    em.update([Entity(name="Alice", entity_type="person", attributes={"role": "engineer"})])
    em.update([Entity(name="Bob", entity_type="person")])
    again = EntityMemory.from_dict(json.loads(json.dumps(em.to_dict())))
    assert again.max_entities == 7
    assert [e.name for e in again.get_all_entities()] == ["Bob", "Alice"]
    assert again.get_entity("alice").attributes == {"role": "engineer"}
    path = tmp_path / "entities.json"
    em.save(path)
    loaded = EntityMemory.load(path)
    assert loaded.get_entity("Bob") is not None


def test_save_merges_with_what_another_writer_saved(tmp_path):
    path = tmp_path / "entities.json"
    one, two = EntityMemory(), EntityMemory()
    one.update([Entity(name="Alice", entity_type="person")])
    two.update([Entity(name="Bob", entity_type="person")])
    one.save(path)
    two.save(path)
    names = {e.name for e in EntityMemory.load(path).get_all_entities()}
    assert names == {"Alice", "Bob"}


def test_bad_input_gets_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="max_entities"):
        EntityMemory(max_entities=0)
    with pytest.raises(ValueError, match="name"):
        Entity(name=" ", entity_type="person")
    with pytest.raises(TypeError, match="Entity objects"):
        EntityMemory().update([{"name": "Alice"}])  # type: ignore[list-item]


def test_dataframe_and_html():
    pandas = pytest.importorskip("pandas")
    em = EntityMemory()
    em.update([Entity(name="Alice", entity_type="person", attributes={"role": "eng"})])
    frame = em.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["name"]) == ["Alice"]
    assert frame.loc[0, "attributes"] == {"role": "eng"}
    html = em._repr_html_()
    assert "Alice" in html and "role=eng" in html and "1 entity" in html


def test_a_file_from_a_newer_version_or_not_a_memory_is_refused(tmp_path):
    from selectools.memory._store import MemoryStoreError, StoreVersionError

    path = tmp_path / "entities.json"
    EntityMemory().save(path)
    data = json.loads(path.read_text())
    data["format"] = 9
    path.write_text(json.dumps(data))
    with pytest.raises(StoreVersionError, match="format 9 by a newer selectools"):
        EntityMemory.load(path)
    with pytest.raises(StoreVersionError):
        EntityMemory().save(path)  # never overwrites what it cannot read
    assert json.loads(path.read_text())["format"] == 9
    path.write_text("{half a file")
    with pytest.raises(MemoryStoreError, match="is not an entity memory file"):
        EntityMemory.load(path)


def test_save_keeps_the_later_facts_of_an_entity_both_writers_know(tmp_path):
    path = tmp_path / "entities.json"
    one, two = EntityMemory(), EntityMemory()
    one.update(
        [Entity(name="Alice", entity_type="person", attributes={"city": "Oslo", "team": "A"})]
    )
    two.update(
        [Entity(name="Alice", entity_type="person", attributes={"city": "Bergen"}, aliases=["Ali"])]
    )
    two.update([Entity(name="Bob", entity_type="person")])
    two.save(path)  # two's Alice is the later one
    one.update([Entity(name="Carol", entity_type="person")])
    one.save(path)
    saved = EntityMemory.load(path)
    alice = saved.get_entity("Alice")
    assert alice.attributes == {"city": "Bergen", "team": "A"}
    assert alice.aliases == ["Ali"]
    assert {e.name for e in saved.get_all_entities()} == {"Alice", "Bob", "Carol"}
