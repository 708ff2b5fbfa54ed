"""The closest-passage search takes shortcuts that change no passage, score, kind or charge.

A rejected quote's diagnosis (:func:`vcg_otel.gate.closest.nearest`) aligns the quote with a
few places of the documents. A passage is aligned once: its score and differences are read
from the alignment of the window around it, not from a second alignment of the passage alone
(the argument is ``_align``'s docstring).

It is checked against the code it replaces, kept here as the reference, derandomized: over
the benchmark's abstracts with quotes made from them (a word replaced, dropped, added or moved,
invented words), and over text of a few words repeated many times (where the alignment has
ties to break).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import SearchBudget
from vcg_otel.gate import closest as cl
from vcg_otel.gate.normalize import normalize_with_map
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
