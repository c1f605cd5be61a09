"""Type stubs of the extension module (re-exported by `kabir`)."""

from os import PathLike
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence, Union

__version__: str

StrPath = Union[str, PathLike[str]]

def variants() -> List[str]:
    """The ids of the built-in variants."""

class Variant:
    """A variant: board, pieces, start position and rules."""

    def __init__(self, name: str) -> None: ...
    @staticmethod
    def from_file(path: StrPath) -> Variant:
        """Reads a variant definition file (TOML)."""
    @staticmethod
    def from_toml(text: str) -> Variant:
        """Reads a variant definition from its TOML text."""
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def files(self) -> int: ...
    @property
    def ranks(self) -> int: ...
    def squares(self) -> List[str]:
        """The names of every square, citadels included."""
    def start(self) -> Position:
        """The start position."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Piece:
    """A piece: its side, its kind's id and its symbol."""

    @property
    def color(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def symbol(self) -> str: ...

class Move:
    """A move of a position."""

    @property
    def from_square(self) -> str: ...
    @property
    def to_square(self) -> str: ...
    def uci(self) -> str:
        """The move in coordinate notation."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Status:
    """Whether the game goes on, and if not, how it ended."""

    @property
    def is_over(self) -> bool: ...
    @property
    def termination(self) -> Optional[str]: ...
    @property
    def result(self) -> Optional[str]: ...
    def __bool__(self) -> bool: ...

class Position:
    """A position of a variant. Immutable: `play` returns a new position."""

    def __init__(self, variant: Union[Variant, str], fen: Optional[str] = None) -> None: ...
    @property
    def variant(self) -> Variant: ...
    @property
    def turn(self) -> str:
        """`white` or `black`."""
    def fen(self) -> str: ...
    def board(self) -> Dict[str, Piece]:
        """The pieces by square name."""
    def legal_moves(self) -> List[Move]: ...
    def is_check(self) -> bool: ...
    def san(self, move: Union[Move, str]) -> str:
        """The move in canonical SAN, with its check or mate mark."""
    def parse_san(self, text: str) -> Move:
        """The legal move written `text` (SAN in any form the reader takes, or coordinates)."""
    def play(self, move: Union[Move, str]) -> Position:
        """The position after a legal move."""
    def status(self) -> Status: ...
    def perft(self, depth: int) -> int: ...
    def svg(self, flipped: bool = False, caption: Optional[str] = None) -> str: ...
    def _repr_svg_(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Problem:
    """A problem found in a game."""

    @property
    def kind(self) -> str: ...
    @property
    def severity(self) -> str:
        """`error` or `warning`."""
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def ply(self) -> Optional[int]: ...
    @property
    def fen(self) -> Optional[str]: ...
    @property
    def legal_moves(self) -> List[str]: ...

class Game:
    """A game as read and replayed."""

    @property
    def number(self) -> int: ...
    @property
    def tags(self) -> Dict[str, str]: ...
    @property
    def result(self) -> str: ...
    @property
    def variant(self) -> Optional[Variant]: ...
    @property
    def moves(self) -> List[str]:
        """The main line in canonical SAN, as far as it could be replayed."""
    @property
    def problems(self) -> List[Problem]: ...
    @property
    def is_valid(self) -> bool: ...
    def status(self) -> Optional[Status]: ...
    def positions(self) -> List[Position]: ...
    def pgn(self) -> str: ...

class GameReader(Iterator[Game]):
    """A lazy iterator of games."""

    def __iter__(self) -> GameReader: ...
    def __next__(self) -> Game: ...

def read_games(
    source: Union[StrPath, IO[bytes], IO[str]],
    *,
    variants: Optional[Sequence[Variant]] = None,
    default_variant: Union[Variant, str, None] = None,
) -> GameReader:
    """Reads the games of a path or file object lazily, replaying each."""

def read_games_text(
    text: str,
    *,
    variants: Optional[Sequence[Variant]] = None,
    default_variant: Union[Variant, str, None] = None,
) -> GameReader:
    """Reads the games of a string lazily, replaying each."""

class Database:
    """A game database file, for queries only unless `write=True`."""

    def __init__(
        self, path: StrPath, *, write: bool = False, variants: Optional[Sequence[Variant]] = None
    ) -> None: ...
    @property
    def read_only(self) -> bool: ...
    def __len__(self) -> int: ...
    def import_files(
        self, paths: Sequence[StrPath], *, default_variant: Optional[str] = None
    ) -> Dict[str, int]: ...
    def explore(
        self,
        position: Optional[Position] = None,
        *,
        variant: Union[Variant, str, None] = None,
        moves: Optional[Sequence[str]] = None,
        depth: int = 1,
        breadth: int = 3,
        examples: int = 3,
        max_nodes: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def search(
        self,
        *,
        variant: Optional[str] = None,
        player: Optional[str] = None,
        color: Optional[str] = None,
        event: Optional[str] = None,
        site: Optional[str] = None,
        result: Optional[str] = None,
        date_from: Optional[str] = None,
        date_to: Optional[str] = None,
        termination: Optional[str] = None,
        special: Optional[Sequence[str]] = None,
        min_plies: Optional[int] = None,
        max_plies: Optional[int] = None,
        position: Optional[Position] = None,
        sort: str = "id",
        reverse: bool = False,
        limit: Optional[int] = 50,
        offset: int = 0,
    ) -> Dict[str, Any]: ...
    def stats(
        self,
        *,
        by: Optional[str] = None,
        variant: Optional[str] = None,
        player: Optional[str] = None,
        color: Optional[str] = None,
        event: Optional[str] = None,
        site: Optional[str] = None,
        result: Optional[str] = None,
        date_from: Optional[str] = None,
        date_to: Optional[str] = None,
        termination: Optional[str] = None,
        special: Optional[Sequence[str]] = None,
        min_plies: Optional[int] = None,
        max_plies: Optional[int] = None,
        opening_plies: int = 4,
        top: int = 10,
    ) -> Dict[str, Any]: ...
    def game(self, id: int, *, ply: Optional[int] = None) -> Optional[Dict[str, Any]]: ...
    def close(self) -> None: ...
    def __enter__(self) -> Database: ...
    def __exit__(self, *args: Any) -> bool: ...
