"""``DocumentLoader``: text, files, directories, PDF, Markdown, CSV/JSON and web pages to ``Document``.

Every loaded document carries ``source`` (the path or URL) and ``filename``;
PDF pages add ``page`` (1-based) and ``total_pages``, CSV rows ``row``, JSON
records ``record``. A file that cannot be read raises
:class:`~selectools.rag.errors.DocumentLoadError` naming the file and the
reason; a missing file or folder raises its subclass ``DocumentNotFoundError``,
which is also a ``FileNotFoundError``. Web pages are fetched through the SSRF guard
(:mod:`selectools._net_guard`): private, loopback and link-local targets are
refused unless the ``policy`` allows them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..stability import stable
from .document import Document
from .errors import DocumentLoadError, DocumentNotFoundError, require_extra

if TYPE_CHECKING:  # pragma: no cover
    from .._net_guard import NetPolicy

__all__ = ["DocumentLoader"]

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".py", ".html", ".htm", ".log", ".text"}


def _file_metadata(path: Path, metadata: dict[str, Any] | None) -> dict[str, Any]:
    meta = {"source": str(path), "filename": path.name}
    meta.update(metadata or {})
    return meta


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocumentNotFoundError(str(path)) from None
    except IsADirectoryError:
        raise DocumentLoadError(
            str(path), "it is a directory (use DocumentLoader.from_directory)"
        ) from None
    except PermissionError:
        raise DocumentLoadError(str(path), "permission denied") from None
    except UnicodeDecodeError as exc:
        raise DocumentLoadError(
            str(path), f"not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from None
    except OSError as exc:
        raise DocumentLoadError(str(path), exc.strerror or str(exc)) from None


class _TextOfHTML(HTMLParser):
    """The visible text of an HTML page (scripts, styles and the head left out)."""

    _SKIP: ClassVar[frozenset[str]] = frozenset({"script", "style", "head", "noscript", "template"})
    _BLOCK: ClassVar[frozenset[str]] = frozenset(
        {
            "p",
            "div",
            "br",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "tr",
            "section",
            "article",
        }
    )

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self._SKIP:
            self._skip += 1
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self._SKIP and self._skip:
            self._skip -= 1
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self.parts).splitlines())
        return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, visible text)`` of an HTML document."""
    parser = _TextOfHTML()
    parser.feed(html)
    parser.close()
    return parser.title.strip(), parser.text()


@stable
class DocumentLoader:
    """Loaders returning ``list[Document]`` (all static methods)."""

    @staticmethod
    def from_text(text: str, metadata: dict[str, Any] | None = None) -> list[Document]:
        return [Document(text=text, metadata=dict(metadata or {}))]

    @staticmethod
    def from_file(path: str | Path, metadata: dict[str, Any] | None = None) -> list[Document]:
        """One file, by its suffix: PDF, CSV, JSON/JSONL, else UTF-8 text (Markdown included)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            return DocumentLoader.from_pdf(path, metadata)
        if suffix == ".csv":
            return DocumentLoader.from_csv(path, metadata=metadata)
        if suffix in (".json", ".jsonl"):
            return DocumentLoader.from_json(path, metadata=metadata)
        if suffix in (".html", ".htm"):
            title, text = html_to_text(_read_text(path))
            meta = _file_metadata(path, metadata)
            if title:
                meta.setdefault("title", title)
            return [Document(text=text, metadata=meta)]
        return [Document(text=_read_text(path), metadata=_file_metadata(path, metadata))]

    @staticmethod
    def from_markdown(path: str | Path, metadata: dict[str, Any] | None = None) -> list[Document]:
        """A Markdown file; its first ``# heading`` becomes ``title`` in the metadata."""
        path = Path(path)
        text = _read_text(path)
        meta = _file_metadata(path, metadata)
        for line in text.splitlines():
            if line.startswith("# "):
                meta.setdefault("title", line[2:].strip())
                break
        return [Document(text=text, metadata=meta)]

    @staticmethod
    def from_files(paths: Iterable[str | Path]) -> list[Document]:
        docs: list[Document] = []
        for path in paths:
            docs.extend(DocumentLoader.from_file(path))
        return docs

    @staticmethod
    def from_directory(
        directory: str | Path,
        glob_pattern: str = "**/*",
        recursive: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> list[Document]:
        """Every file under ``directory`` matching ``glob_pattern``, in sorted order.

        ``recursive=False`` keeps only files directly in ``directory`` (a
        ``**/`` prefix of the pattern is then dropped).
        """
        root = Path(directory)
        if not root.exists():
            raise DocumentNotFoundError(str(root), "no such directory")
        if not root.is_dir():
            raise DocumentLoadError(str(root), "not a directory")
        pattern = glob_pattern
        if not recursive and pattern.startswith("**/"):
            pattern = pattern[3:]
        paths = sorted(p for p in root.glob(pattern) if p.is_file())
        if not recursive:
            paths = [p for p in paths if p.parent == root]
        docs: list[Document] = []
        for path in paths:
            docs.extend(DocumentLoader.from_file(path, metadata))
        return docs

    @staticmethod
    def from_pdf(path: str | Path, metadata: dict[str, Any] | None = None) -> list[Document]:
        """One document a page (``page`` is 1-based, ``total_pages`` the count); needs pypdf."""
        path = Path(path)
        if not path.exists():
            raise DocumentNotFoundError(str(path))
        if not path.is_file():
            raise DocumentLoadError(
                str(path), "it is a directory (use DocumentLoader.from_directory)"
            )
        pypdf = require_extra("pypdf", "rag", "DocumentLoader.from_pdf")
        try:
            reader = pypdf.PdfReader(str(path))
            pages = [page.extract_text() or "" for page in reader.pages]
        except Exception as exc:  # pypdf raises several types for a broken file
            raise DocumentLoadError(str(path), f"not a readable PDF ({exc})") from None
        total = len(pages)
        return [
            Document(
                text=text,
                metadata={**_file_metadata(path, metadata), "page": number, "total_pages": total},
            )
            for number, text in enumerate(pages, 1)
        ]

    @staticmethod
    def from_csv(
        path: str | Path,
        text_columns: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Document]:
        """One document a row: ``text_columns`` (default: all) as ``"col: value"`` lines, the rest as metadata."""
        path = Path(path)
        raw = _read_text(path)
        reader = csv.DictReader(io.StringIO(raw))
        if reader.fieldnames is None:
            return []
        columns = text_columns or list(reader.fieldnames)
        missing = [c for c in columns if c not in reader.fieldnames]
        if missing:
            raise DocumentLoadError(
                str(path), f"no column {missing[0]!r} (columns: {', '.join(reader.fieldnames)})"
            )
        docs = []
        for number, row in enumerate(reader, 1):
            text = "\n".join(f"{c}: {row[c]}" for c in columns)
            extra = {k: v for k, v in row.items() if k not in columns}
            docs.append(
                Document(
                    text=text, metadata={**_file_metadata(path, metadata), "row": number, **extra}
                )
            )
        return docs

    @staticmethod
    def from_json(
        path: str | Path,
        text_key: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Document]:
        """JSON (an object or a list of them) or JSON Lines: one document a record.

        ``text_key`` names the field holding the text (the other scalar fields
        become metadata); without it the whole record is the text, as JSON.
        """
        path = Path(path)
        raw = _read_text(path)
        try:
            if path.suffix.lower() == ".jsonl":
                records = [json.loads(line) for line in raw.splitlines() if line.strip()]
            else:
                loaded = json.loads(raw)
                records = loaded if isinstance(loaded, list) else [loaded]
        except json.JSONDecodeError as exc:
            raise DocumentLoadError(
                str(path), f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        docs = []
        for number, record in enumerate(records, 1):
            meta = {**_file_metadata(path, metadata), "record": number}
            if text_key is not None:
                if not isinstance(record, dict) or text_key not in record:
                    raise DocumentLoadError(str(path), f"record {number} has no {text_key!r} field")
                text = str(record[text_key])
                meta.update(
                    {
                        k: v
                        for k, v in record.items()
                        if k != text_key and isinstance(v, (str, int, float, bool))
                    }
                )
            else:
                text = record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)
            docs.append(Document(text=text, metadata=meta))
        return docs

    @staticmethod
    def from_url(
        url: str,
        *,
        policy: NetPolicy | None = None,
        timeout: float = 30.0,
        metadata: dict[str, Any] | None = None,
    ) -> list[Document]:
        """A web page's visible text, fetched with httpx through the SSRF guard.

        Private, loopback and link-local addresses are refused
        (:class:`~selectools._net_guard.BlockedURLError`) unless ``policy``
        (a :class:`~selectools._net_guard.NetPolicy`) allows them.
        """
        from .._net_guard import guarded_request

        result = guarded_request("GET", url, policy=policy, timeout=timeout)
        if not result.ok:
            raise DocumentLoadError(url, f"HTTP {result.status_code} {result.reason_phrase}")
        meta: dict[str, Any] = {"source": result.url, "url": result.url}
        if result.content_type in ("text/html", "application/xhtml+xml") or not result.content_type:
            title, text = html_to_text(result.text)
            if title:
                meta["title"] = title
        else:
            text = result.text
        meta.update(metadata or {})
        return [Document(text=text, metadata=meta)]
