//! A compiled variant: board, piece kinds, movement tables and rules.

use std::collections::HashMap;

use super::color::{ByColor, Color};
use super::definition::{
    BareKingRule, MoveDef, MovesRef, PermanentCheckRule, PromotionRule, StalemateRule, VariantDef,
};
use super::geometry::Geometry;
use super::letters::{PieceLetters, Role};
use super::movement::{self, MoveTable};
use super::square::{Bitboard, Square};
use super::zobrist::Zobrist;

/// The most piece kinds a variant may have.
pub const MAX_KINDS: usize = 32;

/// A piece kind of a variant, numbered in definition order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceKind(pub u8);

impl PieceKind {
    /// The kind's number, usable as an index into [`Variant::kinds`].
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece: a kind and a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The side it belongs to.
    pub color: Color,
    /// What kind of piece it is, in its variant's numbering.
    pub kind: PieceKind,
}

impl Piece {
    /// The board's byte for the piece (0 is an empty square).
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        1 + 2 * self.kind.0 + self.color as u8
    }

    #[inline]
    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 {
            None
        } else {
            let c = code - 1;
            Some(Piece {
                color: if c & 1 == 0 {
                    Color::White
                } else {
                    Color::Black
                },
                kind: PieceKind(c >> 1),
            })
        }
    }
}

/// What a variant says about one piece kind.
#[derive(Debug, Clone)]
pub struct KindInfo {
    /// Stable identifier (`pawn-of-rooks`, `pawn-of-pawns'`).
    pub id: String,
    /// The display name; a state of the pawn of pawns adds its arrivals
    /// (`Pawn of Pawns (1 arrival)`).
    pub name: String,
    /// Uppercase symbol in position strings and SAN (`R`, `PR`, `PP'`).
    pub symbol: String,
    /// Other accepted letters.
    pub aliases: Vec<String>,
    /// The chess piece whose name it takes in other languages' letters, if any.
    pub role: Option<Role>,
    /// Whether the piece is royal: it must be checkmated, and a side with exactly one royal
    /// piece may not leave it attacked.
    pub royal: bool,
    /// Whether it is a pawn: its moves reset the move counter, and it promotes on its last rank.
    pub pawn: bool,
    /// What the pawn becomes on its last rank: one choice is automatic.
    pub promotion: Vec<PieceKind>,
    /// The most a side may have of this kind in a position; `None` for no limit.
    pub max_count: Option<u32>,
    /// The kind this one is a state of (itself for ordinary kinds); `max_count` counts the
    /// whole family.
    pub base: PieceKind,
    /// For the pawn of pawns: arrivals on the last rank so far.
    pub arrivals: u8,
    pub(crate) class: u8,
}

/// Tamerlane's pawn of pawns, resolved to kinds and squares.
#[derive(Debug, Clone)]
pub struct PawnOfPawns {
    /// The kind after 0, 1 and 2 arrivals.
    pub states: [PieceKind; 3],
    /// Where it goes on its second arrival, per side (Tamerlane: f3 for White, f8 for Black).
    pub relocation: ByColor<Square>,
    /// What it becomes on its third arrival (Tamerlane: the adventitious king).
    pub third_arrival: PieceKind,
    /// At the third arrival, the side's pieces of the first kind become the second (Tamerlane:
    /// the pawn of kings becomes a prince); `None` for no such change.
    pub also_promote: Option<(PieceKind, PieceKind)>,
}

/// The rules of a variant, with names resolved.
#[derive(Debug, Clone)]
pub struct Rules {
    /// The result for the side that is stalemated.
    pub stalemate: StalemateRule,
    /// What happens to a side reduced to its royal pieces.
    pub bare_king: BareKingRule,
    /// Moves (by each side) without capture or pawn move after which a draw may be claimed;
    /// 0 for none.
    pub n_move_rule: u32,
    /// Occurrences of a position after which a draw may be claimed; 0 for none.
    pub repetition: u32,
    /// Whether a check that repeats a position in a series of checks is illegal.
    pub permanent_check: PermanentCheckRule,
    /// The kind that may swap once per game.
    pub king_swap: Option<PieceKind>,
    /// Tamerlane's pawn of pawns; `None` where the variant has none.
    pub pawn_of_pawns: Option<PawnOfPawns>,
    /// How a pawn's promotion choices are limited.
    pub promotion: PromotionRule,
}

/// The most pawns of one side that can wait at once under [`PromotionRule::LostPieces`].
pub const MAX_WAITING: usize = 16;

/// A variant ready for play: built from a [`VariantDef`] by [`Variant::new`].
///
/// The built-in variants come from [`variants::builtin`](crate::variants::builtin), a user's
/// definition from [`variants::from_toml`](crate::variants::from_toml) or
/// [`variants::load_file`](crate::variants::load_file); positions share the variant through
/// an `Arc`.
///
/// ```
/// use kabir_rules::Position;
///
/// let tamerlane = kabir_rules::variants::builtin("tamerlane")?;
/// assert_eq!(tamerlane.name(), "Tamerlane Chess");
/// let board = tamerlane.geometry();
/// // 11 files by 10 ranks, and the two citadels beside the board.
/// assert_eq!((board.files(), board.ranks(), board.len()), (11, 10, 112));
/// assert_eq!(Position::start(&tamerlane).legal_moves().len(), 24);
/// # Ok::<(), kabir_rules::variants::LoadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Variant {
    def: VariantDef,
    geometry: Geometry,
    kinds: Vec<KindInfo>,
    pub(crate) tables: Vec<MoveTable>,
    rules: Rules,
    /// Per citadel square index: the kinds of its owner allowed in it (bit per kind).
    pub(crate) citadel_allow: Vec<(Square, Color, u64)>,
    pub(crate) last_rank: ByColor<Bitboard>,
    pub(crate) royal_kinds: u64,
    #[doc(hidden)]
    pub pawn_kinds: u64,
    /// The pawn kinds that wait on their last rank for a lost piece (none unless the
    /// promotion rule is [`PromotionRule::LostPieces`]).
    pub(crate) waiting_pawn_kinds: u64,
    /// The kinds that wait on their last rank, immune and without ordinary moves: these pawns,
    /// or the pawn of pawns after its first and second arrivals.
    pub(crate) waiting_kinds: u64,
    /// The classes of `waiting_kinds` (bit per class): attack tests need the waiting pieces
    /// only among candidates of these classes.
    pub(crate) waiting_classes: u32,
    /// Per side and kind: how many the start position has (for promotion to lost pieces).
    pub(crate) start_count: ByColor<[u8; MAX_KINDS]>,
    pub(crate) zobrist: Zobrist,
    symbols: HashMap<String, PieceKind>,
    /// The kind of each one-letter symbol or alias, `A` to `Z`.
    letters: [Option<PieceKind>; 26],
    /// Per attacking color and square (`color * squares + square`): every square whose
    /// emptying could open some piece's way to capture there. A move from elsewhere cannot
    /// uncover an attack on that square.
    pub(crate) lines: Vec<Bitboard>,
    /// The start position, read once (a game starts from it far more often than that).
    pub(crate) start_setup: Option<Box<super::position::Setup>>,
    /// The movement class of each kind.
    pub(crate) class_of: [u8; MAX_KINDS],
    /// Per attacking color, target and passed square (`(color * squares + target) * squares
    /// + via`): the capturing classes with a way to the target through `via`. Only those
    /// classes can have an attack uncovered by a piece leaving `via`.
    through: Vec<u32>,
    /// The class of every pawn kind, when they share one that no other kind has: then the
    /// pawns of a side are one set of the position.
    pub(crate) pawn_class: Option<u8>,
    /// Per side, its citadels: a royal piece of the other side there ends the game.
    pub(crate) citadels_of: ByColor<Bitboard>,
    /// Per attacking color and target (`color * squares + target`), for each class in order:
    /// the squares from which a piece of the class could capture there on an empty board
    /// (none for a class that cannot capture).
    attackers: Vec<Bitboard>,
    /// Per attacking color and target: the classes (bit per class) whose every way there is a
    /// leap, so that a piece on one of `attackers` attacks whatever stands between.
    leapers: Vec<u32>,
    /// The kind each letter names in canonical SAN: a one-letter symbol of a kind that is not
    /// a pawn (aliases and pawn letters are not canonical).
    san_letters: [Option<PieceKind>; 26],
    /// The set of letters moves are read with, when not the variant's own
    /// ([`Variant::with_piece_letters`]).
    input_letters: Option<InputLetters>,
}

/// A set of other languages' letters as a variant reads moves with it.
#[derive(Debug, Clone)]
struct InputLetters {
    set: &'static PieceLetters,
    /// Per letter `A` to `Z`: the kind the variant's own letter names, where the set's letter
    /// names another.
    shadowed: [Option<PieceKind>; 26],
}

/// Why a variant definition was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variant {variant:?}: {message}")]
pub struct VariantError {
    /// The `id` of the refused definition.
    pub variant: String,
    /// Which part of the definition is wrong.
    pub kind: VariantErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

/// The part of a variant definition that was refused (see `docs/VARIANT-FORMAT.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VariantErrorKind {
    /// The `id`.
    Id,
    /// The board: its size or its citadels.
    Board,
    /// A piece: its id, kind, movement or symbol.
    Piece,
    /// The promotion rules of the pieces.
    Promotion,
    /// The game rules (`[rules]`): stalemate, bare king, promotion, the pawn of pawns...
    Rules,
    /// The start position string.
    Start,
}

impl Variant {
    /// Checks a definition and compiles its tables.
    pub fn new(def: VariantDef) -> Result<Variant, VariantError> {
        let variant = def.id.clone();
        Self::compile(def).map_err(|(kind, message)| VariantError {
            variant,
            kind,
            message,
        })
    }

    /// [`Variant::new`], with its refusal: the part refused and what is wrong, in words.
    fn compile(def: VariantDef) -> Result<Variant, (VariantErrorKind, String)> {
        use VariantErrorKind as K;
        let part = |kind: VariantErrorKind| move |message: String| (kind, message);
        check_id(&def.id).map_err(part(K::Id))?;
        let extra: Vec<(String, Color, i8, i8)> = def
            .board
            .citadels
            .iter()
            .map(|c| (c.name.clone(), c.owner, c.file, c.rank))
            .collect();
        let geometry =
            Geometry::new(def.board.files, def.board.ranks, &extra).map_err(part(K::Board))?;
        let (mut kinds, class_defs) = piece_kinds(&def).map_err(part(K::Piece))?;
        let symbols = symbol_table(&kinds).map_err(part(K::Piece))?;
        set_promotions(&def, &mut kinds).map_err(part(K::Promotion))?;
        let mut steps = movement::Steps::new(&geometry);
        let tables = class_defs
            .iter()
            .map(|d| MoveTable::new(&geometry, d, &mut steps))
            .collect::<Result<Vec<_>, _>>()
            .map_err(part(K::Piece))?;
        let rules = resolve_rules(&def, &geometry, &kinds).map_err(part(K::Rules))?;
        let mut citadel_allow = Vec::new();
        for (c, cdef) in geometry.citadels().iter().zip(&def.board.citadels) {
            let mut mask = 0u64;
            for id in &cdef.allow_own {
                mask |= 1 << kind_by_id(&kinds, id).map_err(part(K::Board))?.0;
            }
            citadel_allow.push((c.square, c.owner, mask));
        }
        check_lost_pieces(&rules, &geometry).map_err(part(K::Rules))?;
        let last_rank = ByColor::new(
            geometry.rank_mask(geometry.ranks() as i8),
            geometry.rank_mask(1),
        );
        let royal_kinds = kind_mask(&kinds, |k| k.royal);
        let pawn_kinds = kind_mask(&kinds, |k| k.pawn);
        let waiting_pawn_kinds = if rules.promotion == PromotionRule::LostPieces {
            pawn_kinds
        } else {
            0
        };
        let waiting_kinds = match &rules.pawn_of_pawns {
            Some(pp) => 1 << pp.states[1].0 | 1 << pp.states[2].0,
            None => waiting_pawn_kinds,
        };
        let zobrist = Zobrist::new(&geometry, &kinds);
        let mut letters = [None; 26];
        for (sym, &k) in &symbols {
            if let [b @ b'A'..=b'Z'] = sym.as_bytes() {
                letters[(b - b'A') as usize] = Some(k);
            }
        }
        let mut variant = Variant {
            def,
            geometry,
            kinds,
            tables,
            rules,
            citadel_allow,
            last_rank,
            royal_kinds,
            pawn_kinds,
            waiting_pawn_kinds,
            waiting_kinds,
            waiting_classes: 0,
            start_count: ByColor::new([0; MAX_KINDS], [0; MAX_KINDS]),
            zobrist,
            symbols,
            letters,
            lines: Vec::new(),
            start_setup: None,
            class_of: [0; MAX_KINDS],
            through: Vec::new(),
            pawn_class: None,
            citadels_of: ByColor::new(Bitboard::EMPTY, Bitboard::EMPTY),
            san_letters: [None; 26],
            input_letters: None,
            attackers: Vec::new(),
            leapers: Vec::new(),
        };
        variant.index_kinds();
        // The start position must be valid. It is read with the variant as built so far,
        // lent rather than copied: a copy of the move tables cost a fifth of the compilation,
        // which every query pays once.
        let shared = std::sync::Arc::new(variant);
        let start = super::Position::from_fen(&shared, &shared.def.start)
            .map_err(|e| (K::Start, format!("start position: {e}")))?;
        let mut start_count = ByColor::new([0; MAX_KINDS], [0; MAX_KINDS]);
        for color in Color::ALL {
            for (k, count) in start_count[color].iter_mut().enumerate() {
                *count = start.pieces_of(color, PieceKind(k as u8)).count() as u8;
            }
        }
        let start_setup = start.setup();
        drop(start);
        let mut variant = std::sync::Arc::try_unwrap(shared)
            .map_err(|_| (K::Start, "the start position kept the variant".to_string()))?;
        variant.start_count = start_count;
        variant.capture_tables();
        variant.start_setup = Some(Box::new(start_setup));
        Ok(variant)
    }

    /// The look-ups by kind and class that the move generator and SAN use.
    fn index_kinds(&mut self) {
        for (i, k) in self.kinds.iter().enumerate() {
            self.class_of[i] = k.class;
            if self.waiting_kinds >> i & 1 != 0 {
                self.waiting_classes |= 1 << k.class;
            }
            if let [b @ b'A'..=b'Z'] = k.symbol.as_bytes()
                && !k.pawn
            {
                self.san_letters[(b - b'A') as usize] = Some(PieceKind(i as u8));
            }
        }
        let pawn_classes: Vec<u8> = self
            .kinds
            .iter()
            .filter(|k| k.pawn)
            .map(|k| k.class)
            .collect();
        if let Some(&c) = pawn_classes.first()
            && pawn_classes.iter().all(|&p| p == c)
            && self.kinds.iter().all(|k| k.pawn || k.class != c)
        {
            self.pawn_class = Some(c);
        }
        for c in self.geometry.citadels() {
            self.citadels_of[c.owner] |= c.square.bit();
        }
    }

    /// The tables of the ways to capture: `lines`, `through`, `attackers` and `leapers`, from
    /// one look at each class's captures onto each square.
    fn capture_tables(&mut self) {
        let n = self.geometry.len();
        let classes = self.tables.len();
        let mut lines = vec![Bitboard::EMPTY; 2 * n];
        let mut through = vec![0u32; 2 * n * n];
        let mut attackers = vec![Bitboard::EMPTY; 2 * n * classes];
        let mut leapers = vec![0u32; 2 * n];
        // A class that moves alike for both colours has the same captures onto each square
        // for Black as for White: they are copied, with White's lines of those classes alone.
        let alike = self
            .tables
            .iter()
            .enumerate()
            .filter(|(_, t)| t.alike)
            .fold(0u32, |all, (c, _)| all | 1 << c);
        let mut alike_lines = vec![Bitboard::EMPTY; n];
        for color in Color::ALL {
            for target in self.geometry.squares() {
                let i = color.index() * n + target.index();
                let copied = if color == Color::Black { alike } else { 0 };
                if copied != 0 {
                    let w = target.index();
                    for c in 0..classes {
                        if copied >> c & 1 != 0 {
                            attackers[i * classes + c] = attackers[w * classes + c];
                        }
                    }
                    leapers[i] |= leapers[w] & copied;
                    lines[i] |= alike_lines[w];
                    let (white, black) = through.split_at_mut(n * n);
                    for (b, w) in black[w * n..(w + 1) * n]
                        .iter_mut()
                        .zip(&white[w * n..(w + 1) * n])
                    {
                        *b |= w & copied;
                    }
                }
                for (c, t) in self.tables.iter().enumerate() {
                    if !t.captures || copied >> c & 1 != 0 {
                        continue;
                    }
                    let (from, passed) = t.captures_onto(color, target);
                    if from.is_empty() {
                        continue;
                    }
                    attackers[i * classes + c] = from;
                    if passed.is_empty() {
                        leapers[i] |= 1 << c;
                    }
                    lines[i] |= passed;
                    if color == Color::White && t.alike {
                        alike_lines[i] |= passed;
                    }
                    for via in passed {
                        through[i * n + via.index()] |= 1 << c;
                    }
                }
            }
        }
        (self.lines, self.through, self.attackers, self.leapers) =
            (lines, through, attackers, leapers);
    }

    /// The canonical name (`tamerlane`).
    pub fn id(&self) -> &str {
        &self.def.id
    }

    /// The display name (`Tamerlane Chess`).
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// Other accepted names.
    pub fn aliases(&self) -> &[String] {
        &self.def.aliases
    }

    /// The names other programs give the variant (UCI, XBoard, pychess-variants,
    /// Fairy-Stockfish, `Variant` tags seen in game files); also accepted names.
    pub fn other_names(&self) -> &crate::OtherNames {
        &self.def.names
    }

    /// A one-line description.
    pub fn description(&self) -> &str {
        &self.def.description
    }

    /// The definition the variant was built from.
    pub fn definition(&self) -> &VariantDef {
        &self.def
    }

    /// The start position string.
    pub fn start_fen(&self) -> &str {
        &self.def.start
    }

    /// The board: its squares, their names and its citadels.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The end rules and special rules, with piece ids resolved to kinds.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// All piece kinds, indexed by [`PieceKind`].
    pub fn kinds(&self) -> &[KindInfo] {
        &self.kinds
    }

    /// What the variant says about one piece kind.
    pub fn kind(&self, kind: PieceKind) -> &KindInfo {
        &self.kinds[kind.index()]
    }

    /// The kind with a symbol or alias (uppercase, primes included), if any.
    pub fn kind_by_symbol(&self, symbol: &str) -> Option<PieceKind> {
        self.symbols.get(symbol).copied()
    }

    /// The kind whose one-letter symbol or alias is `letter` (uppercase), if any.
    #[inline]
    pub fn kind_by_letter(&self, letter: char) -> Option<PieceKind> {
        let i = (letter as u32).wrapping_sub('A' as u32) as usize;
        self.letters.get(i).copied().flatten()
    }

    /// The piece kind that plays a role for other languages' letters, if any (for
    /// [`Role::Pawn`], the first pawn kind).
    pub fn kind_by_role(&self, role: Role) -> Option<PieceKind> {
        self.kinds
            .iter()
            .position(|k| k.arrivals == 0 && k.role == Some(role))
            .map(|i| PieceKind(i as u8))
    }

    /// This variant reading the piece letters of moves in `set` (`S` for the knight in
    /// German), for records written in another language. Position strings and what kabir
    /// writes keep the variant's own letters.
    ///
    /// Where the set and the variant's own letters differ on a letter, the set's wins: with
    /// German letters, Shatranj's `B` is a pawn (Bauer), not the alfil. A letter of the set
    /// whose role no piece of the variant plays, and every letter the set does not use, keep
    /// the variant's meaning.
    ///
    /// ```
    /// # use kabir_rules::{letters, variants};
    /// let shatranj = variants::builtin("shatranj").unwrap();
    /// let german = shatranj.with_piece_letters(letters::find("de").unwrap());
    /// let knight = shatranj.kind_by_letter('N');
    /// assert_eq!(german.kind_by_letter('S'), knight);
    /// assert_eq!(german.kind_by_letter('N'), knight);
    /// assert_eq!(german.kind_by_letter('B'), shatranj.kind_by_role(letters::Role::Pawn));
    /// ```
    pub fn with_piece_letters(&self, set: &'static PieceLetters) -> Variant {
        let mut letters = [None; 26];
        let mut shadowed = [None; 26];
        // A set with letters beyond ASCII is read through its transliteration, which writes
        // the roles' English letters.
        let ascii = |role: Role| match set.letter(role) {
            Some(l) if l.is_ascii() => l.chars().next(),
            Some(_) => Some(role.english()),
            None => None,
        };
        for role in Role::ALL {
            let (Some(letter), Some(kind)) = (ascii(role), self.kind_by_role(role)) else {
                continue;
            };
            let i = (letter as u32).wrapping_sub('A' as u32) as usize;
            if let Some(slot) = letters.get_mut(i) {
                *slot = Some(kind);
                shadowed[i] = self.letters[i].filter(|&own| own != kind);
            }
        }
        for (slot, own) in letters.iter_mut().zip(self.letters) {
            if slot.is_none() {
                *slot = own;
            }
        }
        // The letters a move in a fast form may start with: the pieces' letters as read, for
        // every kind that is not a pawn (a pawn's letter is never written in a fast form).
        let mut san_letters = [None; 26];
        for (slot, kind) in san_letters.iter_mut().zip(letters) {
            *slot = kind.filter(|&k| !self.kind(k).pawn);
        }
        // Aliases are no fast form in the variant's own letters: they go the general way,
        // which notes them; so here for the letters the set does not give.
        for (i, slot) in san_letters.iter_mut().enumerate() {
            let from_set = (b'A'..=b'Z').nth(i).is_some_and(|b| {
                set.role_of(char::from(b)).is_some()
                    || (set.has_wide_letters()
                        && Role::ALL.iter().any(|r| r.english() == char::from(b)))
            });
            if !from_set && self.san_letters[i].is_none() {
                *slot = None;
            }
        }
        let mut variant = self.clone();
        variant.letters = letters;
        variant.san_letters = san_letters;
        variant.input_letters = Some(InputLetters { set, shadowed });
        variant
    }

    /// Read with another set of letters: each letter the set takes over from the variant's
    /// own, with the piece it names in the variant and the piece it names in the set. Empty
    /// when read with the variant's own letters.
    pub fn letters_taken_over(&self) -> Vec<(char, PieceKind, PieceKind)> {
        let Some(input) = &self.input_letters else {
            return Vec::new();
        };
        (b'A'..=b'Z')
            .zip(input.shadowed)
            .filter_map(|(b, own)| {
                let letter = b as char;
                Some((letter, own?, self.kind_by_letter(letter)?))
            })
            .collect()
    }

    /// The set of letters moves are read with, when not the variant's own.
    pub fn piece_letters(&self) -> Option<&'static PieceLetters> {
        self.input_letters.as_ref().map(|l| l.set)
    }

    /// Why a move written with piece letter `letter` may have failed to mean what its writer
    /// meant, for the message of an illegal move: the letter names another piece in the set
    /// of letters being read than in the variant's own, or (reading the variant's own) it is
    /// a letter of some language's set. `None` when there is nothing to say.
    pub fn letter_note(&self, letter: char) -> Option<String> {
        let letter = letter.to_ascii_uppercase();
        let i = (letter as u32).wrapping_sub('A' as u32) as usize;
        if let Some(input) = &self.input_letters {
            let own = input.shadowed.get(i).copied().flatten()?;
            let now = self.kind_by_letter(letter)?;
            let role = self.kind(now).role?;
            return Some(format!(
                "with --piece-letters {}, {letter} is the {} ({} {}); {}'s own {letter}, the {}, \
                 cannot be written with the {} letters",
                input.set.code,
                self.kind(now).name.to_lowercase(),
                input.set.language,
                input.set.word(role).unwrap_or(role.as_str()),
                self.name(),
                self.kind(own).name.to_lowercase(),
                input.set.language,
            ));
        }
        if self.kind_by_letter(letter).is_some() {
            return None;
        }
        // Per piece, the sets that name it with this letter.
        let mut readings: Vec<(PieceKind, Vec<String>)> = Vec::new();
        for set in &crate::letters::SETS {
            let Some(kind) = set.role_of(letter).and_then(|r| self.kind_by_role(r)) else {
                continue;
            };
            let name = format!("{} (--piece-letters {})", set.language, set.code);
            match readings.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, sets)) => sets.push(name),
                None => readings.push((kind, vec![name])),
            }
        }
        if readings.is_empty() {
            return None;
        }
        let said: Vec<String> = readings
            .iter()
            .map(|(kind, sets)| {
                format!(
                    "the {} in {} letters",
                    self.kind(*kind).name.to_lowercase(),
                    sets.join(", ")
                )
            })
            .collect();
        Some(format!("{letter} is {}", said.join("; ")))
    }

    /// The kind with an id, if any.
    pub fn kind_by_id(&self, id: &str) -> Option<PieceKind> {
        self.kinds
            .iter()
            .position(|k| k.id == id)
            .map(|i| PieceKind(i as u8))
    }

    /// Whether the variant's pawns come in types (their symbols have two letters).
    pub fn has_typed_pawns(&self) -> bool {
        self.kinds
            .iter()
            .any(|k| k.pawn && k.symbol.trim_end_matches('\'').len() == 2)
    }

    #[inline]
    pub(crate) fn lines_to(&self, by: Color, sq: Square) -> Bitboard {
        self.lines
            .get(by.index() * self.geometry.len() + sq.index())
            .copied()
            .unwrap_or(!Bitboard::EMPTY)
    }

    /// The capturing classes of `by` with a way onto `target` through `via` (bit per class).
    #[inline]
    pub(crate) fn classes_through(&self, by: Color, target: Square, via: Square) -> u32 {
        let n = self.geometry.len();
        self.through
            .get((by.index() * n + target.index()) * n + via.index())
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Per class, the squares from which it could capture on `target` for `by`, and the
    /// classes that get there by leaps only (see `attackers`, `leapers`).
    #[inline]
    pub(crate) fn attackers(&self, by: Color, target: Square) -> (&[Bitboard], u32) {
        let i = by.index() * self.geometry.len() + target.index();
        let classes = self.tables.len();
        let from = self
            .attackers
            .get(i * classes..(i + 1) * classes)
            .unwrap_or(&[]);
        (from, self.leapers.get(i).copied().unwrap_or(0))
    }

    /// The kind a letter names in canonical SAN (see `san_letters`).
    #[inline]
    #[doc(hidden)]
    pub fn san_letter(&self, letter: u8) -> Option<PieceKind> {
        let i = letter.wrapping_sub(b'A') as usize;
        self.san_letters.get(i).copied().flatten()
    }

    #[inline]
    pub(crate) fn is_royal(&self, kind: PieceKind) -> bool {
        self.royal_kinds & (1 << kind.0) != 0
    }

    #[inline]
    pub(crate) fn is_pawn(&self, kind: PieceKind) -> bool {
        self.pawn_kinds & (1 << kind.0) != 0
    }

    /// Whether a piece of `color` and `kind` may stand on a citadel square.
    pub(crate) fn citadel_allows(&self, sq: Square, color: Color, kind: PieceKind) -> bool {
        self.citadel_allow
            .iter()
            .find(|(s, _, _)| *s == sq)
            .is_some_and(|&(_, owner, mask)| owner == color && mask & (1 << kind.0) != 0)
    }
}

/// A variant id is lowercase letters, digits and hyphens: it names files and database rows.
fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("`id` must be lowercase letters, digits and hyphens".into());
    }
    Ok(())
}

/// The piece kinds of a definition, with the pawn of pawns' states added after its base kind
/// (promotions not resolved yet), and the movements of their classes: kinds that move alike
/// share a class.
fn piece_kinds(def: &VariantDef) -> Result<(Vec<KindInfo>, Vec<Vec<MoveDef>>), String> {
    let pp_id = def.rules.pawn_of_pawns.as_ref().map(|p| p.piece.clone());
    let mut kinds: Vec<KindInfo> = Vec::new();
    let mut class_defs: Vec<Vec<MoveDef>> = Vec::new();
    for p in &def.pieces {
        let moves = match &p.moves {
            MovesRef::Named(name) => def.movements.get(name).cloned().ok_or_else(|| {
                format!(
                    "piece {:?} uses movement {name:?}, which [movements] does not define",
                    p.id
                )
            })?,
            MovesRef::Inline(list) => list.clone(),
        };
        for m in &moves {
            movement::check(m).map_err(|e| format!("piece {:?}: {e}", p.id))?;
        }
        let class = match class_defs.iter().position(|c| *c == moves) {
            Some(i) => i,
            None => {
                class_defs.push(moves);
                class_defs.len() - 1
            }
        };
        check_symbol(&p.symbol, false).map_err(|e| format!("piece {:?}: {e}", p.id))?;
        for a in &p.aliases {
            if a.len() != 1 || !a.as_bytes()[0].is_ascii_uppercase() {
                return Err(format!(
                    "piece {:?}: alias {a:?} must be one uppercase letter",
                    p.id
                ));
            }
        }
        let base = PieceKind(kinds.len() as u8);
        let states = if pp_id.as_deref() == Some(p.id.as_str()) {
            3
        } else {
            1
        };
        for arrivals in 0..states {
            let primes = "'".repeat(arrivals);
            kinds.push(KindInfo {
                id: format!("{}{primes}", p.id),
                name: if arrivals == 0 {
                    p.name.clone()
                } else {
                    format!(
                        "{} ({arrivals} arrival{})",
                        p.name,
                        if arrivals > 1 { "s" } else { "" }
                    )
                },
                symbol: format!("{}{primes}", p.symbol),
                aliases: if arrivals == 0 {
                    p.aliases.clone()
                } else {
                    Vec::new()
                },
                role: p.role.or(p.pawn.then_some(Role::Pawn)),
                royal: p.royal,
                pawn: p.pawn,
                promotion: Vec::new(),
                max_count: p.max_count,
                base,
                arrivals: arrivals as u8,
                class: class as u8,
            });
        }
    }
    for role in Role::ALL.into_iter().filter(|&r| r != Role::Pawn) {
        let mut playing = kinds
            .iter()
            .filter(|k| k.arrivals == 0 && k.role == Some(role));
        if let (Some(a), Some(b)) = (playing.next(), playing.next()) {
            return Err(format!(
                "pieces {:?} and {:?} both play the role {role}; at most one may",
                a.id, b.id
            ));
        }
    }
    if kinds.len() > MAX_KINDS {
        return Err(format!(
            "{} piece kinds (counting the pawn of pawns' states); at most {MAX_KINDS}",
            kinds.len()
        ));
    }
    if !kinds.iter().any(|k| k.royal) {
        return Err("no piece is royal".into());
    }
    Ok((kinds, class_defs))
}

/// The kind of every symbol and alias. Each is unique, and a one-letter symbol may not begin
/// a two-letter one, so that a position string reads one way only.
fn symbol_table(kinds: &[KindInfo]) -> Result<HashMap<String, PieceKind>, String> {
    let mut symbols = HashMap::new();
    for (i, k) in kinds.iter().enumerate() {
        for s in std::iter::once(&k.symbol).chain(&k.aliases) {
            if symbols.insert(s.clone(), PieceKind(i as u8)).is_some() {
                return Err(format!("the symbol {s:?} is used twice"));
            }
        }
    }
    for k in kinds {
        if k.symbol.trim_end_matches('\'').len() == 2 {
            let first = &k.symbol[..1];
            if symbols.contains_key(first) {
                return Err(format!(
                    "the symbol {first:?} is also the first letter of {:?}",
                    k.symbol
                ));
            }
        }
    }
    Ok(symbols)
}

/// The kind with the id `id`.
fn kind_by_id(kinds: &[KindInfo], id: &str) -> Result<PieceKind, String> {
    kinds
        .iter()
        .position(|k| k.id == id)
        .map(|i| PieceKind(i as u8))
        .ok_or_else(|| format!("no piece has the id {id:?}"))
}

/// The kinds for which `has` holds, a bit per kind.
fn kind_mask(kinds: &[KindInfo], has: impl Fn(&KindInfo) -> bool) -> u64 {
    kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| has(k))
        .fold(0u64, |m, (i, _)| m | 1 << i)
}

/// Resolves what each pawn promotes to.
fn set_promotions(def: &VariantDef, kinds: &mut [KindInfo]) -> Result<(), String> {
    for p in &def.pieces {
        let promotion = p
            .promotion
            .iter()
            .map(|id| kind_by_id(kinds, id))
            .collect::<Result<Vec<_>, _>>()?;
        if !promotion.is_empty() && !p.pawn {
            return Err(format!("piece {:?} promotes but is not a pawn", p.id));
        }
        let base = kinds.iter().position(|k| k.id == p.id).unwrap_or(0);
        kinds[base].promotion = promotion;
    }
    Ok(())
}

/// The definition's rules, with the kinds and squares they name resolved.
fn resolve_rules(
    def: &VariantDef,
    geometry: &Geometry,
    kinds: &[KindInfo],
) -> Result<Rules, String> {
    let king_swap = match &def.rules.king_swap {
        Some(s) => Some(kind_by_id(kinds, &s.piece)?),
        None => None,
    };
    let pawn_of_pawns = match &def.rules.pawn_of_pawns {
        Some(p) => {
            let base = kind_by_id(kinds, &p.piece)?;
            if !kinds[base.index()].pawn {
                return Err(format!("the pawn of pawns {:?} is not a pawn", p.piece));
            }
            let sq = |name: &str| {
                geometry
                    .parse(name)
                    .filter(|&s| geometry.is_main(s))
                    .ok_or_else(|| format!("relocation square {name:?} is not on the board"))
            };
            Some(PawnOfPawns {
                states: [base, PieceKind(base.0 + 1), PieceKind(base.0 + 2)],
                relocation: ByColor::new(sq(&p.relocation[0])?, sq(&p.relocation[1])?),
                third_arrival: kind_by_id(kinds, &p.third_arrival)?,
                also_promote: match &p.also_promote {
                    Some([a, b]) => Some((kind_by_id(kinds, a)?, kind_by_id(kinds, b)?)),
                    None => None,
                },
            })
        }
        None => None,
    };
    let rules = Rules {
        stalemate: def.rules.stalemate,
        bare_king: def.rules.bare_king,
        n_move_rule: def.rules.n_move_rule,
        repetition: def.rules.repetition,
        permanent_check: def.rules.permanent_check,
        king_swap,
        pawn_of_pawns,
        promotion: def.rules.promotion,
    };
    Ok(rules)
}

/// The limits of promotion to lost pieces: its pawns wait in a queue of at most
/// [`MAX_WAITING`] a side (a pawn per file), and it is not combined with a pawn of pawns.
fn check_lost_pieces(rules: &Rules, geometry: &Geometry) -> Result<(), String> {
    if rules.promotion == PromotionRule::LostPieces && rules.pawn_of_pawns.is_some() {
        return Err("promotion to lost pieces cannot be combined with a pawn of pawns".into());
    }
    if rules.promotion == PromotionRule::LostPieces && geometry.files() as usize > MAX_WAITING {
        return Err(format!(
            "promotion to lost pieces needs a board of at most {MAX_WAITING} files"
        ));
    }
    Ok(())
}

fn check_symbol(s: &str, primes: bool) -> Result<(), String> {
    let letters = s.trim_end_matches('\'');
    let ok = (1..=2).contains(&letters.len())
        && letters.bytes().all(|b| b.is_ascii_uppercase())
        && (primes || letters.len() == s.len());
    if ok {
        Ok(())
    } else {
        Err(format!("symbol {s:?} must be one or two uppercase letters"))
    }
}

#[cfg(test)]
mod capture_tables_tests {
    use super::*;

    /// Each capture table as its field's comment reads, from the capture ways one by one.
    #[test]
    fn capture_tables_are_read_from_every_way() {
        for variant in crate::variants::builtins() {
            let n = variant.geometry.len();
            let classes = variant.tables.len();
            for color in Color::ALL {
                for target in variant.geometry.squares() {
                    let i = color.index() * n + target.index();
                    let mut lines = Bitboard::EMPTY;
                    let mut leapers = 0u32;
                    let mut through = vec![0u32; n];
                    for (c, t) in variant.tables.iter().enumerate() {
                        let paths: Vec<(Square, Bitboard)> =
                            t.capture_paths(color, target).collect();
                        let mut attackers = Bitboard::EMPTY;
                        for &(from, mask) in &paths {
                            attackers |= from.bit();
                            lines |= mask;
                            for via in mask {
                                through[via.index()] |= 1 << c;
                            }
                        }
                        if !paths.is_empty() && paths.iter().all(|(_, mask)| mask.is_empty()) {
                            leapers |= 1 << c;
                        }
                        assert_eq!(variant.attackers[i * classes + c], attackers);
                    }
                    assert_eq!(variant.lines[i], lines, "{} {target:?}", variant.id());
                    assert_eq!(variant.leapers[i], leapers, "{} {target:?}", variant.id());
                    assert_eq!(&variant.through[i * n..(i + 1) * n], &through[..]);
                }
            }
        }
    }
}
