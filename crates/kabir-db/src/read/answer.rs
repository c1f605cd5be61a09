//! The answers of the query commands as JSON objects: what `kabir explore`, `kabir search` and
//! `kabir show` print with `--format json`, and what `kabir serve`'s API sends. One
//! implementation for both, so that they cannot drift apart. The fields are described in
//! `docs/QUERIES.md`; statistics need no type here, as [`Report`](crate::Report) is its own
//! JSON form.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};

use kabir_notation::reader::Reader;
use kabir_notation::tree::{self, Line};
use kabir_rules::variants::Registry;
use kabir_rules::{Move, MoveKind, Position, Status, Termination};

use crate::derived::names::special_name;
use crate::read::query::{
    Explorer, ExplorerMove, ExplorerTree, GameId, Special, StoredGame, Truncation,
};
use crate::read::search::{SearchHit, SearchPage};
use crate::storage::codec::GameResult;

/// What the explorer counts, said with every answer.
pub const EXPLORER_COUNTING: &str = "games that reached the position by any move order \
                                     (transpositions included), each game counted once, at its \
                                     first visit";

/// The explorer's answer for a position: its variant, what is counted, whether the tree was
/// cut short, and the position's node (with the moves' nodes below it for a tree). It is
/// what `kabir explore --format json` prints; serialize it with any serde format. The nodes
/// are written as they are serialized, so a large tree is never held twice.
///
/// ```
/// use kabir_db::{Database, ExploreAnswer};
/// use kabir_rules::Position;
///
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("games.db");
/// // An empty database: no game reached the position.
/// let db = Database::create_or_open(&path)?;
/// let tamerlane = kabir_rules::variants::builtin("tamerlane")?;
/// let start = Position::start(&tamerlane);
/// let explorer = db.explore(&start, 3)?;
/// let json = serde_json::to_value(ExploreAnswer::new(&start, &explorer))?;
/// assert_eq!(json["variant"], "tamerlane");
/// assert_eq!(json["fen"], start.to_fen());
/// assert_eq!(json["games"], 0);
/// assert_eq!(json["truncated"], false);
/// assert_eq!(json["moves"].as_array().map(Vec::len), Some(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ExploreAnswer<'a> {
    pos: &'a Position,
    root: &'a Explorer,
    truncated: Option<Truncation>,
}

impl<'a> ExploreAnswer<'a> {
    /// The answer for `pos`, whose explorer is `ex` (with the nodes of a tree under its
    /// moves, if it is one).
    pub fn new(pos: &'a Position, ex: &'a Explorer) -> ExploreAnswer<'a> {
        ExploreAnswer {
            pos,
            root: ex,
            truncated: None,
        }
    }

    /// The answer for `pos`, whose explorer tree is `tree`: also says whether, and where,
    /// the tree was cut short.
    pub fn tree(pos: &'a Position, tree: &'a ExplorerTree) -> ExploreAnswer<'a> {
        ExploreAnswer {
            pos,
            root: &tree.root,
            truncated: tree.truncated,
        }
    }
}

impl Serialize for ExploreAnswer<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_map(None)?;
        st.serialize_entry("variant", self.pos.variant().id())?;
        st.serialize_entry("counting", EXPLORER_COUNTING)?;
        st.serialize_entry("truncated", &self.truncated.is_some())?;
        if let Some(t) = &self.truncated {
            st.serialize_entry("max_nodes", &t.max_nodes)?;
            st.serialize_entry("complete_depth", &t.complete_depth)?;
        }
        node_entries(&mut st, self.pos, self.root)?;
        st.end()
    }
}

/// A position of an [`ExploreAnswer`], at the top and under each move of a tree (`next`):
/// the same fields at every level.
struct ExploreNode<'a> {
    pos: Position,
    ex: &'a Explorer,
}

impl Serialize for ExploreNode<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_map(None)?;
        node_entries(&mut st, &self.pos, self.ex)?;
        st.end()
    }
}

/// The fields of a position's node: its position, totals and moves.
fn node_entries<M: SerializeMap>(
    st: &mut M,
    pos: &Position,
    ex: &Explorer,
) -> Result<(), M::Error> {
    st.serialize_entry("fen", &pos.to_fen())?;
    // The position's hash as the database and the Parquet export store it (signed 64 bits).
    st.serialize_entry("hash", &crate::storage::codec::to_sql(pos.hash()))?;
    st.serialize_entry("games", &ex.games)?;
    st.serialize_entry("results", &ex.results)?;
    st.serialize_entry("ended_here", &ex.ended_here)?;
    st.serialize_entry("continued", &(ex.games - ex.ended_here))?;
    st.serialize_entry("moves", &ExploreMoves { pos, ex })
}

/// A node's moves, each with the node of the position after it when the tree follows it.
struct ExploreMoves<'a> {
    pos: &'a Position,
    ex: &'a Explorer,
}

impl Serialize for ExploreMoves<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.ex.moves.len()))?;
        for m in &self.ex.moves {
            seq.serialize_element(&ExploreMove { pos: self.pos, m })?;
        }
        seq.end()
    }
}

struct ExploreMove<'a> {
    pos: &'a Position,
    m: &'a ExplorerMove,
}

impl Serialize for ExploreMove<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.m;
        let mut st = s.serialize_map(None)?;
        st.serialize_entry("san", &m.san)?;
        st.serialize_entry("uci", &m.uci)?;
        st.serialize_entry("games", &m.games)?;
        st.serialize_entry("share_pct", &m.share_pct)?;
        st.serialize_entry("results", &m.results)?;
        st.serialize_entry("average_plies", &m.average_plies)?;
        st.serialize_entry("examples", &m.examples)?;
        if let Some(next) = m.next.as_deref() {
            // Made here, one line at a time: the positions of a tree are never all held.
            let node = ExploreNode {
                pos: self.pos.after(m.mv),
                ex: next,
            };
            st.serialize_entry("next", &node)?;
        }
        st.end()
    }
}

/// A page of a game search: `total` counts the matches on all pages.
#[derive(Debug, Clone, Serialize)]
pub struct SearchAnswer {
    /// Games matching the search, on all pages.
    pub total: u64,
    /// Games skipped before this page (`--offset`).
    pub offset: usize,
    /// The most games a page holds (`None`: all).
    pub limit: Option<usize>,
    /// The page's games, in the search's order.
    pub games: Vec<GameRow>,
}

impl SearchAnswer {
    /// The answer for a page found with this offset and limit.
    pub fn new(page: &SearchPage, offset: usize, limit: Option<usize>) -> SearchAnswer {
        SearchAnswer {
            total: page.total,
            offset,
            limit,
            games: page.games.iter().map(GameRow::of).collect(),
        }
    }
}

/// A game of a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameRow {
    /// The game's id, as `kabir show` takes it.
    pub id: GameId,
    /// The id of its variant (`tamerlane`).
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
    /// Its length in plies.
    pub plies: u32,
    /// What the rules say of the last position: `checkmate`, `stalemate`, `bare king`,
    /// `citadel draw` or `other` (resignation, agreement, time, unfinished).
    pub termination: &'static str,
    /// With a position: the first ply at which the game stood there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
}

impl GameRow {
    /// The row of a search hit.
    pub fn of(h: &SearchHit) -> GameRow {
        let g = &h.game;
        GameRow {
            id: g.id,
            variant: g.variant.clone(),
            white: g.white.clone(),
            black: g.black.clone(),
            event: g.event.clone(),
            site: g.site.clone(),
            date: g.date.clone(),
            result: g.result,
            plies: g.plies,
            termination: g.end.as_str(),
            ply: h.ply,
        }
    }
}

/// Why a stored game cannot be shown or replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameAnswerError {
    /// Its variant is neither built in nor given (`--variant-file`).
    #[error("game {id}: its variant {variant:?} is not known here; give its definition file")]
    UnknownVariant {
        /// The game.
        id: GameId,
        /// The variant's name as stored.
        variant: String,
    },
    /// A ply past the game's end was asked to be shown.
    #[error("game {id} has only {plies} plies; ply {ply} is past its end")]
    PastEnd {
        /// The game.
        id: GameId,
        /// Its length in plies.
        plies: usize,
        /// The ply asked for.
        ply: usize,
    },
    /// Its stored row does not replay: its start position does not read, or a move does not
    /// fit (a damaged database).
    #[error("game {id}: the database is damaged: {detail}")]
    Corrupt {
        /// The game.
        id: GameId,
        /// The start position that does not read, or the ply of the move that does not fit.
        detail: String,
    },
}

/// A stored game as `kabir show --format json` prints it: the fields of `kabir export
/// --format json`, the special moves, the moves as a tree (main line, variations, comments
/// and glyphs, each move with its position after it), and the position at the ply shown.
#[derive(Debug, Clone, Serialize)]
pub struct GameAnswer {
    /// The game's id.
    pub id: GameId,
    /// The id of its variant.
    pub variant: String,
    /// The Event tag as written; empty when the game has none.
    pub event: String,
    /// The Site tag as written; empty when the game has none.
    pub site: String,
    /// The Date tag as written; empty when the game has none.
    pub date: String,
    /// The Round tag as written; empty when the game has none.
    pub round: String,
    /// The White tag as written; empty when the game has none.
    pub white: String,
    /// The Black tag as written; empty when the game has none.
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: GameResult,
    /// Its length in plies.
    pub plies: u32,
    /// What the rules say of the last position: `checkmate`, `stalemate`, `bare king`,
    /// `citadel draw` or `other` (resignation, agreement, time, unfinished).
    pub termination: &'static str,
    /// The start position string.
    pub start: String,
    /// Every tag, by name.
    pub tags: BTreeMap<String, String>,
    /// Its special moves, counted.
    pub special: SpecialSummary,
    /// Comments written before the first move.
    pub comments: Vec<String>,
    /// The main line.
    pub moves: Vec<MoveAnswer>,
    /// The ply shown (the last one unless asked), and its position.
    pub ply: usize,
    /// The position string after the ply shown.
    pub fen: String,
    /// The game's canonical text.
    pub pgn: String,
}

/// A game's special moves, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpecialSummary {
    /// King swaps.
    pub swaps: u64,
    /// Lifts of the waiting pawn of pawns.
    pub lifts: u64,
    /// Relocations of the pawn of pawns after its second arrival.
    pub relocations: u64,
    /// Promotions (the pawn of pawns' arrivals and adventitious kings not included).
    pub promotions: u64,
    /// Arrivals of the pawn of pawns on its last rank that leave it a pawn of pawns.
    pub arrivals: u64,
    /// Adventitious kings made (the pawn of pawns' third arrival).
    pub adventitious_kings: u64,
    /// Royal pieces that entered the enemy citadel, which draws the game (so 0 or 1).
    pub citadel_draws: u64,
    /// Promotions by the piece kind's id.
    pub promotions_by_kind: BTreeMap<String, u64>,
}

impl SpecialSummary {
    /// Each kind of special move, in words with its count (see [`SpecialMoves::phrases`](crate::SpecialMoves::phrases)).
    pub fn phrases(&self) -> Vec<String> {
        crate::write::record::special_phrases([
            self.swaps,
            self.lifts,
            self.relocations,
            self.promotions,
            self.arrivals,
            self.adventitious_kings,
            self.citadel_draws,
        ])
    }
}

/// A move of a [`GameAnswer`].
#[derive(Debug, Clone, Serialize)]
pub struct MoveAnswer {
    /// Its ply: 1 for the first move from the start position (a variation's moves go on
    /// from the ply of the move they replace).
    pub ply: usize,
    /// Canonical SAN with its check mark (as written, for a variation move that names no
    /// legal move).
    pub san: String,
    /// Coordinates; `None` for a move that names no legal move.
    pub uci: Option<String>,
    /// The special moves it is, by the names of `search --with` (`swap`, `lift`,
    /// `relocation`, `promotion`, `arrival`, `adventitious-king`, `citadel-draw`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub special: Vec<&'static str>,
    /// The position after it.
    pub fen: Option<String>,
    /// Numeric annotation glyphs, a glyph written on the move (`!?`) included as its number.
    pub nags: Vec<u8>,
    /// Comments written after it, runs of white space made single spaces.
    pub comments: Vec<String>,
    /// Other moves instead of this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<LineAnswer>,
    /// The move itself, for drawing.
    #[serde(skip)]
    pub mv: Option<Move>,
}

/// A variation of a [`GameAnswer`].
#[derive(Debug, Clone, Serialize)]
pub struct LineAnswer {
    /// Comments written before its first move.
    pub comments: Vec<String>,
    /// Its moves, the first one played instead of the move it hangs from.
    pub moves: Vec<MoveAnswer>,
}

/// The special moves `m` is, played in `pos`: what the importer counts for a game
/// (`kabir stats` and `search --with`), move by move.
pub fn move_specials(pos: &Position, m: Move) -> Vec<Special> {
    let mut out = Vec::new();
    match m.kind {
        MoveKind::Swap => out.push(Special::Swap),
        MoveKind::Lift => out.push(Special::Lift),
        MoveKind::Relocation => out.push(Special::Relocation),
        MoveKind::Normal => {}
    }
    let variant = pos.variant();
    if let Some(k) = m.promotion {
        let pp = variant.rules().pawn_of_pawns.as_ref();
        out.push(match pp {
            Some(pp) if variant.kind(k).base == pp.states[0] => Special::Arrival,
            Some(pp) if k == pp.third_arrival => Special::AdventitiousKing,
            _ => Special::Promotion,
        });
    }
    if variant.geometry().citadel(m.to).is_some()
        && matches!(
            pos.after(m).status(),
            Status::Over {
                termination: Termination::Citadel,
                ..
            }
        )
    {
        out.push(Special::CitadelEntry);
    }
    out
}

impl GameAnswer {
    /// The answer for a stored game, showing the position after `ply` plies (default: the
    /// end). `variants` must know the game's variant.
    pub fn new(
        game: &StoredGame,
        variants: &Registry,
        ply: Option<usize>,
    ) -> Result<GameAnswer, GameAnswerError> {
        let id = game.id;
        let plies = game.moves.len();
        let ply = ply.unwrap_or(plies);
        if ply > plies {
            return Err(GameAnswerError::PastEnd { id, plies, ply });
        }
        let start = game.position_at(variants, 0)?;
        let shown = game.position_at(variants, ply)?;
        // The stored text gives comments and variations; the stored moves are the truth for
        // the main line, and a text that disagrees with them is not used.
        let mut raw = kabir_notation::game::RawGame::default();
        let read = Reader::new(game.pgn.as_bytes())
            .read_game_into(&mut raw)
            .unwrap_or(false);
        let mut line = if read {
            tree::read_tree(&raw, &start)
        } else {
            Line::default()
        };
        if tree::resolved_moves(&line) != game.moves || line.moves.len() != plies {
            line = plain_line(&start, &game.moves).map_err(|ply| game.unfit_move(ply))?;
        }
        let (comments, moves) = line_answer(&start, &line);
        let roster = game.roster();
        let tag = |v: Option<&str>| v.unwrap_or("").to_string();
        let s = &game.special;
        Ok(GameAnswer {
            id,
            variant: game.variant.clone(),
            event: tag(roster.event),
            site: tag(roster.site),
            date: tag(roster.date),
            round: tag(roster.round),
            white: tag(roster.white),
            black: tag(roster.black),
            result: game.result,
            plies: game.plies,
            termination: game.end.as_str(),
            start: game.start_fen.clone(),
            tags: game.tags.iter().cloned().collect(),
            special: SpecialSummary {
                swaps: s.count[Special::Swap],
                lifts: s.count[Special::Lift],
                relocations: s.count[Special::Relocation],
                promotions: s.count[Special::Promotion],
                arrivals: s.count[Special::Arrival],
                adventitious_kings: s.count[Special::AdventitiousKing],
                citadel_draws: s.count[Special::CitadelEntry],
                promotions_by_kind: s.promotions_by_kind.iter().cloned().collect(),
            },
            comments,
            moves,
            ply,
            fen: shown.to_fen(),
            pgn: game.pgn.clone(),
        })
    }
}

/// The main line without annotations, from the stored moves.
fn plain_line(start: &Position, moves: &[Move]) -> Result<Line, usize> {
    let mut pos = start.clone();
    let mut legal = Vec::new();
    let mut line = Line::default();
    for (i, &m) in moves.iter().enumerate() {
        pos.legal_moves_into(&mut legal);
        if !legal.contains(&m) {
            return Err(i + 1);
        }
        line.moves.push(tree::TreeMove {
            mv: Some(m),
            san: kabir_notation::san_plus(&pos, m, &legal),
            ply: i + 1,
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        });
        pos.play_unchecked(m);
    }
    Ok(line)
}

/// A line's comments and moves, each move with its position after it, from `start`.
fn line_answer(start: &Position, line: &Line) -> (Vec<String>, Vec<MoveAnswer>) {
    let mut pos = Some(start.clone());
    let mut out = Vec::with_capacity(line.moves.len());
    for m in &line.moves {
        let before = pos.clone();
        let variations = m
            .variations
            .iter()
            .map(|v| {
                let (comments, moves) = match &before {
                    Some(b) => line_answer(b, v),
                    None => (v.comments.clone(), unresolved(v)),
                };
                LineAnswer { comments, moves }
            })
            .collect();
        let (uci, special, fen) = match (m.mv, pos.as_mut()) {
            (Some(mv), Some(p)) => {
                let uci = mv.to_uci(p);
                let special = move_specials(p, mv).into_iter().map(special_name).collect();
                p.play_unchecked(mv);
                (Some(uci), special, Some(p.to_fen()))
            }
            _ => {
                pos = None;
                (None, Vec::new(), None)
            }
        };
        out.push(MoveAnswer {
            ply: m.ply,
            san: m.san.clone(),
            uci,
            special,
            fen,
            nags: m.nags.clone(),
            comments: m.comments.clone(),
            variations,
            mv: m.mv.filter(|_| pos.is_some()),
        });
    }
    (line.comments.clone(), out)
}

/// A line whose position is unknown: its moves as written.
fn unresolved(line: &Line) -> Vec<MoveAnswer> {
    line.moves
        .iter()
        .map(|m| MoveAnswer {
            ply: m.ply,
            san: m.san.clone(),
            uci: None,
            special: Vec::new(),
            fen: None,
            nags: m.nags.clone(),
            comments: m.comments.clone(),
            variations: m
                .variations
                .iter()
                .map(|v| LineAnswer {
                    comments: v.comments.clone(),
                    moves: unresolved(v),
                })
                .collect(),
            mv: None,
        })
        .collect()
}
