"""The upstream releases atif-spec follows (``spec/UPSTREAM.toml``, RFC.md §9).

    python -m atif_spec.spectools.upstream           # look up the index, add new releases
    python -m atif_spec.spectools.upstream --check   # offline: only the list's own problems

The list names each upstream package (``[[package]]``: ``name``, ``role``, ``since``: the first
release followed) and holds every release of it we know of, from ``since`` on (``[[release]]``:
``package``, ``version``, ``status``, ``note``). A release is ``reviewed`` (what it changed is
covered, or judged to need nothing, and ``note`` says which), ``pending`` (known, not covered
yet: ``issue`` names the open issue that covers it), or ``unreviewed`` (found on the index and
not looked at yet: what the lookup writes). :func:`problems` is the offline check behind
``tests/spectools/test_upstream.py``: an ``unreviewed`` release, a ``pending`` one without an
issue, or any other status fails it. :func:`main` without ``--check`` asks the package index
(``pip index versions``, the machine's own pip configuration) for every package's releases and
appends the ones the list lacks as ``unreviewed``, so the test fails until someone reviews them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from atif_spec.jsonio.atomic import write_atomic

REVIEWED, PENDING, UNREVIEWED = "reviewed", "pending", "unreviewed"
_RELEASE = re.compile(r"^[0-9]+(\.[0-9]+)*$")
_AVAILABLE = re.compile(r"^Available versions: (.*)$", re.MULTILINE)


class UpstreamError(ValueError):
    """A list that cannot be read (bad TOML, a missing key, an unknown package)."""


@dataclass(frozen=True, slots=True)
class Package:
    """One upstream package followed."""

    name: str
    role: str
    since: str


@dataclass(frozen=True, slots=True)
class Release:
    """One release of an upstream package, and whether it was reviewed."""

    package: str
    version: str
    status: str
    note: str
    issue: int | None = None


@dataclass(frozen=True, slots=True)
class Upstream:
    """The whole list."""

    packages: tuple[Package, ...]
    releases: tuple[Release, ...]


def release_key(version: str) -> tuple[int, ...] | None:
    """The numeric key of a final release (``0.26.0`` → ``(0, 26, 0)``); None for anything
    else (pre-releases, local versions), which the lookup neither adds nor compares."""
    if not _RELEASE.match(version):
        return None
    parts = [int(x) for x in version.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # 1.0 == 1.0.0
    return tuple(parts)


def _text(raw: dict[str, object], key: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise UpstreamError(f"{where}: `{key}` must be a non-empty string")
    return value


def _release(raw: dict[str, object], where: str) -> Release:
    issue = raw.get("issue")
    if issue is not None and (not isinstance(issue, int) or isinstance(issue, bool)):
        raise UpstreamError(f"{where}: `issue` must be an issue number")
    return Release(
        _text(raw, "package", where),
        _text(raw, "version", where),
        _text(raw, "status", where),
        _text(raw, "note", where),
        issue,
    )


def parse(text: str, where: str = "UPSTREAM.toml") -> Upstream:
    """The list in ``text``; :class:`UpstreamError` when it cannot be read."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UpstreamError(f"{where}: {exc}") from exc
    packages = tuple(
        Package(_text(p, "name", where), _text(p, "role", where), _text(p, "since", where))
        for p in data.get("package", [])
    )
    releases = tuple(_release(r, where) for r in data.get("release", []))
    names = {p.name for p in packages}
    unknown = sorted({r.package for r in releases} - names)
    if unknown:
        raise UpstreamError(f"{where}: releases of packages not listed: {', '.join(unknown)}")
    return Upstream(packages, releases)


def load(path: Path) -> Upstream:
    """The list at ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UpstreamError(f"{path}: {exc.strerror or exc}") from exc
    return parse(text, str(path))


def _problem(r: Release, since: str) -> str | None:
    name = f"{r.package} {r.version}"
    key, floor = release_key(r.version), release_key(since)
    if key is None:
        return f"{name}: not a final release number"
    if floor is not None and key < floor:
        return f"{name}: older than the first release followed ({since})"
    if r.status == UNREVIEWED:
        return f"{name}: unreviewed (review it: RFC.md §9)"
    if r.status == PENDING and r.issue is None:
        return f"{name}: pending needs the `issue` that covers it"
    if r.status not in (REVIEWED, PENDING):
        return f"{name}: status {r.status!r} is none of reviewed, pending, unreviewed"
    return None


def problems(upstream: Upstream) -> list[str]:
    """What keeps the list from passing: unreviewed releases, pending ones without an issue,
    unknown statuses, duplicates, releases older than their package's ``since``."""
    since = {p.name: p.since for p in upstream.packages}
    out = [f"{p.name}: `since` {p.since} is not a final release number"
           for p in upstream.packages if release_key(p.since) is None]  # fmt: skip
    seen: set[tuple[str, tuple[int, ...] | None]] = set()
    for r in upstream.releases:
        key = (r.package, release_key(r.version))
        if key in seen:
            out.append(f"{r.package} {r.version}: listed twice")
        seen.add(key)
        found = _problem(r, since[r.package])
        if found:
            out.append(found)
    return out


def parse_index_versions(output: str) -> list[str]:
    """The versions ``pip index versions`` printed (empty when it printed none)."""
    found = _AVAILABLE.search(output)
    return [v.strip() for v in found.group(1).split(",") if v.strip()] if found else []


Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def _pip(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=300)


def index_versions(package: str, run: Runner | None = None) -> list[str]:
    """Every release of ``package`` the package index has, through pip itself (so the machine's
    index configuration holds); ``Requires-Python`` is ignored, a package for Python 3.12 only
    is still seen from 3.11. :class:`UpstreamError` when pip answers nothing."""
    cmd = [sys.executable, "-m", "pip", "index", "versions", "--ignore-requires-python", package]
    done = (run or _pip)(cmd)
    versions = parse_index_versions(done.stdout)
    if done.returncode != 0 or not versions:
        last = (done.stderr.strip().splitlines() or ["no versions"])[-1]
        raise UpstreamError(f"{package}: the package index answered: {last}")
    return versions


def new_releases(upstream: Upstream, package: Package, versions: Sequence[str]) -> list[str]:
    """The final releases in ``versions`` from ``since`` on that the list does not hold,
    oldest first."""
    floor = release_key(package.since) or ()
    known = {release_key(r.version) for r in upstream.releases if r.package == package.name}
    fresh = {}
    for v in versions:
        key = release_key(v)
        if key is not None and key >= floor and key not in known:
            fresh[key] = v
    return [fresh[k] for k in sorted(fresh)]


def entry(package: str, version: str) -> str:
    """The TOML block the lookup appends for a release it found."""
    return (
        f'\n[[release]]\npackage = "{package}"\nversion = "{version}"\n'
        f'status = "{UNREVIEWED}"\nnote = "found on the package index; not reviewed yet"\n'
    )


def add(path: Path, found: dict[str, list[str]]) -> int:
    """Append ``found`` (package → new versions) to the list at ``path``, atomically, keeping
    its text and comments; returns how many releases were added."""
    text = path.read_text(encoding="utf-8")
    blocks = [entry(p, v) for p, versions in found.items() for v in versions]
    if blocks:
        new = text.rstrip("\n") + "\n" + "".join(blocks)
        parse(new, str(path))  # what we write must read back
        write_atomic(path, new.encode("utf-8"))
    return len(blocks)


def default_path() -> Path:
    """``spec/UPSTREAM.toml`` of the repository (a contributors' tool: run from a checkout)."""
    return Path.cwd() / "spec" / "UPSTREAM.toml"


def lookup(path: Path, run: Runner | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """Ask the index about every package of the list and add what is new; returns the added
    releases and the packages the index did not answer for."""
    upstream = load(path)
    found: dict[str, list[str]] = {}
    failed: list[str] = []
    for package in upstream.packages:
        try:
            versions = index_versions(package.name, run)
        except UpstreamError as exc:
            failed.append(str(exc))
            continue
        fresh = new_releases(upstream, package, versions)
        if fresh:
            found[package.name] = fresh
    add(path, found)
    return found, failed


def main(argv: Sequence[str] | None = None) -> int:
    """Exit 0: every release reviewed or pending; 1: the list has problems (new releases
    included); 2: the list cannot be read or the index did not answer."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--list", type=Path, default=None, help="default: spec/UPSTREAM.toml")
    parser.add_argument("--check", action="store_true", help="offline: no index lookup")
    args = parser.parse_args(argv)
    path: Path = args.list or default_path()
    failed: list[str] = []
    try:
        if not args.check:
            found, failed = lookup(path)
            for package, versions in found.items():
                print(f"upstream: added {package} {', '.join(versions)} (unreviewed)")
        found_problems = problems(load(path))
    except UpstreamError as exc:
        print(f"upstream: {exc}", file=sys.stderr)
        return 2
    for line in failed + found_problems:
        print(f"upstream: {line}", file=sys.stderr)
    if failed:
        return 2
    print(f"upstream: {len(found_problems)} problems in {path}")
    return 1 if found_problems else 0


if __name__ == "__main__":
    sys.exit(main())
