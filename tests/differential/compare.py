#!/usr/bin/env python3
"""Differential test of kabir's move generator against Fairy-Stockfish (pyffish).

Plays seeded random games in pyffish for `shatranj`, `knavish-shatranj`, `chaturanga` and
`courier`, and at every position reached asks kabir (`kabir perft --variant V --fen F --divide 1`) for its legal moves.
The two move sets must be equal, and so must the two verdicts on whether the game is over.
On a few positions it also compares perft totals at a small depth (pyffish has no perft, so it
is computed here by recursion over `pyffish.legal_moves`).

The random play prefers promotions and captures (how strongly is drawn per game); in a share of
the games a side not behind in material then hems in the enemy king and spares its last piece.
So most games end by the rules: bare king, checkmate, stalemate.

RULES.md's two-bare-kings draw, which Fairy-Stockfish does not have, is applied on pyffish's
side in the variants with a bare-king rule (see `pyffish_position`).

Only pyffish and the standard library are used. Exit status: 0 when everything agrees, 1 on any
mismatch, 2 on a usage or setup error. The last line of output is `N passed, M failed`, counting
compared positions (move-set comparisons and perft comparisons).

Usage: python3 tests/differential/compare.py [--kabir target/release/kabir] [--games N] ...
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

try:
    import pyffish as sf
except ImportError:  # pragma: no cover - reported to the user
    sys.stderr.write("compare.py needs pyffish: pip install pyffish==0.0.90\n")
    sys.exit(2)

# Knavish Shatranj for Fairy-Stockfish, built on its shatranj template (ferz, rook, king, pawns
# promoting to a ferz only, no double step, stalemate loses, the shatranj bare-king rule).
# Knave = the verticalmost knight moves and the sideways dabbaba jump (from c3: b5 d5 b1 d1 a3
# e3); debtor = the knave turned through 90 degrees (from c3: a2 a4 e2 e4 c1 c5).
# The permanent-check rule of RULES.md needs the game's history; kabir's perft starts from a
# position string without history, so the rule never applies here and is not configured.
KNAVISH_INI = """
[knavish:shatranj]
knight = -
alfil = -
customPiece1 = v:vNsD
customPiece2 = d:sNvD
startFen = rvdqkdvr/pppppppp/8/8/8/8/PPPPPPPP/RVDQKDVR w - - 0 1
"""

# kabir variant id -> pyffish variant name.
VARIANTS = {
    "shatranj": "shatranj",
    "knavish-shatranj": "knavish",
    "chaturanga": "chaturanga",
    "courier": "courier",
}

# The variants with a bare-king rule, where two bare kings are a draw (RULES.md). Chaturanga
# has none: there, as in Fairy-Stockfish, two kings play on.
BARE_KING_RULE = {"shatranj", "knavish-shatranj", "courier"}

# Random games per variant when --games is not given. Chaturanga's and Courier's games are
# longer (no bare-king rule; a larger board), so fewer of them keep the run near two minutes.
DEFAULT_GAMES = {"shatranj": 20, "knavish-shatranj": 20, "chaturanga": 10, "courier": 10}

# Board size (files, ranks) where it is not 8x8.
BOARD_SIZE = {"courier": (12, 8)}

# How strongly a game prefers captures over quiet moves (weight of a capture; a quiet move
# weighs 1, a promotion PROMOTION_WEIGHT). One of these is drawn per game.
CAPTURE_BIASES = (1, 4, 16, 64, 256)
PROMOTION_WEIGHT = 64
# Hunting for checkmate and stalemate starts when at most this many pieces are on the board.
HUNT_PIECES = 12

KINGS = ("K", "k")

# Positions set up by hand, compared before the games: the bare-king timing of RULES.md, two
# bare kings, stalemate, promotions with and without capture, the knave and debtor at edges,
# Chaturanga's kings playing on without a bare-king rule, Courier's pieces at the board's edges.
SET_UP = {
    "shatranj": [
        "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1",  # RULES.md: still in play
        "8/3k4/5R2/8/4K3/8/8/8 w - - 0 1",  # after any black move: White has won
        "8/8/8/8/8/3k4/3R4/7K b - - 0 1",  # the bared king can take the last piece
        "8/8/8/8/8/8/3k4/7K w - - 0 1",  # two bare kings: a draw, game over
        "8/8/8/8/8/3k4/3R4/3K4 b - - 0 1",  # the last piece is guarded
        "3k4/3P4/3K4/8/8/8/8/7R b - - 0 1",  # bare against two pieces: lost at once
        "k7/2Q5/1K6/8/7p/7P/8/8 b - - 0 1",  # stalemate: Black loses
        "k7/2K5/8/8/7p/7P/8/R7 b - - 0 1",  # checkmate
        "3r4/4P3/8/8/8/k7/8/K7 w - - 0 1",  # promotion with and without capture
        "k7/8/8/8/8/8/4p3/K2R4 b - - 0 1",  # Black promotes
    ],
    "knavish-shatranj": [
        "r3k3/8/8/3V4/8/2D5/8/4K3 w - - 0 1",
        "v6k/8/8/8/8/8/8/K6D b - - 0 1",
        "d6k/8/8/8/8/8/8/K6V b - - 0 1",
        "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1",
        "8/8/8/8/8/8/3k4/7K b - - 0 1",
        "3r4/4P3/8/8/8/k7/8/K7 w - - 0 1",
    ],
    "chaturanga": [
        "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1",  # a bare king plays on
        "8/8/8/8/8/3k4/3R4/3K4 b - - 0 1",  # ... and the last piece, guarded, stays
        "8/8/8/8/8/8/3k4/7K w - - 0 1",  # two kings play on
        "k7/2Q5/1K6/8/7p/7P/8/8 b - - 0 1",  # stalemate: Black loses
        "k7/2K5/8/8/7p/7P/8/R7 b - - 0 1",  # checkmate
        "3r4/4P3/8/8/8/k7/8/K7 w - - 0 1",  # promotion with and without capture
    ],
    "courier": [
        "4k7/12/7R4/12/12/4K7/12/12 b - - 0 1",  # bare king against one piece: still in play
        "4k7/12/7R4/12/12/4K7/12/12 w - - 0 1",  # after any black move: White has won
        "4k7/12/12/12/12/12/3m8/4K7 w - - 0 1",  # the bared king can take the mann
        "12/12/12/12/12/12/3k8/11K w - - 0 1",  # two bare kings: a draw, game over
        "k11/2M9/1K10/12/12/12/12/12 b - - 0 1",  # stalemated by the mann: Black loses
        "3r8/4P7/12/12/12/k11/12/K11 w - - 0 1",  # promotion to a ferz, with and without capture
        "B10b/12/5W6/k11/11K/5w6/12/b10B w - - 0 1",  # bishops in the corners, wazirs
        "k11/12/12/4E7/12/12/12/K10E w - - 0 1",  # alfils at the edge and centre
        "kr10/M11/12/12/12/12/12/K11 b - - 0 1",  # check by a mann
    ],
}


# ----------------------------------------------------------------------------------------------
# A minimal board, for move choice (captures) and for the bare-kings rule difference.


def parse_board(fen: str) -> dict[str, str]:
    """Square name -> piece letter, from the placement field of a position string with at most
    nine ranks (a run of empty cells may have two digits: `12` on Courier's board)."""
    board: dict[str, str] = {}
    rows = fen.split()[0].split("/")
    for i, row in enumerate(rows):
        rank = len(rows) - i
        file = 0
        run = ""
        for ch in row:
            if ch.isdigit():
                run += ch
                continue
            file += int(run or 0)
            run = ""
            board[f"{chr(ord('a') + file)}{rank}"] = ch
            file += 1
    return board


def apply_move(board: dict[str, str], move: str) -> dict[str, str]:
    """The board after a coordinate move (no castling or en passant in these variants)."""
    b = dict(board)
    frm, to, promo = move[:2], move[2:4], move[4:]
    piece = b.pop(frm)
    if promo:
        piece = promo.upper() if piece.isupper() else promo.lower()
    b[to] = piece
    return b


def only_kings(board: dict[str, str]) -> bool:
    return all(p in KINGS for p in board.values())


# ----------------------------------------------------------------------------------------------
# The two sides.


@dataclass
class Verdict:
    over: bool
    why: str  # "ongoing", "checkmate", "stalemate", "bare king", "bare kings"
    result: str  # "*", "1-0", "0-1", "1/2-1/2"

    def __str__(self) -> str:
        return "ongoing" if not self.over else f"over ({self.why}, {self.result})"


def result_for(value: int, white_to_move: bool) -> str:
    """A pyffish game value (for the side to move) as a result string."""
    if value == 0:
        return "1/2-1/2"
    return "1-0" if (value > 0) == white_to_move else "0-1"


def pyffish_position(variant: str, fen: str) -> tuple[list[str], Verdict]:
    """pyffish's legal moves and verdict, with the documented rule difference applied."""
    fv = VARIANTS[variant]
    board = parse_board(fen)
    white = fen.split()[1] == "w"
    # RULES.md (Shatranj, bare king): "if it captures that piece, two bare kings remain, a
    # draw". The game is over, so kabir has no moves there (RULES.md, perft convention).
    # Fairy-Stockfish does not end the game at K vs K and still lists the king moves: a known
    # rule difference, not a bug.
    if variant in BARE_KING_RULE and only_kings(board):
        return [], Verdict(True, "bare kings", "1/2-1/2")
    legal = sf.legal_moves(fv, fen, [])
    if legal:
        return legal, Verdict(False, "ongoing", "*")
    # No legal move: pyffish's legal_moves is empty at a bare-king end too (as at mate and
    # stalemate), so tell the three apart.
    ended, value = sf.is_immediate_game_end(fv, fen, [])
    if ended:
        return [], Verdict(True, "bare king", result_for(value, white))
    value = sf.game_result(fv, fen, [])
    why = "checkmate" if sf.gives_check(fv, fen, []) else "stalemate"
    return [], Verdict(True, why, result_for(value, white))


@dataclass
class KabirAnswer:
    moves: list[str] | None  # None on error
    total: int = 0
    error: str = ""
    counts: dict[str, int] = field(default_factory=dict)


def kabir_divide(binary: str, variant: str, fen: str, depth: int) -> KabirAnswer:
    """kabir's `perft --divide` rows (`move count`) and the total."""
    try:
        p = subprocess.run(
            [binary, "perft", "--variant", variant, "--fen", fen, "--divide", str(depth)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return KabirAnswer(None, error=str(e))
    if p.returncode != 0:
        return KabirAnswer(None, error=f"exit {p.returncode}: {p.stderr.strip()}")
    lines = p.stdout.split()
    try:
        total = int(lines[-1])
        rows = p.stdout.strip().splitlines()[:-1]
        moves = [r.split()[0] for r in rows]
        counts = [int(r.split()[1]) for r in rows]
    except (IndexError, ValueError):
        return KabirAnswer(None, error=f"unreadable output: {p.stdout!r}")
    if sum(counts) != total:
        return KabirAnswer(None, error=f"divide rows add up to {sum(counts)}, total {total}")
    return KabirAnswer(moves, total, counts=dict(zip(moves, counts)))


# ----------------------------------------------------------------------------------------------
# Random games.


@dataclass
class Sample:
    variant: str
    fen: str
    path: list[str]  # moves from the start position
    legal: list[str]
    verdict: Verdict
    game: int
    kabir: Future = field(repr=False, default=None)  # type: ignore[assignment]


def choose(rng: random.Random, board: dict[str, str], legal: list[str], bias: int) -> str:
    weights = []
    for m in legal:
        if len(m) > 4:
            weights.append(PROMOTION_WEIGHT)
        elif m[2:4] in board:
            weights.append(bias)
        else:
            weights.append(1)
    return rng.choices(legal, weights)[0]


def material(board: dict[str, str], white: bool) -> int:
    return sum(1 for p in board.values() if p.isupper() == white and p not in KINGS)


# Attack patterns for the hunter's rough judgement only (the legal moves always come from
# pyffish): leaps as (file, rank) offsets, and slides as directions. A letter means different
# pieces in different variants (Shatranj's `b` is an alfil, Courier's a bishop).
KING_STEPS = [(f, r) for f in (-1, 0, 1) for r in (-1, 0, 1) if (f, r) != (0, 0)]
DIAGONAL = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
ORTHOGONAL = [(1, 0), (-1, 0), (0, 1), (0, -1)]
ALFIL = [(2, 2), (2, -2), (-2, 2), (-2, -2)]
KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
SHATRANJ_LEAPS = {"k": KING_STEPS, "q": DIAGONAL, "b": ALFIL, "n": KNIGHT}
LEAPS = {
    "shatranj": SHATRANJ_LEAPS,
    "chaturanga": SHATRANJ_LEAPS,
    "knavish-shatranj": {
        "k": KING_STEPS,
        "q": DIAGONAL,
        "v": [(1, 2), (-1, 2), (1, -2), (-1, -2), (2, 0), (-2, 0)],  # knave
        "d": [(2, 1), (-2, 1), (2, -1), (-2, -1), (0, 2), (0, -2)],  # debtor
    },
    "courier": {
        "k": KING_STEPS,
        "m": KING_STEPS,  # mann
        "f": DIAGONAL,  # ferz
        "w": ORTHOGONAL,  # wazir
        "e": ALFIL,
        "n": KNIGHT,
    },
}
SLIDES = {"r": ORTHOGONAL}
COURIER_SLIDES = {"r": ORTHOGONAL, "b": DIAGONAL}


def xy(sq: str) -> tuple[int, int]:
    return ord(sq[0]) - ord("a"), int(sq[1:]) - 1


def name(x: int, y: int) -> str:
    return f"{chr(ord('a') + x)}{y + 1}"


def attacked_by(variant: str, board: dict[str, str], white: bool) -> set[str]:
    """The squares that white's (or black's) pieces attack."""
    files, ranks = BOARD_SIZE.get(variant, (8, 8))
    leaps = LEAPS[variant]
    slides = COURIER_SLIDES if variant == "courier" else SLIDES
    out: set[str] = set()
    for sq, p in board.items():
        if p.isupper() != white:
            continue
        x, y = xy(sq)
        kind = p.lower()
        if kind == "p":
            dy = 1 if white else -1
            targets = [(x - 1, y + dy), (x + 1, y + dy)]
        elif kind in slides:
            targets = []
            for dx, dy in slides[kind]:
                tx, ty = x + dx, y + dy
                while 0 <= tx < files and 0 <= ty < ranks:
                    targets.append((tx, ty))
                    if name(tx, ty) in board:
                        break
                    tx, ty = tx + dx, ty + dy
        else:
            targets = [(x + dx, y + dy) for dx, dy in leaps.get(kind, [])]
        out.update(name(tx, ty) for tx, ty in targets if 0 <= tx < files and 0 <= ty < ranks)
    return out


def hunt(
    rng: random.Random, variant: str, board: dict[str, str], white: bool, legal: list[str]
) -> str:
    """A move that hems in the enemy king: few free squares around it, check preferred,
    without leaving the moved piece to be taken by that king. Ties are broken at random."""
    files, ranks = BOARD_SIZE.get(variant, (8, 8))
    enemy_king = "k" if white else "K"
    scored = []
    for m in legal:
        after = apply_move(board, m)
        ksq = next((s for s, p in after.items() if p == enemy_king), None)
        if ksq is None:
            continue
        ours = attacked_by(variant, after, white)
        kx, ky = xy(ksq)
        free = 0
        for dx, dy in KING_STEPS:
            tx, ty = kx + dx, ky + dy
            if 0 <= tx < files and 0 <= ty < ranks:
                t = name(tx, ty)
                occupant = after.get(t)
                if t not in ours and (occupant is None or occupant.isupper() == white):
                    free += 1
        score = 10 * free - (5 if ksq in ours else 0)
        to = m[2:4]
        if max(abs(a - b) for a, b in zip(xy(to), (kx, ky))) == 1:
            # Next to the enemy king: lost unless another piece of ours guards it.
            del after[to]
            if to not in attacked_by(variant, after, white):
                score += 100
        scored.append((score, m))
    if not scored:
        return rng.choice(legal)
    best = min(sc for sc, _ in scored)
    return rng.choice([m for sc, m in scored if sc == best])


def play_games(args, variant: str, pool: ThreadPoolExecutor, samples: dict, stats: dict) -> None:
    start = sf.start_fen(VARIANTS[variant])

    def count(what: str) -> None:
        stats[(variant, what)] = stats.get((variant, what), 0) + 1

    for g in range(games_of(args, variant)):
        rng = random.Random(f"{args.seed}/{variant}/{g}")
        # In a hunting game, once few pieces are left, a side not behind in material plays for
        # checkmate or stalemate instead of at random (now and then a random move, so that
        # it does not shuffle to and fro), and captures come sooner.
        hunting = rng.random() < args.hunt
        bias = rng.choice(CAPTURE_BIASES[2:] if hunting else CAPTURE_BIASES)
        fen, path = start, []
        for ply in range(args.max_plies + 1):
            legal, verdict = pyffish_position(variant, fen)
            key = (variant, " ".join(fen.split()[:2]))
            if key not in samples:
                s = Sample(variant, fen, list(path), legal, verdict, g)
                s.kabir = pool.submit(kabir_divide, args.kabir, variant, fen, 1)
                samples[key] = s
            if verdict.over:
                count(verdict.why)
                break
            if ply == args.max_plies:
                count("ply cap")
                break
            board = parse_board(fen)
            white = fen.split()[1] == "w"
            if hunting and len(board) <= HUNT_PIECES and material(board, white) >= 2:
                # Spare the opponent's last piece, so the game ends by checkmate or stalemate
                # rather than by a bare king. (With one piece left each there is no mate to
                # play for: such a game goes on at random, to a bare king.)
                if material(board, not white) == 1:
                    legal = [m for m in legal if m[2:4] not in board] or legal
                if material(board, white) >= material(board, not white) and rng.random() >= 0.15:
                    move = hunt(rng, variant, board, white, legal)
                else:
                    move = choose(rng, board, legal, bias)
            else:
                move = choose(rng, board, legal, bias)
            if len(move) > 4:
                count("promotions")
            fen = sf.get_fen(VARIANTS[variant], fen, [move])
            path.append(move)


# ----------------------------------------------------------------------------------------------
# Reporting.


class Report:
    def __init__(self, max_details: int):
        self.passed = 0
        self.failed = 0
        self.max_details = max_details
        self.shown = 0

    def ok(self) -> None:
        self.passed += 1

    def fail(self, title: str, variant: str, fen: str, path: list[str], lines: list[str]) -> None:
        self.failed += 1
        if self.shown >= self.max_details:
            return
        self.shown += 1
        print(f"MISMATCH ({variant}): {title}")
        print(f"  position: {fen}")
        print(f"  moves from the start: {' '.join(path) if path else '(none)'}")
        for line in lines:
            print(f"  {line}")


def compare_sample(s: Sample, report: Report) -> None:
    ans: KabirAnswer = s.kabir.result()
    if ans.moves is None:
        report.fail("kabir failed", s.variant, s.fen, s.path, [ans.error])
        return
    problems = []
    kabir_set, py_set = set(ans.moves), set(s.legal)
    if len(kabir_set) != len(ans.moves):
        problems.append(f"kabir lists a move twice: {sorted(ans.moves)}")
    only_k = sorted(kabir_set - py_set)
    only_p = sorted(py_set - kabir_set)
    if only_k or only_p:
        problems.append(f"only kabir ({len(only_k)}): {' '.join(only_k) or '-'}")
        problems.append(f"only pyffish ({len(only_p)}): {' '.join(only_p) or '-'}")
    # The game-end verdicts: kabir's perft has no moves exactly where the game is over.
    kabir_over = not ans.moves
    if kabir_over != s.verdict.over:
        problems.append(
            f"game end: pyffish says {s.verdict}, kabir says "
            f"{'over (no moves)' if kabir_over else f'ongoing ({len(ans.moves)} moves)'}"
        )
    if problems:
        report.fail("legal moves differ", s.variant, s.fen, s.path, problems)
    else:
        report.ok()


def pyffish_perft(
    variant: str, fen: str, path: list[str], board: dict[str, str], depth: int
) -> int:
    """Leaf count of pyffish's legal move tree, with the bare-kings draw ending the game."""
    if depth == 0:
        return 1
    # RULES.md: two bare kings, a draw; see pyffish_position.
    if variant in BARE_KING_RULE and only_kings(board):
        return 0
    legal = sf.legal_moves(VARIANTS[variant], fen, path)
    if depth == 1:
        return len(legal)
    return sum(
        pyffish_perft(variant, fen, path + [m], apply_move(board, m), depth - 1) for m in legal
    )


def compare_perft(args, s: Sample, depth: int, report: Report) -> int:
    """Compares perft(depth) per root move; returns pyffish's total."""
    board = parse_board(s.fen)
    py_counts = {
        m: pyffish_perft(s.variant, s.fen, [m], apply_move(board, m), depth - 1) for m in s.legal
    }
    py_total = sum(py_counts.values())
    ans = kabir_divide(args.kabir, s.variant, s.fen, depth)
    if ans.moves is None:
        report.fail(f"kabir perft {depth} failed", s.variant, s.fen, s.path, [ans.error])
        return py_total
    k_counts = ans.counts
    if py_total == ans.total and py_counts == k_counts:
        report.ok()
        return py_total
    lines = [f"perft({depth}): kabir {ans.total}, pyffish {py_total}"]
    for m in sorted(set(py_counts) | set(k_counts)):
        a, b = k_counts.get(m, "-"), py_counts.get(m, "-")
        if a != b:
            lines.append(f"{m}: kabir {a}, pyffish {b}")
    report.fail(f"perft({depth}) differs", s.variant, s.fen, s.path, lines)
    return py_total


def pick_perft_samples(args, variant: str, samples: dict) -> list[Sample]:
    """The start position, then positions from late in the games, where promotions, bare kings
    and mates are near: first ones with a promotion among the moves or a side down to one
    piece, then any. Only positions with few moves, so that the pyffish recursion stays quick."""
    mine = [s for (v, _), s in samples.items() if v == variant and not s.verdict.over]
    if args.perft <= 0 or not mine:
        return []
    rng = random.Random(f"{args.seed}/{variant}/perft")
    late = [s for s in mine if len(s.path) >= 30 and len(s.legal) <= args.perft_max_moves]
    rng.shuffle(late)

    def sharp(s: Sample) -> bool:
        board = parse_board(s.fen)
        return any(len(m) > 4 for m in s.legal) or min(
            material(board, True), material(board, False)
        ) <= 1

    late.sort(key=lambda s: not sharp(s))  # stable: sharp ones first, shuffled within
    # The first game's first position, not a position set up by hand (those come first).
    start = next((s for s in mine if s.game >= 0 and not s.path), mine[0])
    return ([start] + late)[: args.perft]


def verdict_token(v: Verdict) -> str:
    """A verdict in the golden file's words (kabir's terminations: a K vs K draw is a bare
    king too)."""
    if not v.over:
        return "ongoing"
    why = {"bare kings": "bare-king", "bare king": "bare-king"}.get(v.why, v.why)
    return f"{why} {v.result}"


def write_golden(args, samples: dict, perft_rows: list) -> None:
    """Writes pyffish's answers for a selection of positions, for a Rust test that checks
    kabir's library against them without Python: every position where the game is over, then
    positions with a promotion among the moves, a side down to one piece, or a king attacked,
    then any, up to --golden-limit per variant."""
    rows = []
    for variant in VARIANTS:
        mine = [s for (v, _), s in samples.items() if v == variant]
        rng = random.Random(f"{args.seed}/{variant}/golden")
        rng.shuffle(mine)

        def rank(s: Sample) -> int:
            if s.verdict.over:
                return 0
            board = parse_board(s.fen)
            if any(len(m) > 4 for m in s.legal):
                return 1
            if min(material(board, True), material(board, False)) <= 1:
                return 2
            white = s.fen.split()[1] == "w"
            king = "K" if white else "k"
            ksq = next(sq for sq, p in board.items() if p == king)
            if ksq in attacked_by(variant, board, not white):
                return 3
            return 4

        buckets: dict[int, list[Sample]] = {}
        for smp in mine:
            buckets.setdefault(rank(smp), []).append(smp)
        # Game ends first; then the other kinds taken in turn, so each is represented.
        chosen = buckets.get(0, [])[: args.golden_limit // 2]
        queues = [buckets.get(r, []) for r in (1, 2, 3, 4)]
        i = 0
        while len(chosen) < args.golden_limit and any(queues):
            q = queues[i % len(queues)]
            if q:
                chosen.append(q.pop())
            i += 1
        rows += [
            f"{smp.variant}\t{smp.fen}\t{verdict_token(smp.verdict)}\t{' '.join(sorted(smp.legal))}"
            for smp in chosen
        ]
    with open(args.write_golden, "w") as f:
        f.write(
            "# Fairy-Stockfish (pyffish %s) on positions from random games, with RULES.md's\n"
            "# bare-kings draw applied. Columns: variant, position, verdict, legal moves.\n"
            "# Written by: python3 tests/differential/compare.py %s\n"
            % (".".join(map(str, sf.version())), " ".join(golden_args(args)))
        )
        f.write("\n".join(rows) + "\n")
        for smp, depth, total in perft_rows:
            f.write(f"perft\t{smp.variant}\t{smp.fen}\t{depth}\t{total}\n")
    print(f"wrote {len(rows)} positions and {len(perft_rows)} perft totals to {args.write_golden}")


def games_of(args, variant: str) -> int:
    """The number of random games to play in `variant`."""
    return args.games if args.games is not None else DEFAULT_GAMES[variant]


def golden_args(args) -> list[str]:
    games = [] if args.games is None else [f"--games {args.games}"]
    return [f"--variant {v}" for v in args.variant or []] + games + [
        f"--max-plies {args.max_plies}",
        f"--seed {args.seed}",
        f"--hunt {args.hunt}",
        f"--perft {args.perft}",
        f"--perft-depth {args.perft_depth}",
        f"--perft-max-moves {args.perft_max_moves}",
        f"--golden-limit {args.golden_limit}",
        "--write-golden FILE",
    ]


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--kabir",
        default=os.path.join(root, "target", "release", "kabir"),
        help="path of the kabir binary (default: target/release/kabir)",
    )
    ap.add_argument(
        "--games",
        type=int,
        help="random games per variant (default 20; 10 for chaturanga and courier)",
    )
    ap.add_argument("--max-plies", type=int, default=300, help="ply cap per game (default 300)")
    ap.add_argument("--seed", default="1", help="random seed (default 1)")
    ap.add_argument(
        "--variant",
        action="append",
        choices=sorted(VARIANTS),
        help="only this variant (repeatable; default: all)",
    )
    ap.add_argument(
        "--hunt",
        type=float,
        default=0.7,
        help="share of games that end by hunting for mate or stalemate (default 0.7)",
    )
    ap.add_argument("--perft", type=int, default=3, help="perft positions per variant (default 3)")
    ap.add_argument("--perft-depth", type=int, default=3, help="perft depth (default 3)")
    ap.add_argument(
        "--perft-max-moves",
        type=int,
        default=20,
        help="perft positions after the start have at most this many moves (default 20)",
    )
    ap.add_argument(
        "--write-golden",
        metavar="FILE",
        help="also write pyffish's answers on a selection of positions to FILE (see README.md)",
    )
    ap.add_argument(
        "--golden-limit",
        type=int,
        default=400,
        help="positions per variant in the golden file (default 400)",
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel kabir runs")
    ap.add_argument(
        "--max-details", type=int, default=20, help="mismatches printed in full (default 20)"
    )
    args = ap.parse_args()

    if not (os.path.isfile(args.kabir) and os.access(args.kabir, os.X_OK)):
        sys.stderr.write(f"no kabir binary at {args.kabir} (build it: cargo build --release)\n")
        return 2
    sf.load_variant_config(KNAVISH_INI)
    variants = args.variant or list(VARIANTS)

    t0 = time.monotonic()
    report = Report(args.max_details)
    samples: dict = {}
    stats: dict = {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for v in variants:
            for fen in SET_UP.get(v, []):
                legal, verdict = pyffish_position(v, fen)
                s = Sample(v, fen, [], legal, verdict, -1)
                s.kabir = pool.submit(kabir_divide, args.kabir, v, fen, 1)
                samples[(v, " ".join(fen.split()[:2]))] = s
            play_games(args, v, pool, samples, stats)
        for s in samples.values():
            compare_sample(s, report)
    positions = report.passed + report.failed

    perft_done = 0
    perft_rows = []
    for v in variants:
        for s in pick_perft_samples(args, v, samples):
            total = compare_perft(args, s, args.perft_depth, report)
            perft_rows.append((s, args.perft_depth, total))
            perft_done += 1

    if args.write_golden:
        write_golden(args, samples, perft_rows)

    for v in variants:
        n = sum(1 for (vv, _) in samples if vv == v)
        ends = ", ".join(
            f"{why} {count}" for (vv, why), count in sorted(stats.items()) if vv == v
        )
        print(f"{v}: {games_of(args, v)} games, {n} distinct positions; {ends}")
    if report.failed > report.shown:
        print(f"({report.failed - report.shown} more mismatches not shown: see --max-details)")
    elapsed = time.monotonic() - t0
    print(
        f"differential: {positions} positions compared, {perft_done} perft({args.perft_depth}) "
        f"checks, {report.failed} mismatches ({elapsed:.1f} s)"
    )
    print(f"{report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
