"""Chunks of one file are one text (issue 23): a quote that crosses a chunk boundary, cut there
by the real splitters (LlamaIndex ``SentenceSplitter``, Haystack ``DocumentSplitter``,
LangChain ``RecursiveCharacterTextSplitter``), is one honest quote; a quote joining places of
the file that are not adjacent is not.

The files are abstracts written by people; each quote is taken from the file the way a model
quotes it (whole words, trailing punctuation dropped) and cited by the file's name.
"""

from __future__ import annotations

import pytest
from support.splits import SPLITTERS, Split, crossing, documents, files, split, without_offsets

from vcg_otel.audit.models import Citation
from vcg_otel.documents import DocumentSet, ResolvedMatch

pytest.importorskip("llama_index.core")
pytest.importorskip("haystack")
pytest.importorskip("langchain_text_splitters")


def _split(splitter: str, n: int = 0) -> Split:
    return split(splitter, files(2)[n], f"paper-{n}.txt")


def _gate(docs: DocumentSet, cited: str, quote: str) -> ResolvedMatch:
    match = docs.gate(Citation("the claim", cited, quote))
    assert isinstance(match, ResolvedMatch)
    return match


def _keys(docs: DocumentSet, s: Split, indexes: list[int]) -> list[str]:
    """The chunk keys of chunks ``indexes`` of split ``s`` in ``docs`` (by text)."""
    by_text = {c.text: c.key for c in docs.chunks}
    return [by_text[docs_text] for docs_text in (_chunk_text(s, i) for i in indexes)]


def _chunk_text(s: Split, i: int) -> str:
    start, end = s.spans[i]
    return s.file[start:end]


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_a_quote_across_one_boundary_is_found_with_its_file_offsets(splitter: str) -> None:
    s = _split(splitter)
    i = s.joinable()[0]
    quote, start, end = crossing(s, i)
    docs = documents(s.chunks)
    assert all(quote not in c.text for c in docs.chunks)  # in no chunk on its own
    match = _gate(docs, "paper-0.txt", quote)
    assert match == "found"
    assert (match.file_start, match.file_end) == (start, end)
    assert s.file[match.file_start:match.file_end] == quote
    assert match.chunks == tuple(_keys(docs, s, [i, i + 1]))
    first, last = s.spans[i][0], s.spans[i + 1][0]
    assert (match.chunk_start, match.chunk_end) == (start - first, end - last)
    assert docs.text(match.document_id)[match.start:match.end] == quote  # what the judge reads


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_a_quote_across_two_boundaries_is_found_with_its_file_offsets(splitter: str) -> None:
    s = _split(splitter)
    if s.across_two() is None:
        s = _split(splitter, 1)
    i = s.across_two()
    assert i is not None
    quote, start, end = crossing(s, i, boundaries=2)
    match = _gate(documents(s.chunks), s.path, quote)
    assert match == "found"
    assert (match.file_start, match.file_end) == (start, end)
    assert len(match.chunks) == 3


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_a_quote_across_a_boundary_is_found_from_the_overlap_alone(splitter: str) -> None:
    """The splitter's offsets stripped: the chunks' exact overlap proves them consecutive.
    No file offsets are then claimed (they are not known)."""
    s = _split(splitter)
    i = s.joinable()[0]
    quote, _, _ = crossing(s, i)
    docs = documents(without_offsets(s))
    assert all(c.locus is not None and c.locus.start is None for c in docs.chunks)
    match = _gate(docs, "paper-0.txt", quote)
    assert match == "found"
    assert len(match.chunks) == 2 and match.file_start is None
    assert docs.text(match.document_id)[match.start:match.end] == quote


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("offsets", [True, False], ids=["offsets", "overlap_only"])
def test_a_frankenquote_across_chunks_is_not_found(splitter: str, offsets: bool) -> None:
    """The start of a sentence of the first chunk joined to the end of a sentence of the last
    one: every word is in the file, in order, but not as one passage."""
    s = _split(splitter)
    docs = documents(s.chunks if offsets else without_offsets(s))
    first, last = _chunk_text(s, 0), _chunk_text(s, len(s.spans) - 1)
    head = " ".join(first.split()[:6])
    tail = " ".join(last.rstrip(".").split()[-6:])
    match = _gate(docs, "paper-0.txt", f"{head} {tail}")
    assert match == "not_found" and match.reason == "no_match"


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_chunks_retrieved_out_of_order_are_joined_in_file_order(splitter: str) -> None:
    s = _split(splitter)
    i = s.joinable()[0]
    quote, _, _ = crossing(s, i)
    for chunks in (list(reversed(s.chunks)), list(reversed(without_offsets(s)))):
        docs = documents(chunks)
        match = _gate(docs, "paper-0.txt", quote)
        assert match == "found"
        assert match.text == quote and len(match.chunks) == 2
    assert match.chunk_start is not None


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_chunks_with_a_gap_between_them_are_never_joined(splitter: str) -> None:
    """Chunk ``i`` and chunk ``j`` retrieved, the chunks between them not: a quote running
    from the end of the first into the start of the second is not a passage of the file."""
    s = _split(splitter)
    i, j = s.apart()
    retrieved = [s.chunks[i], s.chunks[j]]
    a, c = _chunk_text(s, i), _chunk_text(s, j)
    quote = " ".join(a.split()[-5:]) + " " + " ".join(c.split()[:5])
    for chunks in (retrieved, [without_offsets(s)[i], without_offsets(s)[j]]):
        docs = documents(chunks)
        assert docs.runs == ()
        assert _gate(docs, "paper-0.txt", quote) == "not_found"
    if i in s.joinable():
        honest, _, _ = crossing(s, i)  # crosses into a chunk that was not retrieved
        assert _gate(documents(retrieved), "paper-0.txt", honest) == "not_found"


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_chunks_of_two_files_are_never_joined(splitter: str) -> None:
    """Two files, each cut in chunks; the end of a chunk of one and the start of a chunk of
    the other never make one text, whatever order they were retrieved in."""
    s0, s1 = _split(splitter, 0), _split(splitter, 1)
    mixed = [x for pair in zip(s0.chunks, s1.chunks, strict=False) for x in pair]
    docs = documents(mixed)
    files_of = {c.key: c.locus.file for c in docs.chunks if c.locus is not None}
    assert len(docs.runs) >= 2
    assert all(len({files_of[k] for k in run.keys}) == 1 for run in docs.runs)
    a, b = _chunk_text(s0, 0), _chunk_text(s1, 1)
    quote = " ".join(a.split()[-5:]) + " " + " ".join(b.split()[:5])
    assert _gate(docs, "paper-0.txt", quote) == "not_found"
    assert _gate(docs, None, quote) == "not_found"  # cited nowhere: searched everywhere


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_a_quote_across_a_boundary_of_another_file_is_misattributed(splitter: str) -> None:
    s0, s1 = _split(splitter, 0), _split(splitter, 1)
    quote, start, _ = crossing(s1, s1.joinable()[0])
    match = _gate(documents(s0.chunks, s1.chunks), "paper-0.txt", quote)
    assert match == "misattributed"
    assert len(match.source_document_ids) == 2 and match.file_start == start


def test_a_quote_across_a_boundary_citing_no_document_is_found() -> None:
    """Cited by no file (an answer that names no source): found in the rebuilt text."""
    s = _split("langchain")
    quote, _, _ = crossing(s, 2)
    assert _gate(documents(s.chunks), None, quote) == "found"


def test_the_rebuilt_texts_are_kept_with_the_document_set() -> None:
    """The same retrieval read again shares the texts rebuilt the first time."""
    s = _split("haystack")
    first = documents(s.chunks)
    runs = first.runs
    again = documents(s.chunks)
    assert again.runs is runs
    again.add_chunk("another text", [("extra", "id")])
    assert again.runs == runs and again.runs is not runs  # a changed set rebuilds its own
    assert first.runs is runs


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_evidence_across_a_boundary_is_located_as_one_passage(splitter: str) -> None:
    """A quote-less claim restating the sentence the splitter cut: located as one passage in
    the file's rebuilt text, reported with the chunks it spans and its file offsets."""
    from vcg_otel.evidence import EvidenceLocator, QuotelessStage, evidence_attributes
    from vcg_otel.otel import semconv

    s = _split(splitter)
    i = s.joinable()[0]
    # the sentence around the boundary's middle, as one claim
    middle = (s.spans[i + 1][0] + s.spans[i][1]) // 2
    lo = s.file.rfind(". ", 0, middle) + 2
    hi = s.file.find(". ", middle)
    sentence = s.file[lo:hi if hi != -1 else len(s.file)]
    docs = documents(s.chunks)
    assert all(sentence not in c.text for c in docs.chunks), "the splitter cut it"
    located = QuotelessStage(docs).check("paper-0.txt", sentence)
    assert located is not None and located.evidence is not None
    top = located.evidence.passages[0]
    assert sentence in top.text
    assert len(top.chunks) >= 2
    assert s.file[top.file_start:top.file_end] == top.text
    attrs = evidence_attributes(located)
    assert attrs[semconv.EVIDENCE_CHUNKS] == len(top.chunks)
    assert attrs[semconv.EVIDENCE_FILE_START] == top.file_start
    assert EvidenceLocator(docs).locate(sentence, [c.key for c in docs.chunks]).passages[0] == top


def test_a_match_across_chunks_is_on_the_check_span() -> None:
    """The decorator over a LangChain-style result: the check span says the match spanned
    two chunks, which, and where it is in the file."""
    from support.telemetry import Telemetry

    from vcg_otel import audited_citations
    from vcg_otel.otel import semconv

    s = _split("langchain")
    i = s.joinable()[1]
    quote, start, end = crossing(s, i)
    telemetry = Telemetry()

    @audited_citations(**telemetry.providers,
                       citations=lambda args, result: [Citation("c", "paper-0.txt", quote)])
    def answer(question: str) -> dict[str, object]:
        return {"input": question, "context": s.chunks, "answer": "..."}

    answer("what?")
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    attrs = dict(check.attributes or {})
    assert attrs[semconv.GATE_RESULT] == "found"
    assert attrs[semconv.GATE_MATCH_CHUNKS] == 2
    assert list(attrs[semconv.GATE_MATCH_CHUNK_IDS]) == [  # type: ignore[arg-type]
        "corpus/paper-0.txt" + (f"#{k}" if k else "") for k in (i, i + 1)]
    assert (attrs[semconv.GATE_MATCH_FILE_START], attrs[semconv.GATE_MATCH_FILE_END]) == (
        start, end)
    assert attrs[semconv.GATE_MATCH_CHUNK_START] == start - s.spans[i][0]
    assert attrs[semconv.GATE_MATCH_CHUNK_END] == end - s.spans[i + 1][0]


def test_haystack_chunks_naming_no_file_are_one_text_by_their_source_id() -> None:
    """Haystack's splitter records the parent document's id (``source_id``) next to each
    ``split_id``: chunks of a document that had no file path are joined by it, and a quote
    cited by that id crosses their boundary."""
    from haystack import Document
    from haystack.components.preprocessors import DocumentSplitter

    text = files(1)[0]
    parent = Document(content=text)
    chunks = DocumentSplitter(split_by="word", split_length=50, split_overlap=12).run(
        [parent])["documents"]
    spans = [(d.meta["split_idx_start"], d.meta["split_idx_start"] + len(d.content))
             for d in chunks]
    s = Split("haystack", parent.id, text, list(chunks), spans)
    quote, start, end = crossing(s, s.joinable()[0])
    match = _gate(documents(chunks), parent.id, quote)
    assert match == "found" and (match.file_start, match.file_end) == (start, end)


def test_llamaindex_retrieval_results_are_joined_through_their_nodes() -> None:
    """A retriever returns ``NodeWithScore``: the node under it carries the file (its SOURCE
    relationship) and the offsets."""
    from llama_index.core.schema import NodeWithScore

    s = _split("llamaindex")
    quote, start, end = crossing(s, s.joinable()[0])
    scored = [NodeWithScore(node=n, score=0.5) for n in reversed(s.chunks)]
    match = _gate(documents({"source_nodes": scored}), "paper-0.txt", quote)
    assert match == "found" and (match.file_start, match.file_end) == (start, end)


def test_pages_of_one_pdf_are_separate_texts() -> None:
    """LangChain's PDF loaders make one document per page (same ``source``, a ``page``); the
    splitter's ``start_index`` then counts from the page's start. Chunks of two pages are
    never joined, and file offsets are those of the page the splitter split."""
    from langchain_core.documents import Document as LCDocument
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    pages = files(2)
    splitter = RecursiveCharacterTextSplitter(chunk_size=320, chunk_overlap=96,
                                              add_start_index=True)
    chunks = splitter.split_documents([
        LCDocument(page_content=text, metadata={"source": "paper.pdf", "page": n})
        for n, text in enumerate(pages)])
    docs = documents(chunks)
    page_of = {c.key: c.locus.file for c in docs.chunks if c.locus is not None}
    assert len(set(page_of.values())) == 2
    assert all(len({page_of[k] for k in run.keys}) == 1 for run in docs.runs)
    last_of_first = max((c for c in chunks if c.metadata["page"] == 0),
                        key=lambda c: c.metadata["start_index"]).page_content
    quote = " ".join(last_of_first.split()[-5:]) + " " + " ".join(pages[1].split()[:5])
    assert _gate(docs, "paper.pdf", quote) == "not_found"
    second = [c for c in chunks if c.metadata["page"] == 1]
    s = Split("langchain", "paper.pdf", pages[1], second,
              [(c.metadata["start_index"], c.metadata["start_index"] + len(c.page_content))
               for c in second])
    honest, start, end = crossing(s, s.joinable()[0])
    match = _gate(docs, "paper.pdf", honest)
    assert match == "found" and (match.file_start, match.file_end) == (start, end)


def test_a_quote_across_the_space_llamaindex_strips_between_chunks_is_found() -> None:
    """SentenceSplitter starts a chunk after the space it cut at, without overlap, at more
    than half the boundaries of these files: the offsets leave a one-character gap (the
    stripped space). Every quote crossing such a boundary is found, with its file offsets."""
    crossed = 0
    for n, text in enumerate(files(10)):
        s = split("llamaindex", text, f"paper-{n}.txt")
        docs = documents(s.chunks)
        for (_, a_end), (b_start, b_end) in zip(s.spans, s.spans[1:], strict=False):
            if b_start - a_end != 1 or b_end - b_start < 30:
                continue
            assert s.file[a_end:b_start].isspace()
            start = s.file.rfind(" ", 0, a_end - 20) + 1
            end = s.file.find(" ", b_start + 20)
            quote = s.file[start:end].rstrip(".,;:?!")
            assert all(quote not in c.text for c in docs.chunks)
            match = _gate(docs, s.path, quote)
            assert match == "found", quote
            assert (match.file_start, match.file_end) == (start, start + len(quote))
            crossed += 1
    assert crossed >= 20


def test_a_frankenquote_across_a_bridged_space_is_not_found() -> None:
    """The bridge is the stripped space and nothing else: a quote joining the start of one
    chunk to the end of the next across that boundary stays not_found."""
    s = split("llamaindex", files(1)[0], "paper-0.txt")
    docs = documents(s.chunks)
    i = next(i for i, ((_, a1), (b0, _)) in enumerate(zip(s.spans, s.spans[1:], strict=False))
             if b0 - a1 == 1)
    (a0, a1), (b0, b1) = s.spans[i], s.spans[i + 1]
    head = " ".join(s.file[a0:a1].split()[:4])
    tail = " ".join(s.file[b0:b1].rstrip(".").split()[-4:])
    assert _gate(docs, s.path, f"{head} {tail}") == "not_found"
