"""Where things are: the repository root and the shared benchmark data the tests read."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the tests live in ``ROOT / "tests"``).
ROOT = Path(__file__).resolve().parents[2]

