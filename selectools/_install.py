"""The one place that names the distribution, and says how to add an optional part.

The import name is ``selectools`` (and ``%load_ext selectools``), but the name
``selectools`` on the package index belongs to another project, so this package is
distributed as ``selectools-jupyter`` and installed from its repository. Every message
that tells a user how to install an optional part goes through :func:`install_hint`, which
names the part's own packages (read from this distribution's metadata, e.g.
``pip install "openai>=1.30"``) and never sends a user to the index for a package that is
not ours.
"""

from __future__ import annotations

import re

__all__ = ["DISTRIBUTION", "install_hint"]

#: The distribution name; the import name stays ``selectools``.
DISTRIBUTION = "selectools-jupyter"

_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")
_NAME = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(?:\[([^\]]*)\])?")


def install_hint(extra: str) -> str:
    """How to add the optional part ``extra``: its packages, then the extra's name."""
    packages = _packages_of(extra, set())
    where = f"the {extra!r} extra of {DISTRIBUTION}"
    if not packages:  # no metadata (running from a bare checkout): point at the checkout
        return f'pip install -e ".[{extra}]" in a clone of {DISTRIBUTION} ({where})'
    quoted = " ".join(f'"{package}"' for package in packages)
    return f"pip install {quoted} ({where})"


def _packages_of(extra: str, seen: set[str]) -> list[str]:
    """The requirements of ``extra`` (markers dropped), our own nested extras expanded."""
    from importlib import metadata

    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    seen.add(extra)
    found: list[str] = []
    for line in requires:
        requirement, _, marker = line.partition(";")
        match = _EXTRA.search(marker)
        if match is None or match.group(1) != extra:
            continue
        name = _NAME.match(requirement)
        if name and name.group(1).lower() == DISTRIBUTION and name.group(2):
            for nested in name.group(2).split(","):
                if nested.strip() not in seen:
                    found += _packages_of(nested.strip(), seen)
            continue
        if "sys_platform" in marker or "python_version" in marker:
            continue  # platform- or version-only pins (tzdata on Windows) are pip's business
        found.append(requirement.strip().replace(" ", ""))
    return list(dict.fromkeys(found))
