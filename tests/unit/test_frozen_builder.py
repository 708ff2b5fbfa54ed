"""``slot_builder`` makes what a frozen, slotted dataclass's constructor makes, and refuses
the classes it cannot build faithfully."""

from __future__ import annotations

import dataclasses

import pytest

from vcg_otel import _frozen
from vcg_otel._frozen import slot_builder
from vcg_otel.citation import Citation, plain_citation


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    label: str = "p"


def test_a_built_instance_is_the_constructor_s() -> None:
    made = slot_builder(Point)(1, 2, "q")
    assert type(made) is Point and made == Point(1, 2, "q") and repr(made) == repr(Point(1, 2, "q"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.x = 5  # type: ignore[misc]


def test_every_field_must_be_given() -> None:
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        slot_builder(Point)(1, 2)


def test_a_class_with_post_init_or_without_slots_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        x: int

    with pytest.raises(TypeError, match="__post_init__"):
        slot_builder(Checked)
    with pytest.raises(TypeError, match="not a slotted dataclass"):
        slot_builder(Unslotted)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class LabelledPoint(Point):
    note: str = ""


def test_a_subclass_sets_its_base_s_fields_through_the_base_s_slots() -> None:
    made = slot_builder(LabelledPoint)(1, 2, "q", "n")
    expected = LabelledPoint(1, 2, "q", "n")
    assert type(made) is LabelledPoint and repr(made) == repr(expected)
    assert [getattr(made, f.name) for f in dataclasses.fields(LabelledPoint)] == [1, 2, "q", "n"]


class _Loud(str):
    """A str subclass: what the checking constructor turns into a plain str."""


@pytest.mark.parametrize("values", [
    ("Rates fell in May.", "doc-1", "rates fell", None, None, None),
    ("", None, None, 3, 9, (0, 40)),
    ("claim", "doc-2", None, None, None, None),
    (_Loud("a claim"), "doc-1", _Loud("a quote"), None, None, None),
    ("claim", 7, "q", None, None, None),
])
def test_a_plain_citation_is_the_checking_constructor_s(values: tuple) -> None:  # type: ignore[type-arg]
    made, checked = plain_citation(*values), Citation(*values)
    assert made == checked
    assert [type(getattr(made, f.name)) for f in dataclasses.fields(Citation)] == [
        type(getattr(checked, f.name)) for f in dataclasses.fields(Citation)]


def test_a_plain_citation_refuses_what_the_constructor_refuses() -> None:
    with pytest.raises(TypeError, match="claim must be str"):
        plain_citation(b"bytes", "doc-1", "q")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="quote must be str or None"):
        plain_citation("claim", "doc-1", 5)  # type: ignore[arg-type]


def test_a_built_instance_stays_frozen_and_of_the_dataclass_alone() -> None:
    made = slot_builder(LabelledPoint)(1, 2, "q", "n")
    assert type(made) is LabelledPoint and made.__class__ is LabelledPoint
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.note = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.x  # type: ignore[misc]
    assert dataclasses.replace(made, note="m") == LabelledPoint(1, 2, "q", "m")
    assert hash(slot_builder(Point)(1, 2, "q")) == hash(Point(1, 2, "q"))


def test_the_descriptor_builder_makes_what_the_store_class_builder_makes() -> None:
    # the fallback, for an interpreter that would refuse the class change
    names = [f.name for f in dataclasses.fields(LabelledPoint)]
    by_store = _frozen._by_store_class(LabelledPoint, names)(1, 2, "q", "n")
    by_descriptors = _frozen._by_descriptors(LabelledPoint, names)(1, 2, "q", "n")
    assert type(by_descriptors) is type(by_store) is LabelledPoint
    assert repr(by_descriptors) == repr(by_store) == repr(LabelledPoint(1, 2, "q", "n"))
    assert _frozen._builds(_frozen._by_descriptors(Point, ["x", "y", "label"]), Point,
                           ["x", "y", "label"])
    assert not _frozen._builds(lambda *values: Point(0), Point, ["x", "y", "label"])


@dataclasses.dataclass(frozen=True, slots=True)
class Tagged:
    x: int
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    label: str = "t"
    weight: float = 1.0


def test_a_builder_with_defaults_takes_keywords_and_leaves_out_what_the_constructor_does() -> None:
    build = slot_builder(Tagged, defaults=True)
    assert build(1, ("a",), weight=2.0) == Tagged(1, ("a",), weight=2.0)
    assert build(1, ()) == Tagged(1, ())
    # a field with a default_factory is not one a function's defaults can stand for
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'tags'"):
        build(1)
