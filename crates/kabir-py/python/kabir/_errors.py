"""The exceptions kabir raises. Each carries what it is about as attributes."""

from __future__ import annotations

from typing import Any, List, Optional


class KabirError(Exception):
    """The base class of every exception kabir raises."""

    def __init__(self, message: str, **attrs: Any) -> None:
        super().__init__(message)
        self.message = message
        for name, value in attrs.items():
            setattr(self, name, value)


class VariantError(KabirError, ValueError):
    """A variant name that is not known, or a variant definition that is refused."""

    name: Optional[str] = None


class FenError(KabirError, ValueError):
    """A position string that is not a legal position of its variant."""

    fen: Optional[str] = None
    kind: Optional[str] = None


class NotationError(KabirError, ValueError):
    """Text that is not a move in any form kabir reads."""

    text: Optional[str] = None


class IllegalMoveError(KabirError, ValueError):
    """A move that is not legal in its position; `legal_moves` lists those that are (SAN)."""

    text: Optional[str] = None
    fen: Optional[str] = None
    legal_moves: List[str] = []


class AmbiguousMoveError(IllegalMoveError):
    """Move text that fits several legal moves; `candidates` lists them (SAN)."""

    candidates: List[str] = []


class ReadError(KabirError, OSError):
    """A file or file object that could not be read; `offset` is the byte where it failed."""

    offset: int = 0


class DatabaseError(KabirError):
    """A database that cannot be opened, read or written (not found, damaged, newer than this
    version, opened for queries only, closed)."""


class QueryError(KabirError, ValueError):
    """A query argument that is not one of the accepted words or values; `parameter` names it."""

    parameter: Optional[str] = None


__all__ = [
    "DatabaseError",
    "QueryError",
    "KabirError",
    "VariantError",
    "FenError",
    "NotationError",
    "IllegalMoveError",
    "AmbiguousMoveError",
    "ReadError",
]
