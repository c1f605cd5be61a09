//! Game lists: the games matching a filter and, optionally, reaching a position; sorted and
//! paged.

use std::collections::HashMap;

use kabir_rules::Position;

use crate::derived::index;
use crate::error::DbError;
use crate::read::query::{GameFilter, GameId, GameSummary, PositionHit};
use crate::storage::database::{Database, Layout};
use crate::write::import::find_variant;

/// The order of a game list. Ties are broken by game id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// Import order.
    #[default]
    Id,
    /// By the Date tag, compared as text (`YYYY.MM.DD`, a `?` after every digit); games
    /// without one first.
    Date,
    /// By the White tag, compared byte by byte; games without one first.
    White,
    /// By the Black tag, compared byte by byte; games without one first.
    Black,
    /// By the Event tag, compared byte by byte; games without one first.
    Event,
    /// By the Site tag, compared byte by byte; games without one first.
    Site,
    /// By the result as text: `*`, `0-1`, `1-0`, `1/2-1/2`.
    Result,
    /// Game length.
    Plies,
}

impl SortKey {
    /// Every key, in the order `kabir search --sort` lists them.
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
    /// The conditions the games must meet.
    pub filter: GameFilter,
    /// Only games that reached this position (transpositions included), of its variant.
    pub position: Option<Position>,
    /// The order of the list.
    pub sort: SortKey,
    /// Reverses the order (`--reverse`); games that tie stay in id order.
    pub descending: bool,
    /// At most this many games (all when `None`), after skipping `offset`.
    pub limit: Option<usize>,
    /// Games skipped before the page, in the list's order.
    pub offset: usize,
}

/// A game found by [`Database::search`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The game's row.
    pub game: GameSummary,
    /// With a position: the first ply at which the game stood there.
    pub ply: Option<u32>,
}

/// A page of search results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchPage {
    /// Games matching the query, on all pages.
    pub total: u64,
    /// The page's games, in the query's order.
    pub games: Vec<SearchHit>,
}

impl Database {
    /// Runs a search: the games matching the filter (and reaching the position, if one is
    /// given), in the query's order, the page asked for, and the total number of matches.
    pub fn search(&self, q: &GameQuery) -> Result<SearchPage, DbError> {
        self.read(|layout| self.search_in(q, layout))
    }

    /// The ids of the games a search lists, in its order, the page asked for (all games when
    /// `limit` is `None`): the games of [`Database::search`] without their rows, for reading a
    /// long list game by game (an export, a download) without holding every row at once.
    pub fn search_ids(&self, q: &GameQuery) -> Result<Vec<GameId>, DbError> {
        self.read(|layout| self.search_ids_in(q, layout))
    }

    fn search_ids_in(&self, q: &GameQuery, layout: Layout) -> Result<Vec<GameId>, DbError> {
        let limit = q.limit.unwrap_or(usize::MAX);
        let order_by = q.sort.order_by(q.descending);
        let Some(pos) = &q.position else {
            return self.list_ids_in(&q.filter, order_by, limit, q.offset, layout);
        };
        let mut ids: Vec<GameId> = self
            .search_position(pos)?
            .into_iter()
            .map(|h| h.game)
            .collect();
        if let Some(only) = &q.filter.games {
            let only: std::collections::HashSet<GameId> = only.iter().copied().collect();
            ids.retain(|id| only.contains(id));
        }
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
            // In id order already: the index answers it all.
            if q.descending {
                ids.reverse();
            }
            return Ok(ids.into_iter().skip(q.offset).take(limit).collect());
        }
        let filter = GameFilter {
            games: Some(ids),
            ..q.filter.clone()
        };
        self.list_ids_in(&filter, order_by, limit, q.offset, layout)
    }

    fn search_in(&self, q: &GameQuery, layout: Layout) -> Result<SearchPage, DbError> {
        let limit = q.limit.unwrap_or(usize::MAX);
        let Some(pos) = &q.position else {
            let text_only = GameFilter {
                player: None,
                color: None,
                event: None,
                site: None,
                ..q.filter.clone()
            }
            .is_empty();
            if text_only
                && q.sort == SortKey::Id
                && let Some(mut ids) = self.named_games(&q.filter, layout)?
            {
                // The name index gave every game: only the page's rows are read.
                if q.descending {
                    ids.reverse();
                }
                let total = ids.len() as u64;
                let page: Vec<GameId> = ids.into_iter().skip(q.offset).take(limit).collect();
                let filter = GameFilter {
                    games: Some(page),
                    ..GameFilter::default()
                };
                let games = self
                    .list_games(&filter, q.sort.order_by(q.descending), usize::MAX, 0)?
                    .into_iter()
                    .map(|game| SearchHit { game, ply: None })
                    .collect();
                return Ok(SearchPage { total, games });
            }
            let total = self.count_games(&q.filter)?;
            let games = self
                .list_games(&q.filter, q.sort.order_by(q.descending), limit, q.offset)?
                .into_iter()
                .map(|game| SearchHit { game, ply: None })
                .collect();
            return Ok(SearchPage { total, games });
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
        if unfiltered && q.sort == SortKey::Id && q.filter.games.is_none() && layout.current {
            // The total from the opening tree, the page from the index segments that hold
            // its games: the games of a position reached by many are never all read.
            if let Some((total, hits)) =
                self.position_page(pos, q.descending, q.offset, limit, layout)?
            {
                let plies: HashMap<GameId, u32> = hits.iter().map(|h| (h.game, h.ply)).collect();
                let filter = GameFilter {
                    games: Some(hits.iter().map(|h| h.game).collect()),
                    ..GameFilter::default()
                };
                let games = self
                    .list_games(&filter, q.sort.order_by(q.descending), usize::MAX, 0)?
                    .into_iter()
                    .map(|game| SearchHit {
                        ply: plies.get(&game.id).copied(),
                        game,
                    })
                    .collect();
                return Ok(SearchPage { total, games });
            }
        }
        let mut hits = self.search_position(pos)?;
        if let Some(only) = &q.filter.games {
            let only: std::collections::HashSet<GameId> = only.iter().copied().collect();
            hits.retain(|h| only.contains(&h.game));
        }
        let plies: HashMap<GameId, u32> = hits.iter().map(|h| (h.game, h.ply)).collect();
        let with_ply = |games: Vec<GameSummary>| hits_at(games, &plies);
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

    /// The games of a page of a position's games in id order (`offset` skipped, at most
    /// `limit`), with the total. The total and the games whose first visit lies beyond the
    /// opening tree come from the tree and the position index (see
    /// [`Database::position_games`]); the games the tree counts, from the index entries kept
    /// with the tree, segment by segment in the order of their games, stopping once the page
    /// cannot change or every one is found, and reading only the segments that hold them
    /// when the tree names them all. `None` when a segment's range of games is unknown
    /// (segments written before version 3).
    fn position_page(
        &self,
        pos: &Position,
        descending: bool,
        offset: usize,
        limit: usize,
        layout: Layout,
    ) -> Result<Option<(u64, Vec<PositionHit>)>, DbError> {
        let Some(variant) = find_variant(self, pos.variant().id())? else {
            return Ok(Some((0, Vec::new())));
        };
        let mut ranges: Vec<(i64, (u32, u32))> = Vec::new();
        for s in index::segments(&self.conn, variant).map_err(|e| self.err(e))? {
            match s.games {
                Some(r) => ranges.push((s.id, r)),
                None => return Ok(None),
            }
        }
        let found = self.position_games(pos, layout)?;
        let total = found.total();
        let mut hits = found.beyond;
        if found.tree_games > 0 {
            if let Some(ids) = &found.tree_ids {
                ranges.retain(|&(_, (first, last))| {
                    let i = ids.partition_point(|&g| g < first);
                    ids.get(i).is_some_and(|&g| g <= last)
                });
            }
            if descending {
                ranges.sort_by_key(|s| std::cmp::Reverse(s.1.1));
            } else {
                ranges.sort_by_key(|s| s.1.0);
            }
            let want = offset.saturating_add(limit);
            let hash = pos.hash();
            let mut in_tree = 0u64;
            for (i, &(segment, _)) in ranges.iter().enumerate() {
                // No more than `want` games of one segment can be on the page, unless some
                // of its candidates are not the position after all (a hash collision): then
                // more are read.
                let mut games = want;
                let verified = loop {
                    let (candidates, all) = index::lookup_tree_segment(
                        &self.conn, variant, segment, hash, games, descending,
                    )
                    .map_err(|e| self.err(e))?;
                    let verified = self.verified(pos, &candidates)?;
                    if all || verified.len() >= want {
                        break verified;
                    }
                    games = games.saturating_mul(2);
                };
                for p in verified {
                    hits.push(PositionHit {
                        game: GameId(p.game),
                        ply: u32::from(p.ply),
                    });
                    in_tree += 1;
                }
                if in_tree >= found.tree_games {
                    break;
                }
                // Games before the next segment's range (after it, in descending order) can
                // no longer be passed by another.
                let settled = match ranges.get(i + 1) {
                    None => hits.len(),
                    Some(&(_, (first, last))) => hits
                        .iter()
                        .filter(|h| {
                            if descending {
                                h.game.0 > last
                            } else {
                                h.game.0 < first
                            }
                        })
                        .count(),
                };
                if settled >= want {
                    break;
                }
            }
        }
        hits.sort_unstable();
        if descending {
            hits.reverse();
        }
        let page = hits.into_iter().skip(offset).take(limit).collect();
        Ok(Some((total, page)))
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

/// `games` as search hits, each with its ply in `plies` (the position's first visit), if any.
pub(crate) fn hits_at(games: Vec<GameSummary>, plies: &HashMap<GameId, u32>) -> Vec<SearchHit> {
    games
        .into_iter()
        .map(|game| SearchHit {
            ply: plies.get(&game.id).copied(),
            game,
        })
        .collect()
}
