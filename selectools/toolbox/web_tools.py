"""Web tools: HTTP GET/POST and web search, on httpx, behind the SSRF guard.

Every request (and every redirect hop) goes through
:func:`selectools._net_guard.guarded_request`: private, loopback, link-local
and cloud-metadata addresses are refused unless a
:class:`~selectools._net_guard.NetPolicy` allows them explicitly. JSON
responses are pretty-printed; other text is truncated to 5000 characters.
A tool's ``timeout`` is a total deadline for the whole request, and the model
cannot raise it past the policy's cap (``NetPolicy.max_timeout``,
:data:`MAX_TIMEOUT_SECONDS` = 30 s unless configured).

``web_search`` talks to a search API at a configurable base URL
(:class:`SearchConfig`): the Brave Search API (``BRAVE_API_KEY``) or a SearXNG
instance (``SEARXNG_URL``). Needs the ``httpx`` package (the ``toolbox`` extra).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._install import install_hint
from .._net_guard import (
    MAX_TIMEOUT_SECONDS,
    FetchResult,
    NetPolicy,
    checked_timeout,
    guarded_request,
)
from ..tools import Tool, tool
from ._bind import bind
from ._errors import HTTPStatusError, ToolboxConfigError

__all__ = [
    "MAX_TEXT_CHARS",
    "MAX_TIMEOUT_SECONDS",
    "SearchConfig",
    "http_get",
    "http_post",
    "make_web_tools",
    "web_search",
]

#: Non-JSON response bodies longer than this are truncated.
MAX_TEXT_CHARS = 5000

_BRAVE_URL = "https://api.search.brave.com"


def _require_httpx() -> None:
    try:
        import httpx  # noqa: F401
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f"The web tools need httpx: {install_hint('toolbox')}") from None


def _parse_headers(headers: str | None) -> dict[str, str]:
    if headers is None or not headers.strip():
        return {}
    try:
        value = json.loads(headers)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f'headers must be a JSON object string like {{"Accept": "text/html"}}: {exc}'
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"headers must be a JSON object, got {type(value).__name__}")
    return {str(k): str(v) for k, v in value.items()}


def _deadline(timeout: Any, net: NetPolicy | None) -> float:
    """The model's timeout, checked and cut to the policy's cap."""
    return checked_timeout(timeout, (net or NetPolicy()).max_timeout)


def _render(result: FetchResult) -> str:
    """The body as the model sees it: pretty JSON, or text capped at MAX_TEXT_CHARS."""
    text = result.text
    if result.status_code >= 400:
        raise HTTPStatusError(result.url, result.status_code, result.reason_phrase, text)
    if result.content_type.endswith("json") or result.content_type.endswith("+json"):
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except json.JSONDecodeError:
            pass
    if len(text) > MAX_TEXT_CHARS:
        more = len(text) - MAX_TEXT_CHARS
        return text[:MAX_TEXT_CHARS] + f"\n\n[truncated: {more} more characters]"
    if result.truncated:
        return text + "\n\n[truncated: response larger than the size limit]"
    return text


@tool
def http_get(
    url: str,
    headers: str | None = None,
    timeout: float = 30,
    *,
    _net: NetPolicy | None = None,
) -> str:
    """Fetch a URL with HTTP GET and return the response body (JSON is pretty-printed).

    Args:
        url: The http:// or https:// URL to fetch.
        headers: Optional request headers as a JSON object string.
        timeout: Seconds the whole request may take (capped by the tool's configuration).
    """
    _require_httpx()
    result = guarded_request(
        "GET", url, policy=_net, headers=_parse_headers(headers), timeout=_deadline(timeout, _net)
    )
    return _render(result)


@tool
def http_post(
    url: str,
    data: str,
    headers: str | None = None,
    timeout: float = 30,
    *,
    _net: NetPolicy | None = None,
) -> str:
    """Send an HTTP POST with a JSON body and return the response body.

    Args:
        url: The http:// or https:// URL to post to.
        data: The request body as a JSON string.
        headers: Optional request headers as a JSON object string.
        timeout: Seconds the whole request may take (capped by the tool's configuration).
    """
    _require_httpx()
    deadline = _deadline(timeout, _net)
    try:
        body = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ValueError(f"data must be a JSON string: {exc}") from None
    result = guarded_request(
        "POST", url, policy=_net, headers=_parse_headers(headers), json=body, timeout=deadline
    )
    return _render(result)


@dataclass(frozen=True)
class SearchConfig:
    """Where ``web_search`` sends its queries.

    ``backend``: ``"brave"`` (the Brave Search API; needs ``api_key``) or
    ``"searxng"`` (a SearXNG instance with its JSON format enabled; needs
    ``base_url``). :meth:`from_env` reads ``SEARXNG_URL`` or ``BRAVE_API_KEY``
    (and ``BRAVE_SEARCH_URL`` to point Brave requests elsewhere).
    """

    backend: str = "brave"
    base_url: str | None = None
    api_key: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in ("brave", "searxng"):
            raise ValueError(f"backend must be 'brave' or 'searxng', got {self.backend!r}")
        if self.backend == "searxng" and not self.base_url:
            raise ToolboxConfigError("SearchConfig(backend='searxng') needs base_url=")
        if self.backend == "brave" and not self.api_key:
            raise ToolboxConfigError(
                "SearchConfig(backend='brave') needs api_key= (or set BRAVE_API_KEY)"
            )

    def __repr__(self) -> str:  # never print the key
        key = "'***'" if self.api_key else "None"
        return f"SearchConfig(backend={self.backend!r}, base_url={self.base_url!r}, api_key={key})"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SearchConfig:
        env = os.environ if environ is None else environ
        if env.get("SEARXNG_URL"):
            return cls("searxng", base_url=env["SEARXNG_URL"])
        if env.get("BRAVE_API_KEY"):
            return cls("brave", base_url=env.get("BRAVE_SEARCH_URL"), api_key=env["BRAVE_API_KEY"])
        raise ToolboxConfigError(
            "web_search needs a search backend: set BRAVE_API_KEY (Brave Search API) or "
            "SEARXNG_URL (a SearXNG instance), or pass search=SearchConfig(...) to "
            "get_tools_by_category('web', ...)"
        )

    def query(self, query: str, count: int, policy: NetPolicy | None) -> list[dict[str, str]]:
        """Results as ``{"title", "url", "snippet"}`` dicts."""
        if self.backend == "searxng":
            assert self.base_url is not None
            result = guarded_request(
                "GET",
                self.base_url.rstrip("/") + "/search",
                policy=policy,
                params={"q": query, "format": "json"},
                headers={"Accept": "application/json"},
                timeout=_deadline(MAX_TIMEOUT_SECONDS, policy),
            )
            rows = _json_of(result).get("results", [])
            text_key = "content"
        else:
            result = guarded_request(
                "GET",
                (self.base_url or _BRAVE_URL).rstrip("/") + "/res/v1/web/search",
                policy=policy,
                params={"q": query, "count": count},
                headers={"Accept": "application/json", "X-Subscription-Token": self.api_key or ""},
                timeout=_deadline(MAX_TIMEOUT_SECONDS, policy),
            )
            rows = _json_of(result).get("web", {}).get("results", [])
            text_key = "description"
        return [
            {
                "title": str(row.get("title", "")),
                "url": str(row.get("url", "")),
                "snippet": str(row.get(text_key, "") or ""),
            }
            for row in rows[:count]
            if isinstance(row, dict)
        ]


def _json_of(result: FetchResult) -> dict[str, Any]:
    if result.status_code >= 400:
        raise HTTPStatusError(result.url, result.status_code, result.reason_phrase, result.text)
    try:
        value = json.loads(result.text)
    except json.JSONDecodeError as exc:
        raise HTTPStatusError(
            result.url, result.status_code, f"not JSON ({exc})", result.text
        ) from None
    return value if isinstance(value, dict) else {}


@tool
def web_search(
    query: str,
    max_results: int = 5,
    *,
    _net: NetPolicy | None = None,
    _search: SearchConfig | None = None,
) -> str:
    """Search the web and return the top results (title, URL and snippet of each).

    Args:
        query: What to search for.
        max_results: How many results to return (1-20).
    """
    _require_httpx()
    if not 1 <= max_results <= 20:
        raise ValueError(f"max_results must be between 1 and 20, got {max_results}")
    config = _search if _search is not None else SearchConfig.from_env()
    results = config.query(query, max_results, _net)
    if not results:
        return f"No results for {query!r}"
    lines = []
    for i, row in enumerate(results, 1):
        lines.append(f"{i}. {row['title']}\n   {row['url']}")
        if row["snippet"]:
            lines.append(f"   {row['snippet']}")
    return "\n".join(lines)


_TOOLS = (http_get, http_post, web_search)


def make_web_tools(net: NetPolicy | None = None, search: SearchConfig | None = None) -> list[Tool]:
    """The web tools with a network policy (``net``) and a search backend (``search``)."""
    return [
        bind(http_get, _net=net),
        bind(http_post, _net=net),
        bind(web_search, _net=net, _search=search),
    ]
