"""A labelled retrieval set built from selectools' own docs: questions whose answer is a known section.

The corpus is every module docstring of the package (the section is the module's
dotted name) plus the README split at its ``## `` headings (the section is
``README#<heading>``). The questions were written by hand for this set, in other
words than the section they point at, so an embedder has to match meaning, not
only shared words. ``benchmarks/bench_ingest.py`` scores the embedders on all of
it; ``tests/rag/test_fast_embedder.py`` checks a floor on a subset.
"""

from __future__ import annotations

import ast
from pathlib import Path

from selectools.rag import Document, HybridSearcher, VectorStore

ROOT = Path(__file__).resolve().parent.parent

#: (question, the section that answers it)
QUESTIONS: list[tuple[str, str]] = [
    ("how do I stop a running agent from another thread?", "cancellation"),
    ("keep a log of every action the agent took for compliance", "audit"),
    ("skip calling the model again when the same request was already answered", "cache.__init__"),
    ("share cached model answers between several worker processes", "cache_redis"),
    ("check that a tool call actually matches what the user requested", "coherence"),
    ("where do settings like API keys get read from a dotenv file?", "_env"),
    ("block requests to internal network addresses when fetching URLs", "_net_guard"),
    ("show a progress bar while embedding many documents", "_progress"),
    ("remember people, companies and places mentioned while chatting", "entity_memory"),
    ("subject relation object facts pulled out of a dialogue", "memory.knowledge_graph.__init__"),
    ("save facts across sessions and recall them next week", "memory.knowledge.__init__"),
    ("store long-term memory facts in Supabase tables", "memory.knowledge._supabase_store"),
    ("sliding window of past messages kept between runs", "memory.conversation"),
    ("list of supported LLMs with their prices and context limits", "models"),
    ("how much does a call cost in dollars per token?", "pricing"),
    ("allow, review or deny rules evaluated before a tool runs", "policy"),
    (
        "extract tool invocations from plain text output of a model without native tool calling",
        "parser",
    ),
    ("compose small functions into a chain with retries and branches", "pipeline.__init__"),
    ("detect prompt injection hidden in what a tool returned", "security"),
    ("get a typed JSON object back that matches my schema", "structured"),
    ("mark an API as deprecated or beta", "stability"),
    ("a record of every step and its timing during a run", "trace"),
    ("the typed stream of events emitted while an agent runs", "observer"),
    ("send spans to OpenTelemetry with the GenAI conventions", "observe.otel"),
    ("export runs to Langfuse as traces and generations", "observe.langfuse"),
    ("find a past run's trace again later", "observe.trace_store"),
    ("wire agents and functions together as a directed graph", "orchestration.graph"),
    ("save the state of a graph after each node so it can resume", "orchestration.checkpoint"),
    ("a manager agent coordinating several named agents", "orchestration.supervisor"),
    ("try a second provider when the first one keeps failing", "providers.fallback"),
    ("use Claude models through the Messages API", "providers.anthropic_provider"),
    ("run a model locally with Ollama's chat endpoint", "providers.ollama_provider"),
    ("OpenAI models hosted on Microsoft's cloud deployments", "providers.azure_openai_provider"),
    ("an echo provider that works offline for learning", "providers.stubs"),
    ("keep API keys out of logs and tracebacks", "providers._secret"),
    ("turn HTTP errors from a vendor into errors the agent can handle", "providers._errors"),
    ("keyword ranking with Okapi over an inverted index", "rag.bm25"),
    ("split long text into overlapping pieces", "rag.chunking"),
    ("combine vector similarity and keyword search results", "rag.hybrid"),
    ("read PDFs, CSV files and web pages into documents", "rag.loaders"),
    ("re-score retrieved passages with a cross-encoder service", "rag.reranker"),
    ("vectors kept in a single SQLite database file", "rag.stores.sqlite"),
    ("store embeddings in Postgres with the vector extension", "rag.stores.pgvector"),
    ("a Pinecone index reached over HTTP without its SDK", "rag.stores.pinecone"),
    ("run an agent every weekday at nine with a cron expression", "scheduler._scheduler"),
    ("expose an agent as an HTTP API in a few lines", "serve.app"),
    ("the command line: serve, doctor, templates, eval, view", "serve.cli"),
    ("protect a local server from cross-site requests and limit sign-in attempts", "serve._guard"),
    ("continue a conversation later, even from a different process", "memory.sessions.__init__"),
    ("one JSON file on disk for each saved conversation", "memory.sessions._json_file"),
    ("define an agent in YAML without writing Python", "templates.__init__"),
    ("a support bot that looks up accounts and escalates tickets", "templates.customer_support"),
    (
        "a fake LLM server speaking the vendors' wire protocols for tests",
        "testing.fake_server._server",
    ),
    ("record real provider replies once and play them back offline", "testing.replay"),
    ("a provider that plays back model turns I wrote in advance", "testing.scripted"),
    ("execute model-written Python code in a restricted separate process", "toolbox.code_tools"),
    ("run SQL queries against a SQLite database read-only", "toolbox.database_tools"),
    ("restrict file tools to one directory", "toolbox._sandbox"),
    ("make a tool out of an ordinary Python function", "tools._decorator"),
    ("validate the values an LLM passes to a tool against type hints", "tools._schema"),
    ("remove phone numbers and credit card numbers from text", "guardrails.pii"),
    ("block offensive words with a keyword list", "guardrails.toxicity"),
    ("grade answers with another model as a judge", "evals.llm_evaluators"),
    ("compare a new eval run against the last good baseline", "evals.regression"),
    ("run evaluation cases on a Ray cluster", "evals.executors"),
    ("JUnit XML output for continuous integration", "evals.junit"),
    ("use tools from MCP servers in my agent", "mcp.__init__"),
    ("stop calling a server that keeps failing for a while", "mcp._breaker"),
    ("a human approves each tool call before it runs", "approval"),
    ("an approval card in the browser for a pending tool call", "notebook.approval_card"),
    ("embeddings computed offline with a real model and no API key", "embeddings.e5"),
    ("run an agent in the background and get a handle to it", "agent.background"),
    ("fold dropped messages into a summary when memory is trimmed", "agent._summarize"),
    ("budgets and limits checked before each model call", "agent._limits"),
    ("what a performance benchmark measures against references", "README#Performance"),
    ("how do I get started quickly?", "README#Quickstart"),
]


def _readme_sections() -> list[Document]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    docs: list[Document] = []
    heading, lines = "intro", []
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("## "):
            docs.append(Document("\n".join(lines), {"section": f"README#{heading}"}))
            heading, lines = line[3:].strip(), []
        lines.append(line)
    docs.append(Document("\n".join(lines), {"section": f"README#{heading}"}))
    return [d for d in docs if d.text.strip()]


def _module_docstrings() -> list[Document]:
    package = ROOT / "selectools"
    docs: list[Document] = []
    for path in sorted(package.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if doc:
            name = ".".join(path.relative_to(package).with_suffix("").parts)
            docs.append(Document(doc, {"section": name}))
    return docs


def corpus() -> list[Document]:
    """The sections (before chunking), each with ``metadata["section"]``."""
    return _readme_sections() + _module_docstrings()


def score(ranked: list[list[str]], questions: list[tuple[str, str]]) -> tuple[float, float]:
    """(recall@5, MRR@10): ``ranked[i]`` is the sections of question i's hits, best first."""
    hits = reciprocal = 0.0
    for sections, (_, answer) in zip(ranked, questions, strict=True):
        if answer in sections[:5]:
            hits += 1
        if answer in sections[:10]:
            reciprocal += 1 / (sections.index(answer) + 1)
    return hits / len(questions), reciprocal / len(questions)


def ranked_sections(
    store: VectorStore | HybridSearcher, questions: list[tuple[str, str]]
) -> list[list[str]]:
    """For each question, the distinct sections of its top 30 chunks, best first."""
    ranked = []
    for question, _ in questions:
        sections: list[str] = []
        for hit in store.search(question, top_k=30):
            if hit.document.metadata["section"] not in sections:
                sections.append(hit.document.metadata["section"])
        ranked.append(sections)
    return ranked
