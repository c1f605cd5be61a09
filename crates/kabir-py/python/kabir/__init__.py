"""kabir: the Shatranj family of chess games from Python.

Shatranj, Tamerlane chess (with its citadels, typed pawns and king swap), Knavish Shatranj and
their relatives: variants, positions and legal moves, game records read and replayed with
every problem found, and diagrams for notebooks.

>>> import kabir
>>> pos = kabir.Variant("tamerlane").start()
>>> len(pos.legal_moves())
24
"""

from kabir._errors import (
    AmbiguousMoveError,
    DatabaseError,
    FenError,
    IllegalMoveError,
    KabirError,
    NotationError,
    QueryError,
    ReadError,
    VariantError,
)
from kabir._kabir import (
    Database,
    Game,
    GameReader,
    Move,
    Piece,
    Position,
    Problem,
    Status,
    Variant,
    __version__,
    read_games,
    read_games_text,
    variants,
)

__all__ = [
    "AmbiguousMoveError",
    "Database",
    "DatabaseError",
    "FenError",
    "Game",
    "GameReader",
    "IllegalMoveError",
    "KabirError",
    "Move",
    "NotationError",
    "Piece",
    "Position",
    "Problem",
    "QueryError",
    "ReadError",
    "Status",
    "Variant",
    "VariantError",
    "__version__",
    "read_games",
    "read_games_text",
    "variants",
]
