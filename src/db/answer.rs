//! The answers of the query commands as JSON objects: what `kabir explore`, `kabir search` and
//! `kabir show` print with `--format json`, and what `kabir serve`'s API sends. One
//! implementation for both, so that they cannot drift apart. The fields are described in
//! `docs/QUERIES.md`; statistics need no type here, as [`Report`](super::Report) is its own
//! JSON form.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::notation::reader::Reader;
use crate::notation::tree::{self, Line};
use crate::rules::{Move, MoveKind, Position, Status, Termination};
use crate::variants::Registry;

use super::names::special_name;
use super::query::{Explorer, GameId, Results, Special, StoredGame};
use super::search::{SearchHit, SearchPage};

/// What the explorer counts, said with every answer.
pub const EXPLORER_COUNTING: &str = "games that reached the position by any move order \
                                     (transpositions included), each game counted once, at its \
                                     first visit";

/// The explorer's answer for a position: its variant, what is counted, and the position's
/// node (with the moves' nodes below it for a tree). It is what `kabir explore --format json`
/// prints; serialize it with any serde format.
///
/// ```
/// use kabir::db::{Database, ExploreAnswer};
/// use kabir::rules::Position;
///
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("games.db");
/// // An empty database: no game reached the position.
/// let db = Database::create_or_open(&path)?;
/// let tamerlane = kabir::variants::builtin("tamerlane")?;
/// let start = Position::start(&tamerlane);
/// let explorer = db.explore(&start, 3)?;
/// let json = serde_json::to_value(ExploreAnswer::new(&start, &explorer))?;
/// assert_eq!(json["variant"], "tamerlane");
/// assert_eq!(json["fen"], start.to_fen());
/// assert_eq!(json["games"], 0);
/// assert_eq!(json["moves"].as_array().map(Vec::len), Some(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Serialize)]
pub struct ExploreAnswer<'a> {
    variant: &'a str,
    counting: &'static str,
    #[serde(flatten)]
    node: ExploreNode<'a>,
}

/// A position of an [`ExploreAnswer`], at the top and under each move of a tree (`next`):
/// the same fields at every level.
#[derive(Debug, Serialize)]
struct ExploreNode<'a> {
    fen: String,
    /// The position's hash as the database and the Parquet export store it (signed 64 bits).
    hash: i64,
    games: u64,
    results: &'a Results,
    ended_here: u64,
    continued: u64,
    moves: Vec<ExploreMove<'a>>,
}

#[derive(Debug, Serialize)]
struct ExploreMove<'a> {
    san: &'a str,
    uci: &'a str,
    games: u64,
    share_pct: f64,
    results: &'a Results,
    average_plies: f64,
    examples: &'a [GameId],
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<Box<ExploreNode<'a>>>,
}

impl<'a> ExploreAnswer<'a> {
    /// The answer for `pos`, whose explorer (or explorer tree) is `ex`.
    pub fn new(pos: &'a Position, ex: &'a Explorer) -> ExploreAnswer<'a> {
        ExploreAnswer {
            variant: pos.variant().id(),
            counting: EXPLORER_COUNTING,
            node: ExploreNode::of(pos, ex),
        }
    }
}

impl<'a> ExploreNode<'a> {
    fn of(pos: &Position, ex: &'a Explorer) -> ExploreNode<'a> {
        ExploreNode {
            fen: pos.to_fen(),
            hash: super::codec::to_sql(pos.hash()),
            games: ex.games,
            results: &ex.results,
            ended_here: ex.ended_here,
            continued: ex.games - ex.ended_here,
            moves: ex
                .moves
                .iter()
                .map(|m| ExploreMove {
                    san: &m.san,
                    uci: &m.uci,
                    games: m.games,
                    share_pct: m.share_pct,
                    results: &m.results,
                    average_plies: m.average_plies,
                    examples: &m.examples,
                    next: m
                        .next
                        .as_deref()
                        .map(|next| Box::new(ExploreNode::of(&pos.after(m.mv), next))),
                })
                .collect(),
        }
    }
}

/// A page of a game search: `total` counts the matches on all pages.
#[derive(Debug, Clone, Serialize)]
pub struct SearchAnswer {
    pub total: u64,
    pub offset: usize,
    /// The most games a page holds (`None`: all).
    pub limit: Option<usize>,
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
    pub id: GameId,
    pub variant: String,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub result: String,
    pub plies: u32,
    pub termination: &'static str,
    /// With a position: the first ply at which the game stood there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
}

impl GameRow {
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
            result: g.result.clone(),
            plies: g.plies,
            termination: g.end.as_str(),
            ply: h.ply,
        }
    }
}

/// Why a stored game cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameAnswerError {
    #[error("game {id}: its variant {variant:?} is not known here; give its definition file")]
    UnknownVariant { id: GameId, variant: String },
    #[error("game {id} has only {plies} plies; ply {ply} is past its end")]
    PastEnd {
        id: GameId,
        plies: usize,
        ply: usize,
    },
    #[error("game {id}: a stored move does not fit its position")]
    Corrupt { id: GameId },
}

/// A stored game as `kabir show --format json` prints it: the fields of `kabir export
/// --format json`, the special moves, the moves as a tree (main line, variations, comments
/// and glyphs, each move with its position after it), and the position at the ply shown.
#[derive(Debug, Clone, Serialize)]
pub struct GameAnswer {
    pub id: GameId,
    pub variant: String,
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    pub result: String,
    pub plies: u32,
    pub termination: &'static str,
    /// The start position string.
    pub start: String,
    /// Every tag, by name.
    pub tags: BTreeMap<String, String>,
    pub special: SpecialSummary,
    /// Comments written before the first move.
    pub comments: Vec<String>,
    /// The main line.
    pub moves: Vec<MoveAnswer>,
    /// The ply shown (the last one unless asked), and its position.
    pub ply: usize,
    pub fen: String,
    /// The game's canonical text.
    pub pgn: String,
}

/// A game's special moves, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SpecialSummary {
    pub swaps: u64,
    pub lifts: u64,
    pub relocations: u64,
    pub promotions: u64,
    pub arrivals: u64,
    pub adventitious_kings: u64,
    pub citadel_draws: u64,
    /// Promotions by the piece kind's id.
    pub promotions_by_kind: BTreeMap<String, u64>,
}

impl SpecialSummary {
    /// Each kind of special move, in words with its count (see [`SpecialMoves::phrases`](super::SpecialMoves::phrases)).
    pub fn phrases(&self) -> Vec<String> {
        super::record::special_phrases([
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
    pub nags: Vec<u8>,
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
        let unknown = || GameAnswerError::UnknownVariant {
            id,
            variant: game.variant.clone(),
        };
        let start = game.position_at(variants, 0).ok_or_else(unknown)?;
        let shown = game
            .position_at(variants, ply)
            .ok_or(GameAnswerError::Corrupt { id })?;
        // The stored text gives comments and variations; the stored moves are the truth for
        // the main line, and a text that disagrees with them is not used.
        let mut raw = crate::notation::game::RawGame::default();
        let read = Reader::new(game.pgn.as_bytes())
            .read_game_into(&mut raw)
            .unwrap_or(false);
        let mut line = if read {
            tree::read_tree(&raw, &start)
        } else {
            Line::default()
        };
        if tree::resolved_moves(&line) != game.moves || line.moves.len() != plies {
            line = plain_line(&start, &game.moves).ok_or(GameAnswerError::Corrupt { id })?;
        }
        let (comments, moves) = line_answer(&start, &line);
        let tag = |k: &str| game.tag(k).unwrap_or("").to_string();
        let s = &game.special;
        Ok(GameAnswer {
            id,
            variant: game.variant.clone(),
            event: tag("Event"),
            site: tag("Site"),
            date: tag("Date"),
            round: tag("Round"),
            white: tag("White"),
            black: tag("Black"),
            result: game.result.clone(),
            plies: game.plies,
            termination: game.end.as_str(),
            start: game.start_fen.clone(),
            tags: game.tags.iter().cloned().collect(),
            special: SpecialSummary {
                swaps: s.swaps,
                lifts: s.lifts,
                relocations: s.relocations,
                promotions: s.promotions,
                arrivals: s.arrivals,
                adventitious_kings: s.adventitious_kings,
                citadel_draws: s.citadel_entries,
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
fn plain_line(start: &Position, moves: &[Move]) -> Option<Line> {
    let mut pos = start.clone();
    let mut legal = Vec::new();
    let mut line = Line::default();
    for (i, &m) in moves.iter().enumerate() {
        pos.legal_moves_into(&mut legal);
        if !legal.contains(&m) {
            return None;
        }
        line.moves.push(tree::TreeMove {
            mv: Some(m),
            san: crate::notation::san_plus(&pos, m, &legal),
            ply: i + 1,
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        });
        pos.play_unchecked(m);
    }
    Some(line)
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
