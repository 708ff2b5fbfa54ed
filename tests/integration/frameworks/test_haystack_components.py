"""Haystack (haystack-ai 3.4): the checker components as a Haystack integration ships.

Haystack loads pipeline files naming components only from allowed modules (``haystack``,
``haystack_integrations``, ...); the components live in
``haystack_integrations.components.validators.vcg_otel`` so a saved pipeline loads with a
plain ``Pipeline.loads``. Also: every citation in comes out on one side (past
``max_citations`` too), init parameters are checked at construction, a citation of the wrong
type fails closed, and ``matched_document_id`` is always a real ``Document.id``.

Real parts: Haystack's Pipeline (its YAML, its allowlist), Document and DocumentSplitter,
real arXiv abstracts (benchmarks/data), quotes cut from them.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("haystack")

from haystack import Document, Pipeline
from haystack.components.preprocessors import DocumentSplitter
from haystack.core.errors import DeserializationError
from support.frameworks import FABRICATED, PAPERS, words

from vcg_otel.integrations.haystack import (
    Citation,
    CitationConsistencyChecker,
    ReplyCitationChecker,
)
from vcg_otel.otel import semconv

NAMESPACE = "haystack_integrations.components.validators.vcg_otel"
FIRST, SECOND = list(PAPERS)[:2]


def _docs() -> list[Document]:
    return [Document(id=name, content=text) for name, text in PAPERS.items()]


def _honest(name: str = FIRST, start: int = 0) -> Citation:
    return Citation("The paper says so.", name, words(PAPERS[name], start, 10))


def _moved() -> Citation:
    """A real quote from the second paper, cited as the first."""
    return Citation("The paper says this.", FIRST, words(PAPERS[SECOND], 5, 10))


def _statuses(out: dict[str, list[Citation]]) -> dict[str, list[tuple[Any, Any]]]:
    return {side: [(c.status, c.reason) for c in out[side]]
            for side in ("consistent", "inconsistent")}


def _checking_pipeline(**init: Any) -> Pipeline:
    pipe = Pipeline()
    pipe.add_component("checker", CitationConsistencyChecker(**init))
    pipe.add_component("replies", ReplyCitationChecker(position_base=0))
    return pipe


# --- issue 20 item 6: the haystack_integrations namespace ---------------------------------------

def test_the_components_are_defined_in_the_haystack_integrations_namespace() -> None:
    from haystack_integrations.components.validators import vcg_otel as home

    assert (home.CitationConsistencyChecker, home.ReplyCitationChecker, home.Citation) == (
        CitationConsistencyChecker, ReplyCitationChecker, Citation)
    for cls in (CitationConsistencyChecker, ReplyCitationChecker, Citation):
        assert cls.__module__.startswith(NAMESPACE + "."), cls.__module__


def test_a_saved_pipeline_loads_with_plain_loads_and_runs() -> None:
    saved = _checking_pipeline(treat_misattributed_as_consistent=True).dumps()
    assert f"type: {NAMESPACE}.checkers.CitationConsistencyChecker" in saved
    loaded = Pipeline.loads(saved)  # no allowed_modules
    out = loaded.run({
        "checker": {"citations": [_honest(), _moved(), Citation("c", FIRST, FABRICATED)],
                    "documents": _docs()},
        "replies": {"replies": [f'It says "{words(PAPERS[FIRST], 3, 9)}" [0].'],
                    "documents": _docs()},
    })
    assert _statuses(out["checker"]) == {
        "consistent": [("found", None), ("misattributed", None)],
        "inconsistent": [("not_found", "no_match")]}
    assert [c.status for c in out["replies"]["consistent"]] == ["found"]


def test_a_saved_pipeline_loads_in_a_fresh_interpreter_with_no_allowlist(
        tmp_path: Path) -> None:
    """Haystack imports the component's module by the name in the file: nothing of ours is
    imported before ``Pipeline.loads``, and no allowlist variable is set."""
    path = tmp_path / "pipeline.yaml"
    path.write_text(_checking_pipeline().dumps())
    script = textwrap.dedent(f"""
        import json, sys
        assert not any(m.split(".")[0] in ("vcg_otel", "haystack_integrations")
                       for m in sys.modules)
        from haystack import Document, Pipeline
        pipe = Pipeline.loads(open({str(path)!r}).read())
        docs = [Document(id=k, content=v) for k, v in json.loads(sys.argv[1]).items()]
        cited = {{"claim": "c", "document_id": {FIRST!r}, "quote": {FABRICATED!r}}}
        out = pipe.run({{"replies": {{"replies": [sys.argv[2]], "documents": docs}},
                        "checker": {{"citations": [cited], "documents": docs}}}})
        print(json.dumps([[c.status for c in out["replies"]["consistent"]],
                          [c.status for c in out["checker"]["inconsistent"]]]))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAYSTACK_")}
    answer = f'It says "{words(PAPERS[FIRST], 3, 9)}" [{FIRST}].'
    result = subprocess.run([sys.executable, "-c", script, json.dumps(PAPERS), answer],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [["found"], ["not_found"]]


def test_an_unlisted_module_is_still_refused_so_the_namespace_is_what_lets_ours_in() -> None:
    """The control: Haystack's allowlist is on, and refuses the 0.1 name without
    ``allowed_modules``."""
    old = _checking_pipeline().dumps().replace(
        f"{NAMESPACE}.checkers.", "vcg_otel.integrations.haystack.")
    with pytest.raises(DeserializationError, match="allowlist"):
        Pipeline.loads(old)


def test_pipelines_saved_by_0_1_load_with_their_allowed_module_and_resave_under_the_new_name(
        ) -> None:
    old = _checking_pipeline().dumps().replace(
        f"{NAMESPACE}.checkers.", "vcg_otel.integrations.haystack.")
    loaded = Pipeline.loads(old, allowed_modules=["vcg_otel.integrations.haystack"])
    assert isinstance(loaded.get_component("checker"), CitationConsistencyChecker)
    assert loaded.dumps() == _checking_pipeline().dumps()


def test_treat_misattributed_defaults_to_false_and_is_saved_as_a_boolean(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A saved pipeline behaves the same whatever the environment it is loaded in."""
    monkeypatch.setenv(semconv.ENV_MISATTRIBUTED_IS_CONSISTENT, "true")
    checker = CitationConsistencyChecker()
    assert checker.to_dict()["init_parameters"]["treat_misattributed_as_consistent"] is False
    routed = checker.run(citations=[_moved()], documents=_docs())
    assert [c.status for c in routed["inconsistent"]] == ["misattributed"]
    saved = _checking_pipeline().dumps()
    assert "treat_misattributed_as_consistent: false" in saved
    loaded = Pipeline.loads(saved).get_component("checker")
    assert loaded.run(citations=[_moved()], documents=_docs())["consistent"] == []
    # what 0.1 saved for "not given": False now, not the environment's value
    legacy = Pipeline.loads(saved.replace("treat_misattributed_as_consistent: false",
                                          "treat_misattributed_as_consistent: null"))
    assert legacy.get_component("checker").treat_misattributed_as_consistent is False


# --- issue 19 item 6: every citation comes out on one side ------------------------------------

def test_every_citation_past_max_citations_comes_out_inconsistent_with_its_reason() -> None:
    citations = [_honest(FIRST, i) for i in range(5)]
    out = CitationConsistencyChecker(settings={"max_citations": 3}).run(
        citations=citations, documents=_docs())
    assert len(out["consistent"]) + len(out["inconsistent"]) == 5
    assert [c.quote for c in out["consistent"]] == [c.quote for c in citations[:3]]
    assert [(c.quote, c.status, c.reason) for c in out["inconsistent"]] == [
        (c.quote, "unverifiable", "max_citations") for c in citations[3:]]


def test_past_max_citations_the_reply_checker_keeps_every_citation_too() -> None:
    reply = " ".join(f'It says "{words(PAPERS[FIRST], i, 8)}" [{FIRST}].' for i in range(4))
    out = ReplyCitationChecker(settings={"max_citations": 1}).run(
        replies=[reply], documents=_docs())
    assert _statuses(out) == {"consistent": [("found", None)],
                              "inconsistent": [("unverifiable", "max_citations")] * 3}


def test_twelve_thousand_citations_in_twelve_thousand_out() -> None:
    """The issue's reproducer: the default limit (10,000) audits, the rest are reported."""
    citations = [_honest(FIRST, i % 20) for i in range(12_000)]
    out = CitationConsistencyChecker().run(citations=citations, documents=_docs())
    assert len(out["consistent"]) == 10_000
    assert {(c.status, c.reason) for c in out["inconsistent"]} == {
        ("unverifiable", "max_citations")}
    assert len(out["inconsistent"]) == 2_000


# --- issue 19 item 13: settings checked at construction; wrong types fail closed ----------------

@pytest.mark.parametrize(("init", "error", "match"), [
    ({"judge_timeout": "x"}, TypeError, "judge_timeout must be a number"),
    ({"judge_timeout": -1}, ValueError, "judge_timeout must be a positive"),
    ({"judge_timeout": 0}, ValueError, "judge_timeout must be a positive"),
    ({"judge_timeout": float("nan")}, ValueError, "judge_timeout must be a positive"),
    ({"judge_model": "openai/gpt-4o-mini", "judge_timeout": "x"}, TypeError, "judge_timeout"),
    ({"id_keys": "abc"}, TypeError, "id_keys must be a list"),
    ({"id_keys": ["paper_id", 3]}, TypeError, "id_keys must hold non-empty strings"),
    ({"settings": {"tracer_provider": "x"}}, TypeError, r"settings\['tracer_provider'\]"),
    ({"settings": {"meter_provider": None}}, TypeError, r"settings\['meter_provider'\]"),
    ({"settings": "max_tokens=5"}, TypeError, "settings must be a dict"),
    ({"treat_misattributed_as_consistent": "yes"}, TypeError,
     "treat_misattributed_as_consistent must be True or False"),
    ({"position_base": 2}, ValueError, "position_base must be None, 0 or 1"),
    ({"judge_model": ""}, TypeError, "judge_model must be a non-empty string"),
])
def test_wrong_settings_fail_at_construction_naming_the_parameter(
        init: dict[str, Any], error: type[Exception], match: str) -> None:
    for kind in (CitationConsistencyChecker, ReplyCitationChecker):
        with pytest.raises(error, match=f"{kind.__name__}: {match}"):
            kind(**init)


def test_wrong_settings_in_a_pipeline_file_fail_when_it_is_loaded() -> None:
    saved = _checking_pipeline().dumps().replace("judge_timeout: 30.0", "judge_timeout: x")
    with pytest.raises(DeserializationError, match="judge_timeout must be a number"):
        Pipeline.loads(saved)


def test_a_citation_of_the_wrong_type_fails_closed_and_the_others_are_checked() -> None:
    out = CitationConsistencyChecker().run(citations=[
        Citation("c", FIRST, 42),  # type: ignore[arg-type]  # a model's "quote": 42
        _honest(),
        Citation(["a claim"], FIRST, "words"),  # type: ignore[arg-type]
        Citation("c", {"id": FIRST}, "words"),  # type: ignore[arg-type]
    ], documents=_docs())
    assert _statuses(out) == {"consistent": [("found", None)], "inconsistent": [
        ("unverifiable", "invalid_quote"), ("unverifiable", "invalid_claim"),
        ("unverifiable", "invalid_document_id")]}
    assert out["inconsistent"][0].quote == 42  # the copy keeps what was given


def test_a_dict_citation_with_bad_offsets_fails_closed() -> None:
    out = CitationConsistencyChecker().run(citations=[  # type: ignore[list-item]
        {"claim": "c", "document_id": FIRST, "quote": "q", "start": "0", "end": 5}],
        documents=_docs())
    assert _statuses(out)["inconsistent"] == [("unverifiable", "invalid_citation")]


def test_with_duplicate_ids_the_matched_document_id_is_a_real_document_id() -> None:
    """A store whose chunks carry their file's id: the quote's chunk is named by that id."""
    file = Document(content=PAPERS[FIRST], meta={"file_name": FIRST})
    chunks = DocumentSplitter(split_by="word", split_length=40).run(documents=[file])
    docs = [Document(id="smith-2026", content=d.content) for d in chunks["documents"]]
    assert len(docs) >= 2
    quote = words(docs[1].content, 2, 10)
    out = CitationConsistencyChecker().run(
        citations=[Citation("c", "smith-2026", quote)], documents=docs)
    found = out["consistent"][0]
    assert found.matched_document_id == "smith-2026"
    assert found.matched_document_id in {d.id for d in docs}
    assert docs[1].content[found.start:found.end] == quote


def test_a_misattributed_quote_names_the_real_id_of_the_document_it_is_in() -> None:
    docs = [*_docs(), Document(id=SECOND, content="A second chunk filed under the same id.")]
    out = CitationConsistencyChecker().run(citations=[_moved()], documents=docs)
    moved = out["inconsistent"][0]
    assert (moved.status, moved.matched_document_id) == ("misattributed", SECOND)


def test_run_async_routes_every_citation_past_max_citations_too() -> None:
    citations = [_honest(FIRST, i) for i in range(3)]
    checker = CitationConsistencyChecker(settings={"max_citations": 2})
    out = asyncio.run(checker.run_async(citations=citations, documents=_docs()))
    assert _statuses(out) == {"consistent": [("found", None)] * 2,
                              "inconsistent": [("unverifiable", "max_citations")]}
