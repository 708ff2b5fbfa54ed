"""Quotes written the way models transcribe them (issue 18), over real sentences.

Every case starts from a real sentence of a real document (the arXiv abstracts, written by
people) and applies what a model does when it copies it:

* **slips** (honest, must be ``found``): a comma between two words dropped or added (before
  ``and``, ``but``, ``which``, ``while``, ``or``), a semicolon, colon or dash between clauses
  turned into a comma, a hyphenated compound written with a space or as one word, a thousands
  separator dropped, and two slips in one quote;
* **meaning changes** (bad, must be ``not_found``): a word replaced, dropped, added or moved, a
  negation added or removed, a negating prefix dropped (``non-``, ``un``, ``in``, ``dis``: the
  rest must be a word of the corpus), a digit changed, a decimal point, a minus sign or a ``%``
  dropped, a thousands separator moved; each alone and paired with a slip elsewhere in the
  quote (``+slip``), which must never rescue it.

Bad variants that happen to occur in some document (compared the naive way) are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cases import _FLIP, Case, load_corpus, occurrence_check, sentences

Variant = Callable[[str], "str | None"]

_MIN_WORDS = 8


def _sub_first(pattern: str, repl: str) -> Variant:
    compiled = re.compile(pattern)

    def apply(q: str) -> str | None:
        out, n = compiled.subn(repl, q, count=1)
        return out if n else None

    return apply


# --- slips: punctuation between words ----------------------------------------------------------

SLIPS: dict[str, Variant] = {
    "comma_dropped": _sub_first(r"(?<=[A-Za-z]), (?=[A-Za-z])", " "),
    "comma_added": _sub_first(r"(?<=[A-Za-z]) (?=(?:and|but|which|while|or) )", ", "),
    "semicolon_to_comma": _sub_first(r"(?<=[A-Za-z)]); (?=[A-Za-z])", ", "),
    "colon_to_comma": _sub_first(r"(?<=[A-Za-z)]): (?=[A-Za-z])", ", "),
    "dash_to_comma": _sub_first(r"(?<=[A-Za-z)]) (?:--|\u2014|\u2013) (?=[A-Za-z])", ", "),
    "hyphen_to_space": _sub_first(r"(?<=[a-z]{2})-(?=[a-z]{2})", " "),
    "hyphen_dropped": _sub_first(r"(?<=[a-z]{2})-(?=[a-z]{2})", ""),
    "thousands_dropped": _sub_first(r"(?<=\b\d)(\d{0,2}),(?=\d{3}\b)", r"\1"),
}


def _two_slips(q: str) -> str | None:
    """Two different slips in one quote (the first two that apply)."""
    done = 0
    for name in ("comma_dropped", "hyphen_to_space", "comma_added", "dash_to_comma",
                 "semicolon_to_comma", "hyphen_dropped"):
        out = SLIPS[name](q)
        if out is not None:
            q, done = out, done + 1
            if done == 2:
                return q
    return None


SLIPS["two_slips"] = _two_slips


# --- meaning changes ---------------------------------------------------------------------------

def _middle_word(q: str) -> re.Match[str] | None:
    words = list(re.finditer(r"\b[A-Za-z]{4,}\b", q))
    return words[len(words) // 2] if words else None


def _replaced(q: str) -> str | None:
    for m in re.finditer(r"\b[a-z]+\b", q):
        if m.group() in _FLIP:
            return q[:m.start()] + _FLIP[m.group()] + q[m.end():]
    m = _middle_word(q)
    if m is None:
        return None
    word = m.group()
    other = "method" if word.lower() != "method" else "system"
    return q[:m.start()] + other + q[m.end():]


def _dropped(q: str) -> str | None:
    m = _middle_word(q)
    return None if m is None else (q[:m.start()] + q[m.end():]).replace("  ", " ")


def _added(q: str) -> str | None:
    m = _middle_word(q)
    return None if m is None else q[:m.start()] + "only " + q[m.start():]


def _moved(q: str) -> str | None:
    words = q.split(" ")
    mid = len(words) // 2
    for i in range(mid, len(words) - 1):
        a, b = words[i], words[i + 1]
        if a.isalpha() and b.isalpha() and a.lower() != b.lower():
            words[i], words[i + 1] = b, a
            return " ".join(words)
    return None


def _negation_added(q: str) -> str | None:
    m = re.search(r"\b(is|are|was|were|can|does|do|will|has|have|could|may)\b(?! not)", q)
    return None if m is None else q[:m.end()] + " not" + q[m.end():]


def _negation_removed(q: str) -> str | None:
    m = re.search(r" not\b(?= \w)", q)  # inside the quote: at its end it would only cut it
    return None if m is None else q[:m.start()] + q[m.end():]


def prefix_dropped(vocabulary: set[str]) -> Variant:
    def apply(q: str) -> str | None:
        m = re.search(r"\b[Nn]on-([a-z]{3,})", q)
        if m:
            return q[:m.start()] + m.group(1) + q[m.end():]
        for m in re.finditer(r"\b(un|in|im|dis|ir)-?([a-z]{4,})\b", q):
            if m.group(2) in vocabulary:
                return q[:m.start()] + m.group(2) + q[m.end():]
        return None

    return apply


MEANING: dict[str, Variant] = {
    "word_replaced": _replaced,
    "word_dropped": _dropped,
    "word_added": _added,
    "words_moved": _moved,
    "negation_added": _negation_added,
    "negation_removed": _negation_removed,
    "digit_changed": lambda q: (lambda m: None if m is None else
                                q[:m.start()] + str((int(m.group()) + 1) % 10) + q[m.end():])(
        re.search(r"\d", q)),
    "decimal_dropped": _sub_first(r"(?<=\d)\.(?=\d)", ""),
    "sign_dropped": _sub_first(r"(?<=[ (])[-\u2212](?=\d)", ""),
    "percent_dropped": _sub_first(r"(?<=\d) ?%", ""),
    "thousands_moved": _sub_first(r"\b(\d)(\d)?,(\d)(\d{2})\b", r"\1\2\3,\4"),
}


def _pair(change: Variant) -> Variant:
    """The meaning change plus a slip elsewhere in the quote: the slip may not rescue it."""
    def apply(q: str) -> str | None:
        changed = change(q)
        if changed is None:
            return None
        for name in ("comma_dropped", "hyphen_to_space", "hyphen_dropped", "comma_added",
                     "dash_to_comma"):
            slipped = SLIPS[name](changed)
            if slipped is not None and slipped != changed:
                return slipped
        return None

    return apply


def vocabulary(docs: dict[str, str]) -> set[str]:
    return {w for text in docs.values() for w in re.findall(r"[a-z]{4,}", text.lower())}


def quoted_sentences(docs: dict[str, str]) -> list[tuple[str, str]]:
    """``(document id, sentence)`` for the sentences a model might quote whole."""
    out = []
    for doc_id, text in docs.items():
        for s in sentences(text):
            if len(s.split()) >= _MIN_WORDS:
                out.append((doc_id, s.rstrip(".")))
    return out


def build_transcription_cases(docs: dict[str, str] | None = None) -> tuple[dict[str, str],
                                                                           list[Case]]:
    """The documents and the transcription cases over them (honest first)."""
    docs = docs if docs is not None else load_corpus()
    occurs = occurrence_check(docs)
    vocab = vocabulary(docs)
    meaning = dict(MEANING, prefix_dropped=prefix_dropped(vocab))
    honest: list[Case] = []
    bad: list[Case] = []
    for doc_id, s in quoted_sentences(docs):
        for mode, slip in SLIPS.items():
            q = slip(s)
            if q is not None and q != s:
                honest.append(Case(mode, True, q, doc_id, "found"))
        for mode, change in meaning.items():
            for name, variant in ((mode, change), (mode + "+slip", _pair(change))):
                q = variant(s)
                if q is not None and q != s and not occurs(q):
                    bad.append(Case(name, False, q, doc_id, "not_found"))
    return docs, honest + bad


def build_rejection_cases(held_out: int = 45) -> tuple[dict[str, str], list[tuple[str, str,
                                                                                  str]]]:
    """Documents and ``(kind, quote, cited id)``: ``altered``, a sentence of the documents with
    one word replaced; ``invented``, a sentence of an abstract that is not among them, cited
    to the document at the same position."""
    corpus = load_corpus()
    ids = list(corpus)
    docs = {k: corpus[k] for k in ids[:-held_out]}
    kept = list(docs)
    occurs = occurrence_check(docs)
    cases: list[tuple[str, str, str]] = []
    for doc_id, s in quoted_sentences(docs):
        q = _replaced(s)
        if q is not None and not occurs(q):
            cases.append(("altered", q, doc_id))
    others = {k: corpus[k] for k in ids[-held_out:]}
    for i, (_, s) in enumerate(quoted_sentences(others)):
        if not occurs(s):
            cases.append(("invented", s, kept[i % len(kept)]))
    return docs, cases
