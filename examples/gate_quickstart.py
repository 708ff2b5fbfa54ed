"""The verbatim gate in one screen: honest, elided, fabricated and misattributed quotes.

    python examples/gate_quickstart.py
"""

from __future__ import annotations

from vcg_otel import Corpus, quote_gate, span_gate

DOCUMENTS = {
    "smith-2026": (
        "We evaluate retrieval-augmented generation on three benchmarks. The proposed "
        "reranker improves accuracy by 4.2% over the baseline, although gains shrink on long "
        "documents. In a second study, the model may overfit when data is scarce."
    ),
    "lee-2025": "Citation errors are common: one in five quotes could not be traced to a source.",
}

CITATIONS = [
    ("honest", "The proposed reranker improves accuracy by 4.2%", "smith-2026"),
    ("typography + PDF damage", "\u201cthe proposed re-\nranker improves accuracy\u201d",
     "smith-2026"),
    ("elided", "The proposed reranker \u2026 although gains shrink", "smith-2026"),
    ("bracketed", "[T]he model may overfit [sic] when data is scarce", "smith-2026"),
    ("fabricated", "The reranker halves latency on every benchmark", "smith-2026"),
    ("frankenquote", "The proposed reranker improves accuracy when data is scarce", "smith-2026"),
    ("number changed", "improves accuracy by 5.2%", "smith-2026"),
    ("misattributed", "one in five quotes could not be traced", "smith-2026"),
]


def main() -> None:
    corpus = Corpus(DOCUMENTS)  # normalizes each document once, reused by every check
    print(f"{'case':<26}{'gate':<15}{'where':<20}passage")
    for label, quote, cited in CITATIONS:
        m = quote_gate(quote, cited, corpus)
        where = "" if m.start is None else f"{m.document_id}[{m.start}:{m.end}]"
        detail = m.text if m.text is not None else f"({m.reason})"
        if m == "misattributed":
            detail = f"really from {', '.join(m.source_document_ids)}: {m.text}"
        elided = " (elided)" if m.elided else ""
        print(f"{label:<26}{str(m) + elided:<15}{where:<20}{detail}")
    offsets = span_gate("smith-2026", 0, 62, corpus, quote="retrieval-augmented generation")
    print(f"\nspan_gate on smith-2026[0:62] with a quote: {offsets} "
          f"at [{offsets.start}:{offsets.end}]")


if __name__ == "__main__":
    main()
