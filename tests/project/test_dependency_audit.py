"""The dependency audit CI runs (.ci/audit_dependencies.py), against a registry served on
127.0.0.1 that speaks PEP 691 (simple JSON) and PyPI's JSON API."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

import pytest
from support.paths import ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("audit_dependencies",
                                                  ROOT / ".ci" / "audit_dependencies.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


audit_dependencies = _load()


def _files(name: str, *versions: str, yanked: Any = False) -> list[dict[str, Any]]:
    return [{"filename": f"{name}-{v}-py3-none-any.whl", "url": "x", "hashes": {},
             "yanked": yanked} for v in versions]


SIMPLE = {
    "clean": _files("clean", "1.0", "1.1"),
    "pulled": _files("pulled", "2.0", "2.2"),  # 2.1 was taken off the index
    "yanked": _files("yanked", "3.0") + _files("yanked", "3.1", yanked="credential stealer"),
    "litellm": _files("litellm", "1.82.6", "1.82.7", "1.110.2"),  # a mirror still serving it
    "vulnerable": _files("vulnerable", "4.0"),
}
JSON_API = {("vulnerable", "4.0"): [{"id": "GHSA-xxxx", "fixed_in": ["4.1"]},
                                    {"id": "PYSEC-old", "fixed_in": [], "withdrawn": "2025"}]}


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            parts = [p for p in self.path.split("/") if p]
            body: Any = None
            if parts[:1] == ["simple"] and len(parts) == 2 and parts[1] in SIMPLE:
                assert "application/vnd.pypi.simple.v1+json" in self.headers["Accept"]
                body = {"meta": {"api-version": "1.1"}, "name": parts[1],
                        "files": SIMPLE[parts[1]]}
            elif parts[:1] == ["pypi"] and len(parts) == 4 and (parts[1], parts[2]) in JSON_API:
                body = {"vulnerabilities": JSON_API[(parts[1], parts[2])]}
            data = json.dumps(body).encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(data) if body is not None else 0))
            self.end_headers()
            if body is not None:
                self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def findings(registry: str, env: dict[str, str]) -> dict[str, list[str]]:
    found = audit_dependencies.audit(env, registry + "/simple", registry + "/pypi",
                                     audit_dependencies.load_advisories())
    return {f"{f.name}=={f.version}": f.problems for f in found}


def test_a_clean_environment_passes(registry: str) -> None:
    assert findings(registry, {"clean": "1.1", "litellm": "1.110.2"}) == {}


def test_a_release_pulled_from_the_registry_fails(registry: str) -> None:
    assert findings(registry, {"pulled": "2.1"}) == {
        "pulled==2.1": ["release not published on the registry (pulled?)"]}


def test_a_yanked_release_fails_with_its_reason(registry: str) -> None:
    assert findings(registry, {"yanked": "3.1", "clean": "1.0"}) == {
        "yanked==3.1": ["yanked: credential stealer"]}


def test_a_known_compromised_release_fails_even_where_a_mirror_serves_it(registry: str) -> None:
    (problem,) = findings(registry, {"litellm": "1.82.7"})["litellm==1.82.7"]
    assert problem.startswith("advisory litellm==1.82.7: compromised")


def test_vulnerabilities_from_the_json_api_fail_unless_withdrawn(registry: str) -> None:
    assert findings(registry, {"vulnerable": "4.0"}) == {
        "vulnerable==4.0": ["GHSA-xxxx (fixed in 4.1)"]}


def test_a_distribution_the_registry_does_not_know_fails(registry: str) -> None:
    assert findings(registry, {"typo-squat": "0.1"}) == {
        "typo-squat==0.1": ["not on the registry"]}


def test_an_unreachable_registry_is_an_error_not_a_pass(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from vcg_otel.phoenix import free_port

    monkeypatch.setattr(audit_dependencies, "installed", lambda ignore: {"clean": "1.0"})
    dead = f"http://127.0.0.1:{free_port()}"
    code = audit_dependencies.main(["--index-url", dead + "/simple", "--json-api", ""])
    assert code == 2
    assert "cannot read the registry" in capsys.readouterr().err
