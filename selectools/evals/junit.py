"""JUnit XML for CI: one ``<testsuite>`` per report, one ``<testcase>`` per case.

The shape follows the JUnit schema CI systems read (Jenkins, GitLab, GitHub
test reporters, pytest's own ``--junitxml``): counts on ``<testsuite>``,
``<failure>`` for FAIL, ``<error>`` for ERROR, ``<skipped/>`` for SKIP, times
in seconds, and the case's output in ``<system-out>``.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from .case import CaseVerdict

if TYPE_CHECKING:
    from .report import EvalReport

__all__ = ["report_to_junit"]


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters: drop them."""
    return "".join(c for c in text if c in "\t\n\r" or ord(c) >= 0x20)


def report_to_junit(report: EvalReport) -> str:
    suites = ET.Element("testsuites", name=_clean(report.name))
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=_clean(report.name),
        tests=str(report.total_cases),
        failures=str(report.fail_count),
        errors=str(report.error_count),
        skipped=str(report.skip_count),
        time=f"{sum(r.latency_ms for r in report.results) / 1000:.3f}",
        timestamp=time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(report.started_at or 0)),
    )
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("accuracy", f"{report.accuracy:.4f}"),
        ("total_cost_usd", f"{report.total_cost:.6f}"),
        ("total_tokens", str(report.total_tokens)),
        ("model", report.model),
    ):
        ET.SubElement(props, "property", name=key, value=_clean(value))
    for index, result in enumerate(report.results):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_clean(f"{report.name}." + ("/".join(result.case.tags) or "cases")),
            name=_clean(result.case.name or f"case_{index}: {result.case.label}"),
            time=f"{result.latency_ms / 1000:.3f}",
        )
        if result.verdict is CaseVerdict.FAIL:
            messages = "; ".join(f"{f.evaluator}: {f.message}" for f in result.failures)
            failure = ET.SubElement(
                case, "failure", message=_clean(messages[:500]), type="EvalFailure"
            )
            failure.text = _clean(
                "\n".join(
                    f"{f.evaluator}: {f.message}\n  expected: {f.expected!r}\n  actual: {f.actual!r}"
                    for f in result.failures
                )
            )
        elif result.verdict is CaseVerdict.ERROR:
            error = ET.SubElement(
                case, "error", message=_clean((result.error or "error")[:500]), type="EvalError"
            )
            error.text = _clean(result.error or "")
        elif result.verdict is CaseVerdict.SKIP:
            ET.SubElement(case, "skipped", message="skipped")
        if result.output:
            out = ET.SubElement(case, "system-out")
            out.text = _clean(result.output)
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
