"""Loaders (text, files, directories, PDF, Markdown, CSV/JSON, web) and the splitters."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from selectools._net_guard import BlockedURLError, NetPolicy
from selectools.rag import (
    Document,
    DocumentLoader,
    DocumentLoadError,
    DocumentNotFoundError,
    RecursiveTextSplitter,
    TextSplitter,
)

from .conftest import Loopback


def make_pdf(path: Path, pages: list[str]) -> None:
    """A minimal valid PDF with one line of Helvetica text a page (written by hand)."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))


def test_from_text_keeps_the_metadata() -> None:
    (doc,) = DocumentLoader.from_text("Hello world", metadata={"source": "memory"})
    assert doc == Document(text="Hello world", metadata={"source": "memory"})


def test_from_file_adds_source_and_filename(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("café notes", encoding="utf-8")
    (doc,) = DocumentLoader.from_file(path)
    assert doc.text == "café notes"
    assert doc.metadata == {"source": str(path), "filename": "notes.txt"}


def test_from_directory_follows_the_glob_and_recursion(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("# A\nalpha")
    (tmp_path / "b.txt").write_text("bravo")
    (tmp_path / "sub" / "c.md").write_text("charlie")
    deep = DocumentLoader.from_directory(tmp_path, glob_pattern="**/*.md", recursive=True)
    assert [d.metadata["filename"] for d in deep] == ["a.md", "c.md"]
    flat = DocumentLoader.from_directory(tmp_path, glob_pattern="**/*.md", recursive=False)
    assert [d.text for d in flat] == ["# A\nalpha"]
    everything = DocumentLoader.from_directory(tmp_path)
    assert sorted(d.metadata["filename"] for d in everything) == ["a.md", "b.txt", "c.md"]


def test_from_pdf_gives_a_document_per_page(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    make_pdf(path, ["Install with pip", "Configure the agent"])
    docs = DocumentLoader.from_pdf(path)
    assert [d.text.strip() for d in docs] == ["Install with pip", "Configure the agent"]
    assert [(d.metadata["page"], d.metadata["total_pages"]) for d in docs] == [(1, 2), (2, 2)]
    assert docs[0].metadata["filename"] == "manual.pdf"
    assert [d.text for d in DocumentLoader.from_file(path)] == [d.text for d in docs]


def test_markdown_title_csv_rows_and_json_records(tmp_path: Path) -> None:
    md = tmp_path / "guide.md"
    md.write_text("intro\n# The Guide\nbody")
    assert DocumentLoader.from_markdown(md)[0].metadata["title"] == "The Guide"

    table = tmp_path / "faq.csv"
    table.write_text(
        "question,answer,team\nHow to ship?,Use the CLI,ops\nRefunds?,Within 30 days,billing\n"
    )
    rows = DocumentLoader.from_csv(table, text_columns=["question", "answer"])
    assert rows[1].text == "question: Refunds?\nanswer: Within 30 days"
    assert (rows[1].metadata["row"], rows[1].metadata["team"]) == (2, "billing")

    records = tmp_path / "kb.json"
    records.write_text(json.dumps([{"body": "first", "tag": "x"}, {"body": "second", "tag": "y"}]))
    docs = DocumentLoader.from_json(records, text_key="body")
    assert [(d.text, d.metadata["tag"], d.metadata["record"]) for d in docs] == [
        ("first", "x", 1),
        ("second", "y", 2),
    ]
    lines = tmp_path / "kb.jsonl"
    lines.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert [d.text for d in DocumentLoader.from_file(lines)] == ['{"a": 1}', '{"a": 2}']


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "it is a directory"),
        (lambda p: p.write_bytes(b"\xff\xfe\x00bad"), "not UTF-8 text"),
    ],
)
def test_an_unreadable_file_names_the_file_and_the_reason(
    tmp_path: Path, setup, reason: str
) -> None:
    path = tmp_path / "broken.txt"
    setup(path)
    with pytest.raises(DocumentLoadError, match=reason) as info:
        DocumentLoader.from_file(path)
    assert info.value.path == str(path)
    assert str(path) in str(info.value)


def test_broken_json_pdf_and_missing_column_are_explained(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ')
    with pytest.raises(DocumentLoadError, match=r"bad.json: invalid JSON at line 1"):
        DocumentLoader.from_file(bad)
    fake_pdf = tmp_path / "fake.pdf"
    fake_pdf.write_text("not a pdf")
    with pytest.raises(DocumentLoadError, match=r"fake\.pdf: not a readable PDF"):
        DocumentLoader.from_file(fake_pdf)
    table = tmp_path / "t.csv"
    table.write_text("a,b\n1,2\n")
    with pytest.raises(DocumentLoadError, match="no column 'c'"):
        DocumentLoader.from_csv(table, text_columns=["c"])
    with pytest.raises(DocumentLoadError, match="no such directory"):
        DocumentLoader.from_directory(tmp_path / "nope")


def test_web_page_loads_through_the_ssrf_guard(loopback: Loopback) -> None:
    page = b"<html><head><title>Docs</title><style>p{}</style></head><body><h1>Install</h1><p>pip install x</p><script>evil()</script></body></html>"
    loopback.routes["/docs"] = lambda seen: (200, "text/html; charset=utf-8", page)
    with pytest.raises(BlockedURLError, match="loopback"):
        DocumentLoader.from_url(loopback.url("/docs"))
    assert loopback.requests == []  # refused before any connection
    (doc,) = DocumentLoader.from_url(
        loopback.url("/docs"), policy=NetPolicy(allow_hosts=("127.0.0.1",))
    )
    assert doc.text == "Install\npip install x"
    assert doc.metadata == {
        "source": loopback.url("/docs"),
        "url": loopback.url("/docs"),
        "title": "Docs",
    }


def test_web_page_error_status_is_a_load_error(loopback: Loopback) -> None:
    with pytest.raises(DocumentLoadError, match="HTTP 404"):
        DocumentLoader.from_url(
            loopback.url("/missing"), policy=NetPolicy(allow_hosts=("127.0.0.1",))
        )


def test_text_splitter_respects_size_and_overlaps() -> None:
    text = " ".join(f"w{i:03d}" for i in range(300))  # 1499 characters, words of 4
    splitter = TextSplitter(chunk_size=200, chunk_overlap=50, separator=" ")
    chunks = splitter.split_text(text)
    assert all(len(c) <= 200 for c in chunks)
    assert chunks[0].startswith("w000") and chunks[-1].endswith("w299")
    for left, right in zip(chunks, chunks[1:], strict=False):
        # the overlap carries the last whole words that fit in 50 characters (10 words: 49)
        assert right[:49] == left[-49:] and right[49] == " "
    words = {w for c in chunks for w in c.split(" ")}
    assert words == set(text.split(" "))


def test_text_splitter_keeps_paragraphs_whole_when_they_fit() -> None:
    text = "First paragraph.\n\nSecond paragraph.\n\nThird one."
    assert TextSplitter(chunk_size=40, chunk_overlap=0).split_text(text) == [
        "First paragraph.\n\nSecond paragraph.",
        "Third one.",
    ]


def test_recursive_splitter_prefers_paragraphs_then_sentences_then_characters() -> None:
    para = "Short one.\n\n" + "This is a sentence. " * 6 + "\n\n" + "x" * 130
    chunks = RecursiveTextSplitter(chunk_size=60, chunk_overlap=0).split_text(para)
    assert chunks[0] == "Short one."
    assert all(len(c) <= 60 for c in chunks)
    assert any(c.startswith("This is a sentence") for c in chunks)
    assert "x" * 60 in chunks


def test_split_documents_carries_metadata_to_every_chunk() -> None:
    doc = Document(text="a. " * 100, metadata={"source": "docs/guide.md", "filename": "guide.md"})
    chunks = RecursiveTextSplitter(chunk_size=50, chunk_overlap=10).split_documents([doc])
    assert len(chunks) > 2
    for index, chunk in enumerate(chunks):
        assert chunk.metadata == {
            "source": "docs/guide.md",
            "filename": "guide.md",
            "chunk": index,
            "total_chunks": len(chunks),
        }
    assert doc.metadata == {"source": "docs/guide.md", "filename": "guide.md"}


def test_bad_splitter_settings() -> None:
    with pytest.raises(ValueError, match="chunk_overlap must be >= 0 and smaller than chunk_size"):
        TextSplitter(chunk_size=100, chunk_overlap=100)
    with pytest.raises(ValueError, match="chunk_size must be >= 1"):
        RecursiveTextSplitter(chunk_size=0)
    assert TextSplitter().split_text("   ") == []


@pytest.mark.parametrize(
    "load",
    [
        DocumentLoader.from_file,
        DocumentLoader.from_pdf,
        DocumentLoader.from_markdown,
        DocumentLoader.from_csv,
        DocumentLoader.from_json,
        lambda p: DocumentLoader.from_files([p]),
    ],
)
@pytest.mark.parametrize("name", ["missing.txt", "missing.pdf", "missing.csv", "missing.json"])
def test_a_missing_file_is_a_file_not_found_error_naming_it(tmp_path: Path, load, name) -> None:
    """Code written for files (``except FileNotFoundError``) catches the loaders' missing file."""
    path = tmp_path / name
    with pytest.raises(FileNotFoundError, match="no such file") as info:
        load(path)
    assert isinstance(info.value, DocumentLoadError)  # and stays a RAG error
    assert info.value.filename == str(path) == info.value.path
    assert str(path) in str(info.value)


def test_a_missing_directory_is_a_file_not_found_error_and_other_failures_are_not(
    tmp_path: Path,
) -> None:
    with pytest.raises(FileNotFoundError, match="no such directory"):
        DocumentLoader.from_directory(tmp_path / "nope")
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(DocumentLoadError, match="not a directory") as info:
        DocumentLoader.from_directory(tmp_path / "a_file")
    assert not isinstance(info.value, FileNotFoundError)
    (tmp_path / "folder.pdf").mkdir()
    for load in (DocumentLoader.from_file, DocumentLoader.from_pdf):
        with pytest.raises(DocumentLoadError, match="directory") as info:
            load(tmp_path / "folder.pdf")
        assert not isinstance(info.value, FileNotFoundError)


@pytest.mark.parametrize(
    "error", [DocumentLoadError("a.txt", "bad bytes"), DocumentNotFoundError("b.txt")]
)
def test_load_errors_survive_pickling(error):
    # a worker process (a process pool, Ray) sends the error back pickled: it must arrive whole
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert (copy.path, copy.reason, str(copy)) == (error.path, error.reason, str(error))
