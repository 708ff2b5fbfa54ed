"""The markup suite: what a reader sees in real Markdown and HTML, by real renderers.

The oracle is independent of the gate: Markdown is rendered by markdown-it-py (CommonMark with
the GFM table and strikethrough rules), HTML (and the rendered Markdown) is read by the
standard library's ``html.parser`` with ``convert_charrefs=True``. The text of each block
element is one paragraph a reader sees; its sentences are the honest quotes. The gate sees the
*raw* document. Samples and their provenance: ``data/README.md``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cases import Case

DATA = Path(__file__).parent / "data" / "markup_samples.json"

# Elements whose boundaries a reader sees as a break (html.parser itself inserts nothing).
BLOCK_TAGS = frozenset(
    ("address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details",
     "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
     "h4", "h5", "h6", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre",
     "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul",
     "head", "img")
)
_HIDDEN = frozenset(("script", "style", "template"))
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


class _Blocks(HTMLParser):
    """Text of each block, as a browser would lay it out (whitespace collapsed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._current: list[str] = []
        self._hidden = 0

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.blocks.append(text)
        self._current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag in BLOCK_TAGS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in BLOCK_TAGS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self._current.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def html_blocks(html: str) -> list[str]:
    """The text of each block element of ``html``, whitespace collapsed."""
    parser = _Blocks()
    parser.feed(html)
    parser.close()
    return parser.blocks


def render_markdown(text: str) -> str:
    """Markdown to HTML by markdown-it-py (CommonMark + GFM tables and strikethrough)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return md.render(text)


def rendered_blocks(doc: Sample) -> list[str]:
    """What a reader sees of a sample, block by block."""
    html = render_markdown(doc.text) if doc.format == "markdown" else doc.text
    return html_blocks(html)


def reader_sentences(doc: Sample, min_words: int = 4) -> list[str]:
    """Sentences of the rendered text (within one block), at least ``min_words`` words long."""
    out = []
    for block in rendered_blocks(doc):
        for sentence in _SENTENCE.split(block):
            sentence = sentence.strip()
            if len(sentence.split()) >= min_words and re.search(r"[A-Za-z]{3}", sentence):
                out.append(sentence)
    return out


@dataclass(frozen=True)
class Sample:
    doc_id: str
    format: str  # "markdown" or "html"
    source: str
    license: str
    text: str


def load_samples() -> list[Sample]:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    return [Sample(doc_id, **fields) for doc_id, fields in raw.items()]


def crosses_markup(sentence: str, raw: str) -> bool:
    """Does the sentence differ from every stretch of the raw text (whitespace aside)?"""
    return " ".join(sentence.split()) not in " ".join(raw.split())


_NOT_WORD = re.compile(r"[^\w\s]|_")


def naive_normalize(text: str) -> str:
    """NFKC, case folding, punctuation dropped, whitespace collapsed: what the original gate
    compares (the baseline), and how negatives are checked not to be honest by accident."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NOT_WORD.sub(" ", text).split())


def _swap_words(sentence: str) -> str | None:
    """Two neighbouring words in the middle swapped (both at least three letters)."""
    words = sentence.split(" ")
    mid = len(words) // 2
    for i in [*range(mid, len(words) - 1), *range(mid - 1, 0, -1)]:
        a, b = words[i], words[i + 1]
        if a.isalpha() and b.isalpha() and len(a) >= 3 and len(b) >= 3 and a.lower() != b.lower():
            return " ".join([*words[:i], b, a, *words[i + 2:]])
    return None


def _change_digit(sentence: str) -> str | None:
    m = re.search(r"\d", sentence)
    if m is None:
        return None
    return sentence[:m.start()] + str((int(m.group()) + 1) % 10) + sentence[m.end():]


def build_markup_cases(samples: list[Sample]) -> tuple[dict[str, str], list[Case], set[str]]:
    """Raw documents, the cases over them (honest first) and the honest quotes that cross
    markup (differ from every stretch of the raw text)."""
    from cases import Case  # the shared case record

    docs = {s.doc_id: s.text for s in samples}
    rendered = {s.doc_id: naive_normalize("\n".join(rendered_blocks(s))) for s in samples}
    ids = list(docs)
    honest: list[Case] = []
    bad: list[Case] = []
    crossing: set[str] = set()

    def occurs(q: str, only: str | None = None) -> bool:
        """Does ``q`` occur in a rendered document, punctuation aside? (Then it is no
        negative: a reader would find it there.)"""
        p = naive_normalize(q)
        return any(p in text for k, text in rendered.items() if only is None or k == only)

    for i, sample in enumerate(samples):
        mode = "md_sentence" if sample.format == "markdown" else "html_sentence"
        other = ids[(i + 1) % len(ids)]
        for sentence in reader_sentences(sample):
            honest.append(Case(mode, True, sentence, sample.doc_id, "found"))
            if crosses_markup(sentence, sample.text):
                crossing.add(sentence)
            for bad_mode, variant in (("word_swap", _swap_words(sentence)),
                                      ("digit_change", _change_digit(sentence))):
                if variant is not None and not occurs(variant):
                    bad.append(Case(bad_mode, False, variant, sample.doc_id, "not_found"))
            if not occurs(sentence, other):
                bad.append(Case("misattributed", False, sentence, other, "misattributed"))
    return docs, honest + bad, crossing
