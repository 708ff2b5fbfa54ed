"""What joining chunks of one file costs (vcg_otel.stitch): per request, and per quote.

    python benchmarks/chunk_stitch.py

A request retrieves 20 chunks of about 1 kB: 5 consecutive chunks from each of 4 files written
by people (package READMEs in ``data/markup_samples.json``), cut by Haystack's
``DocumentSplitter`` (100 words, 20 words of overlap: about 1 kB per chunk), retrieved in
shuffled order. Measured, median of many runs on this machine:

* **rebuilding**: proving which chunks are consecutive and rebuilding their texts
  (``DocumentSet.runs`` on a set built afresh), with the splitter's offsets and from the
  overlap alone (offsets stripped); against building the document set from the chunks
  (``DocumentSet.from_sources``, the baseline every request pays already).
* **a quote across a boundary**: ``DocumentSet.gate`` of a quote crossing two chunks, cold (a
  new set, caches cleared: normalizing the cited file's chunks, rebuilding, normalizing the
  rebuilt text, searching) and cached (the same retrieval read again: the set, its rebuilt
  texts and their normalized forms are shared); against a quote inside one chunk of the same
  set (baseline), cached and cold.
* **a miss** (a frankenquote: ``not_found``), which now also searches the rebuilt texts:
  against the same chunks with no file named (nothing to join; the gate as before).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vcg_otel import documents as documents_module
from vcg_otel.audit.models import Citation
from vcg_otel.documents import DocumentSet
from vcg_otel.gate import default_cache

DATA = Path(__file__).resolve().parent / "data" / "markup_samples.json"
FILES = ("md-fastapi", "md-httpcore", "md-rich", "md-pandas")


def retrieval() -> tuple[list[Any], list[Any], list[Any], dict[str, str]]:
    """20 chunks (with offsets, without, without any file), and each file's text."""
    from haystack import Document
    from haystack.components.preprocessors import DocumentSplitter

    samples = json.loads(DATA.read_text(encoding="utf-8"))
    splitter = DocumentSplitter(split_by="word", split_length=100, split_overlap=20)
    chunks: list[Any] = []
    texts = {}
    for name in FILES:
        text = samples[name]["text"]
        texts[f"{name}.md"] = text
        cut = splitter.run([Document(content=text, meta={"file_path": f"docs/{name}.md"})])
        chunks.extend(cut["documents"][2:7])  # five consecutive chunks, past the badges
    random.Random(7).shuffle(chunks)
    drop = {"split_idx_start", "_split_overlap"}
    bare = [Document(content=c.content, meta={k: v for k, v in c.meta.items() if k not in drop})
            for c in chunks]
    nameless = [{"text": c.content} for c in chunks]
    return chunks, bare, nameless, texts


def _fresh() -> None:
    documents_module._built_sets.clear()
    default_cache.clear()


def timed(fn: Callable[[], object], setup: Callable[[], object] = lambda: None,
          reps: int = 200) -> float:
    """Median seconds of ``fn`` (``setup`` run before each, not timed)."""
    out = []
    for _ in range(reps):
        setup()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def crossing_quote(docs: DocumentSet) -> tuple[str, str]:
    """A quote crossing the first boundary of the first run, as a model quotes (whole words),
    and the file name it cites."""
    run = docs.runs[0]
    first, second = run.pieces[0], run.pieces[1]
    lo = run.text.rfind(" ", 0, second.at - 20) + 1
    hi = run.text.find(" ", first.end + 20)
    return run.text[lo:hi].strip(".,;:"), run.file.rsplit("/", 1)[-1]


def row(label: str, seconds: float, base: float | None = None) -> None:
    ratio = "" if base is None else f"{seconds / base:>8.2f}x"
    print(f"{label:<66}{seconds * 1e6:>10.1f}{ratio}")


def main() -> None:
    chunks, bare, nameless, _ = retrieval()
    total = sum(len(c.content) for c in chunks)
    built = DocumentSet.from_sources(chunks)
    print(f"{len(chunks)} chunks, {total:,} characters, {len(built.runs)} rebuilt texts of "
          f"{[len(r.pieces) for r in built.runs]} chunks\n")
    print(f"{'per request':<66}{'µs':>10}{'ratio':>9}")
    base = timed(lambda: DocumentSet.from_sources(chunks), _fresh)
    row("build the document set (baseline)", base)
    holder: dict[str, DocumentSet] = {}

    def new_set(source: list[Any]) -> Callable[[], None]:
        def make() -> None:
            _fresh()
            holder["docs"] = DocumentSet.from_sources(source)
        return make

    row("rebuild runs, splitter offsets", timed(lambda: holder["docs"].runs, new_set(chunks)),
        base)
    row("rebuild runs, overlap only (offsets stripped)",
        timed(lambda: holder["docs"].runs, new_set(bare)), base)

    quote, cited = crossing_quote(built)
    run = built.runs[0]
    middle = run.text[run.pieces[1].at:run.pieces[1].end]
    inside = " ".join(middle.split(" ")[30:45]).strip(".,;:")  # inside one chunk
    franken = " ".join(quote.split()[:4]) + " " + " ".join(inside.split()[-4:])
    across = Citation("c", cited, quote)
    one = Citation("c", cited, inside)
    miss = Citation("c", cited, franken)
    assert built.gate(across) == "found" and built.gate(one) == "found", (quote, inside)
    assert built.gate(miss) == "not_found"
    print(f"\n{'per quote (ratio: against the baseline above it)':<66}{'µs':>10}{'ratio':>9}")

    def warm() -> None:
        holder["docs"] = DocumentSet.from_sources(chunks)  # the same retrieval again

    warm()
    holder["docs"].gate(across)
    base_q = timed(lambda: holder["docs"].gate(one), warm, reps=500)
    row("quote inside one chunk (baseline, cached set)", base_q)
    row("quote across a boundary, cached (same retrieval again)",
        timed(lambda: holder["docs"].gate(across), warm, reps=500), base_q)
    cold_one = timed(lambda: holder["docs"].gate(one), new_set(chunks))
    row("quote inside one chunk, cold (baseline: new set, caches cleared)", cold_one)
    row("quote across a boundary, cold (+ rebuild, normalize the run)",
        timed(lambda: holder["docs"].gate(across), new_set(chunks)), cold_one)

    plain: dict[str, DocumentSet] = {}

    def warm_plain() -> None:
        plain["docs"] = DocumentSet.from_sources(nameless)

    warm_plain()
    cited_plain = plain["docs"].chunks[0].key
    miss_plain = Citation("c", cited_plain, franken)
    plain["docs"].gate(miss_plain)
    base_m = timed(lambda: plain["docs"].gate(miss_plain), warm_plain, reps=500)
    row("frankenquote, chunks naming no file (baseline: nothing joined)", base_m)
    row("frankenquote, chunks of 4 files (rebuilt texts searched too)",
        timed(lambda: holder["docs"].gate(miss), warm, reps=500), base_m)


if __name__ == "__main__":
    main()
