"""A string enum that prints as its value (``enum.StrEnum`` needs Python 3.11)."""

from __future__ import annotations

from enum import Enum

__all__ = ["StrEnum"]


class StrEnum(str, Enum):
    """Members are strings: they compare equal to, and print as, their values."""

    def __str__(self) -> str:
        return str(self.value)
