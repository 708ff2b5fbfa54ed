"""A string enum that prints as its value (``enum.StrEnum`` needs Python 3.11)."""

from __future__ import annotations

from enum import Enum

from ._memo import Memo

__all__ = ["VALUE", "StrEnum"]


class StrEnum(str, Enum):
    """Members are strings: they compare equal to, and print as, their values."""

    def __str__(self) -> str:
        return str(self.value)


#: ``VALUE[member]``: a :class:`StrEnum` member's value as a plain ``str`` (what telemetry
#: writes), for a dictionary lookup where ``member.value`` costs an enum property call (5x as
#: much; telemetry reads about 30 per audited call). Members hash and compare as their values,
#: so members of two enums with one value share an entry, which is that value either way.
VALUE: dict[str, str] = Memo(str.__str__)
