"""Reading helpers for file objects."""

from __future__ import annotations

from typing import IO, Any, Union


class Chain:
    """Bytes already read from a text file, then the rest of the file (as its `read` gives)."""

    def __init__(self, first: IO[bytes], rest: IO[Any]) -> None:
        self.first = first
        self.rest = rest

    def read(self, n: int = -1) -> Union[bytes, str]:
        chunk = self.first.read(n)
        if chunk:
            return chunk
        return self.rest.read(n)
