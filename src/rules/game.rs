//! A game: a start position, the moves played, and the history that repetition rules need.

use super::definition::PermanentCheckRule;
use super::position::{Move, Position, Undo};
use super::square::Square;
use super::status::Status;
use super::variant::PieceKind;

/// A move that may not be played in a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the game is already over")]
    GameOver,
    #[error("the move is not legal in this position")]
    NotLegal,
    #[error("the move repeats a position in a series of checks (permanent check is illegal)")]
    PermanentCheck,
}

#[derive(Debug, Clone, Copy)]
struct Ply {
    hash: u64,
    /// Whether the move that led here gave check.
    check: bool,
}

/// A game in progress or finished.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// One entry per position, the start included.
    history: Vec<Ply>,
    /// Beside each entry of `history`, the pieces and side to move, to tell positions apart
    /// when hashes collide; kept only under rules that compare positions (else empty).
    keys: Vec<Box<[u8]>>,
    /// What each move changed, to step back.
    undos: Vec<Undo>,
}

fn key(pos: &Position) -> Box<[u8]> {
    let n = pos.variant().geometry().len();
    let mut k = Vec::with_capacity(n + 3);
    k.extend_from_slice(&pos.board[..n]);
    k.push(pos.turn as u8);
    k.push(pos.swap[0] as u8);
    k.push(pos.swap[1] as u8);
    k.into_boxed_slice()
}

impl Game {
    pub fn new(start: Position) -> Game {
        let first = Ply {
            hash: start.hash(),
            check: start.is_check(),
        };
        let keys = if Self::tracks(&start) {
            vec![key(&start)]
        } else {
            Vec::new()
        };
        Game {
            position: start.clone(),
            start,
            moves: Vec::new(),
            history: vec![first],
            keys,
            undos: Vec::new(),
        }
    }

    fn tracks(pos: &Position) -> bool {
        let rules = pos.variant().rules();
        rules.permanent_check == PermanentCheckRule::Illegal || rules.repetition > 0
    }

    /// A new game with room for `plies` moves.
    pub fn with_capacity(start: Position, plies: usize) -> Game {
        let mut g = Game::new(start);
        g.moves.reserve(plies);
        g.history.reserve(plies);
        if !g.keys.is_empty() {
            g.keys.reserve(plies);
        }
        g.undos.reserve(plies);
        g
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

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

    /// Whether playing `m` (legal in the position) would repeat a position in an unbroken
    /// series of checks by the side playing it.
    pub fn is_permanent_check(&self, m: Move) -> bool {
        let after = self.position.after(m);
        if !after.is_check() {
            return false;
        }
        let n = self.history.len(); // `after` would be entry n.
        let hash = after.hash();
        let after_key = key(&after);
        // Earlier positions with the same side to move: entries n-2, n-4, ...; the mover's
        // moves since entry j are those that led to entries j+2, j+4, ..., n.
        let mut j = n;
        while j >= 2 {
            j -= 2;
            // The move leading to entry j+2 must have given check (for j+2 == n, it is `m`).
            if j + 2 < n && !self.history[j + 2].check {
                return false;
            }
            if self.history[j].hash == hash && self.keys.get(j) == Some(&after_key) {
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
        let in_check = self.history.last().is_some_and(|p| p.check);
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
        self.undos.push(undo);
        self.history.push(Ply {
            hash: self.position.hash(),
            check,
        });
        if !self.keys.is_empty() {
            self.keys.push(key(&self.position));
        }
        self.moves.push(m);
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
            let last = self.history.len().checked_sub(1)?;
            let (hash, last_key) = (self.history[last].hash, self.keys.get(last));
            let seen = self
                .history
                .iter()
                .zip(&self.keys)
                .filter(|(p, k)| p.hash == hash && Some(*k) == last_key)
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
        if let Some(&u) = self.undos.last() {
            p.undo(u);
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

    /// Whether the last move played gave check (attacks an enemy royal piece).
    pub fn last_move_gave_check(&self) -> bool {
        !self.moves.is_empty() && self.history.last().is_some_and(|p| p.check)
    }

    /// Hashes of every position so far, the start included.
    pub fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.history.iter().map(|p| p.hash)
    }
}
