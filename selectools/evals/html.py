"""``EvalReport.to_html``: one self-contained, interactive page.

Inline CSS and a few lines of inline JavaScript (filter by verdict, search,
expand a case to see its failures and output); no CDN, fonts or images, so the
page works offline, as a CI artifact and attached to an email. The case data is
embedded as HTML, not fetched. It lists every case; the notebook's cell view of a
report (``selectools._view.evals``) is bounded to the rows a cell can hold.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .case import CaseVerdict

if TYPE_CHECKING:
    from .report import EvalReport

__all__ = ["report_to_html"]

_CSS = """
body{font-family:system-ui,-apple-system,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 12px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:16px}
.card{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;min-width:110px}
.card b{display:block;font-size:20px}
.card span{color:#656d76;font-size:12px}
.controls{margin:12px 0;display:flex;gap:8px;align-items:center}
.controls button{border:1px solid #d0d7de;background:#f6f8fa;border-radius:6px;padding:4px 10px;cursor:pointer}
.controls button.on{background:#0969da;color:#fff}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border-bottom:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
tr.case{cursor:pointer}
tr.detail td{background:#f6f8fa}
tr.detail pre{white-space:pre-wrap;margin:4px 0;font-family:ui-monospace,Menlo,monospace}
.v{border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600}
.v-pass{background:#dafbe1;color:#116329}.v-fail{background:#ffebe9;color:#a40e26}
.v-error{background:#fff8c5;color:#7d4e00}.v-skip{background:#eaeef2;color:#57606a}
.tag{background:#ddf4ff;border-radius:10px;padding:0 6px;margin-right:4px;font-size:11px}
"""

_JS = """
(function(){
  var filter='all', query='';
  function apply(){
    document.querySelectorAll('tr.case').forEach(function(row){
      var show=(filter==='all'||row.dataset.verdict===filter)&&
               (query===''||row.dataset.text.indexOf(query)>=0);
      row.style.display=show?'':'none';
      var d=document.getElementById(row.dataset.detail);
      if(!show&&d){d.hidden=true;}
    });
  }
  document.querySelectorAll('.controls button').forEach(function(b){
    b.addEventListener('click',function(){
      filter=b.dataset.filter;
      document.querySelectorAll('.controls button').forEach(function(x){x.classList.toggle('on',x===b);});
      apply();
    });
  });
  document.getElementById('search').addEventListener('input',function(e){query=e.target.value.toLowerCase();apply();});
  document.querySelectorAll('tr.case').forEach(function(row){
    row.addEventListener('click',function(){var d=document.getElementById(row.dataset.detail);d.hidden=!d.hidden;});
  });
})();
"""


def _card(value: str, label: str) -> str:
    return f'<div class="card"><b>{escape(value)}</b><span>{escape(label)}</span></div>'


def report_to_html(report: EvalReport) -> str:
    cards = "".join(
        [
            _card(f"{report.accuracy:.1%}", "accuracy"),
            _card(str(report.pass_count), "passed"),
            _card(str(report.fail_count), "failed"),
            _card(str(report.error_count), "errors"),
            _card(f"{report.latency_p50:.0f} ms", "latency p50"),
            _card(f"{report.latency_p95:.0f} ms", "latency p95"),
            _card(f"${report.total_cost:.4f}", "total cost"),
            _card(str(report.total_tokens), "tokens"),
        ]
    )
    buttons = "".join(
        f'<button data-filter="{v}"{" class=on" if v == "all" else ""}>{v}</button>'
        for v in ["all", *(v.value for v in CaseVerdict)]
    )
    rows = []
    for index, r in enumerate(report.results):
        tags = "".join(f'<span class="tag">{escape(t)}</span>' for t in r.case.tags)
        failing = ", ".join(dict.fromkeys(f.evaluator for f in r.failures))
        text = " ".join([r.case.label, r.case.input, r.output, failing, *r.case.tags]).lower()
        rows.append(
            f'<tr class="case" data-verdict="{r.verdict.value}" data-detail="d{index}" '
            f'data-text="{escape(text)}">'
            f"<td>{index + 1}</td><td>{escape(r.case.label)}</td>"
            f'<td><span class="v v-{r.verdict.value}">{r.verdict.value.upper()}</span></td>'
            f"<td>{escape(failing)}</td><td>{r.latency_ms:.0f} ms</td>"
            f"<td>${r.cost_usd:.6f}</td><td>{r.tokens}</td><td>{tags}</td></tr>"
        )
        detail = [f"<b>Input</b><pre>{escape(r.case.input)}</pre>"]
        for f in r.failures:
            detail.append(
                f"<b>{escape(f.evaluator)}</b><pre>{escape(f.message)}\n"
                f"expected: {escape(repr(f.expected))}\nactual: {escape(repr(f.actual))}</pre>"
            )
        if r.error:
            detail.append(f"<b>Error</b><pre>{escape(r.error)}</pre>")
        detail.append(f"<b>Output</b><pre>{escape(r.output)}</pre>")
        if r.tool_calls:
            detail.append(f"<b>Tools</b><pre>{escape(', '.join(r.tool_calls))}</pre>")
        if r.trace_id:
            detail.append(f"<b>Trace</b><pre>{escape(r.trace_id)}</pre>")
        rows.append(
            f'<tr class="detail" id="d{index}" hidden><td></td><td colspan="7">{"".join(detail)}</td></tr>'
        )
    title = escape(f"Eval report: {report.name}")
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body>"
        f"<h1>{title}</h1>"
        f'<div class="cards">{cards}</div>'
        f'<div class="controls">{buttons}<input id="search" placeholder="search cases"></div>'
        "<table><thead><tr><th>#</th><th>Case</th><th>Verdict</th><th>Failing</th>"
        "<th>Latency</th><th>Cost</th><th>Tokens</th><th>Tags</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<script>{_JS}</script></body></html>\n"
    )
