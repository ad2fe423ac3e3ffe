"""The SSRF guard: outbound HTTP that refuses inward addresses, hop by hop.

Any tool that fetches a URL chosen by a model (the toolbox's web tools, the
RAG web loader) goes through :func:`guarded_request`. A model can be talked
into asking for ``http://169.254.169.254/latest/meta-data/`` or for an
intranet host, so every hop is checked before it is connected to:

* the scheme must be ``http`` or ``https``;
* the host is resolved (IP literals in any spelling the C resolver accepts —
  ``2130706433``, ``0x7f.1``, ``0177.0.0.1`` — are decoded first) and **every**
  answer must be a public address: loopback, private, link-local, shared
  (CGNAT), multicast, reserved and unspecified ranges are refused, and so are
  IPv6 forms that embed one (IPv4-mapped, 6to4, Teredo, NAT64);
* cloud-metadata endpoints are refused even when private addresses are allowed;
* the connection is pinned to the checked address (the URL is rewritten to the
  IP, with the original ``Host`` header and TLS server name), so a second DNS
  answer cannot swap in another address between check and connect;
* redirects are followed here, one hop at a time, and each target is checked
  again; credentials are dropped when a redirect leaves the origin;
* ``timeout`` is a total deadline for the whole exchange (DNS, connect, TLS,
  redirects, headers and body), held at the socket by
  :class:`~selectools._net_deadline.DeadlineTransport`: a server that drips
  bytes cannot hold a request past it. Tools that let the model pick a timeout
  cap it at :attr:`NetPolicy.max_timeout` (:data:`MAX_TIMEOUT_SECONDS` by default).

Trusted inward hosts (a test's loopback fake, a self-hosted search engine) are
let through only by an explicit :class:`NetPolicy` (``allow_hosts`` or
``allow_private``).
"""

from __future__ import annotations

import ipaddress
import math
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .exceptions import SelectoolsError, format_error_box

if TYPE_CHECKING:
    import httpx

__all__ = [
    "MAX_TIMEOUT_SECONDS",
    "METADATA_ADDRESSES",
    "METADATA_HOSTS",
    "BlockedURLError",
    "FetchResult",
    "FetchTimeoutError",
    "NetPolicy",
    "Target",
    "check_url",
    "checked_timeout",
    "guarded_request",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Iterable[str]]

#: Instance-metadata endpoints of the common clouds (AWS, GCP, Azure, ECS, Alibaba, Oracle).
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",
        "169.254.170.2",
        "100.100.100.200",
        "192.0.0.192",
        "fd00:ec2::254",
    )
)
METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata", "instance-data", "metadata.azure.internal"}
)

#: The default cap on a network tool's timeout (``NetPolicy.max_timeout``): a model may ask
#: for less, never for more.
MAX_TIMEOUT_SECONDS = 30.0

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class BlockedURLError(SelectoolsError):
    """A URL was refused before any connection: bad scheme, or an inward address.

    ``url`` is the hop that was refused (after redirects, the redirect target),
    ``host`` its host, ``address`` the offending IP (``None`` for a scheme or
    name refusal) and ``reason`` a short label such as ``"loopback"``.
    """

    def __init__(self, url: str, host: str, reason: str, address: str | None = None) -> None:
        self.url = url
        self.host = host
        self.reason = reason
        self.address = address
        where = f"host {host!r}" + (
            f" resolves to {address}" if address and address != host else ""
        )
        body = [
            f"URL: {url}",
            f"Refused: {where} ({reason})",
            "",
            "Requests to private, loopback, link-local and cloud-metadata addresses are",
            "blocked so that a model cannot reach internal services (SSRF).",
            "",
            "💡 If this host is trusted, allow it explicitly:",
            f"   NetPolicy(allow_hosts=[{host!r}])",
        ]
        if reason.startswith("scheme"):
            body[-2:] = ["💡 Use an http:// or https:// URL."]
        super().__init__(format_error_box("❌ URL Blocked", body))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.url, self.host, self.reason, self.address))


class FetchTimeoutError(SelectoolsError, TimeoutError):
    """A request did not finish within its total deadline (``timeout`` seconds)."""

    def __init__(self, method: str, url: str, timeout: float) -> None:
        self.method = method
        self.url = url
        self.timeout = timeout
        super().__init__(
            f"{method} {url} did not finish within {timeout:g}s (the total time allowed for "
            "connecting, redirects, headers and body) and was stopped. The server is slow or "
            "sends its answer very slowly: try again later or another source."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.url, self.timeout))


def checked_timeout(timeout: Any, cap: float | None = None) -> float:
    """``timeout`` as seconds > 0 (a ``ValueError`` otherwise), cut to ``cap``."""
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    return float(timeout) if cap is None else min(float(timeout), cap)


def _default_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True)
class NetPolicy:
    """Which hosts an outbound request may reach.

    ``allow_hosts``: names, IPs or CIDR networks always let through (a test's
    ``"127.0.0.1"``, ``"10.0.0.0/8"``, ``"searx.internal"``). ``allow_private``
    lets through every non-public address except cloud metadata (list those in
    ``allow_hosts`` if you really mean it). ``resolver(host, port)`` returns the
    host's addresses (default: ``socket.getaddrinfo``). ``max_redirects`` caps
    the hops followed; ``max_bytes`` caps the body read.
    """

    allow_hosts: tuple[str, ...] = ()
    allow_private: bool = False
    max_redirects: int = 5
    max_bytes: int = 2_000_000
    max_timeout: float = MAX_TIMEOUT_SECONDS
    resolver: Resolver | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.allow_hosts, str):
            object.__setattr__(self, "allow_hosts", (self.allow_hosts,))
        else:
            object.__setattr__(self, "allow_hosts", tuple(self.allow_hosts))
        if self.max_redirects < 0:
            raise ValueError(f"max_redirects must be >= 0, got {self.max_redirects}")
        if self.max_bytes < 1:
            raise ValueError(f"max_bytes must be >= 1, got {self.max_bytes}")
        try:
            checked_timeout(self.max_timeout)
        except ValueError:
            raise ValueError(f"max_timeout must be > 0 seconds, got {self.max_timeout!r}") from None

    def _allowed_names(self) -> set[str]:
        return {h.lower().rstrip(".") for h in self.allow_hosts if not _as_network(h)}

    def _allowed_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [n for n in (_as_network(h) for h in self.allow_hosts) if n is not None]

    def allows_address(self, address: IPAddress) -> bool:
        return any(
            address in net for net in self._allowed_networks() if net.version == address.version
        )


def _as_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text.strip("[]"), strict=False)
    except ValueError:
        return None


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Decode the IPv4 spellings ``inet_aton`` accepts: ``2130706433``, ``0x7f.1``, ``0177.0.0.1``."""
    if not host or any(c not in "0123456789abcdefxABCDEFX." for c in host):
        return None
    if not host[0].isdigit():
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _literal(host: str) -> IPAddress | None:
    bare = host.strip("[]")
    try:
        return ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return _legacy_ipv4(bare)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 transition form carries (mapped, 6to4, Teredo, NAT64)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    # IPv4-compatible (deprecated ::a.b.c.d)
    if int(address) >> 32 == 0 and int(address) > 1:
        return ipaddress.IPv4Address(int(address))
    return None


def classify(address: IPAddress) -> str | None:
    """Why ``address`` is inward (``"loopback"``, ``"private"``, …), or ``None`` if public."""
    if address in METADATA_ADDRESSES:
        return "cloud metadata"
    inner = _embedded_ipv4(address)
    if inner is not None:
        why = classify(inner)
        return f"{why}, embedded in IPv6" if why else None
    if address.is_loopback:
        return "loopback"
    if address.is_unspecified:
        return "unspecified"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_private:
        return "private"
    if address.is_reserved:
        return "reserved"
    if not address.is_global:
        return "not globally routable"
    return None


@dataclass(frozen=True)
class Target:
    """A checked hop: the URL as asked, its host and port, and the vetted addresses."""

    url: httpx.URL
    host: str
    port: int
    addresses: tuple[str, ...]

    def pinned_url(self) -> httpx.URL:
        """The URL with its host replaced by the first vetted address."""
        return self.url.copy_with(host=self.addresses[0])


def check_url(url: str | httpx.URL, policy: NetPolicy | None = None) -> Target:
    """Vet one hop; raise :class:`BlockedURLError` unless every address it resolves to is allowed."""

    policy = policy or NetPolicy()
    parsed = _parse(url) if isinstance(url, str) else url
    text = str(parsed)
    scheme = parsed.scheme.lower()
    if scheme not in ("http", "https"):
        raise BlockedURLError(text, parsed.host, f"scheme {scheme or '(none)'!r} is not http/https")
    host = parsed.host.lower().rstrip(".")
    if not host:
        raise BlockedURLError(text, host, "the URL has no host")
    port = parsed.port or (443 if scheme == "https" else 80)
    named_ok = host in policy._allowed_names()
    if not named_ok and host in METADATA_HOSTS:
        raise BlockedURLError(text, host, "cloud metadata host name")
    literal = _literal(host)
    if literal is not None:
        raw = [str(literal)]
    else:
        try:
            raw = list((policy.resolver or _default_resolver)(host, port))
        except FetchTimeoutError:
            raise
        except (OSError, UnicodeError) as exc:
            raise BlockedURLError(text, host, f"DNS lookup failed: {exc}") from None
        if not raw:
            raise BlockedURLError(text, host, "DNS returned no address")
    vetted: list[str] = []
    for item in raw:
        address = _literal(item)
        if address is None:
            raise BlockedURLError(text, host, f"resolver returned a non-address {item!r}")
        if not named_ok and not policy.allows_address(address):
            why = classify(address)
            if why is not None and (why.startswith("cloud metadata") or not policy.allow_private):
                raise BlockedURLError(text, host, why, str(address))
        vetted.append(str(address))
    return Target(parsed, host, port, tuple(dict.fromkeys(vetted)))


def _parse(url: str, params: Mapping[str, Any] | None = None) -> httpx.URL:
    """``httpx.URL(url)``; a URL httpx rejects is refused, naming an inward host if it has one."""
    import httpx

    try:
        return httpx.URL(url, params=dict(params)) if params else httpx.URL(url)
    except httpx.InvalidURL as exc:
        from urllib.parse import urlsplit

        try:
            host = urlsplit(url).hostname or ""
        except ValueError:
            host = ""
        literal = _literal(host) if host else None
        why = classify(literal) if literal is not None else None
        if why is not None:
            raise BlockedURLError(url, host, why, str(literal)) from None
        raise BlockedURLError(url, host, f"invalid URL: {exc}") from None


@dataclass(frozen=True)
class FetchResult:
    """What came back: the final URL (after redirects), status, headers and the body read."""

    url: str
    status_code: int
    reason_phrase: str
    headers: Mapping[str, str]
    content: bytes
    truncated: bool
    encoding: str = "utf-8"

    @property
    def text(self) -> str:
        return self.content.decode(self.encoding or "utf-8", errors="replace")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 400


def guarded_request(
    method: str,
    url: str,
    *,
    policy: NetPolicy | None = None,
    headers: Mapping[str, str] | None = None,
    json: Any = None,
    params: Mapping[str, Any] | None = None,
    timeout: float = 30.0,
    transport: httpx.BaseTransport | None = None,
) -> FetchResult:
    """One HTTP request with every hop vetted by :func:`check_url` (see the module docstring).

    ``timeout`` (seconds) bounds the whole exchange. Raises
    :class:`BlockedURLError` for a refused hop (including a redirect target),
    :class:`FetchTimeoutError` past the deadline, ``httpx.TooManyRedirects``
    past ``policy.max_redirects`` and the usual ``httpx`` transport errors. The
    body is read up to ``policy.max_bytes``. An injected ``transport`` (tests)
    keeps httpx's per-operation timeouts; the deadline is then checked between
    body chunks.
    """
    import httpx

    timeout = checked_timeout(timeout)
    deadline = time.monotonic() + timeout
    method = method.upper()
    current = _parse(url, params)
    policy = policy or NetPolicy()
    lookup = _bounded_lookup(
        policy.resolver or _default_resolver,
        deadline,
        lambda: FetchTimeoutError(method, str(current), timeout),
    )
    policy = replace(policy, resolver=lookup)
    if transport is None:
        from ._net_deadline import DeadlineTransport

        transport = DeadlineTransport(deadline)
    try:
        return _exchange(method, current, policy, headers, json, timeout, deadline, transport)
    except httpx.TimeoutException:
        raise FetchTimeoutError(method, str(current), timeout) from None


def _bounded_lookup(
    resolve: Resolver, deadline: float, timed_out: Callable[[], Exception]
) -> Resolver:
    """``resolve`` run in a worker thread and given up on at ``deadline``.

    ``getaddrinfo`` cannot be interrupted, and a name the model picks may be served
    by a DNS server that answers slowly on purpose; the abandoned thread ends when
    the system resolver gives up.
    """

    def lookup(host: str, port: int) -> list[str]:
        outcome: list[Any] = []
        done = threading.Event()

        def work() -> None:
            try:
                outcome.append(list(resolve(host, port)))
            except BaseException as exc:
                outcome.append(exc)
            finally:
                done.set()

        threading.Thread(target=work, name="selectools-dns", daemon=True).start()
        if not done.wait(max(deadline - time.monotonic(), 0.0)):
            raise timed_out()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return list(outcome[0])

    return lookup


def _exchange(
    method: str,
    current: httpx.URL,
    policy: NetPolicy,
    headers: Mapping[str, str] | None,
    json: Any,
    timeout: float,
    deadline: float,
    transport: httpx.BaseTransport,
) -> FetchResult:
    import httpx

    start_url = str(current)
    send_headers = {str(k): str(v) for k, v in (headers or {}).items()}
    body = json
    with httpx.Client(
        trust_env=False, follow_redirects=False, timeout=timeout, transport=transport
    ) as client:
        for _hop in range(policy.max_redirects + 1):
            target = check_url(current, policy)
            hop_headers = {k: v for k, v in send_headers.items() if k.lower() != "host"}
            hop_headers["Host"] = current.netloc.decode("ascii")
            extensions = {"sni_hostname": target.host} if current.scheme == "https" else {}
            request = client.build_request(
                method,
                target.pinned_url(),
                headers=hop_headers,
                json=body,
                extensions=extensions,
            )
            response = client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    following = current.join(location)
                    if response.status_code == 303 or (
                        response.status_code in (301, 302) and method == "POST"
                    ):
                        method, body = "GET", None
                    if (following.scheme, following.host, following.port) != (
                        current.scheme,
                        current.host,
                        current.port,
                    ):
                        send_headers = {
                            k: v
                            for k, v in send_headers.items()
                            if k.lower() not in _CREDENTIAL_HEADERS
                        }
                    current = following
                    continue
                chunks: list[bytes] = []
                size = 0
                truncated = False
                for chunk in response.iter_bytes():
                    if time.monotonic() > deadline:
                        raise FetchTimeoutError(method, start_url, timeout)
                    room = policy.max_bytes - size
                    if len(chunk) > room:
                        chunks.append(chunk[:room])
                        truncated = True
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                return FetchResult(
                    url=str(current),
                    status_code=response.status_code,
                    reason_phrase=response.reason_phrase,
                    headers={k.lower(): v for k, v in response.headers.items()},
                    content=b"".join(chunks),
                    truncated=truncated,
                    encoding=response.charset_encoding or "utf-8",
                )
            finally:
                response.close()
    raise httpx.TooManyRedirects(
        f"More than {policy.max_redirects} redirects starting from {start_url}; "
        "raise NetPolicy(max_redirects=...) if the site needs more"
    )
