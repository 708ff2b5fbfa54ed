"""Benchmark case generator: honest and bad citations over the bundled arXiv corpus.

Built as described in ``data/README.md`` (the original gate's benchmark), plus two modes the
original never accepted: a leading ellipsis and a bracketed change of capitalisation. Every
transformation is deterministic, so every run measures the same cases.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


@dataclass(frozen=True)
class Case:
    mode: str
    honest: bool
    quote: str
    cited: str
    expected: str  # "found", "not_found" or "misattributed"


# The commonest English words: documents made of them are the worst case for elided quotes
# (every short piece occurs everywhere).
COMMON_WORDS = ("the", "of", "and", "a", "to", "in", "is", "model", "data", "results", "was",
                "for", "on", "that", "with", "as", "by", "are", "this", "be", "from", "an", "at",
                "which")


def common_words_docs(n: int, size: int = 2400, seed: int = 1) -> dict[str, str]:
    """``n`` documents of about ``size`` characters drawn uniformly from :data:`COMMON_WORDS`."""
    rng = random.Random(seed)
    docs = {}
    for i in range(n):
        out: list[str] = []
        length = 0
        while length < size:
            out.append(rng.choice(COMMON_WORDS))
            length += len(out[-1]) + 1
        docs[f"d{i}"] = " ".join(out)
    return docs


def load_corpus() -> dict[str, str]:
    data: dict[str, str] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def long_report(megabytes: float, n: int = 0) -> str:
    """About ``megabytes`` MB of real prose: the corpus repeated, each abstract under a
    numbered heading of its own (distinct for each ``n``), like the sections of a long report:
    sentences of real length, a vocabulary that grows with the size."""
    abstracts = list(load_corpus().values())
    parts: list[str] = []
    size, copy = 0, 0
    while size < megabytes * 1_000_000:
        copy += 1
        for i, text in enumerate(abstracts, 1):
            part = f"Section {n}.{copy}.{i}. Study {n * 100_000 + copy * 1000 + i}.\n\n{text}\n\n"
            parts.append(part)
            size += len(part)
    return "".join(parts)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


# --- honest variants -----------------------------------------------------------------------

def _smart(q: str) -> str:
    q = re.sub(r'"([^"]*)"', "\u201c\\1\u201d", q)
    q = q.replace("'", "\u2019").replace(" -- ", "\u2014").replace(" - ", " \u2014 ")
    q = q.replace("...", "\u2026")
    return "\u201c" + q + "\u201d"


def _wrap(q: str) -> str:
    words = q.split(" ")
    out = []
    for i, w in enumerate(words):
        out.append(w)
        if i < len(words) - 1:
            out.append("\n" if i % 6 == 5 else ("  " if i % 4 == 3 else " "))
    return "".join(out)


def _inside(q: str) -> str | None:
    words = q.split()
    return " ".join(words[2:-2]) if len(words) >= 9 else None


def _ligatures(q: str) -> str:
    return q.replace("ffi", "\ufb03").replace("fi", "\ufb01").replace("fl", "\ufb02").replace(
        "ff", "\ufb00")


def _long_words(q: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{9,}", q)]


def _soft_hyphen(q: str) -> str | None:
    longs = _long_words(q)
    if not longs:
        return None
    for w in longs:
        q = q.replace(w, w[:4] + "\u00ad" + w[4:], 1)
    return q


def _hyphen_break(q: str) -> str | None:
    longs = _long_words(q)
    if not longs:
        return None
    w = longs[0]
    return q.replace(w, w[:5] + "-\n" + w[5:], 1)


_CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441"}


def _cyrillic(q: str) -> str:
    out, k = [], 0
    for ch in q:
        if ch in _CYRILLIC:
            k += 1
            if k % 3 == 0:
                out.append(_CYRILLIC[ch])
                continue
        out.append(ch)
    return "".join(out)


def _ellipsis(q: str) -> str | None:
    words = q.split()
    if len(words) < 10:
        return None
    return " ".join(words[:4]) + " \u2026 " + " ".join(words[-4:])


def _sic(q: str) -> str | None:
    words = q.split()
    if len(words) < 6:
        return None
    return " ".join([*words[:4], "[sic]", *words[4:]])


def _leading_ellipsis(q: str) -> str | None:
    words = q.split()
    if len(words) < 6:
        return None
    return "\u2026 " + " ".join(words[3:])


def _bracket_caps(q: str) -> str | None:
    words = q.split()
    if len(words) < 6 or not words[3][:1].isalpha():
        return None
    w = words[3]
    return " ".join([f"[{w[0].upper()}]{w[1:]}", *words[4:]])


HONEST: dict[str, Callable[[str], str | None]] = {
    "exact": lambda q: q,
    "upper": str.upper,
    "smart_typography": _smart,
    "whitespace_noise": _wrap,
    "nbsp": lambda q: q.replace(" ", "\u00a0"),
    "inner_phrase": _inside,
    "pdf_ligatures": _ligatures,
    "soft_hyphen": _soft_hyphen,
    "hyphen_linebreak": _hyphen_break,
    "cyrillic_lookalikes": _cyrillic,
    "ellipsis": _ellipsis,
    "sic": _sic,
    "leading_ellipsis": _leading_ellipsis,
    "bracket_capital": _bracket_caps,
}

# --- bad variants --------------------------------------------------------------------------

_FLIP = {
    "increase": "decrease", "increases": "decreases", "increased": "decreased",
    "decrease": "increase", "decreases": "increases", "improve": "degrade",
    "improves": "degrades", "improved": "degraded", "higher": "lower", "lower": "higher",
    "more": "less", "less": "more", "better": "worse", "worse": "better",
    "outperforms": "underperforms", "outperform": "underperform", "larger": "smaller",
    "smaller": "larger", "best": "worst", "positive": "negative", "strong": "weak",
    "high": "low", "low": "high", "reduces": "increases", "reduce": "increase",
    "enables": "prevents", "without": "with", "with": "without", "all": "no",
}
_HEDGES = ("may", "might", "often", "can", "could", "likely", "generally", "typically",
           "usually", "potentially", "largely", "mostly", "partially", "some", "frequently")
_SYNONYMS = {
    "method": "approach", "approach": "method", "model": "system", "models": "systems",
    "results": "findings", "show": "demonstrate", "shows": "demonstrates", "large": "big",
    "use": "employ", "uses": "employs", "novel": "new", "propose": "present",
    "task": "problem", "tasks": "problems", "data": "information", "framework": "system",
    "paper": "article", "study": "work", "achieves": "attains", "evaluate": "assess",
    "performance": "effectiveness", "significant": "substantial", "existing": "current",
}


def _word_sub(q: str, table: dict[str, str]) -> str | None:
    for m in re.finditer(r"[A-Za-z]+", q):
        w = m.group()
        if w.lower() in table:
            repl = table[w.lower()]
            repl = repl.capitalize() if w[0].isupper() else repl
            return q[:m.start()] + repl + q[m.end():]
    return None


def _flip(q: str) -> str | None:
    flipped = _word_sub(q, _FLIP)
    if flipped is not None:
        return flipped
    words = q.split()
    if len(words) < 6:
        return None
    mid = len(words) // 2
    return " ".join(words[:mid - 1] + words[mid - 1:mid + 2][::-1] + words[mid + 2:])


def _number(q: str) -> str | None:
    m = re.search(r"\d", q)
    if not m:
        return None
    return q[:m.start()] + str((int(m.group()) + 1) % 10) + q[m.end():]


def _negate(q: str) -> str | None:
    m = re.search(r"\b(is|are|was|were|can|does|do|will|has|have)\b", q)
    if not m:
        return None
    return q[:m.end()] + " not" + q[m.end():]


def _drop_hedge(q: str) -> str | None:
    for h in _HEDGES:
        m = re.search(rf"\b{h}\s+", q, re.IGNORECASE)
        if m:
            return q[:m.start()] + q[m.end():]
    return None


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def occurrence_check(corpus: dict[str, str]) -> Callable[..., bool]:
    """``occurs(quote, only=None)``: whether ``quote`` (case and spacing aside) is in the
    corpus, or in its document number ``only``: a bad quote that does occur is dropped."""
    plain_docs = [_plain(t) for t in corpus.values()]

    def occurs(q: str, only: int | None = None) -> bool:
        p = _plain(q)
        return any(p in d for k, d in enumerate(plain_docs) if only is None or k == only)

    return occurs


def build_cases(corpus: dict[str, str]) -> list[Case]:
    """All cases, honest first; bad quotes that happen to occur in the corpus are dropped."""
    ids = list(corpus)
    occurs = occurrence_check(corpus)
    honest: list[Case] = []
    bad: list[Case] = []

    for i, doc_id in enumerate(ids):
        sents = sentences(corpus[doc_id])
        long_sents = [s for s in sents if len(s) > 60]
        if not long_sents:
            continue
        quote = long_sents[0]
        other = ids[(i + 7) % len(ids)]
        for mode, make in HONEST.items():
            variant = make(quote)
            if (variant is not None and variant != quote) or mode == "exact":
                honest.append(Case(mode, True, variant or quote, doc_id, "found"))
        candidates: dict[str, str | None] = {
            "flip": _flip(quote),
            "number_swap": _number(quote),
            "negation": _negate(quote),
            "dropped_hedge": _drop_hedge(quote),
            "synonym_swap": _word_sub(quote, _SYNONYMS),
        }
        nxt = sents.index(quote) + 1
        if nxt < len(sents):
            a, b = quote.split(), sents[nxt].split()
            candidates["frankenquote"] = " ".join(a[: len(a) // 2] + b[len(b) // 2:])
        for mode, variant in candidates.items():
            if variant is not None and not occurs(variant):
                bad.append(Case(mode, False, variant, doc_id, "not_found"))
        if not occurs(quote, ids.index(other)):
            bad.append(Case("misattributed", False, quote, other, "misattributed"))
    return honest + bad
