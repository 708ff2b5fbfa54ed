"""The closest-passage search takes shortcuts that change no passage, score, kind or charge.

A rejected quote's diagnosis (:func:`vcg_otel.gate.closest.nearest`) aligns the quote with a
few places of the documents. Two shortcuts make it cheaper:

* a passage is aligned once: its score and differences are read from the alignment of the
  window around it, not from a second alignment of the passage alone (the argument is
  ``_align``'s docstring);
* ``nearest`` tests each other document for most of the quote's longest words itself, where it
  called :func:`~vcg_otel.gate.closest.closest_passage` for every document.

Both are checked against the code they replace, kept here as the reference, derandomized: over
the benchmark's abstracts with quotes made from them (a word replaced, dropped, added or moved,
two passages stitched, invented words), over text of a few words repeated many times (where
the alignment has ties to break), and with budgets that run out anywhere.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from itertools import chain

from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import SearchBudget, SearchLimitReached
from vcg_otel.gate import closest as cl
from vcg_otel.gate.normalize import NormalizedText, normalize_with_map
from vcg_otel.gate.result import ClosestPassage, RejectionKind
from vcg_otel.gate.slips import tokens

_SETTINGS = settings(derandomize=True, database=None, max_examples=300, deadline=None)
_ABSTRACTS = load_corpus()
_IDS = sorted(_ABSTRACTS)[:14]
_DOCS = {key: normalize_with_map(_ABSTRACTS[key]) for key in _IDS}
# ~90,000 characters: each scan of it costs a step (64 kB a step), so a charge left out or
# added shows in the count.
_IDS.append("long")
_DOCS["long"] = normalize_with_map(" ".join(_ABSTRACTS[key] for key in sorted(_ABSTRACTS)[:60]))
_INVENTED = ("quantum", "gardening", "recipes", "volcano", "the", "of", "model", "results")


def _edited(data: st.DataObject, text: str) -> str:
    """A passage of ``text`` with some of its words replaced, dropped, added or moved."""
    words = [m.group() for m in re.finditer(r"\S+", text)]
    first = data.draw(st.integers(0, len(words) - 2), label="first word")
    last = data.draw(st.integers(first + 1, min(len(words), first + 30)), label="last")
    quote = words[first:last]
    for _ in range(data.draw(st.integers(0, 4), label="edits")):
        kind = data.draw(st.sampled_from(["replace", "drop", "add", "move"]), label="edit")
        at = data.draw(st.integers(0, len(quote) - 1), label="at")
        word = data.draw(st.sampled_from(_INVENTED), label="word")
        if kind == "replace":
            quote[at] = word
        elif kind == "drop" and len(quote) > 1:
            del quote[at]
        elif kind == "add":
            quote.insert(at, word)
        elif kind == "move":
            quote.insert(data.draw(st.integers(0, len(quote) - 1), label="to"), quote.pop(at))
    return " ".join(quote)


# -- one alignment ----------------------------------------------------------------------------

def _align_before(hay: str, start: int, quote: cl._Quote, needle_len: int,
                  budget: SearchBudget) -> cl._Aligned | None:
    """``_align`` as it was: the passage aligned with the quote a second time."""
    lo = max(0, start - cl._SLACK)
    hi = min(len(hay), start + needle_len + 2 * cl._SLACK)
    window = tokens(hay[lo:hi])
    budget.spend(1 + (len(window) * len(quote.words)) // 64)
    words = [m.group() for m in window]
    matcher = SequenceMatcher(None, words, quote.words, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return None
    head, tail = blocks[0].b, len(quote.words) - blocks[-1].b - blocks[-1].size
    first = max(0, blocks[0].a - min(head, 1))
    last = min(len(words), blocks[-1].a + blocks[-1].size + min(tail, 1))
    passage = words[first:last]
    matcher.set_seq1(passage)
    matched = sum(b.size for b in matcher.get_matching_blocks())
    score = 2 * matched / (len(passage) + len(quote.words))
    removed: list[str] = []
    added: list[str] = []
    replaced: list[tuple[str, str]] = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "delete":
            removed.extend(passage[a1:a2])
        elif op == "insert":
            added.extend(quote.words[b1:b2])
        elif op == "replace":
            replaced.append((" ".join(passage[a1:a2]), " ".join(quote.words[b1:b2])))
    return cl._Aligned(score, lo + window[first].start(), lo + window[last - 1].end(),
                       tuple(removed), tuple(added), tuple(replaced))


def _both_alignments(hay: str, needle: str, start: int) -> None:
    quote = cl._quote(needle)
    if not quote.words:
        return
    once, twice = SearchBudget(10**9), SearchBudget(10**9)
    assert (cl._align(hay, start, quote, len(needle), once)
            == _align_before(hay, start, quote, len(needle), twice)), (needle, start)
    assert once.used == twice.used


@_SETTINGS
@given(data=st.data())
def test_a_passage_aligned_once_scores_and_differs_as_aligned_again(
        data: st.DataObject) -> None:
    hay = _DOCS[data.draw(st.sampled_from(_IDS[:-1]), label="abstract")].text
    needle = _edited(data, hay)
    start = data.draw(st.integers(0, len(hay) // cl._BUCKET), label="bucket") * cl._BUCKET
    _both_alignments(hay, needle, start)


@_SETTINGS
@given(data=st.data())
def test_a_passage_of_repeated_words_aligned_once_breaks_ties_as_aligned_again(
        data: st.DataObject) -> None:
    # Few distinct words, so many runs are equally long: the earliest must be taken alike.
    vocabulary = st.sampled_from(["a", "b", "cc", "dd", "the"])
    hay = " ".join(data.draw(st.lists(vocabulary, min_size=1, max_size=60), label="text"))
    needle = " ".join(data.draw(st.lists(vocabulary, min_size=1, max_size=25), label="quote"))
    start = data.draw(st.integers(0, len(hay)), label="start")
    _both_alignments(hay, needle, start)


# -- the other documents tested in nearest ------------------------------------------------------

def _holds_most_before(hay: str, top: tuple[tuple[str, int], ...]) -> bool:
    """closest_passage's test as it was written inline."""
    need = (len(top) + 1) // 2
    held = 0
    for k, (word, _) in enumerate(top):
        if word in hay:
            held += 1
            if held == need:
                break
        elif held + len(top) - k - 1 < need:
            return False
    return True


@settings(derandomize=True, database=None, max_examples=1000, deadline=None)
@given(words=st.lists(st.sampled_from(["ab", "cd", "ef", "gh"]), max_size=4),
       hay=st.text(st.sampled_from("abcdefgh "), max_size=12))
def test_most_of_the_longest_words_are_held_as_the_inline_test_found(
        words: list[str], hay: str) -> None:
    top = tuple((word, 0) for word in words[:3])
    assert cl._holds_most(hay, top) == _holds_most_before(hay, top)


Diagnosis = tuple[RejectionKind | None, ClosestPassage | None]


def _nearest_before(needle: str, cited: tuple[str, NormalizedText] | None,
                    others: list[tuple[str, NormalizedText]], budget: SearchBudget) -> Diagnosis:
    """``nearest`` as it was: closest_passage called for every document in turn."""
    local = SearchBudget(max(1, min(cl.CLOSEST_STEPS, budget.limit - budget.used)))
    best: tuple[str, NormalizedText, cl._Aligned] | None = None
    complete = True
    quote = cl._quote(needle)
    try:
        docs = [cited] if cited is not None else []
        for k, (doc_id, doc) in enumerate(chain(docs, others)):
            if k and best is not None and best[2].score >= cl.ALTERED_SCORE:
                break
            local.spend()
            aligned = cl.closest_passage(doc, needle, local, close_only=k > 0 or cited is None,
                                         quote=quote)
            if aligned is not None and (best is None or aligned.score > best[2].score):
                best = (doc_id, doc, aligned)
    except SearchLimitReached:
        complete = False
    budget.used += min(local.used, local.limit)
    if best is None:
        return (RejectionKind.INVENTED if complete else None), None
    doc_id, doc, aligned = best
    start, end = doc.original_span(aligned.start, aligned.end)
    passage = ClosestPassage(doc_id, start, end, round(aligned.score, 4), aligned.removed,
                             aligned.added, aligned.replaced)
    if aligned.score >= cl.ALTERED_SCORE:
        return RejectionKind.ALTERED, passage
    return (RejectionKind.INVENTED if complete else None), passage


@_SETTINGS
@given(data=st.data())
def test_nearest_answers_and_charges_as_searching_each_document_in_turn(
        data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(_IDS), label="source")
    needle = _edited(data, _DOCS[source].text)
    if data.draw(st.booleans(), label="stitched"):  # half from another abstract: no one source
        other = _edited(data, _DOCS[data.draw(st.sampled_from(_IDS), label="other")].text)
        needle = " ".join(needle.split()[:8] + other.split()[:8])
    cited_id = data.draw(st.sampled_from([None, source, *_IDS]), label="cited")
    cited = None if cited_id is None else (cited_id, _DOCS[cited_id])
    others = [(key, _DOCS[key]) for key in _IDS if key != cited_id]
    steps = data.draw(st.sampled_from([1, 3, 10, 40, 150, 10_000]), label="steps")
    used = data.draw(st.integers(0, 3), label="used before")
    now, before = SearchBudget(steps), SearchBudget(steps)
    now.used = before.used = min(used, steps - 1)
    assert (cl.nearest(needle, cited, iter(others), now)
            == _nearest_before(needle, cited, others, before)), needle
    assert now.used == before.used


def test_a_quote_without_words_is_charged_a_step_per_document_and_found_nowhere() -> None:
    docs = [(key, _DOCS[key]) for key in _IDS[:5]]
    budget = SearchBudget()
    assert cl.nearest("--", docs[0], iter(docs[1:]), budget) == (RejectionKind.INVENTED, None)
    assert budget.used == 5
