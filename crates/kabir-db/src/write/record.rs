//! Games ready to store, and what the importer derives from them by replaying their moves.

use crate::read::query::{Special, SpecialCounts};
use std::sync::Arc;

use kabir_notation::game::RawGame;
use kabir_notation::replay::Replay;
use kabir_notation::tags::{self, Roster};
use kabir_rules::{Game, Move, MoveKind, Position, Status, Termination, Variant};

use crate::derived::summary::Facts;
use crate::derived::tree::{GameTree, game_tree};
use crate::storage::codec::{self, ContentHasher, GameResult};

/// A valid game ready to store.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The game's variant; `start` must be a position of it.
    pub variant: Arc<Variant>,
    /// The start position (the variant's start or a position-string tag).
    pub start: Position,
    /// The main line; every move legal.
    pub moves: Vec<Move>,
    /// Tag pairs in canonical order.
    pub tags: Vec<(String, String)>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The game's canonical text, for export.
    pub pgn: String,
    /// What replaying the moves gives, when the caller has replayed them already (see
    /// [`Replayed`]; it must come from the game whose start and moves these are); `None` and
    /// the importer replays them.
    pub replayed: Option<Replayed>,
}

/// The hash of every position of a game and how it ended, taken from a [`Game`] that played
/// the moves: right by construction, so the importer need not replay them again.
#[derive(Debug, Clone)]
pub struct Replayed {
    hashes: Vec<u64>,
    status: Status,
}

impl Replayed {
    /// What `game` says about its positions.
    pub fn of(game: &Game) -> Replayed {
        Replayed {
            hashes: game.hashes().collect(),
            status: game.status(),
        }
    }
}

impl GameRecord {
    /// The record of a replayed game, if it is valid: tags in canonical order, the canonical
    /// text, and the positions the replay went through, so that the importer need not replay
    /// the moves again. The replay is taken apart for it; an invalid game's replay is given
    /// back.
    pub fn from_replay(mut replay: Replay, raw: &RawGame) -> Result<GameRecord, Box<Replay>> {
        let (Some(variant), Some(status)) = (replay.variant.clone(), replay.status()) else {
            return Err(Box::new(replay));
        };
        if !replay.is_valid() {
            return Err(Box::new(replay));
        }
        let tags = replay.canonical_tags(raw);
        let pgn = replay.write_canonical_with(raw, &tags);
        let result = replay.recorded_result(raw);
        // `status` is `Some` only with a game.
        let Some(game) = replay.game.take() else {
            return Err(Box::new(replay));
        };
        let (start, moves, hashes) = game.into_parts();
        Ok(GameRecord {
            variant,
            start,
            moves,
            tags,
            result,
            pgn,
            replayed: Some(Replayed { hashes, status }),
        })
    }

    /// A record of a game played through the rules core, its positions taken from it.
    pub fn from_game(
        variant: Arc<Variant>,
        game: &Game,
        tags: Vec<(String, String)>,
        result: String,
        pgn: String,
    ) -> GameRecord {
        GameRecord {
            variant,
            start: game.start().clone(),
            moves: game.moves().to_vec(),
            tags,
            result,
            pgn,
            replayed: Some(Replayed::of(game)),
        }
    }
}

/// How a stored game ended: by a rule of the game, or otherwise (resignation, agreement, time,
/// unfinished).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameEnd {
    /// The side to move in the last position is checkmated.
    Checkmate,
    /// The side to move in the last position is stalemated.
    Stalemate,
    /// A side is left with its bare king in the last position.
    BareKing,
    /// A royal piece entered the enemy citadel, which draws the game.
    CitadelDraw,
    /// The rules did not end the game: resignation, agreement, time, or unfinished.
    Other,
}

impl GameEnd {
    /// Every way, in the order reports list them.
    pub const ALL: [GameEnd; 5] = [
        GameEnd::Checkmate,
        GameEnd::Stalemate,
        GameEnd::BareKing,
        GameEnd::CitadelDraw,
        GameEnd::Other,
    ];

    /// The name stored in the `game.termination` column.
    pub fn as_str(self) -> &'static str {
        match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::BareKing => "bare king",
            GameEnd::CitadelDraw => "citadel draw",
            GameEnd::Other => "other",
        }
    }

    /// The way whose name ([`GameEnd::as_str`]) is `s`, if any.
    pub fn parse(s: &str) -> Option<GameEnd> {
        GameEnd::ALL.into_iter().find(|e| e.as_str() == s)
    }

    pub(crate) fn of(status: Status) -> GameEnd {
        match status {
            Status::Over { termination, .. } => match termination {
                Termination::Checkmate => GameEnd::Checkmate,
                Termination::Stalemate => GameEnd::Stalemate,
                Termination::BareKing => GameEnd::BareKing,
                Termination::Citadel => GameEnd::CitadelDraw,
            },
            Status::Ongoing => GameEnd::Other,
        }
    }
}

impl std::fmt::Display for GameEnd {
    /// The stored name ([`GameEnd::as_str`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GameEnd {
    type Err = crate::derived::names::NameError;

    /// Reads the stored name (`bare king`) or the name options take (`bare-king`).
    fn from_str(s: &str) -> Result<GameEnd, Self::Err> {
        crate::derived::names::parse_termination(s)
    }
}

/// Counts of a game's special moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecialMoves {
    /// How many of each kind: king swaps, lifts and relocations of the pawn of pawns,
    /// promotions (the pawn of pawns' arrivals and adventitious kings not included), arrivals
    /// of the pawn of pawns that leave it a pawn of pawns, adventitious kings made, and royal
    /// pieces that entered the enemy citadel (the game ends then, so 0 or 1).
    pub count: SpecialCounts,
    /// Promotions by resulting piece kind id, in kind order.
    pub promotions_by_kind: Vec<(String, u64)>,
}

impl SpecialMoves {
    /// Each kind of special move the game has, in words with its count ("2 king swaps",
    /// "1 citadel draw"), in a fixed order; promotions by kind not included.
    pub fn phrases(&self) -> Vec<String> {
        special_phrases(self.counts())
    }

    /// The counts in a fixed order: swaps, lifts, relocations, promotions, arrivals,
    /// adventitious kings, citadel entries.
    pub fn counts(&self) -> [u64; 7] {
        self.count.as_array()
    }
}

/// The words of [`SpecialMoves::phrases`], for counts in its order.
pub(crate) fn special_phrases(counts: [u64; 7]) -> Vec<String> {
    const WHAT: [&str; 7] = [
        "king swap",
        "lift",
        "relocation",
        "promotion",
        "pawn of pawns arrival",
        "adventitious king",
        "citadel draw",
    ];
    counts
        .iter()
        .zip(WHAT)
        .filter(|(n, _)| **n > 0)
        .map(|(n, what)| format!("{n} {what}{}", if *n == 1 { "" } else { "s" }))
        .collect()
}

/// Why a record was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The start position is of another variant than the record says.
    #[error("the start position belongs to variant {found:?}, not {expected:?}")]
    VariantMismatch {
        /// The id of the record's variant.
        expected: String,
        /// The id of the start position's variant.
        found: String,
    },
    /// The result is not one of `1-0`, `0-1`, `1/2-1/2`, `*`; the result given.
    #[error("result {0:?} is not one of 1-0, 0-1, 1/2-1/2, *")]
    BadResult(String),
    /// A move cannot be played in its position: a square off the board, no piece of the side
    /// to move on its from-square, or an unknown promotion kind.
    #[error("move {ply} is not well-formed in its position")]
    MalformedMove {
        /// The move's ply, counted from 1.
        ply: usize,
    },
    /// The game has more plies than a stored game can (65,535); its number of plies.
    #[error("{0} plies; at most 65535 can be stored")]
    TooLong(usize),
}

/// What the importer stores for one game, derived by replaying it.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
    pub variant: Arc<Variant>,
    pub start_fen: String,
    pub standard_start: bool,
    pub moves_blob: Vec<u8>,
    /// The hash of (variant id, start position string, moves): games with the same moves
    /// share it (the move key).
    pub content: u64,
    /// The hash of the content, the result and the roster tags (the record key; see
    /// [`record_hash`]): the same game record shares it.
    pub record: u64,
    /// Where each of the [`ROSTER`] tags is in `tags`, if there, in [`ROSTER`] order (six
    /// places: the record has its result; [`Derived::roster_values`] names them).
    pub roster: [Option<usize>; 6],
    pub result: GameResult,
    pub end: GameEnd,
    pub plies: u16,
    pub special: SpecialMoves,
    /// The hash of every position: before each ply, and the final one.
    pub hashes: Vec<u64>,
    /// What the opening tree takes from the game.
    pub tree: GameTree,
    pub tags: Vec<(String, String)>,
    pub pgn: String,
}

/// Whether a move can be played by `play_unchecked` without reading outside the board or the
/// piece kinds: squares on the board, a piece of the side to move on the from-square, a known
/// promotion kind. (Legality is the caller's promise; this only keeps bad input harmless.)
pub(crate) fn well_formed(pos: &Position, m: Move) -> bool {
    let variant = pos.variant();
    let n = variant.geometry().len();
    if m.from.index() >= n || m.to.index() >= n || m.from == m.to {
        return false;
    }
    if m.promotion
        .is_some_and(|k| k.index() >= variant.kinds().len())
    {
        return false;
    }
    pos.piece_at(m.from).is_some_and(|p| p.color == pos.turn())
}

impl GameRecord {
    /// The checks the importer makes before storing a record that do not need its moves
    /// replayed: the variant, the result and the length. A caller can use it to report a game
    /// it cannot store, with its place in the input, before handing the record over.
    pub fn check(&self) -> Result<(), RecordError> {
        check(&self.variant, &self.start, &self.result, self.moves.len())
    }
}

fn check(
    variant: &Variant,
    start: &Position,
    result: &str,
    plies: usize,
) -> Result<(), RecordError> {
    if start.variant().id() != variant.id() {
        return Err(RecordError::VariantMismatch {
            expected: variant.id().to_string(),
            found: start.variant().id().to_string(),
        });
    }
    if GameResult::from_ascii(result.as_bytes()).is_none() {
        return Err(RecordError::BadResult(result.to_string()));
    }
    u16::try_from(plies).map_err(|_| RecordError::TooLong(plies))?;
    Ok(())
}

/// Replays a record and derives everything stored about it. `standard` is the variant's start
/// position, its position string and its check key (see `tree::check_key`), if the caller has
/// them at hand.
pub(crate) fn derive(
    record: GameRecord,
    standard: Option<&(Position, String, u64)>,
) -> Result<Derived, RecordError> {
    let GameRecord {
        variant,
        start,
        moves,
        tags,
        result,
        pgn,
        replayed,
    } = record;
    check(&variant, &start, &result, moves.len())?;
    // The start position's own variant from here on: its piece kinds are the ones the moves
    // refer to.
    let variant = start.variant().clone();
    let result = GameResult::from_ascii(result.as_bytes()).ok_or(RecordError::BadResult(result))?;
    let plies = u16::try_from(moves.len()).map_err(|_| RecordError::TooLong(moves.len()))?;
    let (standard_start, start_fen) = match standard {
        Some((p, fen, _)) if p.variant().id() == variant.id() => {
            let standard = start == *p;
            // Equal positions may differ in their move counters, which the string holds.
            let same_text = standard
                && start.halfmove_clock() == p.halfmove_clock()
                && start.fullmove_number() == p.fullmove_number();
            (
                standard,
                if same_text {
                    fen.clone()
                } else {
                    start.to_fen()
                },
            )
        }
        _ => (start == Position::start(&variant), start.to_fen()),
    };
    // Positions are replayed only when the record does not bring them.
    let start_hash = start.hash();
    let (hashes, status) = match replayed {
        Some(r) if r.hashes.len() == moves.len() + 1 && r.hashes.first() == Some(&start_hash) => {
            (r.hashes, r.status)
        }
        _ => play_through(start.clone(), &moves)?,
    };
    let pp = variant.rules().pawn_of_pawns.as_ref();
    let mut special = SpecialMoves::default();
    let mut by_kind = vec![0u64; variant.kinds().len()];
    for &m in &moves {
        match m.kind {
            MoveKind::Swap => special.count[Special::Swap] += 1,
            MoveKind::Lift => special.count[Special::Lift] += 1,
            MoveKind::Relocation => special.count[Special::Relocation] += 1,
            MoveKind::Normal => {}
        }
        if let Some(k) = m.promotion {
            let info = variant.kind(k);
            match pp {
                Some(pp) if info.base == pp.states[0] => special.count[Special::Arrival] += 1,
                Some(pp) if k == pp.third_arrival => special.count[Special::AdventitiousKing] += 1,
                _ => {
                    special.count[Special::Promotion] += 1;
                    if let Some(c) = by_kind.get_mut(k.index()) {
                        *c += 1;
                    }
                }
            }
        }
    }
    let end = GameEnd::of(status);
    if end == GameEnd::CitadelDraw {
        special.count[Special::CitadelEntry] = 1;
    }
    special.promotions_by_kind = by_kind
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(k, &c)| (variant.kinds()[k].id.clone(), c))
        .collect();
    let start_key = match standard {
        Some((p, _, key)) if standard_start && p.variant().id() == variant.id() => Some(*key),
        _ => None,
    };
    let tree = game_tree(&start, start_key, &moves, &hashes);
    let moves_blob = codec::encode_moves(&moves);
    let content = content_hash(variant.id(), &start_fen, &moves_blob);
    let roster = ROSTER.map(|name| tags.iter().position(|(k, _)| k.eq_ignore_ascii_case(name)));
    let record = record_hash(content, result.as_str(), &roster_at(&tags, roster));
    Ok(Derived {
        variant,
        start_fen,
        standard_start,
        moves_blob,
        content,
        record,
        roster,
        result,
        end,
        plies,
        special,
        hashes,
        tree,
        tags,
        pgn,
    })
}

/// Plays a record's moves from its start: the hash of every position and the status at the
/// end. Checks each move is well formed, so that a bad record is refused, never a panic.
fn play_through(mut pos: Position, moves: &[Move]) -> Result<(Vec<u64>, Status), RecordError> {
    let mut hashes = Vec::with_capacity(moves.len() + 1);
    for (ply, &m) in moves.iter().enumerate() {
        if !well_formed(&pos, m) {
            return Err(RecordError::MalformedMove { ply: ply + 1 });
        }
        hashes.push(pos.hash());
        pos.play_unchecked(m);
    }
    hashes.push(pos.hash());
    Ok((hashes, pos.status()))
}

impl Derived {
    /// What the statistics summaries take from the game, stored as `variant`.
    pub fn facts(&self, variant: i64) -> Facts<'_> {
        let s = &self.special;
        Facts {
            variant,
            result: self.result.as_str(),
            end: self.end,
            plies: u32::from(self.plies),
            date: self.roster_values().date,
            special: s.counts(),
            promotions: &s.promotions_by_kind,
            standard_start: self.standard_start,
            moves_blob: &self.moves_blob,
        }
    }

    /// The White, Black, Event and Site values, for the name index.
    pub fn names(&self) -> [Option<&str>; 4] {
        let r = self.roster_values();
        [r.white, r.black, r.event, r.site]
    }

    /// The values of the [`ROSTER`] tags, as stored in their `game` columns (`result` is
    /// `None`).
    pub fn roster_values(&self) -> Roster<&str> {
        roster_at(&self.tags, self.roster)
    }
}

/// The move key: a stable hash of the variant id, the start position string and the moves
/// (nothing else). Stored in `game.content`.
pub(crate) fn content_hash(variant: &str, start_fen: &str, moves_blob: &[u8]) -> u64 {
    let mut h = ContentHasher::default();
    h.field(variant.as_bytes());
    h.field(start_fen.as_bytes());
    h.field(moves_blob);
    h.finish()
}

/// The Seven Tag Roster's tags other than `Result` (which the record has as its result), in
/// the order of the `game` columns that store them (`event`, `site`, `date`, `round`,
/// `white`, `black`).
pub(crate) const ROSTER: [&str; 6] = [
    tags::EVENT,
    tags::SITE,
    tags::DATE,
    tags::ROUND,
    tags::WHITE,
    tags::BLACK,
];

/// The roster of the tags at `places` (in [`ROSTER`] order) of `tags`.
fn roster_at(tags: &[(String, String)], places: [Option<usize>; 6]) -> Roster<&str> {
    let mut places = places.into_iter();
    Roster::from_fn(|name| match name {
        tags::RESULT => None,
        _ => places
            .next()
            .flatten()
            .and_then(|i| tags.get(i))
            .map(|(_, v)| v.as_str()),
    })
}

/// A roster read from the `game` columns that store the [`ROSTER`] tags, in their order from
/// column `first` (`result` is `None`), each by `value`.
pub(crate) fn roster_of_columns<T>(
    first: usize,
    mut value: impl FnMut(usize) -> rusqlite::Result<Option<T>>,
) -> rusqlite::Result<Roster<T>> {
    let mut column = first;
    let mut failed = None;
    let roster = Roster::from_fn(|name| {
        if name == tags::RESULT {
            return None;
        }
        column += 1;
        value(column - 1).unwrap_or_else(|e| {
            failed.get_or_insert(e);
            None
        })
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(roster),
    }
}

/// A roster tag's value for comparing records: an absent tag counts as the value that stands
/// for "unknown" (`?`, or `????.??.??` for the date), which is what the tag says when a game
/// is written out and read back.
fn roster_value<'v>(name: &str, value: Option<&'v str>) -> &'v str {
    match value {
        Some(v) => v,
        None if name == tags::DATE => "????.??.??",
        None => "?",
    }
}

/// The [`ROSTER`] values of a roster, an absent one as [`roster_value`] counts it, in order.
fn roster_fields<'v>(roster: &Roster<&'v str>) -> impl Iterator<Item = &'v str> {
    roster
        .into_pairs()
        .into_iter()
        .filter(|(name, _)| *name != tags::RESULT)
        .map(|(name, value)| roster_value(name, value))
}

/// The record key: a stable hash of what makes a game record itself: its move key
/// ([`content_hash`], which covers the variant id, the start position string and the moves),
/// the result and the values of the [`ROSTER`] tags (comments and other tags are not part of
/// it). Stored in `game.record`; computed from a `game` row's own columns by the migration to
/// schema version 2, so it must only ever be computed from values that the row stores.
pub(crate) fn record_hash(content: u64, result: &str, roster: &Roster<&str>) -> u64 {
    let mut h = ContentHasher::default();
    h.field(&content.to_le_bytes());
    h.field(result.as_bytes());
    for value in roster_fields(roster) {
        h.field(value.as_bytes());
    }
    h.finish()
}

/// Whether two records' results and roster values are the same (their keys being equal).
pub(crate) fn same_record_fields(
    result: &str,
    roster: &Roster<&str>,
    other_result: &str,
    other_roster: &Roster<&str>,
) -> bool {
    result == other_result && roster_fields(roster).eq(roster_fields(other_roster))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabir_rules::generate::{Options, random_game};

    #[test]
    fn derivation_matches_the_game() {
        let v = kabir_rules::variants::builtin("tamerlane").unwrap();
        for i in 0..12 {
            let game = random_game(&v, 3, i, &Options::default());
            let record = GameRecord {
                variant: v.clone(),
                start: game.start().clone(),
                moves: game.moves().to_vec(),
                tags: Vec::new(),
                result: game.status().outcome().map_or("*", |o| o.as_pgn()).into(),
                pgn: String::new(),
                replayed: None,
            };
            // The record's own positions, or the game's: the same.
            let given = derive(
                GameRecord {
                    replayed: Some(Replayed::of(&game)),
                    ..record.clone()
                },
                None,
            )
            .unwrap();
            let d = derive(record, None).unwrap();
            assert_eq!(given.hashes, d.hashes);
            assert_eq!(given.end, d.end);
            assert_eq!(given.special, d.special);
            assert_eq!(d.hashes, game.hashes().collect::<Vec<_>>());
            assert!(d.standard_start);
            assert_eq!(d.plies as usize, game.moves().len());
            let count = |k: MoveKind| game.moves().iter().filter(|m| m.kind == k).count() as u64;
            assert_eq!(d.special.count[Special::Swap], count(MoveKind::Swap));
            assert_eq!(d.special.count[Special::Lift], count(MoveKind::Lift));
            assert_eq!(
                d.special.count[Special::Relocation],
                count(MoveKind::Relocation)
            );
            let promoted = game
                .moves()
                .iter()
                .filter(|m| m.promotion.is_some())
                .count() as u64;
            let s = &d.special;
            assert_eq!(
                s.count[Special::Promotion]
                    + s.count[Special::Arrival]
                    + s.count[Special::AdventitiousKing],
                promoted
            );
            let by_kind: u64 = s.promotions_by_kind.iter().map(|(_, n)| n).sum();
            assert_eq!(by_kind, s.count[Special::Promotion]);
            assert_eq!(codec::decode_moves(&d.moves_blob).unwrap(), game.moves());
            let end = GameEnd::of(game.position().status());
            assert_eq!(d.end, end);
        }
    }

    #[test]
    fn content_hash_separates_fields() {
        assert_ne!(content_hash("ab", "c", &[]), content_hash("a", "bc", &[]));
        assert_eq!(content_hash("a", "b", &[1]), content_hash("a", "b", &[1]));
    }

    /// The move key of every game of a database made by the first release with schema
    /// version 1 is what `content_hash` computes today: the hash never changed.
    #[test]
    fn content_hash_is_the_one_version_1_stored() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/db/v1.db");
        let conn =
            rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT v.name, g.start_fen, g.moves, g.content FROM game g
                 JOIN variant v ON v.id = g.variant",
            )
            .unwrap();
        let rows: Vec<(String, String, Vec<u8>, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), 21);
        for (variant, fen, moves, content) in rows {
            assert_eq!(
                content_hash(&variant, &fen, &moves),
                codec::from_sql(content),
                "{variant} {fen}"
            );
        }
    }

    /// A roster from the six values of the [`ROSTER`] tags, in order.
    fn r6(values: [Option<&str>; 6]) -> Roster<&str> {
        let mut values = values.into_iter();
        Roster::from_fn(|name| match name {
            tags::RESULT => None,
            _ => values.next().flatten(),
        })
    }

    /// The record key is stored in databases: these values must never change (a change
    /// needs a migration that computes the keys again).
    #[test]
    fn record_hash_is_stable() {
        let moves = [12, 20, 0, 52, 44, 0];
        let fen = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";
        let roster = [
            Some("Club match"),
            Some("Basra"),
            None,
            Some("1"),
            Some("Ali"),
            Some("Omar"),
        ];
        let content = content_hash("shatranj", fen, &moves);
        assert_eq!(
            record_hash(content, "1-0", &r6(roster)),
            0xc908_8dcf_8a8a_c973
        );
        assert_eq!(record_hash(0, "*", &r6([None; 6])), 0x3c3a_8fed_54b0_0f0d);
    }

    #[test]
    fn record_hash_covers_result_and_roster_and_fills_absent_tags() {
        let content = content_hash("v", "8/8/8/8/8/8/8/8 w - - 0 1", &[1, 2, 3]);
        let roster = [
            Some("E"),
            Some("S"),
            Some("D"),
            Some("R"),
            Some("W"),
            Some("B"),
        ];
        let base = record_hash(content, "1-0", &r6(roster));
        assert_ne!(base, record_hash(content + 1, "1-0", &r6(roster)));
        assert_ne!(base, record_hash(content, "0-1", &r6(roster)));
        for i in 0..6 {
            let mut other = roster;
            other[i] = Some("X");
            assert_ne!(base, record_hash(content, "1-0", &r6(other)), "{i}");
            assert!(!same_record_fields("1-0", &r6(roster), "1-0", &r6(other)));
        }
        // Two values that run together differently are told apart.
        let mut shifted = roster;
        shifted[0] = Some("ES");
        shifted[1] = Some("");
        assert_ne!(base, record_hash(content, "1-0", &r6(shifted)));
        // An absent tag is its "unknown" value.
        let unknown = [
            Some("?"),
            Some("?"),
            Some("????.??.??"),
            Some("?"),
            Some("?"),
            Some("?"),
        ];
        assert_eq!(
            record_hash(content, "*", &r6([None; 6])),
            record_hash(content, "*", &r6(unknown))
        );
        assert!(same_record_fields("*", &r6([None; 6]), "*", &r6(unknown)));
        assert_ne!(
            record_hash(content, "*", &r6([None; 6])),
            record_hash(content, "*", &r6([Some("?"); 6]))
        );
    }
}
