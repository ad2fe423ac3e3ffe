"""Escape and SSRF attempts against the toolbox: every one is refused with a clear, typed error.

File tools are confined to a root directory; web tools refuse inward
addresses, before connecting, on every hop. The attempts go through the tools
as an agent calls them (``Tool.execute`` with the model's arguments), so the
error a model would read is the one checked. Each SSRF case also proves that
nothing was sent where it should not be (the loopback fake records requests).
"""

from __future__ import annotations

import os
import socket

import pytest

from selectools._net_guard import check_url
from selectools.exceptions import ToolExecutionError
from selectools.toolbox import (
    BlockedURLError,
    NetPolicy,
    PathEscapeError,
    ReadOnlyError,
    SearchConfig,
    get_tools_by_category,
)

from .conftest import BRAVE_KEY, Box, FakeWeb


def _tools(category: str, **options: object) -> dict:
    return {t.name: t for t in get_tools_by_category(category, **options)}


def _refused(tool, args: dict, error: type[Exception]) -> Exception:
    with pytest.raises(ToolExecutionError) as info:
        tool.execute(args)
    cause = info.value.error
    assert isinstance(cause, error), f"{type(cause).__name__}: {cause}"
    return cause


# --------------------------------------------------------------------------- files

TRAVERSALS = [
    pytest.param("../outside/secret.txt", "'..' leaves the root", id="dotdot"),
    pytest.param("../../../../../../etc/passwd", "'..' leaves the root", id="deep-dotdot"),
    pytest.param("sub/../../outside/secret.txt", "'..' leaves the root", id="dotdot-after-dir"),
    pytest.param("./sub/./../../outside/secret.txt", "'..' leaves the root", id="dot-segments"),
    pytest.param("/etc/passwd", "absolute path outside the root", id="absolute"),
    pytest.param("%2e%2e/outside/secret.txt", "percent-encoded traversal", id="pct-dots"),
    pytest.param("..%2foutside%2fsecret.txt", "percent-encoded traversal", id="pct-slash"),
    pytest.param("%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "percent-encoded traversal", id="pct-upper"),
    pytest.param("%252e%252e%252foutside%252fsecret.txt", "percent-encoded", id="double-encoded"),
    pytest.param("%2fetc%2fpasswd", "percent-encoded traversal", id="pct-absolute"),
    pytest.param("..\\outside\\secret.txt", "backslash traversal", id="backslash"),
    pytest.param("sub\\..\\..\\outside\\secret.txt", "backslash traversal", id="backslash-deep"),
    pytest.param("notes.txt\x00.png", "NUL byte", id="nul-byte"),
    pytest.param("~/../../outside/secret.txt", "'..' leaves the root", id="tilde-dotdot"),
]


@pytest.mark.parametrize(("path", "reason"), TRAVERSALS)
def test_read_file_refuses_traversal(box: Box, path: str, reason: str) -> None:
    tools = _tools("file", root=box.root)
    error = _refused(tools["read_file"], {"filepath": path}, PathEscapeError)
    assert reason in str(error)
    assert str(box.root.resolve()) in str(error)  # says where the tools are confined
    assert "TOP SECRET" not in str(error)


def test_absolute_path_to_the_outside_file_is_refused(box: Box) -> None:
    tools = _tools("file", root=box.root)
    error = _refused(tools["read_file"], {"filepath": str(box.secret)}, PathEscapeError)
    assert "absolute path outside the root" in str(error)


def test_absolute_path_inside_the_root_is_fine(box: Box) -> None:
    tools = _tools("file", root=box.root)
    assert tools["read_file"].execute({"filepath": str(box.root / "notes.txt")}) == (
        "line one\nline two\n"
    )


def test_symlinked_file_pointing_outside_is_refused(box: Box) -> None:
    (box.root / "innocent.txt").symlink_to(box.secret)
    tools = _tools("file", root=box.root)
    error = _refused(tools["read_file"], {"filepath": "innocent.txt"}, PathEscapeError)
    assert "symlink" in str(error)


def test_symlinked_directory_pointing_outside_is_refused(box: Box) -> None:
    (box.root / "docs").symlink_to(box.outside, target_is_directory=True)
    tools = _tools("file", root=box.root)
    _refused(tools["read_file"], {"filepath": "docs/secret.txt"}, PathEscapeError)
    _refused(tools["list_dir"], {"path": "docs"}, PathEscapeError)
    _refused(tools["list_files"], {"directory": "docs"}, PathEscapeError)


def test_write_through_a_symlinked_directory_is_refused(box: Box) -> None:
    (box.root / "out").symlink_to(box.outside, target_is_directory=True)
    tools = _tools("file", root=box.root)
    _refused(tools["write_file"], {"filepath": "out/planted.txt", "content": "x"}, PathEscapeError)
    assert not (box.outside / "planted.txt").exists()


def test_write_over_a_symlink_to_outside_is_refused(box: Box) -> None:
    (box.root / "log.txt").symlink_to(box.secret)
    tools = _tools("file", root=box.root)
    _refused(tools["write_file"], {"filepath": "log.txt", "content": "pwned"}, PathEscapeError)
    _refused(
        tools["write_file"], {"filepath": "log.txt", "content": "!", "mode": "a"}, PathEscapeError
    )
    assert box.secret.read_text() == "TOP SECRET"


def test_write_outside_with_dotdot_is_refused(box: Box) -> None:
    tools = _tools("file", root=box.root)
    _refused(
        tools["write_file"], {"filepath": "../outside/new.txt", "content": "x"}, PathEscapeError
    )
    assert not (box.outside / "new.txt").exists()


def test_symlink_chain_that_ends_outside_is_refused(box: Box) -> None:
    (box.root / "hop2").symlink_to(box.secret)
    (box.root / "hop1").symlink_to(box.root / "hop2")
    tools = _tools("file", root=box.root)
    _refused(tools["read_file"], {"filepath": "hop1"}, PathEscapeError)


def test_listing_tools_refuse_directories_outside(box: Box) -> None:
    tools = _tools("file", root=box.root)
    _refused(tools["list_files"], {"directory": ".."}, PathEscapeError)
    _refused(tools["list_dir"], {"path": "/"}, PathEscapeError)
    _refused(tools["file_exists"], {"path": "../outside/secret.txt"}, PathEscapeError)
    with pytest.raises(ToolExecutionError, match="file names only"):
        tools["list_files"].execute({"pattern": "../*"})


def test_streaming_readers_are_confined(box: Box) -> None:
    files = _tools("file", root=box.root)
    data = _tools("data", root=box.root)
    _refused(files["read_file_stream"], {"filepath": "../outside/secret.txt"}, PathEscapeError)
    _refused(data["process_csv_stream"], {"filepath": "../outside/data.csv"}, PathEscapeError)


def test_recursive_listing_does_not_follow_links_out(box: Box) -> None:
    (box.root / "sub" / "leak").symlink_to(box.outside, target_is_directory=True)
    (box.root / "sub" / "leak.txt").symlink_to(box.secret)
    tools = _tools("file", root=box.root)
    listing = tools["list_files"].execute({"recursive": True})
    assert "secret" not in listing and "leak" not in listing
    assert "sub/data.csv" in listing


def test_read_only_root_refuses_writes(box: Box) -> None:
    tools = _tools("file", root=box.root, read_only=True)
    error = _refused(tools["write_file"], {"filepath": "new.txt", "content": "x"}, ReadOnlyError)
    assert "read-only" in str(error)
    assert not (box.root / "new.txt").exists()


# --------------------------------------------------------------------------- network

INWARD_URLS = [
    pytest.param("http://127.0.0.1:{port}/json", "loopback", id="loopback-ip"),
    pytest.param("http://localhost:{port}/json", "loopback", id="localhost-dns"),
    pytest.param("http://localhost.:{port}/json", "loopback", id="localhost-trailing-dot"),
    pytest.param("http://[::1]:{port}/json", "loopback", id="ipv6-loopback"),
    pytest.param("http://2130706433:{port}/json", "loopback", id="decimal-ip"),
    pytest.param("http://0x7f000001:{port}/json", "loopback", id="hex-ip"),
    pytest.param("http://0x7f.0.0.1:{port}/json", "loopback", id="hex-dotted"),
    pytest.param("http://0177.0.0.1:{port}/json", "loopback", id="octal-ip"),
    pytest.param("http://127.1:{port}/json", "loopback", id="short-ip"),
    pytest.param("http://[::ffff:127.0.0.1]:{port}/json", "loopback", id="ipv4-mapped"),
    pytest.param("http://[::ffff:7f00:1]:{port}/json", "loopback", id="ipv4-mapped-hex"),
    pytest.param("http://[2002:7f00:1::]/", "loopback", id="6to4"),
    pytest.param("http://[64:ff9b::a9fe:a9fe]/", "cloud metadata", id="nat64-metadata"),
    pytest.param("http://169.254.169.254/latest/meta-data/", "cloud metadata", id="aws-metadata"),
    pytest.param("http://2852039166/latest/meta-data/", "cloud metadata", id="metadata-decimal"),
    pytest.param("http://[::ffff:169.254.169.254]/", "cloud metadata", id="metadata-mapped"),
    pytest.param("http://[fd00:ec2::254]/", "cloud metadata", id="aws-metadata-ipv6"),
    pytest.param("http://metadata.google.internal/computeMetadata/v1/", "metadata", id="gcp-name"),
    pytest.param("http://169.254.1.1/", "link-local", id="link-local"),
    pytest.param("http://[fe80::1]/", "link-local", id="ipv6-link-local"),
    pytest.param("http://10.0.0.1/admin", "private", id="private-10"),
    pytest.param("http://172.16.5.4/", "private", id="private-172"),
    pytest.param("http://192.168.1.1/", "private", id="private-192"),
    pytest.param("http://[fd12:3456::1]/", "private", id="ipv6-ula"),
    pytest.param("http://0.0.0.0:{port}/", "unspecified", id="unspecified"),
    pytest.param("http://100.64.0.1/", "not globally routable", id="cgnat"),
    pytest.param("http://user:pw@127.0.0.1:{port}/json", "loopback", id="userinfo"),
    pytest.param("http://example.com@127.0.0.1:{port}/json", "loopback", id="at-confusion"),
]


@pytest.mark.parametrize(("url", "reason"), INWARD_URLS)
def test_http_get_refuses_inward_addresses(fake_web: FakeWeb, url: str, reason: str) -> None:
    tools = _tools("web")
    error = _refused(tools["http_get"], {"url": url.format(port=fake_web.port)}, BlockedURLError)
    assert reason in error.reason
    assert "NetPolicy(allow_hosts=" in str(error)  # says how to allow a trusted host
    assert fake_web.requests == []


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://example.com/x", "//example.com/"]
)
def test_only_http_and_https_are_fetched(url: str) -> None:
    error = _refused(_tools("web")["http_get"], {"url": url}, BlockedURLError)
    assert "http" in error.reason


def test_http_post_is_guarded_too(fake_web: FakeWeb) -> None:
    tools = _tools("web")
    _refused(tools["http_post"], {"url": f"{fake_web.base}/echo", "data": "{}"}, BlockedURLError)
    assert fake_web.requests == []


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://2852039166/latest/meta-data/",
        "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
        "http://10.1.2.3/internal",
    ],
)
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_to_inward_addresses_are_refused(
    fake_web: FakeWeb, target: str, status: int
) -> None:
    tools = _tools("web", net=fake_web.allow)
    url = f"{fake_web.base}/redirect?status={status}&to={target}"
    error = _refused(tools["http_get"], {"url": url}, BlockedURLError)
    assert error.url.startswith(target.split("/latest")[0].split("/internal")[0])
    assert len(fake_web.requests) == 1  # the redirect itself, and nothing after it


def test_redirect_to_another_loopback_spelling_is_refused(fake_web: FakeWeb) -> None:
    tools = _tools("web", net=fake_web.allow)  # 127.0.0.1 only, not ::1
    url = f"{fake_web.base}/redirect?to=http://[::1]:{fake_web.port}/json"
    _refused(tools["http_get"], {"url": url}, BlockedURLError)


def test_dns_answer_pointing_inward_is_refused(fake_web: FakeWeb, monkeypatch) -> None:
    real = socket.getaddrinfo

    def resolve(host, port, *args, **kwargs):
        if host == "innocent.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    error = _refused(
        _tools("web")["http_get"],
        {"url": f"http://innocent.example:{fake_web.port}/json"},
        BlockedURLError,
    )
    assert error.address == "127.0.0.1" and "resolves to 127.0.0.1" in str(error)
    assert fake_web.requests == []


@pytest.mark.parametrize(
    "answers",
    [
        ["93.184.215.14", "10.0.0.7"],  # one public, one private: refused
        ["::ffff:127.0.0.1"],
        ["169.254.169.254"],
        ["2606:4700::1111", "::1"],
    ],
)
def test_resolver_hook_answers_pointing_inward_are_refused(answers: list[str]) -> None:
    policy = NetPolicy(resolver=lambda host, port: answers)
    tools = _tools("web", net=policy)
    error = _refused(tools["http_get"], {"url": "https://rebind.example/"}, BlockedURLError)
    assert error.host == "rebind.example"


def test_metadata_stays_blocked_when_private_addresses_are_allowed() -> None:
    policy = NetPolicy(allow_private=True)
    for url in ("http://169.254.169.254/", "http://100.100.100.200/", "http://metadata/"):
        with pytest.raises(BlockedURLError, match="metadata"):
            check_url(url, policy)
    assert check_url("http://10.0.0.1/", policy).addresses == ("10.0.0.1",)


def test_search_backend_on_loopback_needs_explicit_permission(fake_web: FakeWeb) -> None:
    search = SearchConfig("brave", base_url=fake_web.base, api_key=BRAVE_KEY)
    tools = _tools("web", search=search)
    _refused(tools["web_search"], {"query": "agents"}, BlockedURLError)
    assert fake_web.requests == []
    allowed = _tools("web", search=search, net=fake_web.allow)
    assert "agents result 1" in allowed["web_search"].execute({"query": "agents"})


def test_credentials_are_not_forwarded_across_origins(fake_web: FakeWeb) -> None:
    policy = NetPolicy(allow_hosts=("127.0.0.1", "localhost"))
    tools = _tools("web", net=policy)
    target = f"http://localhost:{fake_web.port}/echo"
    out = tools["http_get"].execute(
        {
            "url": f"{fake_web.base}/redirect?to={target}",
            "headers": '{"Authorization": "Bearer s3cret", "X-Test": "kept"}',
        }
    )
    assert '"authorization": null' in out and '"x-test": "kept"' in out
    assert fake_web.requests[0].headers["authorization"] == "Bearer s3cret"


def test_connection_is_pinned_to_the_vetted_address(fake_web: FakeWeb) -> None:
    # 'api.internal.test' exists only in the resolver hook: the request can only
    # succeed by connecting to the address that was checked, with the original Host.
    policy = NetPolicy(allow_hosts=("127.0.0.1",), resolver=lambda h, p: ["127.0.0.1"])
    out = _tools("web", net=policy)["http_get"].execute(
        {"url": f"http://api.internal.test:{fake_web.port}/echo"}
    )
    assert f'"host": "api.internal.test:{fake_web.port}"' in out


def test_guard_never_reads_proxy_settings(fake_web: FakeWeb, monkeypatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://10.9.9.9:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.9.9.9:3128")
    out = _tools("web", net=fake_web.allow)["http_get"].execute({"url": f"{fake_web.base}/json"})
    assert '"name": "selectools"' in out
    assert os.environ["HTTP_PROXY"]  # still set: the request simply ignored it


def test_a_root_given_through_a_symlink_still_confines(box: Box, tmp_path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(box.root, target_is_directory=True)
    tools = _tools("file", root=alias)
    assert tools["read_file"].execute({"filepath": str(alias / "notes.txt")}).startswith("line one")
    _refused(tools["read_file"], {"filepath": "../outside/secret.txt"}, PathEscapeError)
    _refused(
        tools["read_file"],
        {"filepath": str(alias / ".." / "outside" / "secret.txt")},
        PathEscapeError,
    )


def test_dotdot_that_stays_inside_is_harmless(box: Box) -> None:
    tools = _tools("file", root=box.root)
    assert tools["read_file"].execute({"filepath": "sub/../notes.txt"}) == "line one\nline two\n"
