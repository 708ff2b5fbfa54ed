"""The CLI's inputs on disk: two logged answers and their documents in every layout
``vcg-otel audit --docs`` reads (a directory of files, JSONL, one JSON object)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DOCS = {
    "paper": "The reranker improves accuracy by 4.2% over the baseline. Gains shrink on long "
    "documents.",
    "blog": "Cats sleep for most of the day.",
}
ANSWERS = [
    {"id": "a1", "citations": [
        {"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
        {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]},
    {"id": "a2", "citations": [
        {"claim": "fast", "quote": "halves latency everywhere", "doc_id": "paper"},
        {"claim": "shrinks", "quote": "Gains shrink on long documents", "doc_id": "paper"}]},
]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    docs_dir = tmp_path / "docs"
    docs_dir.mkdir()
    for doc_id, text in DOCS.items():
        (docs_dir / f"{doc_id}.txt").write_text(text)
    return {
        "answers": write_jsonl(tmp_path / "answers.jsonl", ANSWERS),
        "docs_dir": docs_dir,
        "docs_jsonl": write_jsonl(tmp_path / "docs.jsonl",
                                  [{"id": k, "text": v} for k, v in DOCS.items()]),
        "docs_json": write_text(tmp_path / "docs.json", json.dumps(DOCS)),
        "out": tmp_path / "results.jsonl",
    }


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
