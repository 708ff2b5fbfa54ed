"""A small answer the decorator tests audit: two documents and one citation of each kind
(honest, elided, fabricated, misattributed)."""

from __future__ import annotations

DOCS = {
    "paper": "The reranker improves accuracy by 4.2% over the baseline. Gains shrink on long "
    "documents, and the model may overfit when data is scarce.",
    "blog": "Cats sleep for most of the day.",
}
HONEST = {"claim": "The reranker helps.", "quote": "improves accuracy by 4.2%", "doc_id": "paper"}
ELIDED = {"claim": "Gains shrink.", "quote": "The reranker \u2026 Gains shrink", "doc_id": "paper"}
FABRICATED = {"claim": "It halves latency.", "quote": "halves latency everywhere",
              "doc_id": "paper"}
MISATTRIBUTED = {"claim": "Cats sleep.", "quote": "Cats sleep for most of the day",
                 "doc_id": "paper"}
ANSWER = {"answer": "...", "citations": [HONEST, ELIDED, FABRICATED, MISATTRIBUTED]}
