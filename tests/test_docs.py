"""The documentation stays true to the tree: ``docs/architecture.md`` names only paths and
modules that exist, the README stays short, and every relative link in the README, the
changelog and ``docs/`` leads to a file. Filesystem only: nothing is imported or started.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "docs" / "architecture.md"
README_MAX_LINES = 200

_NOT_OURS = {"build", "demo-out", "runs", "__pycache__"}
TOP_LEVEL = sorted(
    p.name
    for p in REPO.iterdir()
    if p.is_dir()
    and not p.name.startswith(".")
    and not p.name.endswith(".egg-info")
    and p.name not in _NOT_OURS
)
"""The repository's own top-level folders (packages, tests, benchmarks, docs, ...)."""

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_DOTTED = re.compile(rf"^(?:{'|'.join(map(re.escape, TOP_LEVEL))})(?:\.[A-Za-z_]\w*)+$")


def _prose(text: str) -> str:
    """The text without fenced code blocks (a diagram or a shell session is not a claim)."""
    return _FENCE.sub("", text)


def _backticked(path: Path) -> list[str]:
    return _CODE.findall(_prose(path.read_text(encoding="utf-8")))


def _is_repo_path(token: str) -> bool:
    return " " not in token and token.split("/", 1)[0] in TOP_LEVEL and "/" in token


def _path_exists(token: str) -> bool:
    """A path exists; ``<placeholder>`` and ``*`` parts must match at least one file."""
    pattern = re.sub(r"<[^>/]*>", "*", token).rstrip("/")
    if "*" in pattern:
        return any(REPO.glob(pattern))
    return (REPO / pattern).exists()


def _defines(module: Path, name: str) -> bool:
    """``name`` is defined, assigned or imported at some level of ``module``'s text."""
    text = module.read_text(encoding="utf-8")
    word = re.escape(name)
    return bool(
        re.search(
            rf"^\s*(?:async\s+def|def|class)\s+{word}\b|^\s*{word}\s*[:=]"
            rf"|^\s*(?:from|import)\b[^\n]*\b{word}\b|^\s+{word},?\s*$",
            text,
            re.M,
        )
    )


def _module_resolves(dotted: str) -> bool:
    """``bridge.runner`` is a file; ``bridge.judge.pose`` is a name ``bridge/judge.py`` has."""
    parts = dotted.split(".")
    for size in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:size])
        for module in (base.with_suffix(".py"), base / "__init__.py"):
            if module.is_file():
                return size == len(parts) or _defines(module, parts[size])
    return False


def test_the_architecture_names_only_paths_that_exist() -> None:
    tokens = _backticked(ARCHITECTURE)
    paths = sorted({t for t in tokens if _is_repo_path(t)})
    assert len(paths) > 50, f"docs/architecture.md names only {len(paths)} repository paths"
    missing = [t for t in paths if not _path_exists(t)]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_the_architecture_names_only_modules_that_exist() -> None:
    dotted = sorted({t for t in _backticked(ARCHITECTURE) if _DOTTED.match(t)})
    missing = [t for t in dotted if not _module_resolves(t)]
    assert not missing, f"docs/architecture.md names modules that do not resolve: {missing}"


def test_the_readme_is_short() -> None:
    lines = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move the detail to docs/"
    )


def _documents() -> list[Path]:
    return [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]


def _broken_links(document: Path) -> list[str]:
    text = _CODE.sub("", _prose(document.read_text(encoding="utf-8")))
    broken = []
    for target in _LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # another site, or an anchor in this page
        relative = target.split("#", 1)[0].split("?", 1)[0]
        if not (document.parent / relative).exists():
            broken.append(target)
    return broken


@pytest.mark.parametrize("document", _documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(document: Path) -> None:
    assert document.is_file(), f"{document.relative_to(REPO)} is missing"
    broken = _broken_links(document)
    assert not broken, f"{document.relative_to(REPO)} links to files that do not exist: {broken}"
