import csv
import json

import pytest

from selectools import AgentAnalytics, AgentUsage, ToolMetrics, UsageStats


def test_usage_stats_total_defaults_to_sum():
    assert UsageStats(prompt_tokens=1500, completion_tokens=300).total_tokens == 1800
    assert UsageStats(prompt_tokens=1, completion_tokens=1, total_tokens=5).total_tokens == 5


def test_agent_usage_accumulates_and_attributes_tools():
    usage = AgentUsage()
    usage.add_usage(
        UsageStats(prompt_tokens=500, completion_tokens=347, cost_usd=0.004), tool_name="search"
    )
    usage.add_usage(
        UsageStats(prompt_tokens=1390, completion_tokens=306, cost_usd=0.008345),
        tool_name="calculate",
    )
    assert usage.total_tokens == 2543
    assert usage.total_prompt_tokens == 1890
    assert usage.total_completion_tokens == 653
    assert usage.tool_usage == {"search": 1, "calculate": 1}
    assert usage.tool_tokens == {"search": 847, "calculate": 1696}
    assert len(usage.iterations) == 2
    summary = str(usage)
    assert "📊 Usage Summary" in summary
    assert "Total Tokens: 2,543\n  - Prompt: 1,890\n  - Completion: 653" in summary
    assert "Total Cost: $0.012345" in summary
    assert "  - search: 1 calls, 847 tokens" in summary


def test_embedding_usage_shows_split_costs():
    usage = AgentUsage()
    usage.add_usage(UsageStats(prompt_tokens=3210, completion_tokens=1200, cost_usd=0.002))
    usage.add_usage(UsageStats(embedding_tokens=1022, embedding_cost_usd=0.00015))
    assert usage.total_tokens == 5432
    summary = str(usage)
    assert "  - Embeddings: 1,022" in summary
    assert "Total Cost: $0.002150\n  - LLM: $0.002000\n  - Embeddings: $0.000150" in summary


def test_tool_metrics_rates():
    metrics = ToolMetrics(name="x", total_calls=4, successful_calls=3, failed_calls=1)
    assert metrics.success_rate == 75.0
    assert metrics.failure_rate == 25.0
    assert ToolMetrics(name="y").avg_duration == 0.0
    assert ToolMetrics(name="y").success_rate == 0.0


def test_analytics_records_and_exports(tmp_path):
    analytics = AgentAnalytics()
    analytics.record_tool_call("search", True, 0.2, {"query": "Python tutorials"})
    analytics.record_tool_call("search", True, 0.3, {"query": "Python tutorials"})
    analytics.record_tool_call("search", False, 0.1, {"query": "Go", "filters": ["a"]})
    metrics = analytics.get_metrics("search")
    assert (metrics.total_calls, metrics.successful_calls, metrics.failed_calls) == (3, 2, 1)
    assert abs(metrics.avg_duration - 0.2) < 1e-9
    summary = analytics.summary()
    assert "Success rate: 66.7% (2/3)" in summary
    assert "Failures: 1" in summary
    assert 'query: "Python tutorials" (2x, 2 unique)' in summary

    analytics.to_json(tmp_path / "a.json")
    data = json.loads((tmp_path / "a.json").read_text())
    assert set(data) == {"tools", "summary"}
    assert data["tools"]["search"]["total_calls"] == 3

    analytics.to_csv(tmp_path / "a.csv")
    rows = list(csv.reader((tmp_path / "a.csv").open()))
    assert rows[0] == [
        "tool_name",
        "total_calls",
        "successful_calls",
        "failed_calls",
        "success_rate",
        "avg_duration",
        "total_duration",
        "total_cost",
    ]
    assert rows[1][0] == "search"
    analytics.reset()
    assert analytics.get_all_metrics() == {}


def test_analytics_say_when_there_is_nothing_to_report(tmp_path):
    """A tool never called has no metrics (not a row of zeros that reads as 0% success)."""
    analytics = AgentAnalytics()
    assert analytics.get_metrics("unknown") is None
    summary = analytics.summary()
    assert "No tool calls recorded yet" in summary
    assert summary.splitlines()[1] == "Tool Usage Analytics"
    assert analytics.to_dict() == {
        "tools": {},
        "summary": {
            "total_tools": 0,
            "total_calls": 0,
            "failed_calls": 0,
            "success_rate": 0.0,
            "total_duration": 0.0,
            "total_cost": 0.0,
        },
    }
    analytics.record_tool_call("search", True, 0.25, {"query": "py"})
    assert analytics.get_metrics("unknown") is None
    assert analytics.get_metrics("search").total_calls == 1
    assert "No tool calls" not in analytics.summary()


def test_analytics_to_dict_is_the_json_export(tmp_path):
    analytics = AgentAnalytics()
    analytics.record_tool_call("search", True, 0.25, {"query": "py", "filters": ["a"]}, cost=0.5)
    analytics.record_tool_call("search", False, 0.75, {"query": "go"})
    analytics.record_tool_call("calc", True, 0.5, {"x": 2})
    exported = analytics.to_dict()
    assert json.loads(json.dumps(exported)) == exported  # plain JSON values only
    assert exported["tools"]["search"]["total_calls"] == 2
    assert exported["tools"]["search"]["parameter_usage"]["filters"] == {'["a"]': 1}
    assert exported["summary"] == {
        "total_tools": 2,
        "total_calls": 3,
        "failed_calls": 1,
        "success_rate": pytest.approx(200 / 3),
        "total_duration": pytest.approx(1.5),
        "total_cost": pytest.approx(0.5),
    }
    analytics.to_json(tmp_path / "a.json")
    assert json.loads((tmp_path / "a.json").read_text()) == exported
    exported["tools"].clear()  # a copy: changing it leaves the analytics alone
    assert analytics.get_metrics("calc") is not None
