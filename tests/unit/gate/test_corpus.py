"""Corpus and DocumentCache: normalize once, re-normalize on change, bounded, index = scan."""

from __future__ import annotations

import sys
import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from markup_cases import load_samples

from vcg_otel import Corpus, quote_gate
from vcg_otel.gate import DocumentCache


def test_documents_are_normalized_once_and_shared_across_corpora(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    module = sys.modules["vcg_otel.gate.corpus"]
    calls: list[str] = []
    real = module.normalize_with_map

    def counting(text: str):  # type: ignore[no-untyped-def]
        calls.append(text)
        return real(text)

    monkeypatch.setattr(module, "normalize_with_map", counting)
    cache = DocumentCache()
    for _ in range(3):
        corpus = Corpus({"a": "alpha beta gamma", "b": "delta epsilon"}, cache=cache)
        assert quote_gate("beta gamma", "a", corpus) == "found"
        assert quote_gate("delta", "a", corpus) == "misattributed"
    assert sorted(calls) == ["alpha beta gamma", "delta epsilon"]


def test_changed_document_is_renormalized_and_old_matches_disappear() -> None:
    corpus = Corpus({"a": "the old wording"}, cache=DocumentCache())
    assert quote_gate("old wording", "a", corpus) == "found"
    corpus.add("a", "the new wording")
    assert quote_gate("old wording", "a", corpus) == "not_found"
    assert quote_gate("new wording", "a", corpus) == "found"


def test_cache_is_bounded_by_entries_and_characters() -> None:
    cache = DocumentCache(max_entries=3, max_chars=100)
    for i in range(10):
        cache.get(f"document {i}")
    assert len(cache) == 3
    cache.get("x" * 60)
    cache.get("y" * 60)
    assert cache.chars <= 100


def test_cache_is_safe_under_threads() -> None:
    cache = DocumentCache(max_entries=50)
    texts = [f"text number {i} " * 20 for i in range(200)]
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(400):
                text = texts[(i + offset) % len(texts)]
                assert cache.get(text).original is text
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k * 13,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache) <= 50


# Compounds and numbers written both ways, and commas between words: the slips the gate
# forgives (a joined compound, a dropped thousands separator, a dropped comma) must find the same
# documents through the word index as through a scan.
words = st.sampled_from(["alpha", "beta", "gamma", "delta", "model", "data", "4.2%", "the",
                         "fine-tuning", "finetuning", "tuning", "well-known-ish", "known",
                         "1,204", "1204", "65,773.5", "[u]is[/u]", "[1]"])
separators = st.sampled_from([" ", " ", ", ", "; "])
Phrase = list[tuple[str, str]]
phrases = st.lists(st.tuples(words, separators), min_size=1, max_size=12)
# How a model may write each word or separator of a passage it quotes.
SLIPPED = {"fine-tuning": "finetuning", "finetuning": "fine-tuning", "tuning": "tun-ing",
           "well-known-ish": "wellknown ish", "1,204": "1204", "1204": "1,204",
           "65,773.5": "65773.5", ", ": " ", "; ": ", "}


def written(pairs: Phrase) -> str:
    return "".join(w + s for w, s in pairs).rstrip(",; ")


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(phrases, min_size=1, max_size=30), data=st.data())
def test_index_search_agrees_with_a_full_scan(docs: list[Phrase], data: st.DataObject) -> None:
    if data.draw(st.booleans(), label="quote from a document"):
        source = data.draw(st.sampled_from(docs), label="source")
        lo = data.draw(st.integers(0, len(source) - 1), label="start")
        hi = data.draw(st.integers(lo + 1, min(len(source), lo + 4)), label="end")
        slip = data.draw(st.booleans(), label="slipped")
        pairs = [(SLIPPED.get(w, w) if slip else w, SLIPPED.get(s, s) if slip else s)
                 for w, s in source[lo:hi]]
        if len(pairs) > 2 and data.draw(st.booleans(), label="elided"):
            pairs[1] = ("...", " ")  # a word left out, as a model marks it
        quote = written(pairs)
    else:
        quote = written(data.draw(st.lists(st.tuples(words, separators), min_size=1,
                                           max_size=4), label="quote"))
    mapping = {f"d{i}": written(text) for i, text in enumerate(docs)}
    big = Corpus({**mapping, **{f"pad{i}": "padding words only" for i in range(40)}})
    big.build_index()  # else built only once it pays off
    small = Corpus(mapping)  # at most 30 documents: always a plain scan
    for cited in ("d0", "missing"):
        via_index = quote_gate(quote, cited, big)
        via_scan = quote_gate(quote, cited, small)
        assert via_index.result == via_scan.result, quote
        assert via_index.source_document_ids == via_scan.source_document_ids


def test_a_quote_of_markup_read_literally_is_misattributed_through_the_word_index() -> None:
    # Rich's README shows its markup as code; a quote of that line keeps its brackets, which the
    # gate also reads as editorial insertions. Cited to FastAPI's README in a corpus of 40
    # documents, index built, it must be found in Rich's, as a scan finds it.
    docs = {s.doc_id: s.text for s in load_samples()[:40]}
    quote = ('console.print("Where there is a [bold cyan]Will[/bold cyan] there [u]is[/u] a '
             '[i]way[/i].")')
    indexed = Corpus(docs)
    indexed.build_index()
    for corpus in (Corpus(docs), indexed):
        m = quote_gate(quote, "md-fastapi", corpus)
        assert m == "misattributed" and m.source_document_ids == ("md-rich",), m.to_dict()


def test_memory_stays_flat_when_documents_keep_changing() -> None:
    import gc
    import tracemalloc

    from vcg_otel.audit import Auditor, VerdictCache

    cache = DocumentCache(max_entries=200, max_chars=500_000)
    verdicts = VerdictCache(max_entries=100)
    auditor = Auditor(lambda s, u: '{"verdict": "supports", "confidence": 1, "reasoning": "r"}',
                      cache=verdicts)

    def round_of(k: int) -> None:
        for i in range(50):
            text = f"document {k}-{i} says the reranker improves accuracy. " * 100
            corpus = Corpus({"d": text}, cache=cache)
            auditor.audit([{"claim": f"c{k}-{i}", "quote": "improves accuracy", "doc_id": "d"}],
                          corpus)

    round_of(0)
    gc.collect()
    tracemalloc.start()
    for k in range(1, 6):
        round_of(k)
    gc.collect()
    after_first = tracemalloc.get_traced_memory()[0]
    for k in range(6, 30):  # 1,200 more distinct documents and verdicts
        round_of(k)
    gc.collect()
    at_end = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    auditor.close()
    assert len(cache) <= 200 and cache.chars <= 500_000 and len(verdicts) <= 100
    assert at_end < after_first * 1.2 + 256 * 1024  # flat: bounded by the caches, not growing


class _Clock:
    def __init__(self) -> None:
        self.looks = 0

    def expired(self) -> bool:
        self.looks += 1
        return self.looks > 2


@settings(max_examples=300, deadline=None)
@given(limit=st.integers(1, 40), used=st.integers(0, 45), steps=st.integers(0, 30),
       deadline=st.booleans())
def test_a_bulk_charge_spends_and_stops_exactly_as_one_step_charges(
        limit: int, used: int, steps: int, deadline: bool) -> None:
    # The word index lookup charges its steps at once: the budget must end with the same
    # count and raise at the same point as charged a step at a time (a cut changes answers).
    from vcg_otel.gate import SearchBudget, SearchLimitReached
    from vcg_otel.gate.corpus import _charge

    def charged(bulk: bool) -> tuple[int, bool, int]:
        clock = _Clock() if deadline else None
        budget = SearchBudget(limit, deadline=clock)
        budget.used, budget.next_look = used, 3  # a deadline looked at within the charge
        try:
            if bulk:
                _charge(budget, steps)
            else:
                for _ in range(steps):
                    budget.spend()
        except SearchLimitReached:
            return budget.used, True, clock.looks if clock else 0
        return budget.used, False, clock.looks if clock else 0

    assert charged(bulk=True) == charged(bulk=False)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from(list("aZ09_'.,-;: ()%/\"\n\t\x00\x7f")) | st.characters(
    max_codepoint=127), max_size=80))
def test_an_ascii_text_has_the_same_index_words_read_with_the_plain_class(text: str) -> None:
    from vcg_otel.gate import corpus
    assert corpus._words(text) == corpus._WORD.findall(text)
