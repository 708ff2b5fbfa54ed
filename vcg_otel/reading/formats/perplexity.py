"""Perplexity Sonar: a top-level ``citations`` list of URLs and ``[n]`` markers in the answer.

Recognised by ``citations`` (or ``search_results``) holding URLs next to ``choices``. ``[n]``
is the n-th URL, **1-based** (``[1]`` is ``citations[0]``): each becomes a quote-less citation
of that URL; ``[n]`` past the list is a source never retrieved. ``search_results``
(``url``, ``title``, ``snippet``) are documents named by their URL and title; a URL with no
snippet and no copy in the app's documents is unverifiable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ...markers import claims_for, find_markers
from ..base import Found, document
from ..walk import document_id, get, listed, text_of

name = "perplexity"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"choices"})


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    choices = listed(get(obj, "choices"))
    urls = [document_id(u) for u in listed(get(obj, "citations"))]
    results = listed(get(obj, "search_results"))
    if not choices or not ((urls and all(isinstance(u, str) for u in urls)) or results):
        return None
    if not urls:
        urls = [document_id(get(r, "url")) for r in results]
    found = Found(name, position_base=1)
    for r in results:
        found.documents.append(document(document_id(get(r, "url")), text_of(get(r, "snippet")),
                                        text_of(get(r, "title"))))
    found.textless.update(u for u in urls if u is not None)
    for choice in choices:
        text = text_of(get(get(choice, "message"), "content")) or ""
        markers = find_markers(text, convention="position", position_base=1)
        for claim in claims_for(text, markers):
            n = int(claim.marker.source)
            url = urls[n - 1] if 1 <= n <= len(urls) else None
            found.cite(Citation(claim.citation.claim, url or f"citations[{n}]", None))
    return found
