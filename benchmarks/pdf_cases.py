"""The PDF suite: the bundled arXiv abstracts as PDF text extraction shows them.

Each abstract is typeset the way a PDF-to-text tool returns it: lines wrapped at 72
characters, long words hyphenated at a line end (``transfor-`` / ``mation``), a compound's own
hyphen repeated at the start of the next line (``Long-`` / ``-horizon``), ``fi``/``fl``/``ff``
ligatures, quotation marks and underscores lost. The honest quote is a sentence of the clean
abstract (what the model read in the publisher's HTML); the gate sees only the PDF text.
Deterministic: every run builds the same cases.
"""

from __future__ import annotations

from cases import Case, _flip, _negate, _number, occurrence_check, sentences

WIDTH = 72


def _ligatures(text: str) -> str:
    return (text.replace("ffi", "\ufb03").replace("fi", "\ufb01").replace("fl", "\ufb02")
            .replace("ff", "\ufb00"))


def pdf_text(text: str, width: int = WIDTH) -> str:
    """What PDF extraction makes of ``text`` (see the module docstring)."""
    text = text.replace('"', "").replace("\u201c", "").replace("\u201d", "").replace("_", " ")
    lines: list[str] = []
    line = ""
    for word in text.split():
        if not line:
            line = word
            continue
        if len(line) + 1 + len(word) <= width:
            line += " " + word
            continue
        room = width - len(line) - 1
        cut = word.find("-")
        if 0 < cut < room - 1 and word[cut + 1:cut + 2].isalpha():
            lines.append(line + " " + word[:cut + 1])  # Long-
            line = word[cut:]  # -horizon
        elif len(word) >= 8 and room >= 5 and word[:room].isalpha():  # between two letters
            lines.append(line + " " + word[:room - 1] + "-")  # transfor-
            line = word[room - 1:]  # mation
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return _ligatures("\n".join(lines))


def _swap(q: str) -> str | None:
    words = q.split()
    if len(words) < 6:
        return None
    # Two adjacent *words*: a "--" between clauses is punctuation, and moving it leaves every
    # word in place, a slip the gate forgives (issue 18), not a swap.
    mid = len(words) // 2
    while mid + 1 < len(words) and not (_has_word(words[mid]) and _has_word(words[mid + 1])):
        mid += 1
    if mid + 1 >= len(words):
        return None
    words[mid], words[mid + 1] = words[mid + 1], words[mid]
    return " ".join(words)


def _has_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def build_pdf_cases(clean: dict[str, str]) -> tuple[dict[str, str], list[Case]]:
    """The PDF documents and the cases over them (honest first)."""
    ids = list(clean)
    docs = {doc_id: pdf_text(text) for doc_id, text in clean.items()}
    occurs = occurrence_check(clean)
    honest: list[Case] = []
    bad: list[Case] = []

    for i, doc_id in enumerate(ids):
        sents = [s for s in sentences(clean[doc_id]) if len(s) > 60]
        if not sents:
            continue
        for quote in sents:
            honest.append(Case("pdf_sentence", True, quote, doc_id, "found"))
        quote = sents[0]
        for mode, variant in (("flip", _flip(quote)), ("number_swap", _number(quote)),
                              ("negation", _negate(quote)), ("word_swap", _swap(quote))):
            if variant is not None and not occurs(variant):
                bad.append(Case(mode, False, variant, doc_id, "not_found"))
        if len(sents) > 1:
            a, b = quote.split(), sents[1].split()
            franken = " ".join(a[: len(a) // 2] + b[len(b) // 2:])
            if not occurs(franken):
                bad.append(Case("frankenquote", False, franken, doc_id, "not_found"))
        other = ids[(i + 7) % len(ids)]
        if not occurs(quote, ids.index(other)):
            bad.append(Case("misattributed", False, quote, other, "misattributed"))
    return docs, honest + bad
