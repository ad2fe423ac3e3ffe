"""The demo notebook, executed in a real kernel (nbclient): streaming, cards, results, charts, metadata."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import checkout_on_path, kernel_client

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "notebooks" / "notebook_tour.ipynb"

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

PROBE = """
import json
print(json.dumps({
    "type": type(result).__name__,
    "content": result.content,
    "trace_id": result.trace.run_id,
    "tokens": result.usage.total_tokens,
    "tool": get_price.name,
    "source": get_price.source.splitlines()[0],
    "quote": quote.parsed.model_dump(),
}))
"""


class RecordingClient(NotebookClient):
    """Keeps every iopub message per cell, including display updates a saved notebook folds in."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.messages: dict[int, list[dict]] = {}

    def process_message(self, msg, cell, cell_index):
        self.messages.setdefault(cell_index, []).append(msg)
        return super().process_message(msg, cell, cell_index)


def _index(nb, first_line: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.source.startswith(first_line))


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(TOUR, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    with checkout_on_path():
        client = RecordingClient(
            nb,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(TOUR.parent)}},
        )
        client.execute()
    return nb, client.messages


def test_agent_cell_renders_the_full_transcript_once_when_nobody_watches(executed):
    """nbclient executes with allow_stdin false: no redraws, one display, the final render."""
    nb, messages = executed
    index = _index(nb, "%%agent -o result")
    displays = [m for m in messages[index] if "display_data" in m["msg_type"]]
    assert [m["msg_type"] for m in displays] == ["display_data"]
    final_text = "Here is what I found: laptop costs 999.00 USD."
    [final] = nb.cells[index].outputs
    assert final_text in final.data["text/plain"]
    html = final.data["text/html"]
    assert "get_price" in html and "laptop costs 999.00 USD" in html  # the tool card
    assert "Let me look that up." in html and "Usage and cost" in html


INTERACTIVE = """
%load_ext selectools
from selectools import Agent
from selectools.testing import ScriptedProvider, reply
words = [f"w{i} " for i in range(120)]
slow = Agent(provider=ScriptedProvider([reply("".join(words), chunks=words, chunk_latency=0.004)]))
"""


def test_a_watched_cell_is_redrawn_in_place_then_replaced_by_the_final_render():
    """A frontend that allows stdin (JupyterLab, VS Code) is watching: the output is redrawn live."""
    with kernel_client() as client:
        assert client.execute_interactive(INTERACTIVE, timeout=60)["content"]["status"] == "ok"
        seen: list[dict] = []
        reply = client.execute_interactive(
            "%%agent slow -o streamed\nTalk.",
            allow_stdin=True,
            output_hook=seen.append,
            timeout=60,
        )
        assert reply["content"]["status"] == "ok"
    draws = [m for m in seen if "display_data" in m["msg_type"]]
    kinds = [m["msg_type"] for m in draws]
    assert kinds[0] == "display_data" and set(kinds[1:]) == {"update_display_data"}
    assert len(draws) >= 3, "redrawn while the run went on, then the final render"
    assert len({m["content"]["transient"]["display_id"] for m in draws}) == 1  # one output
    partial = [m["content"]["data"]["text/html"] for m in draws[:-1]]
    assert any("running" in html and "w0 " in html and "w119" not in html for html in partial)
    final = draws[-1]["content"]
    assert (
        "w119" in final["data"]["text/plain"]
        and final["metadata"]["selectools"]["stop_reason"] == "final"
    )


def test_parallel_tool_cards_and_gantt_figure(executed):
    nb, _ = executed
    compare = nb.cells[_index(nb, "%%agent -o compare")].outputs[-1].data["text/plain"]
    assert compare.count("[tool] get_price(") == 3
    figure = nb.cells[_index(nb, "compare.trace.gantt()")].outputs[0].data
    plot = figure["application/vnd.plotly.v1+json"]
    traces = {t["name"]: t for t in plot["data"]}
    assert set(traces) == {"LLM call", "tool call"}
    assert plot["layout"]["yaxis"]["categoryarray"] == [
        "LLM",
        "tool · lane 0",
        "tool · lane 1",
        "tool · lane 2",
    ]
    tools = traces["tool call"]
    assert sorted(tools["y"]) == ["tool · lane 0", "tool · lane 1", "tool · lane 2"]
    assert {row[0] for row in tools["customdata"]} == {"get_price"}


def test_stored_result_and_output_metadata(executed):
    nb, _ = executed
    probe = json.loads(nb.cells[-1].outputs[0].text)
    assert probe["type"] == "AgentResult"
    assert probe["content"] == "Here is what I found: laptop costs 999.00 USD."
    assert probe["tool"] == "get_price"
    assert probe["source"] == "def get_price(product: str) -> str:"
    assert probe["quote"] == {"product": "tablet", "price": 449.0}
    index = _index(nb, "%%agent -o result")
    meta = nb.cells[index].outputs[-1].metadata["selectools"]
    assert meta["trace_id"] == probe["trace_id"]
    assert meta["tokens"] == probe["tokens"]
    # an offline run is labelled as scripted, at no cost (no model or prices were chosen)
    assert meta["provider"] == "scripted" and meta["model"] == "scripted"
    assert meta["cost_usd"] == 0 and meta["latency_ms"] > 0


def test_formats_and_mistakes(executed):
    nb, _ = executed
    markdown = nb.cells[_index(nb, "%agent --format markdown")].outputs[-1].data
    assert markdown["text/markdown"].startswith("| product | price |")
    as_json = nb.cells[_index(nb, "%agent --format json")].outputs[-1].data
    assert as_json["application/json"] == {"laptop": 999.0, "phone": 699.0, "tablet": 449.0}
    typo = nb.cells[_index(nb, 'show_mistake("""%%agent --modle')].outputs
    assert [o.name for o in typo] == ["stderr"]
    lines = typo[0].text.strip().splitlines()
    assert len(lines) == 1 and "did you mean --model?" in lines[0]


def test_a_headless_run_shows_the_denied_call_and_counts_it_apart(executed):
    """Run by nbclient nobody can answer the card: the transcript says the call was denied."""
    nb, _ = executed
    final = nb.cells[_index(nb, "%%agent --provider risky")].outputs[-1].data["text/plain"]
    lines = final.splitlines()
    denied = [line for line in lines if "drop_table(" in line]
    assert len(denied) == 1 and "⊘ denied by headless: no notebook frontend" in denied[0], lines
    assert lines[-1].startswith("[final · 2 iterations · 0 tool calls · 1 denied · "), lines
    assert lines[-1].endswith(" · $0]"), lines  # offline: no cost
