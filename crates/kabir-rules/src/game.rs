//! A game: a start position, the moves played, and the history that repetition rules need.

use super::definition::PermanentCheckRule;
use super::position::{FastUndo, Move, Position, Undo};
use super::square::Square;
use super::status::Status;
use super::variant::{MAX_KINDS, PieceKind, Variant};

/// A move that may not be played in a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IllegalMove {
    /// The game has already ended by the rules (checkmate, stalemate, bare king, citadel):
    /// no move may follow.
    #[error("the game is already over")]
    GameOver,
    /// The move is not among the legal moves of the current position.
    #[error("the move is not legal in this position")]
    NotLegal,
    /// The move gives check and repeats a position reached in a series of checks, under a
    /// variant where permanent check is illegal (Knavish Shatranj).
    #[error("the move repeats a position in a series of checks (permanent check is illegal)")]
    PermanentCheck,
}

/// A game in progress or finished: its start, its moves, and its status by the rules
/// (checkmate, stalemate, bare king, repetition...).
///
/// ```
/// use kabir_rules::{Game, Move, Position};
///
/// let shatranj = kabir_rules::variants::builtin("shatranj")?;
/// let mut game = Game::new(Position::start(&shatranj));
/// for uci in ["e2e3", "e7e6", "g1f3"] {
///     let m = Move::from_uci(uci, game.position()).expect("legal");
///     game.play(m)?;
/// }
/// assert_eq!(game.moves().len(), 3);
/// assert!(!game.status().is_over());
/// // A move not legal in the position is refused, and the game stays as it was.
/// let stale = game.moves()[0];
/// assert!(game.play(stale).is_err());
/// assert_eq!(game.moves().len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// The hash of every position, the start included; empty when the game keeps no hashes
    /// (see [`Game::without_hashes`]).
    hashes: Vec<u64>,
    /// Whether the side to move is in check (the last move gave check).
    in_check: bool,
    /// Beside each entry of `hashes`: whether the move that led there gave check (for the
    /// start: whether the side to move is in check); kept, as `keys`, only under rules that
    /// compare positions (else empty).
    checks: Vec<bool>,
    /// Beside each entry of `hashes`, the pieces and side to move (see [`push_key`]), one
    /// after another, to tell positions apart when hashes collide; kept only under rules that
    /// compare positions (else empty).
    keys: Vec<u8>,
    /// What the last move changed, to step back to the position before it.
    last: Option<Last>,
}

/// How to take back the last move of a game.
#[derive(Debug, Clone, Copy)]
enum Last {
    Full(Undo),
    Fast(Square, Square, FastUndo),
}

/// What [`Game::take_back`] needs to take back a move: from [`Game::takeback`] just after
/// the move was played, or from [`Game::takebacks`].
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Takeback(Last);

impl Takeback {
    /// What takes back a move that `Position::play_unchecked` played and gave `undo` for.
    #[doc(hidden)]
    pub fn of(undo: Undo) -> Takeback {
        Takeback(Last::Full(undo))
    }
}

/// The length of a position's key: its squares, the side to move and both swap rights.
fn key_len(pos: &Position) -> usize {
    pos.variant().geometry().len() + 3
}

/// Appends a position's key to `keys`.
fn push_key(keys: &mut Vec<u8>, pos: &Position) {
    let n = pos.variant().geometry().len();
    keys.extend_from_slice(pos.board.get(..n).unwrap_or(&[]));
    keys.push(pos.turn as u8);
    keys.push(pos.swap[0] as u8);
    keys.push(pos.swap[1] as u8);
}

/// A written move that names its piece (or a pawn) and destination and nothing else that
/// needs resolving; see [`Game::play_fast`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct FastMove {
    /// The piece kind named by the letter; `None` for a pawn.
    pub kind: Option<PieceKind>,
    /// The origin file (from 1) written for a pawn capture.
    pub file: Option<i8>,
    /// Whether `x` was written.
    pub capture: bool,
    /// The destination, a square of the rectangle (not a citadel).
    pub to: Square,
}

impl Game {
    /// A game that begins at `start`, with no moves played yet.
    pub fn new(start: Position) -> Game {
        let (hash, check) = (start.hash(), start.is_check());
        let mut keys = Vec::new();
        let mut checks = Vec::new();
        if Self::tracks(&start) {
            push_key(&mut keys, &start);
            checks.push(check);
        }
        Game {
            position: start.clone(),
            start,
            moves: Vec::new(),
            hashes: vec![hash],
            in_check: check,
            checks,
            keys,
            last: None,
        }
    }

    fn tracks(pos: &Position) -> bool {
        let rules = pos.variant().rules();
        rules.permanent_check == PermanentCheckRule::Illegal || rules.repetition > 0
    }

    /// A new game with room for `plies` moves.
    pub fn with_capacity(start: Position, plies: usize) -> Game {
        let mut g = Game::new(start);
        g.reserve(plies);
        g
    }

    /// Makes room for `plies` more moves.
    pub fn reserve(&mut self, plies: usize) {
        self.moves.reserve(plies);
        if self.hashing() {
            self.hashes.reserve(plies);
        }
        if !self.keys.is_empty() {
            self.checks.reserve(plies);
            self.keys.reserve(plies * key_len(&self.start));
        }
    }

    /// The game from here on keeps no position hashes as it goes, which makes each move
    /// cheaper: [`Game::hashes`] and [`Game::into_parts`] then compute them when asked,
    /// by playing the moves again. For checking games, not for indexing their positions.
    /// Under rules that compare positions (repetition, permanent check) the hashes are
    /// needed and kept anyway.
    pub fn without_hashes(mut self) -> Game {
        self.stop_hashing();
        self
    }

    /// [`Game::without_hashes`] in place: a game, two positions of about 2 KB each, is then
    /// not moved out of its box and back.
    #[doc(hidden)]
    pub fn stop_hashing(&mut self) {
        if self.keys.is_empty() {
            self.hashes = Vec::new();
            self.position.stop_hashing();
        }
    }

    /// Whether the game keeps its position hashes as it goes.
    #[doc(hidden)]
    pub fn hashing(&self) -> bool {
        !self.hashes.is_empty()
    }

    /// The hash of every position so far, computed by playing the moves again.
    fn computed_hashes(&self) -> Vec<u64> {
        let mut p = self.start.clone();
        let mut hashes = Vec::with_capacity(self.moves.len() + 1);
        hashes.push(p.hash());
        for &m in &self.moves {
            p.play_unchecked(m);
            hashes.push(p.hash());
        }
        hashes
    }

    /// The position the game began from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far, first to last.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The legal moves in the current position, with the game's history taken into account.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = self.position.legal_moves();
        if self.position.variant().rules().permanent_check == PermanentCheckRule::Illegal {
            moves.retain(|&m| !self.is_permanent_check(m));
        }
        moves
    }

    /// The moves that would be legal if the game had not ended by a rule that needs no moves
    /// (a bare king, a citadel entered): [`Game::legal_moves`] otherwise. For reading records
    /// of games played on past their end, as engines play on after two bare kings.
    pub fn legal_moves_past_end(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.position.clone().legal_moves_past_end_into(&mut moves);
        if self.position.variant().rules().permanent_check == PermanentCheckRule::Illegal {
            moves.retain(|&m| !self.is_permanent_check(m));
        }
        moves
    }

    /// What takes back the last move, if a move was played and not taken back since.
    #[doc(hidden)]
    pub fn takeback(&self) -> Option<Takeback> {
        self.last.map(Takeback)
    }

    /// What takes back each move of the game, in order, found by playing them again.
    #[doc(hidden)]
    pub fn takebacks(&self) -> Vec<Takeback> {
        let mut p = self.start.clone();
        if !self.hashing() {
            p.stop_hashing();
        }
        self.moves
            .iter()
            .map(|&m| Takeback(Last::Full(p.play_unchecked(m))))
            .collect()
    }

    /// Takes back the last move with what [`Game::takeback`] gave just after it was played
    /// (or [`Game::takebacks`]); returns it. Afterwards, until a move is played,
    /// [`Game::previous_position`] is the current position and [`Game::takeback`] is `None`.
    #[doc(hidden)]
    pub fn take_back(&mut self, t: Takeback) -> Option<Move> {
        let m = self.moves.pop()?;
        match t.0 {
            Last::Full(u) => self.position.undo(u),
            Last::Fast(from, to, u) => self.position.undo_fast(from, to, u),
        }
        if self.hashing() {
            self.hashes.pop();
        }
        if !self.keys.is_empty() {
            self.checks.pop();
            let len = key_len(&self.start);
            self.keys.truncate(self.keys.len().saturating_sub(len));
        }
        self.in_check = self.position.is_check();
        self.last = None;
        Some(m)
    }

    /// Whether playing `m` (legal in the position) would repeat a position in an unbroken
    /// series of checks by the side playing it.
    pub fn is_permanent_check(&self, m: Move) -> bool {
        let after = self.position.after(m);
        if !after.is_check() {
            return false;
        }
        let n = self.hashes.len(); // `after` would be entry n.
        let hash = after.hash();
        let mut after_key = Vec::new();
        push_key(&mut after_key, &after);
        let len = after_key.len();
        // Earlier positions with the same side to move: entries n-2, n-4, ...; the mover's
        // moves since entry j are those that led to entries j+2, j+4, ..., n.
        let mut j = n;
        while j >= 2 {
            j -= 2;
            // The move leading to entry j+2 must have given check (for j+2 == n, it is `m`).
            if j + 2 < n && !self.checks[j + 2] {
                return false;
            }
            if self.hashes[j] == hash
                && self.keys.get(j * len..(j + 1) * len) == Some(&after_key[..])
            {
                return true;
            }
        }
        false
    }

    /// Plays a move, checking it.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.status().is_over() {
            return Err(IllegalMove::GameOver);
        }
        if !self.position.legal_moves().contains(&m) {
            return Err(IllegalMove::NotLegal);
        }
        if self.position.variant().rules().permanent_check == PermanentCheckRule::Illegal
            && self.is_permanent_check(m)
        {
            return Err(IllegalMove::PermanentCheck);
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a move known to be legal (from [`Game::legal_moves`]).
    pub fn play_unchecked(&mut self, m: Move) {
        let undo = self.position.play_unchecked(m);
        self.record(m, undo);
    }

    /// Plays a pseudo-legal ordinary move (one of [`Position::pseudo_legal_moves_to`]) if it
    /// obeys the check rule; returns whether it was played. The move is tested by playing it,
    /// so a legal move costs no more than playing it.
    ///
    /// Only for variants whose legality needs no history (no permanent-check rule).
    pub fn play_if_legal(&mut self, m: Move) -> bool {
        let in_check = self.in_check;
        let undo = self.position.play_unchecked(m);
        if !self.position.mover_safe_after(m, &undo, in_check) {
            self.position.undo(undo);
            return false;
        }
        self.record(m, undo);
        true
    }

    /// Records the move just played on `position`.
    fn record(&mut self, m: Move, undo: Undo) {
        let check = self.position.is_check_after(m, &undo);
        self.record_checked(m, Last::Full(undo), check);
    }

    /// Records the move just played on `position`, which gave check or not.
    // Inlined so that `last` is written in place: passed through memory, its 16-byte loads
    // of the caller's narrower stores cannot be forwarded and stall.
    #[inline(always)]
    fn record_checked(&mut self, m: Move, last: Last, check: bool) {
        self.last = Some(last);
        if self.hashing() {
            self.hashes.push(self.position.hash);
        }
        self.in_check = check;
        if !self.keys.is_empty() {
            self.checks.push(check);
            push_key(&mut self.keys, &self.position);
        }
        self.moves.push(m);
    }

    /// Resolves and plays a move written as a piece (or pawn) and a destination, the common
    /// case of a game record, without generating moves: the pieces of the kind that can reach
    /// the square are found backwards from it, the one found is played, and the check rule
    /// and whether it gives check are judged from the lines through the squares it left and
    /// reached. Returns whether the move gave check.
    ///
    /// `None`, with nothing played, whenever the general way must decide: no or several
    /// candidates, a promotion, a capture that promotes a waiting pawn, a move the check rule
    /// forbids, a check under a permanent-check rule, the game over by a rule, or `x`
    /// written for a move that does not capture (or left out of one that does). The general
    /// way then finds the same move, or the exact error.
    ///
    /// `v` is the game's variant, which the caller holds: reached through the position, it
    /// is a chain of loads that every move would wait on; `HASH` must be whether the game
    /// keeps hashes ([`Game::hashing`]), a constant for the same reason as in
    /// `Position::play_fast`.
    // Inlined into its one caller, replay's loop over a line's fast-form moves: the values
    // it reads there (the square, the letter's kind) stay in registers.
    #[inline(always)]
    #[doc(hidden)]
    pub fn play_fast<const HASH: bool>(&mut self, v: &Variant, q: FastMove) -> Option<bool> {
        use super::movement::{MODE_CAPTURE, MODE_MOVE};
        debug_assert!(std::ptr::eq(v, &**self.position.variant()));
        let pos = &self.position;
        let g = v.geometry();
        // The caller found `q.to` on the rectangle (`Geometry::main_square`).
        debug_assert!(g.is_main(q.to));
        if pos.end_by_rule().is_some() {
            return None;
        }
        let us = pos.turn();
        let them = !us;
        let target = pos.board[q.to.index()];
        let need = if target == 0 {
            MODE_MOVE
        } else {
            let victim_color = (target.wrapping_sub(1) & 1) as usize;
            if victim_color == us.index()
                || v.waiting_pawn_kinds != 0
                || pos.waiting(them).contains(q.to)
            {
                return None;
            }
            MODE_CAPTURE
        };
        if q.capture != (target != 0) {
            return None;
        }
        let (class, pieces) = match q.kind {
            Some(k) if v.waiting_kinds >> k.0 & 1 == 0 => (
                v.class_of[k.index() % MAX_KINDS],
                pos.by_kind[us.index()][k.index() % MAX_KINDS],
            ),
            Some(_) => return None,
            None => {
                let c = v.pawn_class?;
                if v.last_rank[us].contains(q.to) {
                    return None;
                }
                (
                    c,
                    pos.by_class[us.index()][c as usize % MAX_KINDS] & !pos.waiting(us),
                )
            }
        };
        let table = v.tables.get(class as usize)?;
        let occupied = pos.occupied();
        let mut found = None;
        // Leaps need no look-up per piece: the squares they come from say it all.
        let (candidates, leaps) = match table.leap_origins(us, q.to, need) {
            Some(origins) => (pieces & origins, true),
            None => (pieces & table.reach(us, q.to), false),
        };
        for sq in candidates {
            if q.file.is_some_and(|f| g.coords(sq).0 != f) {
                continue;
            }
            if leaps || table.reaches(us, sq, q.to, need, occupied) {
                if found.is_some() {
                    return None;
                }
                found = Some(sq);
            }
        }
        let from = found?;
        let moving = pos.board[from.index()];
        let royal_moving = v.royal_kinds >> ((moving.wrapping_sub(1) >> 1) & 63) & 1 != 0;
        let victim_royal =
            target != 0 && v.royal_kinds >> ((target.wrapping_sub(1) >> 1) & 63) & 1 != 0;
        let in_check = self.in_check;
        let permanent_check = v.rules().permanent_check == PermanentCheckRule::Illegal;

        let undo = self.position.play_fast::<HASH>(v, from, q.to);
        let pos = &self.position;
        let table = v.tables.get(class as usize)?;
        // The check rule: with one royal piece, not attacked before, a move of another
        // piece can only uncover an attack through the square it left.
        let legal = match pos.sole_royal(us) {
            Some(king) => {
                if in_check || royal_moving {
                    !pos.is_attacked(king, them)
                } else {
                    !pos.attacked_through(king, them, from)
                }
            }
            _ => true,
        };
        // Check given: against one royal piece that no capture of a royal piece left alone
        // (so it was not attacked before), only by the piece moved or through the square it
        // left.
        let check = legal
            && match pos.sole_royal(them) {
                Some(king) if !victim_royal => {
                    g.is_main(king)
                        && ((table.captures
                            && table.reaches(us, q.to, king, MODE_CAPTURE, pos.occupied()))
                            || pos.attacked_through(king, us, from))
                }
                _ => pos.is_check(),
            };
        if !legal || (check && permanent_check) {
            self.position.undo_fast(from, q.to, undo);
            return None;
        }
        self.record_checked(
            Move::normal(from, q.to),
            Last::Fast(from, q.to, undo),
            check,
        );
        Some(check)
    }

    /// Whether the game goes on. Under a permanent-check rule a position whose only moves are
    /// forbidden checks counts as having no moves.
    pub fn status(&self) -> Status {
        let rules = self.position.variant().rules();
        if rules.permanent_check == PermanentCheckRule::Illegal {
            self.position.status_with(!self.legal_moves().is_empty())
        } else {
            self.position.status()
        }
    }

    /// A draw the side to move could claim (n-move rule or repetition), if any.
    pub fn claimable_draw(&self) -> Option<&'static str> {
        let rules = self.position.variant().rules();
        if rules.n_move_rule > 0 && self.position.halfmove_clock() >= 2 * rules.n_move_rule {
            return Some("n-move rule");
        }
        if rules.repetition > 0 {
            let last = self.hashes.len().checked_sub(1)?;
            let len = key_len(&self.position);
            let hash = self.hashes[last];
            let last_key = self.keys.get(last * len..(last + 1) * len);
            let seen = self
                .hashes
                .iter()
                .zip(self.keys.chunks(len))
                .filter(|&(&h, k)| h == hash && Some(k) == last_key)
                .count();
            if seen as u32 >= rules.repetition {
                return Some("repetition");
            }
        }
        None
    }

    /// The position before the last move (the start position if no move was played).
    pub fn previous_position(&self) -> Position {
        let mut p = self.position.clone();
        match self.last {
            Some(Last::Full(u)) => p.undo(u),
            Some(Last::Fast(from, to, u)) => p.undo_fast(from, to, u),
            None => {}
        }
        p
    }

    /// The legal ordinary moves to `to` by pieces whose kind `wanted` accepts (see
    /// [`Position::legal_moves_to`]). Only for variants whose legality needs no history (no
    /// permanent-check rule); otherwise use [`Game::legal_moves`].
    pub fn legal_moves_to(
        &mut self,
        to: Square,
        wanted: impl FnMut(PieceKind) -> bool,
        out: &mut Vec<Move>,
    ) {
        self.position.legal_moves_to(to, wanted, out);
    }

    /// Keeps those of the ordinary moves in `out` (from [`Position::pseudo_legal_moves_to`])
    /// that are legal. Only for variants whose legality needs no history, as
    /// [`Game::legal_moves_to`].
    pub fn retain_legal(&mut self, out: &mut Vec<Move>) {
        self.position.retain_legal(out);
    }

    /// The position after the first `plies` moves (the start position for 0), played again
    /// from the start.
    pub fn position_after(&self, plies: usize) -> Position {
        let mut p = self.start.clone();
        for &m in self.moves.iter().take(plies) {
            p.play_unchecked(m);
        }
        p
    }

    /// Whether the last move played gave check (attacks an enemy royal piece).
    pub fn last_move_gave_check(&self) -> bool {
        !self.moves.is_empty() && self.in_check
    }

    /// The game taken apart: its start position, its moves, and the hash of every position
    /// (the start included).
    pub fn into_parts(self) -> (Position, Vec<Move>, Vec<u64>) {
        let hashes = if self.hashing() {
            self.hashes
        } else {
            self.computed_hashes()
        };
        (self.start, self.moves, hashes)
    }

    /// Hashes of every position so far, the start included.
    pub fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        let computed = if self.hashing() {
            Vec::new()
        } else {
            self.computed_hashes()
        };
        self.hashes.iter().copied().chain(computed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Options, random_game};

    /// A game without hashes keeps none as it goes, gives the same ones as a game with them
    /// when asked, and keeps them anyway under a rule that compares positions.
    #[test]
    fn a_game_without_hashes_computes_them_when_asked() {
        let mut unhashed = 0;
        for variant in crate::variants::builtins() {
            let played = random_game(&variant, 5, 0, &Options::default());
            let mut lean = Game::new(Position::start(&variant)).without_hashes();
            let mut full = Game::new(Position::start(&variant));
            for &m in played.moves() {
                lean.play(m).unwrap();
                full.play(m).unwrap();
                assert_eq!(lean.position().hash(), full.position().hash());
            }
            assert!(played.moves().len() >= 20);
            assert!(lean.hashes().eq(full.hashes()));
            assert_eq!(lean.hashes().count(), played.moves().len() + 1);
            if lean.hashing() {
                assert!(!lean.keys.is_empty(), "{}", variant.name());
            } else {
                unhashed += 1;
                assert!(lean.hashes.is_empty());
            }
            assert_eq!(lean.into_parts().2, full.into_parts().2);
        }
        assert!(unhashed >= 5, "{unhashed}");
    }
}
