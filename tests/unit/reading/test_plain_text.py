""":func:`vcg_otel.reading.walk.plain_text` makes a text what :class:`~vcg_otel.citation.Citation`
makes it (a ``str`` subclass's plain copy), so that a reader may build a citation by plain
slot stores (:func:`~vcg_otel.citation.exact_citation`): the very object the checking
constructor makes."""

from __future__ import annotations

from vcg_otel.citation import Citation, exact_citation
from vcg_otel.reading.walk import plain_text


class _Text(str):
    """A ``str`` subclass that would lie about its length."""

    def __len__(self) -> int:
        return 0


def test_a_text_is_made_plain_and_anything_else_is_no_text() -> None:
    plain = "a quote"
    assert plain_text(plain) is plain
    made = plain_text(_Text("a quote"))
    assert type(made) is str and made == "a quote" and len(made) == 7
    for value in (None, 3, b"a quote", ["a quote"]):
        assert plain_text(value) is None


def test_a_citation_of_plain_texts_is_the_one_the_constructor_makes() -> None:
    claim, quote = _Text("the claim"), _Text("a quote")
    checked = Citation(claim, "doc-1", quote, 1, 2, (0, 9))
    built = exact_citation(plain_text(claim), "doc-1", plain_text(quote), 1, 2, (0, 9))
    assert built == checked and type(built) is Citation
    assert [type(v) for v in (built.claim, built.quote)] == [str, str]
