//! Reading the database: games by id, by position and by tags; the opening explorer; totals.
//!
//! Every value from the caller reaches SQLite as a bound parameter.

use std::collections::HashMap;

use rusqlite::types::ToSql;
use rusqlite::{OptionalExtension, params};

use kabir_notation::tags::Roster;
use kabir_rules::{Color, Move, Position};

use crate::derived::index;
use crate::derived::tree::{self, TreeRow};
use crate::error::DbError;
use crate::read::answer::GameAnswerError;
use crate::storage::codec::{self, GameResult, Posting};
use crate::storage::database::{Database, Layout};
use crate::storage::schema::TREE_EXAMPLES;
use crate::write::import::find_variant;
use crate::write::record::{GameEnd, SpecialMoves, well_formed};

/// A game's number in the database (its `game.id`), from 1 in the order games were stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct GameId(pub u32);

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for GameId {
    type Err = std::num::ParseIntError;

    /// A number, as `kabir show` and the server's `/game/ID` take it.
    fn from_str(s: &str) -> Result<GameId, Self::Err> {
        s.parse().map(GameId)
    }
}

impl PartialEq<u32> for GameId {
    fn eq(&self, other: &u32) -> bool {
        self.0 == *other
    }
}

impl From<u32> for GameId {
    fn from(id: u32) -> GameId {
        GameId(id)
    }
}

impl From<GameId> for u32 {
    fn from(id: GameId) -> u32 {
        id.0
    }
}

impl serde::Serialize for GameId {
    /// As a number, the way JSON answers have always given ids.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.0)
    }
}

impl rusqlite::ToSql for GameId {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::from(i64::from(self.0)))
    }
}

impl rusqlite::types::FromSql for GameId {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        u32::column_result(value).map(GameId)
    }
}

/// A game that reached a position, and the first ply at which it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionHit {
    /// The game.
    pub game: GameId,
    /// Plies played when it first stood there (0: at its start).
    pub ply: u32,
}

/// Results of a set of games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Results {
    /// Games won by White (`1-0`).
    pub white_wins: u64,
    /// Drawn games (`1/2-1/2`).
    pub draws: u64,
    /// Games won by Black (`0-1`).
    pub black_wins: u64,
    /// Games recorded with `*`.
    pub unfinished: u64,
}

impl Results {
    fn add_results(&mut self, o: &Results) {
        self.white_wins += o.white_wins;
        self.draws += o.draws;
        self.black_wins += o.black_wins;
        self.unfinished += o.unfinished;
    }

    /// Adds `n` games of `result`.
    pub(crate) fn add(&mut self, result: GameResult, n: u64) {
        match result {
            GameResult::WhiteWins => self.white_wins += n,
            GameResult::Draw => self.draws += n,
            GameResult::BlackWins => self.black_wins += n,
            GameResult::Unknown => self.unfinished += n,
        }
    }

    /// Adds `n` games of the result written `result`; one not known is unfinished.
    pub(crate) fn add_result(&mut self, result: &str, n: u64) {
        self.add(
            GameResult::from_ascii(result.as_bytes()).unwrap_or(GameResult::Unknown),
            n,
        );
    }
}

/// One move of the opening explorer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExplorerMove {
    /// The move itself (not in the JSON).
    #[serde(skip)]
    pub mv: Move,
    /// The move in canonical SAN (without check mark).
    pub san: String,
    /// The move in coordinate notation.
    pub uci: String,
    /// Games that played this move the first time they reached the position.
    pub games: u64,
    /// `games` as a share of the games that continued from the position.
    pub share_pct: f64,
    /// The results of those games.
    pub results: Results,
    /// The average length of those games, in plies.
    pub average_plies: f64,
    /// A few of those games (the lowest ids).
    pub examples: Vec<GameId>,
    /// The explorer of the position after the move, when asked for a tree
    /// ([`Database::explore_tree`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Box<Explorer>>,
}

/// What the database knows about a position: every game that reached it (transpositions
/// included), each counted once, at its first visit.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Explorer {
    /// Games that reached the position.
    pub games: u64,
    /// The results of those games.
    pub results: Results,
    /// Games that ended in the position (the rest continued with one of `moves`).
    pub ended_here: u64,
    /// The moves played from it, most played first; their `games` add up to
    /// `games - ended_here`.
    pub moves: Vec<ExplorerMove>,
}

/// The moves an explorer tree lists at most unless asked otherwise
/// ([`TreeQuery::max_nodes`]): more than anyone reads as a table, and a few megabytes held.
pub const DEFAULT_TREE_NODES: usize = 20_000;

/// The deepest an explorer tree goes: a deeper [`TreeQuery::depth`] counts as this. The
/// tree's nodes are nested as deep as it goes, and are written out and freed recursively.
pub const MAX_TREE_DEPTH: usize = 100;

/// What [`Database::explore_tree`] is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeQuery {
    /// How many moves deep the tree goes (1: the position's moves alone; at most
    /// [`MAX_TREE_DEPTH`]).
    pub depth: usize,
    /// How many of each position's most played moves are followed.
    pub breadth: usize,
    /// Example game ids per move.
    pub examples: usize,
    /// The most moves the tree lists, over all its positions (its nodes: a row of the
    /// table); the position's own moves are listed whatever this is.
    pub max_nodes: usize,
}

impl Default for TreeQuery {
    fn default() -> TreeQuery {
        TreeQuery {
            depth: 1,
            breadth: 3,
            examples: 3,
            max_nodes: DEFAULT_TREE_NODES,
        }
    }
}

/// The answer of [`Database::explore_tree`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExplorerTree {
    /// The position's explorer, with the explorers of the positions followed under its
    /// moves ([`ExplorerMove::next`]).
    pub root: Explorer,
    /// The moves listed, over all the tree's positions.
    pub nodes: usize,
    /// `Some` when positions that the depth and breadth asked for were left out to keep
    /// within [`TreeQuery::max_nodes`].
    pub truncated: Option<Truncation>,
}

/// Where an explorer tree was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// The bound that cut it.
    pub max_nodes: usize,
    /// The tree lists every move down to this depth (1: the position's own moves); at the
    /// next depth, only those of the most played lines.
    pub complete_depth: usize,
}

/// A stored game.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// Its id.
    pub id: GameId,
    /// The variant's id.
    pub variant: String,
    /// The position string it started from.
    pub start_fen: String,
    /// The moves of its main line.
    pub moves: Vec<Move>,
    /// Its tags as (name, value) pairs, in the order of its text.
    pub tags: Vec<(String, String)>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: GameResult,
    /// What the rules say of its last position.
    pub end: GameEnd,
    /// Its length in plies (the number of `moves`).
    pub plies: u32,
    /// Its special moves, counted (`promotions_by_kind` in the order of the kinds' ids).
    pub special: SpecialMoves,
    /// Its canonical text.
    pub pgn: String,
}

impl StoredGame {
    /// The position after `ply` plies (0: the start), with the variant found in `variants`.
    /// An error says whether the variant is unknown there, `ply` is past the end, or the
    /// stored game does not replay (a damaged database).
    pub fn position_at(
        &self,
        variants: &kabir_rules::variants::Registry,
        ply: usize,
    ) -> Result<Position, GameAnswerError> {
        let mut pos = self.start(variants)?;
        let moves = self.moves.get(..ply).ok_or(GameAnswerError::PastEnd {
            id: self.id,
            plies: self.moves.len(),
            ply,
        })?;
        for (i, &m) in moves.iter().enumerate() {
            if !well_formed(&pos, m) {
                return Err(self.unfit_move(i + 1));
            }
            pos.play_unchecked(m);
        }
        Ok(pos)
    }

    /// The moves in canonical SAN with check marks (errors as [`StoredGame::position_at`]).
    pub fn san_moves(
        &self,
        variants: &kabir_rules::variants::Registry,
    ) -> Result<Vec<String>, GameAnswerError> {
        let mut pos = self.start(variants)?;
        let mut legal = Vec::new();
        let mut out = Vec::with_capacity(self.moves.len());
        for (i, &m) in self.moves.iter().enumerate() {
            if !well_formed(&pos, m) {
                return Err(self.unfit_move(i + 1));
            }
            pos.legal_moves_into(&mut legal);
            out.push(kabir_notation::san_plus(&pos, m, &legal));
            pos.play_unchecked(m);
        }
        Ok(out)
    }

    /// The start position. A variant known here whose stored start does not read is a
    /// damaged row, not an unknown variant.
    fn start(
        &self,
        variants: &kabir_rules::variants::Registry,
    ) -> Result<Position, GameAnswerError> {
        let variant =
            variants
                .find(&self.variant)
                .ok_or_else(|| GameAnswerError::UnknownVariant {
                    id: self.id,
                    variant: self.variant.clone(),
                })?;
        Position::from_fen(variant, &self.start_fen).map_err(|e| GameAnswerError::Corrupt {
            id: self.id,
            detail: format!(
                "its start position {:?} is not one of {}: {e}",
                self.start_fen,
                variant.name()
            ),
        })
    }

    /// The error for a stored move that does not fit the position before it.
    pub(crate) fn unfit_move(&self, ply: usize) -> GameAnswerError {
        GameAnswerError::Corrupt {
            id: self.id,
            detail: format!("its move at ply {ply} does not fit the position before it"),
        }
    }

    /// The value of a tag, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The values of the Seven Tag Roster's tags, as [`StoredGame::tag`] gives them.
    pub fn roster(&self) -> Roster<&str> {
        Roster::from_fn(|name| self.tag(name))
    }

    /// Writes its canonical text and a blank line: games written one after another make a
    /// game file that imports as the same games. `kabir export` and the server's downloads
    /// both write games through this, so that they give the same text.
    pub fn write_pgn<W: std::io::Write + ?Sized>(&self, out: &mut W) -> std::io::Result<()> {
        out.write_all(self.pgn.trim_end().as_bytes())?;
        out.write_all(b"\n\n")
    }
}

/// A special move or event, for [`GameFilter::special`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Special {
    /// A king swap.
    Swap,
    /// A lift of the waiting pawn of pawns.
    Lift,
    /// A relocation of the pawn of pawns after its second arrival.
    Relocation,
    /// A promotion (not an arrival of the pawn of pawns, nor an adventitious king).
    Promotion,
    /// An arrival of the pawn of pawns on its last rank that leaves it a pawn of pawns.
    Arrival,
    /// An adventitious king made (the pawn of pawns' third arrival).
    AdventitiousKing,
    /// A royal piece entering the enemy citadel, which draws the game.
    CitadelEntry,
}

impl Special {
    /// Every kind, in the order the database's columns, reports and phrases give them.
    pub const ALL: [Special; 7] = [
        Special::Swap,
        Special::Lift,
        Special::Relocation,
        Special::Promotion,
        Special::Arrival,
        Special::AdventitiousKing,
        Special::CitadelEntry,
    ];

    /// The kind's place in [`Special::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    fn column(self) -> &'static str {
        match self {
            Special::Swap => "swaps",
            Special::Lift => "lifts",
            Special::Relocation => "relocations",
            Special::Promotion => "promotions",
            Special::Arrival => "arrivals",
            Special::AdventitiousKing => "adventitious_kings",
            Special::CitadelEntry => "citadel_entries",
        }
    }
}

impl std::fmt::Display for Special {
    /// The name `--with` and the server's `with` parameter take (`swap`, `citadel-draw`...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::derived::names::special_name(*self))
    }
}

impl std::str::FromStr for Special {
    type Err = crate::derived::names::NameError;

    /// Reads a name as `--with` does ([`crate::names::parse_special`]).
    fn from_str(s: &str) -> Result<Special, Self::Err> {
        crate::derived::names::parse_special(s)
    }
}

/// A count for each kind of [`Special`] move, indexed by the kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SpecialCounts([u64; 7]);

impl SpecialCounts {
    /// The counts in the order of [`Special::ALL`].
    pub const fn from_array(counts: [u64; 7]) -> SpecialCounts {
        SpecialCounts(counts)
    }

    /// The counts in the order of [`Special::ALL`].
    pub const fn as_array(&self) -> [u64; 7] {
        self.0
    }

    /// Each kind with its count, in the order of [`Special::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (Special, u64)> + '_ {
        Special::ALL.into_iter().zip(self.0)
    }
}

impl std::ops::Index<Special> for SpecialCounts {
    type Output = u64;

    fn index(&self, kind: Special) -> &u64 {
        &self.0[kind.index()]
    }
}

impl std::ops::IndexMut<Special> for SpecialCounts {
    fn index_mut(&mut self, kind: Special) -> &mut u64 {
        &mut self.0[kind.index()]
    }
}

/// Conditions on games; all given ones must hold. Text matches ignore ASCII case and match
/// anywhere in the tag (`"carl"` finds `"Carlsen, M."`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Games whose White or Black tag contains this (see `color`).
    pub player: Option<String>,
    /// With `player`: only games where the player had this colour.
    pub color: Option<Color>,
    /// Games whose Event tag contains this.
    pub event: Option<String>,
    /// Games whose Site tag contains this.
    pub site: Option<String>,
    /// Dates compare as text in the `YYYY.MM.DD` form of the `Date` tag; both ends included.
    pub date_from: Option<String>,
    /// The last date (`YYYY`, `YYYY.MM` or `YYYY.MM.DD`): a year or a month includes every
    /// date in it. A date range never keeps a game whose year is unknown.
    pub date_to: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: Option<GameResult>,
    /// A variant id.
    pub variant: Option<String>,
    /// Games whose last position ended this way.
    pub end: Option<GameEnd>,
    /// Games of at least this many plies.
    pub min_plies: Option<u32>,
    /// Games of at most this many plies.
    pub max_plies: Option<u32>,
    /// Games with at least one of each.
    pub special: Vec<Special>,
    /// Games with at least one promotion to this piece kind (its id, such as `vizir`).
    pub promotion_to: Option<String>,
    /// Games from the variant's start position whose main line begins with these moves, in
    /// this order. The moves are compared as stored, so give `variant` too.
    pub opening: Option<Vec<Move>>,
    /// Only these games (for example the games that reached a position).
    pub games: Option<Vec<GameId>>,
}

impl GameFilter {
    /// Whether the filter keeps every game.
    pub fn is_empty(&self) -> bool {
        *self == GameFilter::default()
    }
}

/// The upper bound of a date range as text: a year or a month includes every date in it, known
/// or not (`?` sorts after the digits).
fn date_upper_bound(d: &str) -> String {
    match d.len() {
        4 => format!("{d}.??.??"),
        7 => format!("{d}.??"),
        _ => d.to_string(),
    }
}

/// A line of a game list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    /// Its id.
    pub id: GameId,
    /// The id of its variant.
    pub variant: String,
    /// The White tag as written; `None` when the game has none.
    pub white: Option<String>,
    /// The Black tag as written; `None` when the game has none.
    pub black: Option<String>,
    /// The Event tag as written; `None` when the game has none.
    pub event: Option<String>,
    /// The Site tag as written; `None` when the game has none.
    pub site: Option<String>,
    /// The Date tag as written; `None` when the game has none.
    pub date: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: GameResult,
    /// What the rules say of its last position.
    pub end: GameEnd,
    /// Its length in plies.
    pub plies: u32,
}

/// Decides exactly whether games reach a position: the hash finds candidates, a replay of
/// the stored moves confirms them.
struct Verifier<'a> {
    db: &'a Database,
    target: &'a Position,
    target_is_start: bool,
    starts: HashMap<String, Position>,
}

impl<'a> Verifier<'a> {
    fn new(db: &'a Database, target: &'a Position) -> Self {
        Verifier {
            db,
            target,
            target_is_start: *target == Position::start(target.variant()),
            starts: HashMap::new(),
        }
    }

    fn corrupt(&self, game: u32, what: &str) -> DbError {
        DbError::Corrupt {
            path: self.db.path.clone(),
            detail: format!("game {game}: {what}"),
        }
    }

    /// The first of `candidates` (one game's entries, in ply order) whose position really is
    /// the target.
    fn first_match(&mut self, candidates: &[Posting]) -> Result<Option<Posting>, DbError> {
        let Some(first) = candidates.first() else {
            return Ok(None);
        };
        // A game from the variant's start position is at it at ply 0: no replay needed.
        if first.ply == 0 && first.standard_start && self.target_is_start {
            return Ok(Some(*first));
        }
        let rest = if first.ply == 0 && first.standard_start {
            &candidates[1..]
        } else {
            candidates
        };
        let Some(last) = rest.last() else {
            return Ok(None);
        };
        let game = first.game;
        let (fen, blob): (String, Vec<u8>) = self
            .db
            .conn
            .prepare_cached("SELECT start_fen, moves FROM game WHERE id = ?1")
            .and_then(|mut s| s.query_row(params![game], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| self.db.err(e))?;
        let moves = codec::decode_moves(&blob).ok_or_else(|| self.corrupt(game, "bad moves"))?;
        if last.ply as usize > moves.len() {
            return Err(self.corrupt(game, "index entry past the last move"));
        }
        let mut pos = match self.starts.get(&fen) {
            Some(p) => p.clone(),
            None => {
                let p = Position::from_fen(self.target.variant(), &fen)
                    .map_err(|_| self.corrupt(game, "bad start position"))?;
                self.starts.insert(fen, p.clone());
                p
            }
        };
        let mut ply = 0usize;
        for c in rest {
            while ply < c.ply as usize {
                let m = moves[ply];
                if !well_formed(&pos, m) {
                    return Err(self.corrupt(game, "a stored move does not fit its position"));
                }
                pos.play_unchecked(m);
                ply += 1;
            }
            if pos == *self.target {
                return Ok(Some(*c));
            }
        }
        Ok(None)
    }
}

/// The ids in both ascending lists.
pub(crate) fn intersect(a: &[GameId], b: &[GameId]) -> Vec<GameId> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        match x.cmp(&y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(x);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// A count column or aggregate as a `u64`: NULL (the `sum` of no rows) and negative values,
/// which no count can be, read as 0.
pub(crate) fn count(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<u64> {
    r.get::<_, Option<i64>>(i)
        .map(|n| n.unwrap_or(0).max(0) as u64)
}

/// Games that played one move (or ended) at their first visit of a position: from the
/// opening tree (many games) or from one index entry (one game).
pub(crate) struct Contribution {
    mv: Option<Move>,
    games: u64,
    results: Results,
    plies: u64,
    /// The lowest ids of the games, ascending.
    examples: Vec<GameId>,
}

impl Contribution {
    pub(crate) fn of_visit(p: &Posting) -> Contribution {
        let mut results = Results::default();
        results.add(p.result, 1);
        Contribution {
            mv: p.mv,
            games: 1,
            results,
            plies: u64::from(p.plies),
            examples: vec![GameId(p.game)],
        }
    }

    fn of_row(r: &TreeRow) -> Contribution {
        Contribution {
            mv: codec::decode_move(r.mv),
            games: r.games,
            results: Results {
                white_wins: r.white,
                draws: r.draws,
                black_wins: r.black,
                unfinished: r.unfinished(),
            },
            plies: r.plies,
            examples: r.examples().iter().map(|&g| GameId(g)).collect(),
        }
    }
}

/// The games that reached a position, as the opening tree and the entries beyond it give them
/// (see [`Database::position_games`]).
#[derive(Debug, Default)]
pub(crate) struct PositionGames {
    /// The games whose first visit was before the tree's last ply, counted by the tree.
    pub tree_games: u64,
    /// Their ids, ascending, when the tree's rows name them all.
    pub tree_ids: Option<Vec<u32>>,
    /// The other games, each with the ply of its first visit, in id order.
    pub beyond: Vec<PositionHit>,
}

impl PositionGames {
    /// The number of games.
    pub fn total(&self) -> u64 {
        self.tree_games + self.beyond.len() as u64
    }
}

impl Database {
    /// Each game that reached `pos`, once, with the index entry of its first visit, from the
    /// whole position index.
    pub(crate) fn first_visits(
        &self,
        pos: &Position,
        layout: Layout,
    ) -> Result<Vec<Posting>, DbError> {
        let Some(variant) = find_variant(self, pos.variant().id())? else {
            return Ok(Vec::new());
        };
        let candidates =
            index::lookup(&self.conn, variant, pos.hash(), layout).map_err(|e| self.err(e))?;
        self.verified(pos, &candidates)
    }

    /// The first visit of each game among `candidates` (entries of the position's hash, in
    /// (game, ply) order) that really is at `pos`.
    pub(crate) fn verified(
        &self,
        pos: &Position,
        candidates: &[Posting],
    ) -> Result<Vec<Posting>, DbError> {
        let mut verifier = Verifier::new(self, pos);
        let mut out = Vec::new();
        for group in candidates.chunk_by(|a, b| a.game == b.game) {
            if let Some(p) = verifier.first_match(group)? {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// The opening tree's rows of `pos`, with its variant's number and its hash; `None` when
    /// the database has no game of its variant.
    fn tree_rows_of(
        &self,
        pos: &Position,
        layout: Layout,
    ) -> Result<Option<index::PositionRows>, DbError> {
        let Some(variant) = find_variant(self, pos.variant().id())? else {
            return Ok(None);
        };
        let rows = index::tree_rows(
            &self.conn,
            variant,
            pos.hash(),
            tree::check_key(pos),
            layout,
        )
        .map_err(|e| self.err(e))?
        .map_err(|()| DbError::Corrupt {
            path: self.path.clone(),
            detail: "an opening tree row does not decode".to_string(),
        })?;
        Ok(Some(rows))
    }

    /// What the explorer adds up for `pos`, by the opening tree and the entries beyond it:
    /// the tree's rows of the position, and the games whose first visit lies beyond the
    /// tree, found in the position index and verified by replay.
    fn contributions(&self, pos: &Position, layout: Layout) -> Result<Vec<Contribution>, DbError> {
        let Some(rows) = self.tree_rows_of(pos, layout)? else {
            return Ok(Vec::new());
        };
        let mut out: Vec<Contribution> = rows.rows.iter().map(Contribution::of_row).collect();
        out.extend(
            self.verified(pos, &rows.beyond)?
                .iter()
                .map(Contribution::of_visit),
        );
        Ok(out)
    }

    /// The games that reached `pos` (each once), by the opening tree and the entries beyond
    /// it; the derived tables must be current.
    pub(crate) fn position_games(
        &self,
        pos: &Position,
        layout: Layout,
    ) -> Result<PositionGames, DbError> {
        let Some(rows) = self.tree_rows_of(pos, layout)? else {
            return Ok(PositionGames::default());
        };
        let tree_games = rows.rows.iter().map(|r| r.games).sum();
        // A row of no more games than it keeps examples names them all.
        let tree_ids = rows.ids;
        let beyond = self
            .verified(pos, &rows.beyond)?
            .iter()
            .map(|p| PositionHit {
                game: GameId(p.game),
                ply: u32::from(p.ply),
            })
            .collect();
        Ok(PositionGames {
            tree_games,
            tree_ids,
            beyond,
        })
    }

    /// The games that reached a position (of the position's variant), in id order, each once
    /// with the first ply at which it stood there.
    pub fn search_position(&self, pos: &Position) -> Result<Vec<PositionHit>, DbError> {
        self.read(|layout| {
            Ok(self
                .first_visits(pos, layout)?
                .into_iter()
                .map(|p| PositionHit {
                    game: GameId(p.game),
                    ply: u32::from(p.ply),
                })
                .collect())
        })
    }

    /// The opening explorer for a position, with up to `examples` game ids per move.
    pub fn explore(&self, pos: &Position, examples: usize) -> Result<Explorer, DbError> {
        self.read(|layout| self.explore_in(pos, examples, layout))
    }

    pub(crate) fn explore_in(
        &self,
        pos: &Position,
        examples: usize,
        layout: Layout,
    ) -> Result<Explorer, DbError> {
        // The tree keeps a few examples per row; more are found in the whole index.
        let found: Vec<Contribution> = if layout.current && examples <= TREE_EXAMPLES {
            self.contributions(pos, layout)?
        } else {
            self.first_visits(pos, layout)?
                .iter()
                .map(Contribution::of_visit)
                .collect()
        };
        self.tally(pos, &found, examples)
    }

    /// The explorer of `pos` made of the games found there: each contribution counts for the
    /// position and, unless it ended there, for its move.
    pub(crate) fn tally(
        &self,
        pos: &Position,
        found: &[Contribution],
        examples: usize,
    ) -> Result<Explorer, DbError> {
        if let Some(bad) = found
            .iter()
            .find(|c| c.mv.is_some_and(|m| !well_formed(pos, m)))
        {
            return Err(DbError::Corrupt {
                path: self.path.clone(),
                detail: format!(
                    "game {}: a stored move does not fit its position",
                    bad.examples.first().copied().map_or(0, u32::from)
                ),
            });
        }
        let mut out = Explorer::default();
        let mut by_move: HashMap<Move, (ExplorerMove, u64)> = HashMap::new();
        let legal = if found.iter().any(|c| c.mv.is_some()) {
            pos.legal_moves()
        } else {
            Vec::new()
        };
        for c in found {
            out.games += c.games;
            out.results.add_results(&c.results);
            let Some(mv) = c.mv else {
                out.ended_here += c.games;
                continue;
            };
            let (e, total_plies) = by_move.entry(mv).or_insert_with(|| {
                (
                    ExplorerMove {
                        mv,
                        san: kabir_notation::san(pos, mv, &legal),
                        uci: mv.to_uci(pos),
                        games: 0,
                        share_pct: 0.0,
                        results: Results::default(),
                        average_plies: 0.0,
                        examples: Vec::new(),
                        next: None,
                    },
                    0,
                )
            });
            e.games += c.games;
            e.results.add_results(&c.results);
            *total_plies += c.plies;
            e.examples.extend_from_slice(&c.examples);
            // A move played in every segment's tree would gather a dozen ids from each:
            // only the lowest `examples` are shown, and a game comes once per position.
            if e.examples.len() >= 4 * examples.max(TREE_EXAMPLES) {
                e.examples.sort_unstable();
                e.examples.truncate(examples);
            }
        }
        let continued = out.games - out.ended_here;
        out.moves = by_move
            .into_values()
            .map(|(mut e, total)| {
                e.average_plies = total as f64 / e.games.max(1) as f64;
                e.share_pct = crate::read::report::percent(e.games, continued);
                e.examples.sort_unstable();
                e.examples.truncate(examples);
                e
            })
            .collect();
        out.moves
            .sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.uci.cmp(&b.uci)));
        Ok(out)
    }

    /// The explorer as a tree: [`Database::explore`] for `pos`, then for the positions after
    /// its `breadth` most played moves, and so on, `depth` moves deep (`depth` 1 is
    /// `explore`). Every node counts the games that reached its position by any move order.
    ///
    /// The tree lists at most [`TreeQuery::max_nodes`] moves in all (the position's own
    /// moves are always listed whole). Positions are explored level by level, the most
    /// played lines first, so a tree cut short is complete to some depth and holds the most
    /// played lines of the next; [`ExplorerTree::truncated`] says where. Without the bound,
    /// transpositions make the tree grow as fast as the lines that reach each position: 40
    /// moves deep on 5,000 games it took gigabytes.
    pub fn explore_tree(&self, pos: &Position, q: &TreeQuery) -> Result<ExplorerTree, DbError> {
        self.explore_tree_filtered(pos, &GameFilter::default(), q)
    }

    /// [`Database::explore_tree`] counting only the games `filter` keeps, at every position
    /// of the tree (see [`Database::explore_filtered`]).
    pub fn explore_tree_filtered(
        &self,
        pos: &Position,
        filter: &GameFilter,
        q: &TreeQuery,
    ) -> Result<ExplorerTree, DbError> {
        self.read(|layout| {
            let mut kept = crate::read::filtered::Kept::new(filter);
            self.explore_tree_in(pos, q, &mut kept, layout)
        })
    }

    fn explore_tree_in(
        &self,
        pos: &Position,
        q: &TreeQuery,
        kept: &mut crate::read::filtered::Kept,
        layout: Layout,
    ) -> Result<ExplorerTree, DbError> {
        let root = self.explore_kept(pos, kept, q.examples, layout)?;
        let mut nodes = root.moves.len();
        // The explorers found, in the order explored (a parent before its children), each
        // but the first with its parent's place here and the index of the move leading to it.
        let mut found = vec![root];
        let mut links: Vec<(usize, usize)> = Vec::new();
        // Positions whose moves are still to follow: the explorer's place and its level
        // (the root is level 0; the moves of a position of level L are at depth L + 1). A
        // position is played again from the root when its turn comes rather than kept: a
        // level of a large tree waits here, and a position is kilobytes.
        let mut queue: std::collections::VecDeque<(usize, usize)> =
            std::collections::VecDeque::new();
        let depth = q.depth.min(MAX_TREE_DEPTH);
        if depth > 1 {
            queue.push_back((0, 0));
        }
        let mut line = Vec::new();
        let mut truncated = None;
        'levels: while let Some((at, level)) = queue.pop_front() {
            line.clear();
            let mut i = at;
            while i > 0 {
                let (parent, k) = links[i - 1];
                line.push(found[parent].moves[k].mv);
                i = parent;
            }
            let mut here = pos.clone();
            for &mv in line.iter().rev() {
                here.play_unchecked(mv);
            }
            let followed: Vec<Move> = found[at]
                .moves
                .iter()
                .take(q.breadth)
                .map(|m| m.mv)
                .collect();
            for (k, mv) in followed.into_iter().enumerate() {
                let next = here.after(mv);
                let ex = self.explore_kept(&next, kept, q.examples, layout)?;
                if nodes + ex.moves.len() > q.max_nodes {
                    // Every position of this level and the ones above was explored, so the
                    // moves down to the next level are all listed.
                    truncated = Some(Truncation {
                        max_nodes: q.max_nodes,
                        complete_depth: level + 1,
                    });
                    break 'levels;
                }
                nodes += ex.moves.len();
                found.push(ex);
                links.push((at, k));
                if level + 2 < depth {
                    queue.push_back((found.len() - 1, level + 1));
                }
            }
        }
        // Children come after their parents: taken from the last, each is whole when it is
        // put under its move.
        for (i, (parent, k)) in links.into_iter().enumerate().rev() {
            let ex = std::mem::take(&mut found[i + 1]);
            found[parent].moves[k].next = Some(Box::new(ex));
        }
        let root = found.swap_remove(0);
        Ok(ExplorerTree {
            root,
            nodes,
            truncated,
        })
    }

    /// A game by id.
    pub fn game(&self, id: impl Into<GameId>) -> Result<Option<StoredGame>, DbError> {
        let id = id.into();
        let row = self
            .conn
            .prepare_cached(
                "SELECT v.name, g.start_fen, g.moves, t.tags, g.result, g.termination, g.plies,
                     g.swaps, g.lifts, g.relocations, g.promotions, g.arrivals,
                     g.adventitious_kings, g.citadel_entries, t.pgn, g.variant
                 FROM game g LEFT JOIN variant v ON v.id = g.variant
                     LEFT JOIN game_text t ON t.game = g.id
                 WHERE g.id = ?1",
            )
            .and_then(|mut s| {
                s.query_row(params![id], |r| {
                    // A game without its variant's row or its text is a damaged database,
                    // not a missing game.
                    let Some(variant) = r.get::<_, Option<String>>(0)? else {
                        return Ok(Err(format!(
                            "its variant (number {}) is missing from the variant table",
                            r.get::<_, i64>(15)?
                        )));
                    };
                    let Some(tags) = r.get::<_, Option<String>>(3)? else {
                        return Ok(Err("its text is missing from the game_text table".into()));
                    };
                    Ok(Ok((
                        variant,
                        r.get::<_, String>(1)?,
                        r.get::<_, Vec<u8>>(2)?,
                        tags,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                        r.get::<_, u32>(6)?,
                        SpecialMoves {
                            count: SpecialCounts::from_array([
                                count(r, 7)?,
                                count(r, 8)?,
                                count(r, 9)?,
                                count(r, 10)?,
                                count(r, 11)?,
                                count(r, 12)?,
                                count(r, 13)?,
                            ]),
                            promotions_by_kind: Vec::new(),
                        },
                        r.get::<_, String>(14)?,
                    )))
                })
                .optional()
            })
            .map_err(|e| self.err(e))?;
        let corrupt = |what: &str| DbError::Corrupt {
            path: self.path.clone(),
            detail: format!("game {id}: {what}"),
        };
        let Some((variant, start_fen, blob, tags, result, end, plies, mut special, pgn)) =
            row.transpose().map_err(|what| corrupt(&what))?
        else {
            return Ok(None);
        };
        let moves = codec::decode_moves(&blob).ok_or_else(|| corrupt("bad moves"))?;
        let tags: Vec<(String, String)> =
            serde_json::from_str(&tags).map_err(|_| corrupt("bad tags"))?;
        let end = GameEnd::parse(&end).ok_or_else(|| corrupt("bad termination"))?;
        let result =
            GameResult::from_ascii(result.as_bytes()).ok_or_else(|| corrupt("bad result"))?;
        special.promotions_by_kind = self
            .conn
            .prepare_cached("SELECT kind, count FROM promotion WHERE game = ?1 ORDER BY kind")
            .and_then(|mut s| {
                s.query_map(params![id], |r| Ok((r.get(0)?, count(r, 1)?)))?
                    .collect::<Result<_, _>>()
            })
            .map_err(|e| self.err(e))?;
        Ok(Some(StoredGame {
            id,
            variant,
            start_fen,
            moves,
            tags,
            result,
            end,
            plies,
            special,
            pgn,
        }))
    }

    /// The number of games.
    pub fn game_count(&self) -> Result<u64, DbError> {
        self.count_games(&GameFilter::default())
    }

    /// The number of games, from the statistics summary (which must be current).
    fn summary_games(&self) -> Result<u64, DbError> {
        self.conn
            .prepare_cached("SELECT sum(games) FROM summary")
            .and_then(|mut s| s.query_row([], |r| count(r, 0)))
            .map_err(|e| self.err(e))
    }

    /// The number of games of a variant, from the statistics summary (which must be current).
    fn summary_variant_games(&self, variant: &str) -> Result<u64, DbError> {
        self.conn
            .prepare_cached(
                "SELECT coalesce(sum(s.games), 0) FROM summary s
                 JOIN variant v ON v.id = s.variant WHERE v.name = ?1",
            )
            .and_then(|mut s| s.query_row([variant], |r| count(r, 0)))
            .map_err(|e| self.err(e))
    }

    /// Whether the database holds no games.
    pub fn is_empty(&self) -> Result<bool, DbError> {
        self.conn
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM game)", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// The games whose tags match the filter's player, event and site conditions, by the
    /// name index (ascending); `None` without such conditions or when the index is not
    /// current. An empty text matches every game, as a condition it is none.
    pub(crate) fn named_games(
        &self,
        filter: &GameFilter,
        layout: Layout,
    ) -> Result<Option<Vec<GameId>>, DbError> {
        use crate::derived::name_index::{BLACK, EVENT, SITE, WHITE, games_named, matching_names};
        if !layout.current {
            return Ok(None);
        }
        let players: &[usize] = match filter.color {
            Some(Color::White) => &[WHITE],
            Some(Color::Black) => &[BLACK],
            None => &[WHITE, BLACK],
        };
        let conditions = [
            (&filter.player, players),
            (&filter.event, &[EVENT][..]),
            (&filter.site, &[SITE][..]),
        ];
        let mut out: Option<Vec<GameId>> = None;
        for (text, fields) in conditions {
            let Some(text) = text.as_deref().filter(|t| !t.is_empty()) else {
                continue;
            };
            let names = matching_names(&self.conn, text).map_err(|e| self.err(e))?;
            let games = games_named(&self.conn, fields, &names)
                .map_err(|e| self.err(e))?
                .map_err(|()| DbError::Corrupt {
                    path: self.path.clone(),
                    detail: "a tally of the name index does not decode".to_string(),
                })?;
            let games: Vec<GameId> = games.into_iter().map(GameId).collect();
            out = Some(match out {
                None => games,
                Some(before) => intersect(&before, &games),
            });
        }
        Ok(out)
    }

    /// The filter as SQL conditions on `game g` (empty, or ` WHERE ...`) and their
    /// parameters. The player, event and site conditions become a list of game ids when the
    /// name index can answer them.
    pub(crate) fn filter_sql(
        &self,
        filter: &GameFilter,
        layout: Layout,
    ) -> Result<(String, Vec<Box<dyn ToSql>>), DbError> {
        let Some(named) = self.named_games(filter, layout)? else {
            return Ok(Self::filter_clauses(filter));
        };
        let mut ids = named;
        if let Some(only) = &filter.games {
            let mut only = only.clone();
            only.sort_unstable();
            ids = intersect(&ids, &only);
        }
        Ok(Self::filter_clauses(&GameFilter {
            player: None,
            color: None,
            event: None,
            site: None,
            games: Some(ids),
            ..filter.clone()
        }))
    }

    fn filter_clauses(filter: &GameFilter) -> (String, Vec<Box<dyn ToSql>>) {
        let mut clauses: Vec<String> = Vec::new();
        let mut args: Vec<Box<dyn ToSql>> = Vec::new();
        let mut contains = |clauses: &mut Vec<String>, columns: &[&str], value: &str| {
            // Folded alike on both sides, as the name index matches (`names::fold_name`).
            args.push(Box::new(crate::derived::names::fold_name(value)));
            let n = args.len();
            let parts: Vec<String> = columns
                .iter()
                .map(|c| format!("instr(kabir_fold(coalesce(g.{c}, '')), ?{n}) > 0"))
                .collect();
            clauses.push(format!("({})", parts.join(" OR ")));
        };
        if let Some(p) = &filter.player {
            let columns: &[&str] = match filter.color {
                Some(Color::White) => &["white"],
                Some(Color::Black) => &["black"],
                None => &["white", "black"],
            };
            contains(&mut clauses, columns, p);
        }
        if let Some(e) = &filter.event {
            contains(&mut clauses, &["event"], e);
        }
        if let Some(s) = &filter.site {
            contains(&mut clauses, &["site"], s);
        }
        let mut push = |clauses: &mut Vec<String>, sql: &str, value: Box<dyn ToSql>| {
            args.push(value);
            clauses.push(sql.replace("?", &format!("?{}", args.len())));
        };
        if filter.date_from.is_some() || filter.date_to.is_some() {
            // A date range never includes a game whose year is unknown (`????.??.??`).
            clauses.push("g.date GLOB '[0-9][0-9][0-9][0-9]*'".to_string());
        }
        if let Some(d) = &filter.date_from {
            push(&mut clauses, "g.date >= ?", Box::new(d.clone()));
        }
        if let Some(d) = &filter.date_to {
            push(&mut clauses, "g.date <= ?", Box::new(date_upper_bound(d)));
        }
        if let Some(r) = &filter.result {
            push(&mut clauses, "g.result = ?", Box::new(r.as_str()));
        }
        if let Some(v) = &filter.variant {
            // By the variant's number, so that a count needs no join.
            push(
                &mut clauses,
                "g.variant = (SELECT id FROM variant WHERE name = ?)",
                Box::new(v.clone()),
            );
        }
        if let Some(e) = filter.end {
            push(&mut clauses, "g.termination = ?", Box::new(e.as_str()));
        }
        if let Some(n) = filter.min_plies {
            push(&mut clauses, "g.plies >= ?", Box::new(n));
        }
        if let Some(n) = filter.max_plies {
            push(&mut clauses, "g.plies <= ?", Box::new(n));
        }
        for s in &filter.special {
            clauses.push(format!("g.{} > 0", s.column()));
        }
        if let Some(k) = &filter.promotion_to {
            push(
                &mut clauses,
                "EXISTS (SELECT 1 FROM promotion p WHERE p.game = g.id AND p.kind = ? \
                 AND p.count > 0)",
                Box::new(k.to_ascii_lowercase()),
            );
        }
        if let Some(moves) = &filter.opening {
            let blob = codec::encode_moves(moves);
            push(
                &mut clauses,
                "g.standard_start = 1 AND g.plies >= ?",
                Box::new(moves.len() as i64),
            );
            // Both placeholders get the same number: the blob is bound once.
            push(
                &mut clauses,
                "substr(g.moves, 1, length(?)) = ?",
                Box::new(blob),
            );
        }
        if let Some(ids) = &filter.games {
            let values: Vec<rusqlite::types::Value> = ids
                .iter()
                .map(|&id| rusqlite::types::Value::Integer(i64::from(id.0)))
                .collect();
            push(
                &mut clauses,
                "g.id IN rarray(?)",
                Box::new(std::rc::Rc::new(values)),
            );
        }
        let sql = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        (sql, args)
    }

    /// Games matching a filter, in id order: `limit` of them after skipping `offset`.
    pub fn find_games(
        &self,
        filter: &GameFilter,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<GameSummary>, DbError> {
        self.list_games(filter, "g.id", limit, offset)
    }

    /// Games matching a filter in the order of `order_by` (fixed SQL, never caller text).
    pub(crate) fn list_games(
        &self,
        filter: &GameFilter,
        order_by: &str,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<GameSummary>, DbError> {
        self.read(|layout| self.list_games_in(filter, order_by, limit, offset, layout))
    }

    fn list_games_in(
        &self,
        filter: &GameFilter,
        order_by: &str,
        limit: usize,
        offset: usize,
        layout: Layout,
    ) -> Result<Vec<GameSummary>, DbError> {
        let (clause, mut args) = self.filter_sql(filter, layout)?;
        let n = args.len();
        let sql = format!(
            "SELECT g.id, v.name, g.white, g.black, g.event, g.site, g.date, g.result,
                 g.termination, g.plies, g.variant
             FROM game g LEFT JOIN variant v ON v.id = g.variant{clause}
             ORDER BY {order_by} LIMIT ?{} OFFSET ?{}",
            n + 1,
            n + 2
        );
        args.push(Box::new(i64::try_from(limit).unwrap_or(i64::MAX)));
        args.push(Box::new(i64::try_from(offset).unwrap_or(i64::MAX)));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                // A game whose variant's row is gone is listed as damaged rather than left
                // out, which made pages shorter than their count and exports lose games.
                let variant: Option<String> = r.get(1)?;
                if variant.is_none() {
                    return Ok(Err((r.get::<_, GameId>(0)?, r.get::<_, i64>(10)?)));
                }
                Ok(Ok((
                    GameSummary {
                        id: r.get(0)?,
                        variant: variant.unwrap_or_default(),
                        white: r.get(2)?,
                        black: r.get(3)?,
                        event: r.get(4)?,
                        site: r.get(5)?,
                        date: r.get(6)?,
                        result: codec::result_column(r, 7)?,
                        end: GameEnd::Other,
                        plies: r.get(9)?,
                    },
                    r.get::<_, String>(8)?,
                )))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|row| {
                let (mut s, end) = row.map_err(|(id, variant)| DbError::Corrupt {
                    path: self.path.clone(),
                    detail: format!(
                        "game {id}: its variant (number {variant}) is missing from the variant \
                         table"
                    ),
                })?;
                s.end = GameEnd::parse(&end).unwrap_or(GameEnd::Other);
                Ok(s)
            })
            .collect()
    }

    /// The ids of the games matching a filter in the order of `order_by` (fixed SQL, never
    /// caller text), as [`Database::list_games`] lists them.
    pub(crate) fn list_ids_in(
        &self,
        filter: &GameFilter,
        order_by: &str,
        limit: usize,
        offset: usize,
        layout: Layout,
    ) -> Result<Vec<GameId>, DbError> {
        let (clause, mut args) = self.filter_sql(filter, layout)?;
        let n = args.len();
        let sql = format!(
            "SELECT g.id FROM game g{clause} ORDER BY {order_by} LIMIT ?{} OFFSET ?{}",
            n + 1,
            n + 2
        );
        args.push(Box::new(i64::try_from(limit).unwrap_or(i64::MAX)));
        args.push(Box::new(i64::try_from(offset).unwrap_or(i64::MAX)));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| r.get(0))
            .and_then(|rows| rows.collect::<Result<Vec<GameId>, _>>())
            .map_err(|e| self.err(e))
    }

    /// The number of games matching a filter.
    pub fn count_games(&self, filter: &GameFilter) -> Result<u64, DbError> {
        self.read(|layout| self.count_games_in(filter, layout))
    }

    pub(crate) fn count_games_in(
        &self,
        filter: &GameFilter,
        layout: Layout,
    ) -> Result<u64, DbError> {
        let text_only = GameFilter {
            player: None,
            color: None,
            event: None,
            site: None,
            ..filter.clone()
        }
        .is_empty();
        if layout.current && text_only {
            if filter.is_empty() {
                return self.summary_games();
            }
            if let Some(named) = self.named_games(filter, layout)? {
                return Ok(named.len() as u64);
            }
        }
        // The games of a variant are its rows of the summary: a few hundred rows, where
        // counting the games reads an entry per game.
        if let Some(variant) = filter.variant.as_deref().filter(|_| layout.current) {
            let only_variant = GameFilter {
                variant: None,
                ..filter.clone()
            }
            .is_empty();
            if only_variant {
                return self.summary_variant_games(variant);
            }
        }
        let (clause, args) = self.filter_sql(filter, layout)?;
        let sql = format!("SELECT count(*) FROM game g{clause}");
        self.conn
            .query_row(&sql, rusqlite::params_from_iter(args.iter()), |r| {
                count(r, 0)
            })
            .map_err(|e| self.err(e))
    }
}
