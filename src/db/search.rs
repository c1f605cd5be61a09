//! Game lists: the games matching a filter and, optionally, reaching a position; sorted and
//! paged.

use std::collections::HashMap;

use crate::rules::Position;

use super::database::Database;
use super::error::DbError;
use super::query::{GameFilter, GameId, GameSummary};

/// The order of a game list. Ties are broken by game id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// Import order.
    #[default]
    Id,
    Date,
    White,
    Black,
    Event,
    Site,
    Result,
    /// Game length.
    Plies,
}

impl SortKey {
    pub const ALL: [SortKey; 8] = [
        SortKey::Id,
        SortKey::Date,
        SortKey::White,
        SortKey::Black,
        SortKey::Event,
        SortKey::Site,
        SortKey::Result,
        SortKey::Plies,
    ];

    /// The key's name (`date`, `plies`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Id => "id",
            SortKey::Date => "date",
            SortKey::White => "white",
            SortKey::Black => "black",
            SortKey::Event => "event",
            SortKey::Site => "site",
            SortKey::Result => "result",
            SortKey::Plies => "plies",
        }
    }

    /// The key named `name`.
    pub fn parse(name: &str) -> Option<SortKey> {
        SortKey::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The SQL ordering: fixed text, never the caller's.
    fn order_by(self, descending: bool) -> &'static str {
        match (self, descending) {
            (SortKey::Id, false) => "g.id",
            (SortKey::Id, true) => "g.id DESC",
            (SortKey::Date, false) => "g.date, g.id",
            (SortKey::Date, true) => "g.date DESC, g.id",
            (SortKey::White, false) => "g.white, g.id",
            (SortKey::White, true) => "g.white DESC, g.id",
            (SortKey::Black, false) => "g.black, g.id",
            (SortKey::Black, true) => "g.black DESC, g.id",
            (SortKey::Event, false) => "g.event, g.id",
            (SortKey::Event, true) => "g.event DESC, g.id",
            (SortKey::Site, false) => "g.site, g.id",
            (SortKey::Site, true) => "g.site DESC, g.id",
            (SortKey::Result, false) => "g.result, g.id",
            (SortKey::Result, true) => "g.result DESC, g.id",
            (SortKey::Plies, false) => "g.plies, g.id",
            (SortKey::Plies, true) => "g.plies DESC, g.id",
        }
    }
}

/// A game search: tag conditions, optionally a position the games reached, an order and a page.
#[derive(Debug, Clone, Default)]
pub struct GameQuery {
    pub filter: GameFilter,
    /// Only games that reached this position (transpositions included), of its variant.
    pub position: Option<Position>,
    pub sort: SortKey,
    pub descending: bool,
    /// At most this many games (all when `None`), after skipping `offset`.
    pub limit: Option<usize>,
    pub offset: usize,
}

/// A game found by [`Database::search`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub game: GameSummary,
    /// With a position: the first ply at which the game stood there.
    pub ply: Option<u32>,
}

/// A page of search results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchPage {
    /// Games matching the query, on all pages.
    pub total: u64,
    pub games: Vec<SearchHit>,
}

impl Database {
    /// Runs a search: the games matching the filter (and reaching the position, if one is
    /// given), in the query's order, the page asked for, and the total number of matches.
    pub fn search(&self, q: &GameQuery) -> Result<SearchPage, DbError> {
        let limit = q.limit.unwrap_or(usize::MAX);
        let Some(pos) = &q.position else {
            let total = self.count_games(&q.filter)?;
            let games = self
                .list_games(&q.filter, q.sort.order_by(q.descending), limit, q.offset)?
                .into_iter()
                .map(|game| SearchHit { game, ply: None })
                .collect();
            return Ok(SearchPage { total, games });
        };
        let mut hits = self.search_position(pos)?;
        if let Some(only) = &q.filter.games {
            let only: std::collections::HashSet<GameId> = only.iter().copied().collect();
            hits.retain(|h| only.contains(&h.game));
        }
        let plies: HashMap<GameId, u32> = hits.iter().map(|h| (h.game, h.ply)).collect();
        let with_ply = |games: Vec<GameSummary>| -> Vec<SearchHit> {
            games
                .into_iter()
                .map(|game| SearchHit {
                    ply: plies.get(&game.id).copied(),
                    game,
                })
                .collect()
        };
        // The position's variant is implied by the position.
        let same_variant = q.filter.variant.as_deref() == Some(pos.variant().id());
        let unfiltered = GameFilter {
            games: None,
            variant: if same_variant {
                None
            } else {
                q.filter.variant.clone()
            },
            ..q.filter.clone()
        }
        .is_empty();
        if unfiltered && q.sort == SortKey::Id {
            // The index answered everything but the page's tags: read only those rows.
            let mut ids: Vec<GameId> = hits.iter().map(|h| h.game).collect();
            if q.descending {
                ids.reverse();
            }
            let page: Vec<GameId> = ids.into_iter().skip(q.offset).take(limit).collect();
            let filter = GameFilter {
                games: Some(page),
                ..GameFilter::default()
            };
            let games = self.list_games(&filter, q.sort.order_by(q.descending), usize::MAX, 0)?;
            return Ok(SearchPage {
                total: hits.len() as u64,
                games: with_ply(games),
            });
        }
        let filter = GameFilter {
            games: Some(hits.iter().map(|h| h.game).collect()),
            ..q.filter.clone()
        };
        let total = self.count_games(&filter)?;
        let games = self.list_games(&filter, q.sort.order_by(q.descending), limit, q.offset)?;
        Ok(SearchPage {
            total,
            games: with_ply(games),
        })
    }

    /// The variants that have games in the database, by id.
    pub fn variants(&self) -> Result<Vec<String>, DbError> {
        self.conn
            .prepare_cached(
                // Index segments, not games: the segment table is small, and every stored
                // game is in a segment of its variant.
                "SELECT DISTINCT v.name FROM segment s JOIN variant v ON v.id = s.variant
                 WHERE s.games > 0 ORDER BY v.name",
            )
            .and_then(|mut s| {
                s.query_map([], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()
            })
            .map_err(|e| self.err(e))
    }
}
