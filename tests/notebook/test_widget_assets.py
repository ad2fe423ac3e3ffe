"""The widgets' front-end files are found by one resolver, from a checkout and from the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT_WIDGETS = ROOT / "widgets"
FILES = sorted(p.name for p in CHECKOUT_WIDGETS.iterdir() if p.suffix in (".js", ".css"))


def test_from_a_checkout_every_widget_file_resolves_to_the_top_level_folder() -> None:
    from selectools.notebook._widget_files import WIDGETS_DIR, widget_path

    assert WIDGETS_DIR == CHECKOUT_WIDGETS
    assert FILES  # approval_card.js, live_run.css, ...
    for name in FILES:
        assert widget_path(name) == CHECKOUT_WIDGETS / name


def test_every_widget_class_takes_its_files_from_the_resolver() -> None:
    pytest.importorskip("anywidget")
    from selectools.notebook.approval_card import ApprovalCard
    from selectools.notebook.live_widget import LiveRunWidget

    for widget, stem in ((ApprovalCard, "approval_card"), (LiveRunWidget, "live_run")):
        for attr, suffix in (("_esm", ".js"), ("_css", ".css")):
            # anywidget reads the resolved file at class creation
            assert str(getattr(widget, attr)) == (CHECKOUT_WIDGETS / f"{stem}{suffix}").read_text()


@pytest.mark.parametrize("name", ["nope.js", "../pyproject.toml", "sub/live_run.js"])
def test_a_missing_or_outside_file_is_a_clear_error(name: str) -> None:
    from selectools.notebook._widget_files import widget_path

    with pytest.raises(FileNotFoundError, match=r"widget file .* is not in"):
        widget_path(name)


def test_only_the_resolver_knows_where_the_widget_files_are() -> None:
    package = ROOT / "selectools"
    mentions = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if '"_widgets"' in path.read_text() or '"widgets"' in path.read_text()
    ]
    assert mentions == ["notebook/_widget_files.py"]


def test_from_an_installed_wheel_the_files_resolve_inside_the_package(tmp_path: Path) -> None:
    """Build the wheel, unpack it as site-packages would, and resolve from that copy."""
    pytest.importorskip("hatchling")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        shipped = sorted(
            Path(n).name for n in archive.namelist() if n.startswith("selectools/_widgets/")
        )
        archive.extractall(site)
    assert shipped == FILES

    probe = (
        "import selectools, sys\n"
        "from selectools.notebook._widget_files import WIDGETS_DIR, widget_path\n"
        "print(selectools.__file__)\n"
        "print(WIDGETS_DIR)\n"
        "for name in sys.argv[1:]:\n"
        "    print(widget_path(name).read_bytes().hex())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(site)}
    ran = subprocess.run(
        [sys.executable, "-c", probe, *FILES],
        cwd=tmp_path,  # away from the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    package_file, folder, *contents = ran.stdout.splitlines()
    assert Path(package_file).is_relative_to(site)
    assert Path(folder) == site / "selectools" / "_widgets"
    assert [bytes.fromhex(c) for c in contents] == [
        (CHECKOUT_WIDGETS / n).read_bytes() for n in FILES
    ]
