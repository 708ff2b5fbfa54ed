"""Property-based tests (hypothesis) of the gate's three promises.

1. Every passage of a document that starts and ends on word boundaries is found there.
2. Normalization is idempotent.
3. Reported offsets point at original text whose normalization equals the quote's.
4. Transcription slips alone are found; paired with a meaning change, never (issue 18).
"""

from __future__ import annotations

from cases import occurrence_check
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.oracles import check_normalize
from transcription_cases import (
    MEANING,
    SLIPS,
    Variant,
    build_transcription_cases,
    prefix_dropped,
    quoted_sentences,
    vocabulary,
)

from vcg_otel import Corpus, normalize, quote_gate
from vcg_otel.gate.quote import strip_edges

# Words mix scripts and the damage normalization repairs: ligatures, soft hyphens, combining
# marks, full-width forms, Cyrillic look-alikes, CJK, case-changing letters.
_SPECIAL = list("\ufb01\ufb02\u00df\u0130\u00e9\u0301\u00ad\u0430\u0435\u043e\u0441\u0456"
                "\u041f\u0416\u03a3\u03c2\u6a21\u578b\uff21\uff11\u00bd\u2460")
letters = st.characters(categories=["Lu", "Ll", "Nd"], max_codepoint=0x2FFF) | st.sampled_from(
    _SPECIAL
)
word = st.text(letters, min_size=1, max_size=8).filter(lambda w: w[0] not in "\u0301\u00ad")
separator = st.sampled_from([" ", "  ", "\n", "\u00a0", ", ", ". ", " \u2014 ", "\t", " (", ") "])


@st.composite
def document_and_passage(draw: st.DrawFn) -> tuple[str, str]:
    words = draw(st.lists(word, min_size=1, max_size=25))
    seps = draw(st.lists(separator, min_size=len(words), max_size=len(words)))
    starts, parts, pos = [], [], 0
    for w, sep in zip(words, seps, strict=True):
        starts.append((pos, pos + len(w)))
        parts.append(w + sep)
        pos += len(w) + len(sep)
    doc = "".join(parts)
    i = draw(st.integers(0, len(words) - 1))
    j = draw(st.integers(i, len(words) - 1))
    return doc, doc[starts[i][0]:starts[j][1]]


@settings(max_examples=400, deadline=None)
@given(document_and_passage())
def test_every_word_bounded_passage_of_a_document_is_found(case: tuple[str, str]) -> None:
    doc, passage = case
    assume(any(ch.isalnum() for ch in normalize(passage)))
    assert quote_gate(passage, "doc", {"doc": doc}) == "found"


@settings(max_examples=400, deadline=None)
@given(st.text(), st.integers(0, 200), st.integers(0, 200))
def test_normalization_is_idempotent_and_maps_inside_the_original(text: str, a: int,
                                                                  b: int) -> None:
    check_normalize(text, a, b)


@settings(max_examples=300, deadline=None)
@given(document_and_passage())
def test_offsets_point_at_original_text_that_normalizes_to_the_quote(
    case: tuple[str, str],
) -> None:
    doc, passage = case
    assume(any(ch.isalnum() for ch in normalize(passage)))
    m = quote_gate(passage, "doc", Corpus({"doc": doc}))
    assert m.start is not None and m.end is not None
    assert doc[m.start:m.end] == m.text
    assert strip_edges(normalize(m.text or "")) == strip_edges(normalize(passage))


_ascii_word = st.text(st.sampled_from("abcdefghij"), min_size=1, max_size=6)
_number = st.from_regex(r"\A[0-9]{1,4}(?:[.,][0-9]{1,3})?\Z")


@settings(max_examples=300, deadline=None)
@given(before=st.lists(_ascii_word, max_size=4), after=st.lists(_ascii_word, min_size=1,
                                                                 max_size=4),
       opener=st.sampled_from([" ", " (", " = ", "\n", ": "]),
       sign=st.sampled_from(["-", "\u2212", "\u2013", "\ufe63", "\uff0d"]),
       number=_number, unit=st.sampled_from(["", "%", " mg/kg", "\u00b0C"]))
def test_dropping_a_leading_minus_sign_never_matches(
    before: list[str], after: list[str], opener: str, sign: str, number: str, unit: str
) -> None:
    """The sign is part of the number: a quote that starts after it changes the number."""
    tail = f"{number}{unit} {' '.join(after)}"
    doc = {"d": f"{' '.join(before)}{opener}{sign}{tail}."}
    assert quote_gate(tail, "d", doc) == "not_found"
    assert quote_gate(sign + tail, "d", doc) == "found"


# --- issue 18: transcription slips forgiven, meaning never ---------------------------------------

_TRANSCRIBED_DOCS, _ = build_transcription_cases()
_TRANSCRIBED = Corpus(_TRANSCRIBED_DOCS)
_SENTENCES = quoted_sentences(_TRANSCRIBED_DOCS)
_OCCURS = occurrence_check(_TRANSCRIBED_DOCS)
_MEANING = dict(MEANING, prefix_dropped=prefix_dropped(vocabulary(_TRANSCRIBED_DOCS)))


def _variants(text: str, makers: dict[str, Variant]) -> list[tuple[str, str]]:
    """(name, variant) of every maker that applies to ``text`` and changes it."""
    out = []
    for name in sorted(makers):
        made = makers[name](text)
        if made is not None and made != text:
            out.append((name, made))
    return out


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_SENTENCES), st.data())
def test_every_forgiven_slip_alone_is_found(source: tuple[str, str], data: st.DataObject
                                            ) -> None:
    doc_id, sentence = source
    slips = _variants(sentence, SLIPS)
    assume(slips)
    slip, quote = data.draw(st.sampled_from(slips))
    m = quote_gate(quote, doc_id, _TRANSCRIBED)
    assert m == "found", (slip, quote)
    assert m.forgiven  # and it says what it forgave


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_SENTENCES), st.data())
def test_every_slip_paired_with_a_meaning_change_is_not_found(
        source: tuple[str, str], data: st.DataObject) -> None:
    doc_id, sentence = source
    changes = [(c, q) for c, q in _variants(sentence, _MEANING) if not _OCCURS(q)]
    assume(changes)
    change, changed = data.draw(st.sampled_from(changes))
    slips = _variants(changed, SLIPS)
    assume(slips)
    slip, quote = data.draw(st.sampled_from(slips))
    assume(not _OCCURS(quote))
    assert quote_gate(quote, doc_id, _TRANSCRIBED) == "not_found", (change, slip, quote)


_PLAIN_WORD = st.text(st.sampled_from("abcdefghijklmnoprstuvwy"), min_size=2, max_size=9)
_SOFT_SEP = st.sampled_from([" ", ", ", "; ", ": ", " -- ", " \u2014 ", " \u2013 "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PLAIN_WORD, min_size=3, max_size=14), st.data())
def test_soft_separators_exchanged_anywhere_are_found_and_a_changed_word_never(
        words: list[str], data: st.DataObject) -> None:
    doc_seps = data.draw(st.lists(_SOFT_SEP, min_size=len(words) - 1, max_size=len(words) - 1))
    quote_seps = data.draw(st.lists(_SOFT_SEP, min_size=len(words) - 1,
                                    max_size=len(words) - 1))
    doc = "Intro. " + words[0] + "".join(s + w for s, w in zip(doc_seps, words[1:],
                                                                 strict=True)) + ". End."
    quote = words[0] + "".join(s + w for s, w in zip(quote_seps, words[1:], strict=True))
    assert quote_gate(quote, "d", {"d": doc}) == "found"
    k = data.draw(st.integers(0, len(words) - 1))
    other = words[k] + "x"
    changed = [*words[:k], other, *words[k + 1:]]
    assume(other not in words)
    bad = changed[0] + "".join(s + w for s, w in zip(quote_seps, changed[1:], strict=True))
    assert quote_gate(bad, "d", {"d": doc}) == "not_found"
