"""The toolbox: ready-made tools in five categories (file, web, data, datetime, text).

``get_all_tools()`` returns every tool; ``get_tools_by_category("file")`` one
category. They are regular :class:`~selectools.tools.Tool` objects, safe by
default:

* file tools (and ``process_csv_stream``) are confined to one root directory —
  the working directory unless ``root=`` says otherwise (``root=None``: no
  confinement, for trusted use); ``read_only=True`` refuses writes;
* web tools refuse private, loopback, link-local and cloud-metadata addresses
  (after DNS and on every redirect) unless ``net=NetPolicy(...)`` allows them;
* ``web_search`` sends queries to the backend ``search=SearchConfig(...)``
  names (default: from ``BRAVE_API_KEY`` / ``SEARXNG_URL``).

Two opt-in tools are not in any category: ``code_tools.make_code_tools()``
(``run_python`` in a limited child process) and
``database_tools.make_database_tools(path)`` (``query_sqlite``, read-only
unless ``writable=True``).
"""

from __future__ import annotations

import os

from .._net_guard import BlockedURLError, FetchTimeoutError, NetPolicy
from ..tools import Tool
from . import data_tools, datetime_tools, file_tools, text_tools, web_tools
from ._errors import (
    HTTPStatusError,
    PathEscapeError,
    ReadOnlyError,
    ToolboxConfigError,
    ToolboxError,
)
from ._sandbox import FileSandbox
from .web_tools import SearchConfig

__all__ = [
    "CATEGORIES",
    "BlockedURLError",
    "FetchTimeoutError",
    "FileSandbox",
    "HTTPStatusError",
    "NetPolicy",
    "PathEscapeError",
    "ReadOnlyError",
    "SearchConfig",
    "ToolboxConfigError",
    "ToolboxError",
    "get_all_tools",
    "get_tools_by_category",
]

CATEGORIES = ("file", "web", "data", "datetime", "text")
"""The categories, in the order ``get_all_tools`` lists them."""


def get_tools_by_category(
    category: str,
    *,
    root: str | os.PathLike[str] | None = ".",
    read_only: bool = False,
    net: NetPolicy | None = None,
    search: SearchConfig | None = None,
) -> list[Tool]:
    """The tools of one category: ``"file"``, ``"web"``, ``"data"``, ``"datetime"`` or ``"text"``.

    ``root`` / ``read_only`` confine the file tools (and ``process_csv_stream``):
    default ``"."``, the working directory at call time; ``root=None`` for no confinement.
    ``net`` is the web tools' network policy; ``search`` the ``web_search`` backend.
    An unknown category raises ``ValueError``.
    """
    if category == "file":
        return file_tools.make_file_tools(root, read_only=read_only)
    if category == "web":
        return web_tools.make_web_tools(net, search)
    if category == "data":
        return data_tools.make_data_tools(FileSandbox(root, read_only=read_only))
    if category == "datetime":
        return [
            datetime_tools.get_current_time,
            datetime_tools.parse_datetime,
            datetime_tools.time_difference,
            datetime_tools.date_arithmetic,
        ]
    if category == "text":
        return [
            text_tools.count_text,
            text_tools.search_text,
            text_tools.replace_text,
            text_tools.extract_emails,
            text_tools.extract_urls,
            text_tools.convert_case,
            text_tools.truncate_text,
        ]
    raise ValueError(
        f"Unknown toolbox category {category!r}; choose one of: {', '.join(map(repr, CATEGORIES))}"
    )


def get_all_tools(
    *,
    root: str | os.PathLike[str] | None = ".",
    read_only: bool = False,
    net: NetPolicy | None = None,
    search: SearchConfig | None = None,
) -> list[Tool]:
    """Every toolbox tool, category by category (options as in :func:`get_tools_by_category`)."""
    tools: list[Tool] = []
    for category in CATEGORIES:
        tools += get_tools_by_category(
            category, root=root, read_only=read_only, net=net, search=search
        )
    return tools
