//! Legal move generation, including Tamerlane's special moves.

use super::color::Color;
use super::game::IllegalMove;
use super::movement::{MODE_CAPTURE, MODE_MOVE};
use super::position::{Move, MoveKind, Position, Undo};
use super::square::{Bitboard, Square};
use super::variant::{Piece, PieceKind};

impl Position {
    /// All legal moves. Empty when the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut scratch = self.clone();
        let mut out = Vec::new();
        scratch.legal_moves_into(&mut out);
        out
    }

    /// Plays `m` if it is legal here (one of [`Position::legal_moves`]); returns what
    /// [`Position::undo`] needs. [`Position::play_unchecked`] skips the check, for moves
    /// known to be legal. A position knows no history: the game-level rules (permanent
    /// check) are [`Game::play`](super::game::Game::play)'s.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove> {
        if self.legal_moves().contains(&m) {
            Ok(self.play_unchecked(m))
        } else {
            Err(IllegalMove::NotLegal)
        }
    }

    /// All legal moves into `out` (cleared first), using `self` as scratch space: the
    /// position is the same afterwards.
    pub fn legal_moves_into(&mut self, out: &mut Vec<Move>) {
        out.clear();
        if self.end_by_rule().is_some() {
            return;
        }
        self.push_legal_moves(out);
    }

    /// The moves that would be legal if the game had not ended by a rule that needs no moves
    /// (a bare king, a citadel entered), into `out` (cleared first): [`Position::legal_moves_into`]
    /// in a position where the game goes on. For records of games played on past their end.
    pub fn legal_moves_past_end_into(&mut self, out: &mut Vec<Move>) {
        out.clear();
        self.push_legal_moves(out);
    }

    /// Appends the legal moves, whether or not the game has ended by a rule.
    #[inline(always)]
    fn push_legal_moves(&mut self, out: &mut Vec<Move>) {
        let us = self.turn;
        for from in self.by_color[us.index()] & !self.waiting(us) {
            self.piece_moves(from, out);
        }
        match self.pin_lines(us) {
            // With two or more royal pieces the check rule protects none of them.
            None if self.royal[us.index()].count() >= 2 => {}
            // Not in check with a single royal: only a move of the royal itself or of a piece
            // standing on a line towards it can expose it.
            Some(lines) => {
                let royal = self.royal[us.index()];
                out.retain(|&m| {
                    (m.promotion.is_none() && !lines.contains(m.from) && !royal.contains(m.from))
                        || self.is_legal_unchecked(m)
                });
            }
            None => out.retain(|&m| self.is_legal_unchecked(m)),
        }
        self.special_moves(out);
    }

    /// Whether the side to move has any legal move (stops at the first one found).
    pub fn has_legal_move(&mut self) -> bool {
        if self.end_by_rule().is_some() {
            return false;
        }
        let us = self.turn;
        let lines = self.pin_lines(us);
        let royal = self.royal[us.index()];
        // With two or more royal pieces the check rule protects none of them.
        let unchecked = royal.count() >= 2;
        let mut buf = Vec::with_capacity(64);
        let pieces = self.by_color[us.index()] & !self.waiting(us);
        // In check (or with no pin lines) most moves are illegal, and a royal piece's are the
        // likeliest escapes: its moves are tried first. Otherwise the other pieces' are, as
        // most of them need no test at all.
        let (first, then) = if lines.is_none() {
            (pieces & royal, pieces & !royal)
        } else {
            (pieces & !royal, pieces & royal)
        };
        for from in first.into_iter().chain(then) {
            buf.clear();
            self.piece_moves(from, &mut buf);
            for &m in &buf {
                if unchecked || safe_by_lines(lines, royal, m) || self.is_legal_unchecked(m) {
                    return true;
                }
            }
        }
        buf.clear();
        self.special_moves(&mut buf);
        !buf.is_empty()
    }

    /// The legal ordinary moves to `to` by pieces whose kind `wanted` accepts, into `out`
    /// (cleared first). Much cheaper than [`Position::legal_moves_into`] when a move's text
    /// already names its piece and destination: only the ways onto `to` are looked at, and only
    /// the moves found are tested against the check rule.
    pub fn legal_moves_to(
        &mut self,
        to: Square,
        mut wanted: impl FnMut(PieceKind) -> bool,
        out: &mut Vec<Move>,
    ) {
        let kinds = (0..self.variant.kinds().len() as u8)
            .filter(|&k| wanted(PieceKind(k)))
            .fold(0u64, |m, k| m | 1 << k);
        self.pseudo_legal_moves_to(to, kinds, out);
        self.retain_legal(out);
    }

    /// Keeps those of the ordinary moves in `out` (from [`Position::pseudo_legal_moves_to`])
    /// that obey the check rule.
    pub fn retain_legal(&mut self, out: &mut Vec<Move>) {
        // Two or more candidates (a move written with its origin, most often): the pin lines
        // spare most of them the test by playing.
        let (lines, royal) = match out.len() {
            0 | 1 => (None, Bitboard::EMPTY),
            _ => (self.pin_lines(self.turn), self.royal[self.turn.index()]),
        };
        let mut i = 0;
        while i < out.len() {
            if safe_by_lines(lines, royal, out[i]) || self.is_legal_unchecked(out[i]) {
                i += 1;
            } else {
                out.remove(i);
            }
        }
    }

    /// The ordinary moves to `to` by pieces of the kinds in the bit set `kinds` (bit `k` for
    /// `PieceKind(k)`), into `out` (cleared first), before the check rule: exactly those of
    /// the pieces' moves that end on `to`, found backwards from `to` without generating the
    /// others. The legal ones are those of [`Position::legal_moves_to`]. Empty when the game
    /// is over by a rule that needs no moves (a bare king, a citadel entered).
    pub fn pseudo_legal_moves_to(&self, to: Square, kinds: u64, out: &mut Vec<Move>) {
        out.clear();
        if self.end_by_rule().is_some() {
            return;
        }
        let us = self.turn;
        let variant = &*self.variant;
        let geometry = variant.geometry();
        let occupied = self.occupied();
        let empty = !occupied.contains(to);
        if !empty {
            let capturable =
                self.by_color[(!us).index()] & !self.immune(!us) & geometry.main_squares();
            if !capturable.contains(to) {
                return;
            }
        }
        let need = if empty { MODE_MOVE } else { MODE_CAPTURE };
        let waiting = self.waiting(us);
        let mut rest = kinds;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let Some(info) = variant.kinds().get(k) else {
                break;
            };
            let table = &variant.tables[info.class as usize];
            let pieces = self.by_kind[us.index()][k] & !waiting & table.reach(us, to);
            if pieces.is_empty() {
                continue;
            }
            // Several ways may lead from one square; each origin counts once.
            let mut found = Bitboard::EMPTY;
            for (from, mask, mode) in table.arrivals(us, to) {
                if mode & need == 0
                    || !pieces.contains(from)
                    || found.contains(from)
                    || mask.intersects(occupied)
                {
                    continue;
                }
                let piece = Piece {
                    color: us,
                    kind: PieceKind(k as u8),
                };
                if empty && !geometry.is_main(to) && !self.may_enter(to, piece) {
                    continue;
                }
                found |= from.bit();
                if info.pawn && variant.last_rank[us].contains(to) {
                    self.push_promotions(Move::normal(from, to), piece, out);
                } else {
                    out.push(Move::normal(from, to));
                }
            }
        }
    }

    /// For a side with a single royal piece that is not attacked: the squares on which a piece
    /// blocks some enemy piece's way to the royal. `None` when every move needs the full test.
    fn pin_lines(&self, us: Color) -> Option<Bitboard> {
        let royal = self.royal[us.index()];
        if royal.count() != 1 {
            return None;
        }
        let king = royal.first()?;
        let them = !us;
        if self.is_attacked(king, them) {
            return None;
        }
        let waiting = self.waiting(them);
        // A capture can promote a waiting enemy pawn into a checking piece.
        if self.variant.waiting_pawn_kinds != 0 && waiting.nonempty() {
            return None;
        }
        let classes = &self.by_class[them.index()];
        let mut lines = Bitboard::EMPTY;
        for (i, table) in self.variant.tables.iter().enumerate() {
            let pieces = classes[i] & !waiting;
            if pieces.nonempty() && table.captures {
                lines |= table.lines_to(them, king, pieces);
            }
        }
        Some(lines)
    }

    /// The legal moves of the piece on one square (the king's swaps included).
    pub fn legal_moves_from(&mut self, from: Square) -> Vec<Move> {
        let mut out = Vec::new();
        if self.end_by_rule().is_some() {
            return out;
        }
        let us = self.turn;
        if !self.by_color[us.index()].contains(from) {
            return out;
        }
        if self.waiting(us).contains(from) {
            self.special_moves(&mut out);
            out.retain(|m| m.from == from);
            return out;
        }
        self.piece_moves(from, &mut out);
        out.retain(|&m| self.is_legal_unchecked(m));
        if self.swap_piece(us) == Some(from) {
            // A swap counts as a move of the king. In check it is allowed outright; otherwise
            // only when the side has no other move, which takes the full generator.
            if self.is_attacked(from, !us) {
                self.swaps(from, &mut out);
            } else {
                let mut all = Vec::new();
                self.legal_moves_into(&mut all);
                out.extend(all.into_iter().filter(|m| m.kind == MoveKind::Swap));
            }
        }
        out
    }

    /// Whether a move from [`Position::legal_moves`]' candidates obeys the check rule.
    fn is_legal_unchecked(&mut self, m: Move) -> bool {
        let undo = self.play_unchecked(m);
        let ok = self.mover_safe(m);
        self.undo(undo);
        ok
    }

    /// Just after a candidate move `m` was played with `undo`: whether it obeyed the check
    /// rule, as [`Position::mover_safe`], but with no attack test for a move that only went
    /// from one square to another, off every line towards the mover's royal piece, when that
    /// piece was not attacked before (`was_in_check` false).
    pub(crate) fn mover_safe_after(&self, m: Move, undo: &Undo, was_in_check: bool) -> bool {
        if !was_in_check
            && m.kind == MoveKind::Normal
            && m.promotion.is_none()
            && undo.plain_capture().is_some()
            && self
                .sole_royal(!self.turn)
                .is_some_and(|k| k != m.to && !self.variant.lines_to(self.turn, k).contains(m.from))
        {
            return true;
        }
        self.mover_safe(m)
    }

    /// Just after a legal move `m` was played with `undo`: whether the side to move is in
    /// check ([`Position::is_check`]). A move that only went from one square to another
    /// against a single royal piece not attacked before (the rules guarantee that) checks by
    /// the piece moved or by uncovering a line through its origin; only those are tested.
    pub(crate) fn is_check_after(&self, m: Move, undo: &Undo) -> bool {
        let them = self.turn;
        let us = !them;
        let variant = &*self.variant;
        let plain = m.kind == MoveKind::Normal
            && m.promotion.is_none()
            && undo
                .plain_capture()
                .is_some_and(|c| Piece::from_code(c).is_none_or(|p| !variant.is_royal(p.kind)));
        let (Some(king), Some(moved), true) = (self.sole_royal(them), self.piece_at(m.to), plain)
        else {
            return self.is_check();
        };
        if !variant.geometry().is_main(king) {
            return false;
        }
        let table = &variant.tables[variant.kind(moved.kind).class as usize];
        if table.captures
            && !self.waiting(us).contains(m.to)
            && table.attacks(us, king, m.to.bit(), self.occupied())
        {
            return true;
        }
        variant.lines_to(us, king).contains(m.from) && self.is_attacked(king, us)
    }

    /// Just after a candidate move `m` was played: whether it obeyed the check rule (left the
    /// mover's royal piece unattacked).
    pub(crate) fn mover_safe(&self, m: Move) -> bool {
        let mover = !self.turn;
        if m.kind == MoveKind::Swap {
            // The king stands on the partner's square now.
            !self.is_attacked(m.to, self.turn)
        } else {
            !self.sole_royal_attacked(mover)
        }
    }

    /// The pseudo-legal ordinary moves of the piece on `from`.
    fn piece_moves(&self, from: Square, out: &mut Vec<Move>) {
        let Some(piece) = self.piece_at(from) else {
            return;
        };
        let variant = &*self.variant;
        let geometry = variant.geometry();
        let us = piece.color;
        let occupied = self.occupied();
        let capturable = self.by_color[(!us).index()] & !self.immune(!us) & geometry.main_squares();
        let info = variant.kind(piece.kind);
        let table = &variant.tables[info.class as usize];
        let promotes = info.pawn;
        let last = variant.last_rank[us];
        let (rays, repeats) = table.rays(us, from);
        let mut seen = Bitboard::EMPTY;
        for ray in rays {
            for t in ray {
                if t.mask.intersects(occupied) {
                    break;
                }
                let to = t.to;
                let ok = if !occupied.contains(to) {
                    t.mode & MODE_MOVE != 0 && (geometry.is_main(to) || self.may_enter(to, piece))
                } else {
                    t.mode & MODE_CAPTURE != 0 && capturable.contains(to)
                };
                if ok && !(repeats && seen.contains(to)) {
                    seen |= to.bit();
                    if promotes && last.contains(to) {
                        self.push_promotions(Move::normal(from, to), piece, out);
                    } else {
                        out.push(Move::normal(from, to));
                    }
                }
                if t.stop && occupied.contains(to) {
                    break;
                }
            }
        }
    }

    /// Whether a piece may move into the (empty) extra square `to`: an enemy citadel takes
    /// royals only, a side's own citadel the kinds its definition allows.
    fn may_enter(&self, to: Square, piece: Piece) -> bool {
        let variant = &*self.variant;
        match variant.geometry().citadel(to) {
            Some(c) if c.owner != piece.color => variant.is_royal(piece.kind),
            Some(_) => variant.citadel_allows(to, piece.color, piece.kind),
            None => false,
        }
    }

    /// What a pawn becomes on arriving at its last rank: one move per choice.
    fn push_promotions(&self, m: Move, piece: Piece, out: &mut Vec<Move>) {
        let variant = &*self.variant;
        if let Some(pp) = &variant.rules().pawn_of_pawns
            && let Some(i) = pp.states.iter().position(|&k| k == piece.kind)
        {
            let next = if i < 2 {
                pp.states[i + 1]
            } else {
                pp.third_arrival
            };
            out.push(Move {
                promotion: Some(next),
                ..m
            });
            return;
        }
        let choices = &variant.kind(piece.kind).promotion;
        if variant.waiting_pawn_kinds != 0 {
            return self.push_lost_promotions(m, piece, out);
        }
        if choices.is_empty() {
            out.push(m);
        }
        for &k in choices {
            out.push(Move {
                promotion: Some(k),
                ..m
            });
        }
    }

    /// Promotion to lost pieces: one move per kind of the list of which the side has fewer
    /// than at the start, or, with none, the pawn's arrival to wait.
    #[cold]
    fn push_lost_promotions(&self, m: Move, piece: Piece, out: &mut Vec<Move>) {
        let variant = &*self.variant;
        let start = out.len();
        for &k in &variant.kind(piece.kind).promotion {
            if self.pieces_of(piece.color, k).count()
                < u32::from(variant.start_count[piece.color][k.index()])
            {
                out.push(Move {
                    promotion: Some(k),
                    ..m
                });
            }
        }
        if out.len() == start {
            out.push(m);
        }
    }

    /// The square of the piece that may swap, if the side still may.
    fn swap_piece(&self, us: Color) -> Option<Square> {
        let kind = self.variant.rules().king_swap?;
        if !self.swap[us.index()] {
            return None;
        }
        self.pieces_of(us, kind).first()
    }

    /// Lifts, relocations and swaps, added to the legal ordinary moves in `out`.
    fn special_moves(&mut self, out: &mut Vec<Move>) {
        let us = self.turn;
        if let Some(pp) = self.variant.rules().pawn_of_pawns.clone() {
            let last = self.variant.last_rank[us];
            let relocating = self.by_kind[us.index()][pp.states[2].index()] & last;
            let lifting = self.by_kind[us.index()][pp.states[1].index()] & last;
            for from in relocating {
                let to = pp.relocation[us];
                if !self.occupied().contains(to) {
                    let m = Move {
                        from,
                        to,
                        kind: MoveKind::Relocation,
                        promotion: None,
                    };
                    if self.is_legal_unchecked(m) {
                        out.push(m);
                    }
                }
            }
            for from in lifting {
                self.lifts(from, out);
            }
        }
        if let Some(king) = self.swap_piece(us)
            && (out.is_empty() || self.is_attacked(king, !us))
        {
            self.swaps(king, out);
        }
    }

    /// The legal lifts of the waiting pawn of pawns on `from`.
    fn lifts(&mut self, from: Square, out: &mut Vec<Move>) {
        let us = self.turn;
        let Some(pawn) = self.piece_at(from) else {
            return;
        };
        let variant = self.variant.clone();
        let table = &variant.tables[variant.kind(pawn.kind).class as usize];
        let removable = self.occupied()
            & !self.royal[0]
            & !self.royal[1]
            & !self.immune(Color::White)
            & !self.immune(Color::Black);
        let targets =
            self.by_color[(!us).index()] & !self.immune(!us) & variant.geometry().main_squares();
        for to in variant.geometry().main_squares() {
            if to == from || (self.occupied().contains(to) && !removable.contains(to)) {
                continue;
            }
            // The enemy pieces the pawn would attack from `to`.
            let mut attacked = Bitboard::EMPTY;
            let (rays, _) = table.rays(us, to);
            for ray in rays {
                for t in ray {
                    if t.mode & MODE_CAPTURE != 0 && t.mask.is_empty() && targets.contains(t.to) {
                        attacked |= t.to.bit();
                    }
                }
            }
            if attacked.is_empty() {
                continue;
            }
            let m = Move {
                from,
                to,
                kind: MoveKind::Lift,
                promotion: None,
            };
            let undo = self.play_unchecked(m);
            let ok = !self.sole_royal_attacked(us)
                && (attacked.count() >= 2
                    || attacked
                        .first()
                        .is_some_and(|sq| self.legal_moves_from(sq).is_empty()));
            self.undo(undo);
            if ok {
                out.push(m);
            }
        }
    }

    /// The legal swaps with the own piece on `partner`, into `out` (cleared first), when the
    /// side to move is in check and may swap: then a swap is allowed whatever other moves
    /// there are, so nothing else needs generating. False (and `out` meaningless) otherwise,
    /// or when the game is over by a rule.
    pub fn legal_swaps_in_check(&mut self, partner: Square, out: &mut Vec<Move>) -> bool {
        out.clear();
        let us = self.turn;
        let Some(king) = self.swap_piece(us) else {
            return false;
        };
        if self.end_by_rule().is_some() || !self.is_attacked(king, !us) {
            return false;
        }
        self.swaps_with(king, partner.bit(), out);
        true
    }

    /// The legal swaps of the king on `king`.
    fn swaps(&mut self, king: Square, out: &mut Vec<Move>) {
        self.swaps_with(king, !Bitboard::EMPTY, out);
    }

    /// The legal swaps of the king on `king` with partners among `with`.
    fn swaps_with(&mut self, king: Square, with: Bitboard, out: &mut Vec<Move>) {
        let us = self.turn;
        let last = self.variant.last_rank[us];
        let partners = self.by_color[us.index()] & !self.royal[us.index()] & with;
        for partner in partners {
            let Some(p) = self.piece_at(partner) else {
                continue;
            };
            let base = Move {
                from: king,
                to: partner,
                kind: MoveKind::Swap,
                promotion: None,
            };
            let mut candidates = Vec::new();
            // A pawn put on its last rank arrives there, unless it came from that rank.
            if self.variant.is_pawn(p.kind) && last.contains(king) && !last.contains(partner) {
                self.push_promotions(base, p, &mut candidates);
            } else {
                candidates.push(base);
            }
            for m in candidates {
                if self.is_legal_unchecked(m) {
                    out.push(m);
                }
            }
        }
    }

    /// The kind a piece of `kind` is, or `None`; used by notation to name pieces.
    pub fn kind_at(&self, sq: Square) -> Option<PieceKind> {
        self.piece_at(sq).map(|p| p.kind)
    }
}

/// Whether the check rule cannot forbid the ordinary move `m`, given its side's pin lines
/// ([`Position::pin_lines`], `None` when every move needs the full test) and royal pieces: a
/// move of a piece off every line, that promotes nothing, uncovers nothing.
fn safe_by_lines(lines: Option<Bitboard>, royal: Bitboard, m: Move) -> bool {
    lines.is_some_and(|l| m.promotion.is_none() && !l.contains(m.from) && !royal.contains(m.from))
}
