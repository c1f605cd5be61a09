//! Positions: the board, the side to move and every piece of state the rules need.

use std::sync::Arc;

use super::color::Color;
use super::geometry::MAX_SQUARES;
use super::square::{Bitboard, Square};
use super::variant::{MAX_KINDS, Piece, PieceKind, Variant};

/// What a move does besides going from one square to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// A move or capture by the piece's movement rules (promotions included).
    Normal,
    /// The waiting pawn of pawns placed anywhere it forks or wins a piece; an occupant of the
    /// target square is removed.
    Lift,
    /// The waiting pawn of pawns, after its second arrival, moved to its relocation square.
    Relocation,
    /// The king exchanged with one of its own pieces (`to` is the partner's square).
    Swap,
}

/// A move. Captures are known from the position it is played in.
///
/// A move is written in coordinates ([`Move::to_uci`], [`Move::from_uci`]) or, in its
/// position, in SAN (`kabir_notation::san`); the move a SAN text names is found by
/// `kabir_notation::resolve`.
///
/// ```
/// use kabir_rules::{Move, Position};
///
/// let shatranj = kabir_rules::variants::builtin("shatranj")?;
/// let start = Position::start(&shatranj);
/// let legal = start.legal_moves();
/// let knight = Move::from_uci("g1f3", &start).expect("a legal move");
/// assert!(legal.contains(&knight));
/// assert_eq!(knight.to_uci(&start), "g1f3");
/// // A pawn steps one square: no double step.
/// assert_eq!(Move::from_uci("e2e4", &start), None);
/// # Ok::<(), kabir_rules::variants::LoadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square the piece leaves (for a swap: the king's square).
    pub from: Square,
    /// The square the piece goes to (for a swap: the partner's square).
    pub to: Square,
    /// Whether this is an ordinary move, a lift, a relocation or a king swap.
    pub kind: MoveKind,
    /// What the moving piece (for a swap: the partner) becomes, when it changes.
    pub promotion: Option<PieceKind>,
}

impl Move {
    /// An ordinary move (or capture) from `from` to `to` that promotes nothing.
    pub const fn normal(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            kind: MoveKind::Normal,
            promotion: None,
        }
    }
}

const MAX_CHANGES: usize = 12;

/// What [`Position::play_unchecked`] needs to take a move back.
#[derive(Debug, Clone, Copy)]
pub struct Undo {
    changes: [(u8, u8); MAX_CHANGES],
    len: u8,
    swap: [bool; 2],
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    /// Promotion to lost pieces: the square (plus one) of a pawn that began to wait, and of a
    /// waiting pawn that was promoted; 0 for none.
    queued: u8,
    dequeued: u8,
}

impl Undo {
    /// The squares the move changed and the codes that stood on them before, in the order
    /// changed (a square may come again); `None` if there were more than the record holds.
    pub(crate) fn changes(&self) -> Option<&[(u8, u8)]> {
        let len = usize::from(self.len);
        (len < MAX_CHANGES)
            .then(|| self.changes.get(..len))
            .flatten()
    }

    /// For a move that changed only its two squares: the board code that stood on the second
    /// (the piece captured, or 0).
    pub(crate) fn plain_capture(&self) -> Option<u8> {
        (self.len == 2).then_some(self.changes[1].1)
    }
}

/// What [`Position::play_fast`] needs to take a move back.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FastUndo {
    /// The board code captured (0 for none).
    victim: u8,
    swap: [bool; 2],
    halfmove: u32,
    fullmove: u32,
    hash: u64,
}

/// A legal position of a variant.
///
/// Built only through checks ([`Position::from_fen`], [`Position::start`]), so its invariants
/// hold: every side has a royal piece, the side not to move is not in check, no piece stands
/// where it may not.
///
/// ```
/// use kabir_rules::{Color, Move, Position};
///
/// let shatranj = kabir_rules::variants::builtin("shatranj")?;
/// let start = Position::start(&shatranj);
/// assert_eq!(start.turn(), Color::White);
/// let after = start.after(Move::from_uci("e2e3", &start).unwrap());
/// assert_eq!(after.turn(), Color::Black);
/// // FEN text and back, checked against the variant.
/// let again = Position::from_fen(&shatranj, &after.to_fen())?;
/// assert_eq!(again.to_fen(), after.to_fen());
/// assert!(Position::from_fen(&shatranj, "8/8/8/8/8/8/8/8 w - - 0 1").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: Arc<Variant>,
    pub(crate) board: [u8; MAX_SQUARES],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_kind: [[Bitboard; MAX_KINDS]; 2],
    pub(crate) by_class: [[Bitboard; MAX_KINDS]; 2],
    /// Per side, the classes it has pieces of (bit per class): attack tests skip the others.
    pub(crate) classes: [u32; 2],
    pub(crate) royal: [Bitboard; 2],
    /// Per side, the square of its royal piece when it has exactly one, else [`NO_SQUARE`]:
    /// the check rule's usual case, known without scanning `royal`.
    sole_royal: [u8; 2],
    pub(crate) turn: Color,
    pub(crate) swap: [bool; 2],
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    /// The Zobrist hash, kept up to date move by move while `hashing`; otherwise stale, and
    /// [`Position::hash`] computes it.
    pub(crate) hash: u64,
    /// Whether `hash` is kept up to date. A game that only checks its moves needs no hash,
    /// and its two key look-ups a move cost more than the rest of a fast move's update.
    hashing: bool,
    /// Per side, the pawns waiting for a lost piece in arrival order: one byte per pawn (its
    /// square index plus one), the first arrival in the lowest byte. Always 0 unless the
    /// variant promotes to lost pieces.
    pub(crate) queue: [u128; 2],
}

/// A position without its variant (see [`Position::setup`]): a variant keeps its start
/// position so, since a position refers to its variant.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    board: [u8; MAX_SQUARES],
    by_color: [Bitboard; 2],
    by_kind: [[Bitboard; MAX_KINDS]; 2],
    by_class: [[Bitboard; MAX_KINDS]; 2],
    classes: [u32; 2],
    royal: [Bitboard; 2],
    sole_royal: [u8; 2],
    turn: Color,
    swap: [bool; 2],
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    queue: [u128; 2],
}

/// `Position::sole_royal` for a side without exactly one royal piece.
const NO_SQUARE: u8 = u8::MAX;

/// The square of the only piece of `royal`, or [`NO_SQUARE`].
fn sole_square(royal: Bitboard) -> u8 {
    match royal.first() {
        Some(sq) if royal.is_single() => sq.0,
        _ => NO_SQUARE,
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl PartialEq for Position {
    /// Same variant, pieces, side to move and swap rights (the move counters are ignored).
    fn eq(&self, other: &Position) -> bool {
        self.variant.id() == other.variant.id()
            && self.board == other.board
            && self.turn == other.turn
            && self.swap == other.swap
            && self.queue == other.queue
    }
}

impl Eq for Position {}

impl Position {
    /// An empty board (not a legal position: the caller fills it and checks it).
    pub(crate) fn empty(variant: Arc<Variant>) -> Position {
        Position {
            variant,
            board: [0; MAX_SQUARES],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [[Bitboard::EMPTY; MAX_KINDS]; 2],
            by_class: [[Bitboard::EMPTY; MAX_KINDS]; 2],
            classes: [0; 2],
            royal: [Bitboard::EMPTY; 2],
            sole_royal: [NO_SQUARE; 2],
            turn: Color::White,
            swap: [false; 2],
            halfmove: 0,
            fullmove: 1,
            hash: 0,
            hashing: true,
            queue: [0; 2],
        }
    }

    /// The variant's start position.
    pub fn start(variant: &Arc<Variant>) -> Position {
        // The start position was read and checked when the variant was built.
        if let Some(s) = &variant.start_setup {
            return Position::from_setup(variant, s);
        }
        Position::from_fen(variant, variant.start_fen())
            .unwrap_or_else(|_| Position::empty(variant.clone()))
    }

    /// Everything but the variant, to rebuild the position cheaply.
    pub(crate) fn setup(&self) -> Setup {
        Setup {
            board: self.board,
            by_color: self.by_color,
            by_kind: self.by_kind,
            by_class: self.by_class,
            classes: self.classes,
            royal: self.royal,
            sole_royal: self.sole_royal,
            turn: self.turn,
            swap: self.swap,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            hash: self.hash,
            queue: self.queue,
        }
    }

    /// The position `setup` was taken from, in `variant`.
    fn from_setup(variant: &Arc<Variant>, s: &Setup) -> Position {
        Position {
            variant: variant.clone(),
            board: s.board,
            by_color: s.by_color,
            by_kind: s.by_kind,
            by_class: s.by_class,
            classes: s.classes,
            royal: s.royal,
            sole_royal: s.sole_royal,
            turn: s.turn,
            swap: s.swap,
            halfmove: s.halfmove,
            fullmove: s.fullmove,
            hash: s.hash,
            hashing: true,
            queue: s.queue,
        }
    }

    /// The variant whose rules the position follows.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Whether a side may still make its king swap.
    pub fn swap_available(&self, color: Color) -> bool {
        self.swap[color.index()]
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// The move number, starting at 1 and counted up after each Black move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The Zobrist hash: pieces, side to move and swap rights (not the counters). Computed
    /// from scratch for the position of a game that keeps no hashes
    /// ([`Game::without_hashes`](super::Game::without_hashes)).
    pub fn hash(&self) -> u64 {
        if self.hashing {
            self.hash
        } else {
            self.compute_hash()
        }
    }

    /// Stops keeping the hash up to date move by move (see [`Position::hash`]).
    pub(crate) fn stop_hashing(&mut self) {
        self.hashing = false;
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board.get(sq.index()).copied().unwrap_or(0))
    }

    /// All squares occupied by a side.
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// All squares occupied by a side's pieces of one kind.
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[color.index()]
            .get(kind.index())
            .copied()
            .unwrap_or(Bitboard::EMPTY)
    }

    /// A side's royal pieces.
    pub fn royals(&self, color: Color) -> Bitboard {
        self.royal[color.index()]
    }

    /// A side's royal piece, when it has exactly one.
    #[inline]
    pub(crate) fn sole_royal(&self, color: Color) -> Option<Square> {
        let sq = self.sole_royal[color.index()];
        (sq != NO_SQUARE).then_some(Square(sq))
    }

    /// All squares occupied by a piece of either side.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The hash computed from scratch (what [`Position::hash`] gives).
    pub fn compute_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = 0;
        for sq in self.occupied() {
            h ^= z.piece(self.board[sq.index()], sq);
        }
        if self.turn == Color::Black {
            h ^= z.side;
        }
        for c in Color::ALL {
            if self.swap[c.index()] {
                h ^= z.swap[c.index()];
            }
        }
        h ^ self.queue_hash()
    }

    /// The part of the hash that says in which order pawns wait: nothing while no side has
    /// two waiting pawns, so that every other position hashes as before.
    pub(crate) fn queue_hash(&self) -> u64 {
        let mut h = 0;
        for (i, &q) in self.queue.iter().enumerate() {
            if q >> 8 != 0 {
                h ^= super::zobrist::mix(
                    (q as u64) ^ ((q >> 64) as u64).rotate_left(29) ^ (i as u64 + 1) << 60,
                );
            }
        }
        h
    }

    /// A side's pawns waiting for a lost piece, the first arrival first.
    pub fn waiting_pawns(&self, color: Color) -> impl Iterator<Item = Square> + use<> {
        let mut q = self.queue[color.index()];
        std::iter::from_fn(move || {
            let b = (q & 0xff) as u8;
            q >>= 8;
            b.checked_sub(1).map(Square)
        })
    }

    /// Adds a pawn at the end of a side's waiting line.
    pub(crate) fn enqueue(&mut self, color: Color, sq: Square) {
        let q = &mut self.queue[color.index()];
        let len = (128 - q.leading_zeros()).div_ceil(8);
        if (len as usize) < super::variant::MAX_WAITING {
            *q |= u128::from(sq.0 + 1) << (8 * len);
        }
    }

    /// Puts `code` on `sq` (0 empties it), keeping every index and the hash in step.
    #[inline]
    pub(crate) fn set(&mut self, sq: Square, code: u8) {
        let i = sq.index();
        let old = self.board[i];
        if old == code {
            return;
        }
        let bit = sq.bit();
        let z = &self.variant.zobrist;
        if let Some(p) = Piece::from_code(old) {
            let (c, k) = (p.color.index(), p.kind.index());
            let class = self.variant.class_of[k] as usize;
            self.by_color[c] ^= bit;
            self.by_kind[c][k] ^= bit;
            self.by_class[c][class] ^= bit;
            if self.by_class[c][class].is_empty() {
                self.classes[c] &= !(1 << class);
            }
            if self.variant.is_royal(p.kind) {
                self.royal[c] ^= bit;
                self.sole_royal[c] = sole_square(self.royal[c]);
            }
            self.hash ^= z.piece(old, sq);
        }
        if let Some(p) = Piece::from_code(code) {
            let (c, k) = (p.color.index(), p.kind.index());
            self.by_color[c] |= bit;
            self.by_kind[c][k] |= bit;
            let class = self.variant.class_of[k] as usize;
            self.by_class[c][class] |= bit;
            self.classes[c] |= 1 << class;
            if self.variant.is_royal(p.kind) {
                self.royal[c] |= bit;
                self.sole_royal[c] = sole_square(self.royal[c]);
            }
            self.hash ^= z.piece(code, sq);
        }
        self.board[i] = code;
    }

    #[inline]
    fn change(&mut self, undo: &mut Undo, sq: Square, code: u8) {
        if (undo.len as usize) < MAX_CHANGES {
            undo.changes[undo.len as usize] = (sq.0, self.board[sq.index()]);
            undo.len += 1;
        }
        self.set(sq, code);
    }

    /// A side's pieces waiting on their last rank (pawns of pawns, or pawns waiting for a lost
    /// piece): they cannot be captured, make no ordinary moves and attack nothing.
    #[inline]
    pub(crate) fn waiting(&self, color: Color) -> Bitboard {
        if self.variant.waiting_kinds == 0 {
            return Bitboard::EMPTY;
        }
        self.waiting_of(color)
    }

    /// [`Position::waiting`] for a variant with waiting pieces.
    fn waiting_of(&self, color: Color) -> Bitboard {
        let by_kind = &self.by_kind[color.index()];
        let mut m = Bitboard::EMPTY;
        let mut kinds = self.variant.waiting_kinds;
        while kinds != 0 {
            m |= by_kind[kinds.trailing_zeros() as usize];
            kinds &= kinds - 1;
        }
        m & self.variant.last_rank[color]
    }

    /// A side's pieces that cannot be captured: waiting pawns of pawns and pieces in their
    /// own citadel.
    #[inline]
    pub(crate) fn immune(&self, color: Color) -> Bitboard {
        let mut m = self.waiting(color);
        for &(sq, owner, _) in &self.variant.citadel_allow {
            if owner == color {
                m |= self.by_color[color.index()] & sq.bit();
            }
        }
        m
    }

    /// Whether a piece of `by` could capture on `sq` (a square of the main board) by an
    /// ordinary move. Pins do not matter; waiting pawns of pawns attack nothing; squares
    /// outside the main board are never attacked.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let v = &*self.variant;
        if !v.geometry().is_main(sq) {
            return false;
        }
        let (attackers, leapers) = v.attackers(by, sq);
        let classes = &self.by_class[by.index()];
        let mut present = self.classes[by.index()];
        while present != 0 {
            let c = present.trailing_zeros() as usize;
            present &= present - 1;
            let (Some(&from), Some(&pieces)) = (attackers.get(c), classes.get(c)) else {
                continue;
            };
            let mut candidates = from & pieces;
            // Waiting pieces are looked up only when one of their classes could attack.
            if candidates.nonempty() && v.waiting_classes >> c & 1 != 0 {
                candidates &= !self.waiting_of(by);
            }
            if candidates.nonempty()
                && (leapers >> c & 1 != 0
                    || v.tables
                        .get(c)
                        .is_some_and(|t| t.attacks(by, sq, candidates, self.occupied())))
            {
                return true;
            }
        }
        false
    }

    /// Whether the side to move has a royal piece under attack.
    pub fn is_check(&self) -> bool {
        let them = !self.turn;
        self.royal[self.turn.index()]
            .into_iter()
            .any(|sq| self.is_attacked(sq, them))
    }

    /// Whether `color`, with a single royal piece, has it attacked (the check rule's test).
    #[inline]
    pub(crate) fn sole_royal_attacked(&self, color: Color) -> bool {
        self.sole_royal(color)
            .is_some_and(|sq| self.is_attacked(sq, !color))
    }

    /// Plays a move without checking it. Only for moves from [`Position::legal_moves`] (or
    /// pseudo-legal ones being tested); returns what [`Position::undo`] needs.
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let mut undo = Undo {
            changes: [(0, 0); MAX_CHANGES],
            len: 0,
            swap: self.swap,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            hash: self.hash,
            queued: 0,
            dequeued: 0,
        };
        let us = self.turn;
        let moving = self.board[m.from.index()];
        let target = self.board[m.to.index()];
        let mut reset = target != 0;
        match m.kind {
            MoveKind::Normal => {
                if let Some(p) = Piece::from_code(moving) {
                    reset |= self.variant.is_pawn(p.kind);
                }
                self.change(&mut undo, m.from, 0);
                self.arrive(&mut undo, m.to, moving, m.promotion);
                // A captured king takes its side's swap right with it.
                if let Some(victim) = Piece::from_code(target)
                    && self.variant.rules().king_swap == Some(victim.kind)
                {
                    self.lose_swap(victim.color);
                }
                if self.variant.waiting_pawn_kinds != 0 {
                    self.wait_or_promote(&mut undo, m, moving, target);
                }
            }
            MoveKind::Lift | MoveKind::Relocation => {
                reset = true;
                self.change(&mut undo, m.from, 0);
                self.change(&mut undo, m.to, moving);
            }
            MoveKind::Swap => {
                reset = false;
                self.change(&mut undo, m.to, moving);
                self.change(&mut undo, m.from, 0);
                self.arrive(&mut undo, m.from, target, m.promotion);
                self.lose_swap(us);
            }
        }
        self.halfmove = if reset {
            0
        } else {
            self.halfmove.saturating_add(1)
        };
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.turn = !us;
        self.hash ^= self.variant.zobrist.side;
        undo
    }

    /// [`Position::play_unchecked`] for a move from one square to another that changes no
    /// other square and promotes nothing (the caller makes sure), in fewer steps: the moving
    /// piece's sets change by both squares at once.
    ///
    /// `HASH` must be whether the position keeps its hash up to date (see
    /// [`Position::hash`]): a constant, so that a game without hashes has no test for it in
    /// its commonest move.
    // Inlined into its one caller, `Game::play_fast`, which keeps the squares in registers.
    #[inline(always)]
    pub(crate) fn play_fast<const HASH: bool>(
        &mut self,
        v: &Variant,
        from: Square,
        to: Square,
    ) -> FastUndo {
        debug_assert_eq!(HASH, self.hashing);
        let code = self.board[from.index()];
        let victim = self.board[to.index()];
        let undo = FastUndo {
            victim,
            swap: self.swap,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            hash: self.hash,
        };
        let us = self.turn.index();
        let k = (code.wrapping_sub(1) >> 1) as usize % MAX_KINDS;
        let moved = from.bit() | to.bit();
        self.by_color[us] ^= moved;
        self.by_kind[us][k] ^= moved;
        self.by_class[us][v.class_of[k] as usize % MAX_KINDS] ^= moved;
        if v.royal_kinds >> k & 1 != 0 {
            self.royal[us] ^= moved;
            // A sole royal piece is still the only one; of several, none is.
            if self.sole_royal[us] == from.0 {
                self.sole_royal[us] = to.0;
            }
        }
        let z = &v.zobrist;
        let mut hash = self.hash;
        if HASH {
            hash ^= z.piece(code, from) ^ z.piece(code, to) ^ z.side ^ z.piece(victim, to);
        }
        if victim != 0 {
            let them = (victim.wrapping_sub(1) & 1) as usize;
            let vk = (victim.wrapping_sub(1) >> 1) as usize % MAX_KINDS;
            let bit = to.bit();
            self.by_color[them] ^= bit;
            self.by_kind[them][vk] ^= bit;
            let class = v.class_of[vk] as usize % MAX_KINDS;
            self.by_class[them][class] ^= bit;
            if self.by_class[them][class].is_empty() {
                self.classes[them] &= !(1 << class);
            }
            if v.royal_kinds >> vk & 1 != 0 {
                self.royal[them] ^= bit;
                self.sole_royal[them] = sole_square(self.royal[them]);
            }
            // A captured king takes its side's swap right with it.
            if v.rules().king_swap == Some(PieceKind(vk as u8)) && self.swap[them] {
                self.swap[them] = false;
                hash ^= z.swap[them];
            }
        }
        self.board[from.index()] = 0;
        self.board[to.index()] = code;
        self.halfmove = if victim != 0 || v.pawn_kinds >> k & 1 != 0 {
            0
        } else {
            self.halfmove.saturating_add(1)
        };
        if self.turn == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.turn = !self.turn;
        self.hash = hash;
        undo
    }

    /// Takes back a move played with [`Position::play_fast`].
    pub(crate) fn undo_fast(&mut self, from: Square, to: Square, undo: FastUndo) {
        let code = self.board[to.index()];
        self.set(to, undo.victim);
        self.set(from, code);
        self.swap = undo.swap;
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.turn = !self.turn;
        self.hash = undo.hash;
    }

    /// Whether `by` attacks `target` (as [`Position::is_attacked`]) by a way through `via`
    /// or by a class that has one: after a piece left `via`, the only attacks it can have
    /// uncovered.
    // The usual answer, no class with a way through, is given inline; a call costs more
    // than that test.
    #[inline(always)]
    pub(crate) fn attacked_through(&self, target: Square, by: Color, via: Square) -> bool {
        let v = &*self.variant;
        let classes = v.classes_through(by, target, via) & self.classes[by.index()];
        classes != 0 && self.attacked_by_classes(target, by, classes)
    }

    /// [`Position::attacked_through`] for the classes that could attack through the square.
    #[inline(never)]
    fn attacked_by_classes(&self, target: Square, by: Color, mut classes: u32) -> bool {
        let v = &*self.variant;
        if !v.geometry().is_main(target) {
            return false;
        }
        let occupied = self.occupied();
        let by_class = &self.by_class[by.index()];
        while classes != 0 {
            let c = classes.trailing_zeros() as usize;
            classes &= classes - 1;
            let (Some(&pieces), Some(table)) = (by_class.get(c), v.tables.get(c)) else {
                continue;
            };
            let pieces = if v.waiting_classes >> c & 1 != 0 {
                pieces & !self.waiting_of(by)
            } else {
                pieces
            };
            if pieces.nonempty() && table.attacks(by, target, pieces, occupied) {
                return true;
            }
        }
        false
    }

    /// Promotion to lost pieces, after an ordinary move: a pawn that arrived without promoting
    /// joins its side's waiting line; a captured piece promotes the opponent's first waiting
    /// pawn to its kind.
    #[cold]
    fn wait_or_promote(&mut self, undo: &mut Undo, m: Move, moving: u8, target: u8) {
        let us = self.turn;
        let before = self.queue_hash();
        if m.promotion.is_none()
            && self.variant.last_rank[us].contains(m.to)
            && Piece::from_code(moving)
                .is_some_and(|p| self.variant.waiting_pawn_kinds & (1 << p.kind.0) != 0)
        {
            self.enqueue(us, m.to);
            undo.queued = m.to.0 + 1;
        }
        if let Some(victim) = Piece::from_code(target)
            && victim.color != us
            && let Some(front) = self.waiting_pawns(victim.color).next()
            && let Some(pawn) = self.piece_at(front)
            && self
                .variant
                .kind(pawn.kind)
                .promotion
                .contains(&victim.kind)
        {
            self.queue[victim.color.index()] >>= 8;
            undo.dequeued = front.0 + 1;
            self.change(undo, front, victim.code());
        }
        self.hash ^= before ^ self.queue_hash();
    }

    /// The opponent's waiting pawn that a move would promote, and to what: the capture of a
    /// piece in a variant that promotes to lost pieces.
    #[inline]
    pub fn waiting_promotion(&self, m: Move) -> Option<(Square, PieceKind)> {
        if self.variant.waiting_pawn_kinds == 0 {
            return None;
        }
        self.waiting_promotion_of(m)
    }

    #[cold]
    fn waiting_promotion_of(&self, m: Move) -> Option<(Square, PieceKind)> {
        if m.kind != MoveKind::Normal {
            return None;
        }
        let victim = self.piece_at(m.to)?;
        if victim.color == self.turn {
            return None;
        }
        let front = self.waiting_pawns(victim.color).next()?;
        let pawn = self.piece_at(front)?;
        self.variant
            .kind(pawn.kind)
            .promotion
            .contains(&victim.kind)
            .then_some((front, victim.kind))
    }

    /// Takes a side's swap right away, if it still has it.
    fn lose_swap(&mut self, color: Color) {
        if self.swap[color.index()] {
            self.swap[color.index()] = false;
            self.hash ^= self.variant.zobrist.swap[color.index()];
        }
    }

    /// Puts a moved piece (board code `code`) down on `sq`, becoming `promotion` if given, with
    /// the pawn of pawns' effects of its second and third arrivals.
    fn arrive(&mut self, undo: &mut Undo, sq: Square, code: u8, promotion: Option<PieceKind>) {
        let Some(piece) = Piece::from_code(code) else {
            return;
        };
        let Some(new) = promotion else {
            self.change(undo, sq, code);
            return;
        };
        let placed = Piece {
            color: piece.color,
            kind: new,
        };
        if let Some(pp) = self.variant.rules().pawn_of_pawns.clone() {
            if piece.kind == pp.states[1] && new == pp.states[2] {
                let reloc = pp.relocation[piece.color];
                if self.board[reloc.index()] == 0 {
                    self.change(undo, sq, 0);
                    self.change(undo, reloc, placed.code());
                    return;
                }
            } else if piece.kind == pp.states[2] && new == pp.third_arrival {
                self.change(undo, sq, placed.code());
                if let Some((from_kind, to_kind)) = pp.also_promote {
                    let promoted = Piece {
                        color: piece.color,
                        kind: to_kind,
                    }
                    .code();
                    for s in self.pieces_of(piece.color, from_kind) {
                        self.change(undo, s, promoted);
                    }
                }
                return;
            }
        }
        self.change(undo, sq, placed.code());
    }

    /// Takes back a move played with [`Position::play_unchecked`].
    pub fn undo(&mut self, undo: Undo) {
        for &(sq, code) in undo.changes[..undo.len as usize].iter().rev() {
            self.set(Square(sq), code);
        }
        self.swap = undo.swap;
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.turn = !self.turn;
        self.hash = undo.hash;
        if undo.queued | undo.dequeued != 0 {
            self.unqueue(undo);
        }
    }

    /// Restores the waiting lines after taking back a move.
    #[cold]
    fn unqueue(&mut self, undo: Undo) {
        let us = self.turn;
        if undo.queued != 0 {
            let q = &mut self.queue[us.index()];
            let len = (128 - q.leading_zeros()).div_ceil(8);
            *q &= !(0xffu128 << (8 * (len - 1)));
        }
        if undo.dequeued != 0 {
            let q = &mut self.queue[(!us).index()];
            *q = (*q << 8) | u128::from(undo.dequeued);
        }
    }

    /// The position after a move (which must be legal here).
    pub fn after(&self, m: Move) -> Position {
        let mut p = self.clone();
        p.play_unchecked(m);
        p
    }

    /// Whether a move captures (or, for a lift, removes) a piece.
    pub fn is_capture(&self, m: Move) -> bool {
        m.kind != MoveKind::Swap && m.kind != MoveKind::Relocation && self.board[m.to.index()] != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Options, random_game};

    /// `sole_royal` as computed from scratch.
    fn sole_from_scratch(pos: &Position) -> [u8; 2] {
        [sole_square(pos.royal[0]), sole_square(pos.royal[1])]
    }

    /// The sole royal square stays in step with the royal sets through every move of random
    /// games of every built-in variant and its take-back, played in full and, where it
    /// applies, the fast way.
    #[test]
    fn sole_royal_stays_in_step() {
        let options = Options {
            max_plies: 300,
            ..Options::default()
        };
        let mut fast = 0;
        for id in crate::variants::builtin_ids() {
            let variant = crate::variants::builtin(&id).unwrap();
            for i in 0..12 {
                let game = random_game(&variant, 5, i, &options);
                let mut pos = game.start().clone();
                assert_eq!(pos.sole_royal, sole_from_scratch(&pos), "{id} start");
                for &m in game.moves() {
                    let before = pos.clone();
                    let undo = pos.play_unchecked(m);
                    assert_eq!(pos.sole_royal, sole_from_scratch(&pos), "{id} {m:?}");
                    pos.undo(undo);
                    assert_eq!(pos.sole_royal, before.sole_royal, "{id} undo {m:?}");
                    // The fast way, where it applies: a normal move changing two squares.
                    if m.kind == MoveKind::Normal
                        && m.promotion.is_none()
                        && before
                            .after(m)
                            .board
                            .iter()
                            .zip(&before.board)
                            .filter(|(a, b)| a != b)
                            .count()
                            <= 2
                    {
                        let v = before.variant.clone();
                        let mut p = before.clone();
                        let u = p.play_fast::<true>(&v, m.from, m.to);
                        assert_eq!(p.sole_royal, sole_from_scratch(&p), "{id} fast {m:?}");
                        p.undo_fast(m.from, m.to, u);
                        assert_eq!(p.sole_royal, before.sole_royal, "{id} undo fast {m:?}");
                        fast += 1;
                    }
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(fast > 10_000, "{fast} moves tried the fast way");
    }
}
