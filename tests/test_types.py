import base64

import pytest

from selectools import (
    AgentResult,
    ContentPart,
    Message,
    Role,
    StreamChunk,
    ToolCall,
    image_message,
    text_content,
)


def test_roles_are_strings():
    assert Role.USER == "user"
    assert Role("tool") is Role.TOOL
    assert Message(role="assistant", content="x").role is Role.ASSISTANT


def test_message_round_trips_through_dicts():
    message = Message(
        role=Role.ASSISTANT,
        content="thinking",
        tool_calls=[ToolCall("search", {"q": "x"}, id="call_1")],
    )
    tool_message = Message(
        role=Role.TOOL, content="result", tool_name="search", tool_call_id="call_1", is_error=True
    )
    for original in (message, tool_message):
        copy = Message.from_dict(original.to_dict())
        assert copy.to_dict() == original.to_dict()
        assert copy.role is original.role


def test_none_content_becomes_empty_string():
    assert Message(role=Role.ASSISTANT, content=None).content == ""


def test_multimodal_text_content_and_image_message(tmp_path):
    url_message = image_message("https://example.com/cat.png", "What is this?")
    assert url_message.role is Role.USER
    assert [p.type for p in url_message.content] == ["text", "image_url"]
    assert text_content(url_message) == "What is this?"

    png = tmp_path / "pixel.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    local = image_message(str(png), "Describe")
    part = local.content[1]
    assert part.type == "image_base64"
    assert part.media_type == "image/png"
    assert base64.b64decode(part.image_base64) == png.read_bytes()
    assert Message.from_dict(local.to_dict()).to_dict() == local.to_dict()


def test_image_message_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="pass an http"):
        image_message(str(tmp_path / "missing.png"), "x")


def test_reprs_are_short_and_deterministic():
    message = Message(role=Role.USER, content="x" * 100)
    assert repr(message) == f"Message(role='user', content='{'x' * 57}...')"
    result = AgentResult(message=Message(role=Role.ASSISTANT, content="done"))
    assert (
        repr(result)
        == "AgentResult(content='done', iterations=0, tool_calls=0, tokens=0, stop_reason='final')"
    )
    assert "0x" not in repr(result)


def test_agent_result_content_and_role_come_from_the_message():
    result = AgentResult(
        message=Message(role=Role.ASSISTANT, content=[ContentPart(type="text", text="hi")])
    )
    assert result.content == "hi"
    assert result.role is Role.ASSISTANT
    assert result.run_id is None


def test_stream_chunk_defaults():
    chunk = StreamChunk()
    assert (chunk.content, chunk.role, chunk.tool_calls) == ("", Role.ASSISTANT, None)


def test_tool_reply_builds_the_tool_message_by_field_order():
    """``Message.tool_reply`` builds positionally: a new field goes last, or update it."""
    from dataclasses import fields

    assert [f.name for f in fields(Message)] == [
        "role",
        "content",
        "tool_calls",
        "tool_name",
        "tool_call_id",
        "tool_result",
        "image_path",
        "image_base64",
        "is_error",
    ]
    reply = Message.tool_reply("search", "call_1", "3 hits", {"hits": 3}, True)
    assert reply == Message(
        role=Role.TOOL,
        content="3 hits",
        tool_name="search",
        tool_call_id="call_1",
        tool_result={"hits": 3},
        is_error=True,
    )


def test_agent_result_field_order_is_pinned_for_positional_construction():
    """The agent builds its result positionally (RunContext.finish): a new field goes last."""
    from dataclasses import fields

    assert [f.name for f in fields(AgentResult)] == [
        "message",
        "iterations",
        "tool_calls",
        "tool_name",
        "tool_args",
        "usage",
        "trace",
        "parsed",
        "reasoning",
        "reasoning_history",
        "provider_used",
        "stop_reason",
        "error",
        "messages",
    ]


def test_message_with_a_missing_image_path_raises_naming_the_path(tmp_path):
    """``Message(image_path=...)`` must not build a message whose image silently goes missing."""
    with pytest.raises(FileNotFoundError, match=r"missing\.jpg") as info:
        Message(role=Role.USER, content="What's in this image?", image_path="missing.jpg")
    assert info.value.filename == "missing.jpg"
    (tmp_path / "a_folder").mkdir()
    with pytest.raises(FileNotFoundError, match="a_folder"):
        Message(role=Role.USER, content="x", image_path=str(tmp_path / "a_folder"))
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0 a jpeg header")
    assert Message(role=Role.USER, content="x", image_path=str(photo)).image_path == str(photo)
    assert Message(role=Role.USER, content="x", image_path="").image_path == ""  # no image


def test_a_saved_message_whose_image_is_gone_still_loads(tmp_path):
    """History restored from JSON keeps the path it recorded (the file may have moved since)."""
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0")
    saved = Message(role=Role.USER, content="x", image_path=str(photo)).to_dict()
    photo.unlink()
    restored = Message.from_dict(saved)
    assert restored.image_path == str(photo) and restored.to_dict() == saved
