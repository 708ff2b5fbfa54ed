"""Audit the installed (locked) test environment against the package registry.

This does pip-audit's job with what this CI can reach. pip-audit reads vulnerabilities from
PyPI's JSON API or from OSV; from here the JSON API answers 404 and OSV does not resolve. The
registry's simple index (PEP 691 JSON) does say whether a release is still published and
whether it was yanked (PEP 592), and that catches the supply-chain attacks that matter most to
this package: a release pulled after a compromise (litellm 1.82.7 and 1.82.8 were) or yanked
by its maintainers fails the audit. Where the JSON API does answer, the OSV vulnerabilities it
lists fail the audit too (withdrawn ones excepted). Finally every installed distribution is
checked against ``advisories.txt`` beside this file: known-bad releases, as requirements.

    python .ci/audit_dependencies.py [--index-url URL] [--json-api URL] [--ignore NAME ...]

Exits 1 when anything is found, 2 when the registry cannot be read, else 0; prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

ADVISORIES = Path(__file__).with_name("advisories.txt")
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


@dataclass
class Finding:
    name: str
    version: str
    problems: list[str] = field(default_factory=list)


def installed(ignore: Iterable[str] = ()) -> dict[str, str]:
    """Canonical name -> version of every distribution in this environment."""
    skip = {canonicalize_name(n) for n in ignore}
    out: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and canonicalize_name(name) not in skip:
            out[canonicalize_name(name)] = dist.version
    return out


def load_advisories(path: Path = ADVISORIES) -> list[tuple[Requirement, str]]:
    """``requirement  why`` lines; ``#`` starts a comment."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            spec, _, why = line.partition(" ")
            out.append((Requirement(spec), why.strip() or "known-bad release"))
    return out


def _get(url: str, accept: str | None = None, timeout: float = 30.0,
         attempts: int = 3) -> tuple[int, bytes]:
    """(status, body); connection errors and 5xx are tried ``attempts`` times in all."""
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return int(response.status), response.read()
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or attempt == attempts - 1:
                return int(exc.code), b""
        except OSError:
            if attempt == attempts - 1:
                raise
        time.sleep(0.5 * 2**attempt)
    raise AssertionError("unreachable")


def _file_version(filename: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        return parse_sdist_filename(filename)[1]
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def registry_problems(index_url: str, name: str, version: str) -> list[str]:
    """What the simple index says about ``name==version``: pulled, yanked, or nothing."""
    status, body = _get(f"{index_url.rstrip('/')}/{name}/", SIMPLE_JSON)
    if status == 404:
        return ["not on the registry"]
    if status != 200:
        raise OSError(f"{index_url}/{name}/ answered HTTP {status}")
    page = json.loads(body)
    wanted = Version(version)
    files = [f for f in page.get("files", []) if _file_version(f["filename"]) == wanted]
    if not files:
        return ["release not published on the registry (pulled?)"]
    if all(f.get("yanked") for f in files):
        reason = next((f["yanked"] for f in files if isinstance(f["yanked"], str)), "")
        return [f"yanked{': ' + reason if reason else ''}"]
    return []


def osv_problems(json_api: str, name: str, version: str) -> list[str]:
    """Vulnerabilities PyPI's JSON API lists for the release (OSV data), if it answers."""
    status, body = _get(f"{json_api.rstrip('/')}/{name}/{version}/json")
    if status != 200:
        return []
    vulns = json.loads(body).get("vulnerabilities") or []
    return [f"{v.get('id')} (fixed in {', '.join(v.get('fixed_in') or []) or '-'})"
            for v in vulns if not v.get("withdrawn")]


def audit(env: dict[str, str], index_url: str, json_api: str | None,
          advisories: list[tuple[Requirement, str]]) -> list[Finding]:
    """Every distribution of ``env`` with at least one problem."""

    def one(item: tuple[str, str]) -> Finding:
        name, version = item
        found = Finding(name, version, registry_problems(index_url, name, version))
        if json_api:
            found.problems += osv_problems(json_api, name, version)
        for req, why in advisories:
            if canonicalize_name(req.name) == name and req.specifier.contains(
                    version, prereleases=True):
                found.problems.append(f"advisory {req}: {why}")
        return found

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(one, sorted(env.items())))
    return [f for f in results if f.problems]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-url", default="https://pypi.org/simple")
    parser.add_argument("--json-api", default="https://pypi.org/pypi",
                        help="PyPI's JSON API (OSV vulnerabilities); '' to skip")
    parser.add_argument("--ignore", nargs="*", default=["vcg-otel"],
                        help="distributions not from the registry (the project itself)")
    parser.add_argument("--advisories", type=Path, default=ADVISORIES)
    args = parser.parse_args(argv)

    env = installed(args.ignore)
    json_api = args.json_api or None
    # The per-release endpoint is the one with a release's vulnerabilities (some proxies
    # serve only the per-project one): probe it with a release that certainly exists.
    probe = f"{json_api.rstrip('/')}/pip/{metadata.version('pip')}/json" if json_api else ""
    if json_api and _get(probe, timeout=10)[0] != 200:
        print(f"vulnerability feed {json_api}/<name>/<version>/json: not served here, "
              "registry and advisory checks only")
        json_api = None
    try:
        findings = audit(env, args.index_url, json_api, load_advisories(args.advisories))
    except (OSError, ValueError) as exc:
        print(f"cannot read the registry: {exc}", file=sys.stderr)
        return 2
    print(f"{len(env)} distributions audited against {args.index_url}"
          f"{' and ' + json_api if json_api else ''}: {len(findings)} with problems")
    for f in findings:
        for problem in f.problems:
            print(f"  {f.name}=={f.version}: {problem}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
