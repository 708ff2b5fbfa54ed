"""What proves two chunks of a file consecutive (vcg_otel.stitch), and what never does; and
how offsets in a rebuilt text map back to chunks and file (vcg_otel.places).

Hand-cut chunks of an abstract written by people, so that each rule is shown on its own.
"""

from __future__ import annotations

from support.splits import files

from vcg_otel.audit.models import Citation
from vcg_otel.documents import DocumentSet
from vcg_otel.stitch import MAX_BRIDGED_GAP, MIN_OVERLAP, Locus, runs

FILE = files(1)[0]


def _item(key: str, start: int, end: int, offsets: bool = True,
          file: str = "f") -> tuple[str, str, Locus]:
    return key, FILE[start:end], Locus(file, start if offsets else None)


def test_offsets_that_overlap_and_agree_join_chunks_in_file_order() -> None:
    (run,) = runs([_item("b", 300, 700), _item("a", 0, 400), _item("c", 650, 1000)])
    assert run.keys == ("a", "b", "c")
    assert run.text == FILE[0:1000] and run.file_start == 0


def test_chunks_that_touch_exactly_are_joined_by_their_offsets() -> None:
    (run,) = runs([_item("a", 0, 400), _item("b", 400, 800)])
    assert run.text == FILE[:800]


def _word_edges(start: int, end: int) -> tuple[int, int]:
    """``start`` moved to a word's first letter, ``end`` to a word's end (as splitters cut)."""
    while FILE[start - 1] != " " or FILE[start] == " ":
        start += 1
    while FILE[end] != " " or FILE[end - 1] == " ":
        end -= 1
    return start, end


def test_the_whitespace_a_splitter_stripped_between_two_chunks_is_bridged() -> None:
    """LlamaIndex's SentenceSplitter starts a chunk without overlap after the space it cut
    at: the offsets leave a one-character gap, and the rebuilt text has a space there."""
    a_end = _word_edges(1, 400)[1]
    b_start = a_end + 1
    a = ("a", FILE[0:a_end], Locus("f", 0))
    b = ("b", FILE[b_start:800], Locus("f", b_start))
    (run,) = runs([a, b])
    assert run.text == FILE[0:a_end] + " " + FILE[b_start:800]
    assert run.text.split() == FILE[:800].split()  # the same words, in the same places
    assert run.file_start == 0


def test_a_gap_wider_than_stripped_whitespace_is_never_bridged() -> None:
    """What a gap of more than MAX_BRIDGED_GAP characters held is not known."""
    a_end = _word_edges(1, 400)[1]
    a = ("a", FILE[0:a_end], Locus("f", 0))
    b = ("b", FILE[a_end + MAX_BRIDGED_GAP + 1:800], Locus("f", a_end + MAX_BRIDGED_GAP + 1))
    assert runs([a, b]) == ()


def test_a_gap_next_to_whitespace_the_chunk_kept_is_never_bridged() -> None:
    """A chunk that kept its edge's whitespace was not stripped there: the gap is something
    else."""
    assert runs([("a", "x" * 300 + " ", Locus("f", 0)), ("b", "y" * 300, Locus("f", 302))]) == ()


def test_offsets_whose_texts_disagree_join_nothing() -> None:
    """The metadata says the chunks overlap, the texts say otherwise (a chunk edited after
    splitting, offsets of another file): the texts win."""
    a = _item("a", 0, 400)
    b = ("b", FILE[300:700].replace(FILE[310:320], "x" * 10), Locus("f", 300))
    assert runs([a, b]) == ()


def test_an_overlap_shorter_than_the_minimum_proves_nothing() -> None:
    short = MIN_OVERLAP - 1
    assert runs([_item("a", 0, 400, False), _item("b", 400 - short, 800, False)]) == ()
    (run,) = runs([_item("a", 0, 400, False), _item("b", 400 - MIN_OVERLAP - 1, 800, False)])
    assert run.text == FILE[:800] and run.file_start is None


def test_an_overlap_that_could_align_two_ways_proves_nothing() -> None:
    """A repeated passage: the next chunk's start occurs twice at the end of the previous
    one, and either alignment would give a different text. Neither is chosen."""
    unit = "the same sentence again, " * 4
    a = ("a", "Intro. " + unit + unit, Locus("f"))
    b = ("b", unit + unit + "and then something new.", Locus("f"))
    assert runs([a, b]) == ()


def test_a_chunk_inside_another_is_no_successor() -> None:
    assert runs([_item("a", 0, 800), _item("b", 100, 500)]) == ()


def test_chunks_of_different_files_are_never_compared() -> None:
    assert runs([_item("a", 0, 400, file="x"), _item("b", 300, 700, file="y")]) == ()


def test_two_candidates_for_one_place_are_linked_to_neither() -> None:
    """Two copies of one chunk under different keys both claim to follow the same chunk:
    the link is dropped rather than guessed."""
    a = _item("a", 0, 400)
    b1, b2 = _item("b1", 300, 700), _item("b2", 300, 700)
    found = runs([b1, a, b2])
    assert all(len(r.pieces) >= 2 for r in found)
    assert not any(r.keys in (("b1", "b2"), ("b2", "b1")) for r in found)


def test_places_name_the_fewest_chunks_and_offsets_in_each_and_in_the_file() -> None:
    (run,) = runs([_item("a", 100, 500), _item("b", 400, 800), _item("c", 700, 1100)])
    # run offsets: the run's text starts at file offset 100 (a: 0-400, b: 300-700, c: 600-)
    inside = run.places(50, 200)
    assert inside.chunks == ("a",) and (inside.chunk_start, inside.chunk_end) == (50, 200)
    across = run.places(250, 650)  # a alone ends at 400; b holds the rest
    assert across.chunks == ("a", "b")
    assert (across.chunk_start, across.chunk_end) == (250, 350)
    assert (across.file_start, across.file_end) == (350, 750)
    three = run.places(10, 950)
    assert three.chunks == ("a", "b", "c") and three.chunk_end == 950 - 600


def test_a_citation_joins_only_the_chunks_it_names() -> None:
    """A run of three chunks, a citation naming the first two by position: the quote that
    crosses from the first into the second is found; one crossing into the third is not in
    what was cited."""
    docs = DocumentSet()
    for pos, (start, end) in enumerate([(0, 400), (300, 700), (600, 1000)]):
        docs.add_chunk(FILE[start:end], [(f"c{pos}", "id"), ("paper.txt", "path")], pos,
                       Locus("paper.txt", start))
    inside = FILE[FILE.rfind(" ", 0, 280) + 1:FILE.find(" ", 420)]
    assert inside not in FILE[0:400] and inside not in FILE[300:700]
    match = docs.gate(Citation("c", "paper.txt", inside))
    assert match == "found" and match.chunks == ("c0", "c1")  # type: ignore[union-attr]
    far = FILE[FILE.rfind(" ", 0, 580) + 1:FILE.find(" ", 720)]
    assert far not in FILE[300:700] and far not in FILE[600:1000]
    assert docs.gate(Citation("c", "c1", far)) == "misattributed"  # in c1..c2, c2 not cited
    assert docs.gate(Citation("c", "paper.txt", far)) == "found"


def test_a_search_cut_short_across_chunks_is_never_a_fabrication() -> None:
    """Whatever the budget, a quote across chunks is found or cut short (``search_limit``),
    never ``no_match``: running out is not showing it absent."""
    from vcg_otel.gate.search import SearchBudget

    docs = DocumentSet()
    for pos, (start, end) in enumerate([(0, 400), (300, 700), (600, 1000)]):
        docs.add_chunk(FILE[start:end], [("paper.txt", "path")], pos, Locus("paper.txt", start))
    quote = FILE[FILE.rfind(" ", 0, 280) + 1:FILE.find(" ", 420)]
    outcomes = set()
    for steps in range(1, 120):
        match = docs.gate(Citation("c", "paper.txt", quote), budget=SearchBudget(steps))
        assert match is not None
        outcomes.add((match.result.value, None if match.reason is None else match.reason.value))
    assert outcomes <= {("found", None), ("not_found", "search_limit")}
    assert ("found", None) in outcomes
