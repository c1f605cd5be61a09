//! Statistics over a set of games: results, lengths, how games ended, special moves, openings,
//! players, and the same broken down by a key.
//!
//! Everything a report shows is a field of [`Report`] (percentages included), so a table and
//! its JSON form carry the same numbers.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde::ser::SerializeStruct;

use kabir_rules::variants::Registry;
use kabir_rules::{Color, Position};

use crate::derived::openings;
use crate::derived::tally::OpeningRow;
use crate::error::DbError;
use crate::read::query::{GameFilter, Results, count};
use crate::storage::codec::{self, MOVE_BYTES};
use crate::storage::database::{Database, Layout};
use crate::storage::schema::OPENING_PLIES;
use crate::write::record::GameEnd;

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

impl Results {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.white_wins + self.draws + self.black_wins + self.unfinished
    }
}

/// Counts and percentages of the games.
impl Serialize for Results {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.games();
        let mut st = s.serialize_struct("Results", 9)?;
        st.serialize_field("games", &n)?;
        st.serialize_field("white_wins", &self.white_wins)?;
        st.serialize_field("draws", &self.draws)?;
        st.serialize_field("black_wins", &self.black_wins)?;
        st.serialize_field("unfinished", &self.unfinished)?;
        st.serialize_field("white_wins_pct", &percent(self.white_wins, n))?;
        st.serialize_field("draws_pct", &percent(self.draws, n))?;
        st.serialize_field("black_wins_pct", &percent(self.black_wins, n))?;
        st.serialize_field("unfinished_pct", &percent(self.unfinished, n))?;
        st.end()
    }
}

impl Serialize for GameEnd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How a report breaks the games down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupBy {
    /// The variant's id.
    Variant,
    /// The players (exact `White` and `Black` tag values): listed in [`Report::players`],
    /// the `top` with most games, rather than as groups.
    Player,
    /// How the game ended (the names of [`GameEnd::as_str`]).
    Termination,
    /// The year of the `Date` tag (`????` when unknown).
    Year,
    /// The first [`ReportQuery::opening_plies`] moves.
    Opening,
    /// The result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    Result,
}

impl GroupBy {
    /// Every way a report can break the games down.
    pub const ALL: [GroupBy; 6] = [
        GroupBy::Variant,
        GroupBy::Player,
        GroupBy::Termination,
        GroupBy::Year,
        GroupBy::Opening,
        GroupBy::Result,
    ];

    /// The name `kabir stats --by` takes, and the report's `by` field says.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Variant => "variant",
            GroupBy::Player => "player",
            GroupBy::Termination => "termination",
            GroupBy::Year => "year",
            GroupBy::Opening => "opening",
            GroupBy::Result => "result",
        }
    }

    /// The way named `name` (as [`GroupBy::as_str`] writes it), if any.
    pub fn parse(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.as_str() == name)
    }
}

/// What to report on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportQuery {
    /// The games to count. With `player`, the report also has the matching players' scores.
    pub filter: GameFilter,
    /// How to break the games down, if at all.
    pub by: Option<GroupBy>,
    /// An opening is a game's first this many plies (games from the variant's start only).
    pub opening_plies: usize,
    /// How many openings (and, by player, players) to list, most games first.
    pub top: usize,
}

impl Default for ReportQuery {
    fn default() -> Self {
        ReportQuery {
            filter: GameFilter::default(),
            by: None,
            opening_plies: 4,
            top: 10,
        }
    }
}

/// Game lengths in plies.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Lengths {
    /// The shortest game (0 when there are none).
    pub min: u32,
    /// The longest game (0 when there are none).
    pub max: u32,
    /// The average length (0 when there are no games).
    pub mean: f64,
    /// The median length: the lower of the two middle ones for an even number of games.
    pub median: u32,
    /// Games by length, in ranges of `bucket_width` plies from 0; empty ranges included
    /// between the shortest and the longest game.
    pub bucket_width: u32,
    /// The ranges, shortest first (about ten; none when there are no games).
    pub buckets: Vec<LengthBucket>,
}

/// Games whose length is in `from..=to` plies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LengthBucket {
    /// The shortest length in the range.
    pub from: u32,
    /// The longest length in the range (`from + bucket_width - 1`).
    pub to: u32,
    /// Games of a length in the range.
    pub games: u64,
    /// Their share of the games counted, in percent.
    pub pct: f64,
}

/// Games that ended one way.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndCount {
    /// How the games ended (in JSON its name: `checkmate`, `stalemate`, `bare king`,
    /// `citadel draw` or `other`).
    pub termination: GameEnd,
    /// Games that ended so.
    pub games: u64,
    /// Their share of the games counted, in percent.
    pub pct: f64,
}

/// One kind of special move: how many were played and in how many games.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SpecialCount {
    /// Its name (`king swap`, `promotion to vizir`, ...).
    pub name: String,
    /// Times it was played, over all the games.
    pub moves: u64,
    /// Games with at least one.
    pub games: u64,
    /// Share of the games with at least one.
    pub games_pct: f64,
}

/// A group of games with something in common (a variant, a year, an opening line...).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The value shared (for openings, the moves in SAN).
    pub key: String,
    /// For openings and player groups: the variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Games in the group.
    pub games: u64,
    /// Share of all games in the report; for an opening, of the games of its variant that
    /// started from the variant's standard start position.
    pub share_pct: f64,
    /// Their results.
    pub results: Results,
    /// Their average length in plies.
    pub average_plies: f64,
}

/// A player's results, counted from the player's side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Score {
    /// Games the player won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the player lost.
    pub losses: u64,
    /// Games recorded with `*`.
    pub unfinished: u64,
}

impl Score {
    /// Games counted: wins, draws, losses and unfinished.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses + self.unfinished
    }

    /// Points: a win 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Points as a share of the finished games.
    pub fn score_pct(&self) -> f64 {
        let finished = self.wins + self.draws + self.losses;
        if finished == 0 {
            0.0
        } else {
            self.points() * 100.0 / finished as f64
        }
    }

    fn add(&mut self, result: &str, color: Color, n: u64) {
        match (result, color) {
            ("1-0", Color::White) | ("0-1", Color::Black) => self.wins += n,
            ("1-0", Color::Black) | ("0-1", Color::White) => self.losses += n,
            ("1/2-1/2", _) => self.draws += n,
            _ => self.unfinished += n,
        }
    }
}

impl Serialize for Score {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.games();
        let mut st = s.serialize_struct("Score", 11)?;
        st.serialize_field("games", &n)?;
        st.serialize_field("wins", &self.wins)?;
        st.serialize_field("draws", &self.draws)?;
        st.serialize_field("losses", &self.losses)?;
        st.serialize_field("unfinished", &self.unfinished)?;
        st.serialize_field("wins_pct", &percent(self.wins, n))?;
        st.serialize_field("draws_pct", &percent(self.draws, n))?;
        st.serialize_field("losses_pct", &percent(self.losses, n))?;
        st.serialize_field("unfinished_pct", &percent(self.unfinished, n))?;
        st.serialize_field("points", &self.points())?;
        st.serialize_field("score_pct", &self.score_pct())?;
        st.end()
    }
}

/// A player (an exact `White`/`Black` tag value) and the results of their games.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlayerStats {
    /// The name, exactly as tagged.
    pub name: String,
    /// All their games, each side played counted (a game against a player of the same name
    /// counts twice).
    pub total: Score,
    /// Their games as White.
    pub as_white: Score,
    /// Their games as Black.
    pub as_black: Score,
    /// By variant id, in id order.
    pub by_variant: Vec<(String, Score)>,
}

/// Statistics over the games matching a [`ReportQuery`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Games counted: those matching the filter.
    pub games: u64,
    /// Their results.
    pub results: Results,
    /// Their lengths in plies.
    pub lengths: Lengths,
    /// Every way a game can end, in [`GameEnd::ALL`] order, zeros included.
    pub terminations: Vec<EndCount>,
    /// King swaps, lifts, relocations, promotions, arrivals of the pawn of pawns,
    /// adventitious kings and citadel draws, then promotions by piece kind.
    pub special: Vec<SpecialCount>,
    /// The most played openings (first `opening_plies` plies), most games first.
    pub opening_plies: usize,
    /// The `top` most played openings of `opening_plies` plies, most games first; none when
    /// either is 0.
    pub openings: Vec<Group>,
    /// With a player filter or `by` player: the players, most games first.
    pub players: Vec<PlayerStats>,
    /// With `by` variant, termination, year, result or opening: the groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'static str>,
    /// One group per value of `by`, in order of their keys (for openings, the same as
    /// `openings`); none without `by`, or by player.
    pub groups: Vec<Group>,
}

const SPECIAL_COLUMNS: [(&str, &str); 7] = [
    ("swaps", "king swap"),
    ("lifts", "lift"),
    ("relocations", "relocation"),
    ("promotions", "promotion"),
    ("arrivals", "pawn of pawns arrival"),
    ("adventitious_kings", "adventitious king"),
    ("citadel_entries", "citadel draw"),
];

#[derive(Default)]
struct Acc {
    results: Results,
    plies: u64,
}

impl Acc {
    fn group(&self, key: String, variant: Option<String>, all: u64) -> Group {
        let games = self.results.games();
        Group {
            key,
            variant,
            games,
            share_pct: percent(games, all),
            results: self.results,
            average_plies: if games == 0 {
                0.0
            } else {
                self.plies as f64 / games as f64
            },
        }
    }
}

/// What a report adds up, game by game or from the summaries.
#[derive(Default)]
struct Totals {
    games: u64,
    results: Results,
    by_length: BTreeMap<u32, u64>,
    total_plies: u64,
    ends: HashMap<GameEnd, u64>,
    /// Per special move: moves, games with one.
    special: [(u64, u64); 7],
    groups: BTreeMap<String, Acc>,
    /// By (variant id, line).
    openings: Vec<((i64, Vec<u8>), Acc)>,
    /// An opening's share is of the games that could have played it: its variant's games
    /// from the standard start.
    from_start: HashMap<i64, u64>,
    /// Promotions by kind: moves, games with one; in kind order.
    promotions: Vec<(String, u64, u64)>,
}

impl Totals {
    /// The report: percentages, ranges of lengths, the top openings.
    fn finish(
        mut self,
        q: &ReportQuery,
        variants: &Registry,
        names: &HashMap<i64, String>,
        players: Vec<PlayerStats>,
    ) -> Report {
        let all = self.games;
        let mut report = Report {
            opening_plies: q.opening_plies,
            games: all,
            results: self.results,
            lengths: lengths(&self.by_length, self.total_plies, all),
            players,
            ..Report::default()
        };
        report.terminations = GameEnd::ALL
            .into_iter()
            .map(|e| {
                let games = self.ends.get(&e).copied().unwrap_or(0);
                EndCount {
                    termination: e,
                    games,
                    pct: percent(games, all),
                }
            })
            .collect();
        report.special = SPECIAL_COLUMNS
            .iter()
            .zip(self.special)
            .map(|(&(_, name), (moves, games))| SpecialCount {
                name: name.to_string(),
                moves,
                games,
                games_pct: percent(games, all),
            })
            .collect();
        report.special.extend(
            self.promotions
                .iter()
                .map(|(kind, moves, games)| SpecialCount {
                    name: format!("promotion to {kind}"),
                    moves: *moves,
                    games: *games,
                    games_pct: percent(*games, all),
                }),
        );
        report.by = q.by.map(GroupBy::as_str);
        report.groups = std::mem::take(&mut self.groups)
            .into_iter()
            .map(|(key, acc)| acc.group(key, None, all))
            .collect();
        self.openings.sort_by(|a, b| {
            b.1.results
                .games()
                .cmp(&a.1.results.games())
                .then_with(|| a.0.cmp(&b.0))
        });
        self.openings.truncate(q.top);
        report.openings = self
            .openings
            .into_iter()
            .map(|((variant, line), acc)| {
                let name = names.get(&variant).cloned().unwrap_or_default();
                let key = opening_text(variants, &name, &line);
                let from_start = self.from_start.get(&variant).copied().unwrap_or(0);
                acc.group(key, Some(name), from_start)
            })
            .collect();
        if q.by == Some(GroupBy::Opening) {
            report.groups = report.openings.clone();
        }
        report
    }
}

/// An opening offered to [`TopOpenings`]: worse than another with fewer games, or as many and
/// a later (variant, line).
struct Ranked {
    key: (i64, Vec<u8>),
    acc: Acc,
}

impl Ranked {
    fn rank(&self) -> (std::cmp::Reverse<u64>, &(i64, Vec<u8>)) {
        (std::cmp::Reverse(self.acc.results.games()), &self.key)
    }
}

impl PartialEq for Ranked {
    fn eq(&self, o: &Self) -> bool {
        self.rank() == o.rank()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Ranked {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&o.rank())
    }
}

/// The `top` openings with the most games, kept as they are offered one by one (the worst
/// of them on top of the heap), so that all openings need never be held or sorted.
struct TopOpenings {
    top: usize,
    heap: std::collections::BinaryHeap<Ranked>,
}

impl TopOpenings {
    fn new(top: usize) -> TopOpenings {
        TopOpenings {
            top,
            heap: std::collections::BinaryHeap::with_capacity(top.min(1024) + 1),
        }
    }

    fn offer_acc(&mut self, variant: i64, line: &[u8], acc: Acc) {
        if self.top == 0 {
            return;
        }
        if self.heap.len() >= self.top
            && let Some(worst) = self.heap.peek()
        {
            let games = acc.results.games();
            let (worst_games, worst_key) = (worst.acc.results.games(), &worst.key);
            if games < worst_games
                || (games == worst_games && (variant, line) >= (worst_key.0, &worst_key.1[..]))
            {
                return;
            }
        }
        self.heap.push(Ranked {
            key: (variant, line.to_vec()),
            acc,
        });
        if self.heap.len() > self.top {
            self.heap.pop();
        }
    }

    fn offer(&mut self, variant: i64, r: &OpeningRow) {
        let acc = Acc {
            results: Results {
                white_wins: r.white,
                draws: r.draws,
                black_wins: r.black,
                unfinished: r.games.saturating_sub(r.white + r.draws + r.black),
            },
            plies: r.plies,
        };
        self.offer_acc(variant, r.line(), acc);
    }

    fn into_vec(self) -> Vec<((i64, Vec<u8>), Acc)> {
        self.heap.into_iter().map(|r| (r.key, r.acc)).collect()
    }
}

/// The key of a game in a report broken down by `by` (not by player or opening).
fn group_key(
    by: Option<GroupBy>,
    names: &HashMap<i64, String>,
    variant: i64,
    end: GameEnd,
    year: Option<String>,
    result: &str,
) -> Option<String> {
    match by {
        Some(GroupBy::Variant) => names.get(&variant).cloned(),
        Some(GroupBy::Termination) => Some(end.as_str().to_string()),
        Some(GroupBy::Year) => Some(match year {
            Some(y) if y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()) => y,
            _ => "????".to_string(),
        }),
        Some(GroupBy::Result) => Some(result.to_string()),
        _ => None,
    }
}

impl Database {
    /// Statistics over the games matching `q.filter`. `variants` names the variants whose
    /// openings are written in SAN (others are written in coordinates).
    pub fn report(&self, q: &ReportQuery, variants: &Registry) -> Result<Report, DbError> {
        self.read(|layout| {
            let names: HashMap<i64, String> = self
                .conn
                .prepare_cached("SELECT id, name FROM variant")
                .and_then(|mut s| {
                    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect::<Result<_, _>>()
                })
                .map_err(|e| self.err(e))?;
            let totals = match self.summarized(q, layout, &names)? {
                Some(t) => t,
                None => return self.scan_report(q, variants, layout, &names),
            };
            Ok(totals.finish(q, variants, &names, Vec::new()))
        })
    }

    /// The totals of a report from the summaries, when they can answer it: the derived
    /// tables are current, the games are all games or those of a variant, the report is not
    /// by player, and its openings are no longer than the summaries keep.
    fn summarized(
        &self,
        q: &ReportQuery,
        layout: Layout,
        names: &HashMap<i64, String>,
    ) -> Result<Option<Totals>, DbError> {
        let openings_wanted = q.top > 0 && q.opening_plies > 0;
        let only_variant = GameFilter {
            variant: None,
            ..q.filter.clone()
        }
        .is_empty();
        if !layout.current
            || !only_variant
            || q.by == Some(GroupBy::Player)
            || (openings_wanted && q.opening_plies > OPENING_PLIES)
        {
            return Ok(None);
        }
        let variant: Option<i64> = match &q.filter.variant {
            None => None,
            Some(name) => match names.iter().find(|(_, n)| *n == name) {
                Some((&id, _)) => Some(id),
                // No game of that variant: nothing to count.
                None => return Ok(Some(Totals::default())),
            },
        };
        let sql_err = |e| self.err(e);
        let keep = |v: i64| variant.is_none_or(|w| w == v);
        let mut t = Totals::default();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT variant, year, result, termination, games, plies, swaps, lifts,
                     relocations, promotions, arrivals, adventitious_kings, citadel_entries,
                     with_swaps, with_lifts, with_relocations, with_promotions, with_arrivals,
                     with_adventitious_kings, with_citadel_entries
                 FROM summary",
            )
            .map_err(sql_err)?;
        let mut rows = stmt.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let read = || -> rusqlite::Result<_> {
                let mut special = [(0u64, 0u64); 7];
                for (i, s) in special.iter_mut().enumerate() {
                    *s = (count(r, 6 + i)?, count(r, 13 + i)?);
                }
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    count(r, 4)?,
                    count(r, 5)?,
                    special,
                ))
            };
            let (v, year, result, end, games, plies, special) = read().map_err(sql_err)?;
            if !keep(v) {
                continue;
            }
            let end = GameEnd::parse(&end).unwrap_or(GameEnd::Other);
            t.games += games;
            t.results.add_result(&result, games);
            t.total_plies += plies;
            *t.ends.entry(end).or_default() += games;
            for (acc, s) in t.special.iter_mut().zip(special) {
                acc.0 += s.0;
                acc.1 += s.1;
            }
            if let Some(key) = group_key(q.by, names, v, end, Some(year), &result) {
                let g = t.groups.entry(key).or_default();
                g.results.add_result(&result, games);
                g.plies += plies;
            }
        }
        drop(rows);
        let mut stmt = self
            .conn
            .prepare_cached("SELECT variant, plies, games FROM summary_length")
            .map_err(sql_err)?;
        let mut rows = stmt.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let v: i64 = r.get(0).map_err(sql_err)?;
            if keep(v) {
                let plies: u32 = r.get(1).map_err(sql_err)?;
                *t.by_length.entry(plies).or_default() += count(r, 2).map_err(sql_err)?;
            }
        }
        drop(rows);
        let mut promotions: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT variant, kind, moves, games FROM summary_promotion")
            .map_err(sql_err)?;
        let mut rows = stmt.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let v: i64 = r.get(0).map_err(sql_err)?;
            if keep(v) {
                let p = promotions.entry(r.get(1).map_err(sql_err)?).or_default();
                p.0 += count(r, 2).map_err(sql_err)?;
                p.1 += count(r, 3).map_err(sql_err)?;
            }
        }
        drop(rows);
        t.promotions = promotions
            .into_iter()
            .map(|(k, (moves, games))| (k, moves, games))
            .collect();
        if openings_wanted {
            let mut top = TopOpenings::new(q.top);
            for v in openings::variants(&self.conn).map_err(sql_err)? {
                if !keep(v) {
                    continue;
                }
                let found =
                    openings::top(&self.conn, v, q.opening_plies, q.top).map_err(sql_err)?;
                for r in &found.rows {
                    top.offer(v, r);
                }
                t.from_start.insert(v, found.games);
            }
            t.openings = top.into_vec();
        }
        Ok(Some(t))
    }

    /// A report from the matching games themselves, in one pass over their rows.
    fn scan_report(
        &self,
        q: &ReportQuery,
        variants: &Registry,
        layout: Layout,
        names: &HashMap<i64, String>,
    ) -> Result<Report, DbError> {
        let openings_wanted = q.top > 0 && q.opening_plies > 0;
        let (clause, mut args) = self.filter_sql(&q.filter, layout)?;
        // One pass over the games: the rows are summed here. With openings, the rows come
        // sorted by opening, so that each opening's games are summed one after another and
        // only the best `top` are kept: SQLite's sorter holds at most its cache's size and
        // writes the rest to a temporary file, where a map of every opening held them all
        // (76 MB for openings of 200 plies on 100,000 games, ten times that on a million).
        let mut sql = "SELECT g.variant, g.result, g.termination, g.plies, substr(g.date, 1, 4),
                 g.standard_start"
            .to_string();
        for (c, _) in SPECIAL_COLUMNS {
            sql.push_str(&format!(", g.{c}"));
        }
        sql.push_str(", g.white, g.black");
        if openings_wanted {
            let bytes = q.opening_plies.saturating_mul(MOVE_BYTES);
            args.push(Box::new(i64::try_from(bytes).unwrap_or(i64::MAX)));
            sql.push_str(&format!(
                ", substr(g.moves, 1, ?{n}) AS line FROM game g{clause} ORDER BY g.variant, line",
                n = args.len()
            ));
        } else {
            sql.push_str(&format!(" FROM game g{clause}"));
        }
        let players_wanted = q.by == Some(GroupBy::Player) || q.filter.player.is_some();
        let mut players = Players::new(q);
        let mut t = Totals::default();
        let mut top = TopOpenings::new(q.top);
        // The opening whose games are being summed.
        let mut opening: Option<(i64, Vec<u8>, Acc)> = None;
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(args.iter()))
            .map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = || -> rusqlite::Result<_> {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get_ref(1)?.as_str()?,
                    r.get_ref(2)?.as_str()?,
                    r.get::<_, u32>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, bool>(5)?,
                ))
            };
            let (variant, result, end, plies, year, standard) = read().map_err(|e| self.err(e))?;
            t.games += 1;
            t.results.add_result(result, 1);
            *t.by_length.entry(plies).or_default() += 1;
            t.total_plies += u64::from(plies);
            let end = GameEnd::parse(end).unwrap_or(GameEnd::Other);
            *t.ends.entry(end).or_default() += 1;
            for (i, acc) in t.special.iter_mut().enumerate() {
                let n = count(r, 6 + i).map_err(|e| self.err(e))?;
                acc.0 += n;
                acc.1 += u64::from(n > 0);
            }
            if let Some(key) = group_key(q.by, names, variant, end, year, result) {
                let g = t.groups.entry(key).or_default();
                g.results.add_result(result, 1);
                g.plies += u64::from(plies);
            }
            if players_wanted {
                let name = names.get(&variant).map_or("", String::as_str);
                for (i, color) in [(13, Color::White), (14, Color::Black)] {
                    let player = r.get::<_, Option<String>>(i);
                    if let Some(player) = player.map_err(|e| self.err(e))? {
                        players.add(&player, name, color, result);
                    }
                }
            }
            if openings_wanted && standard {
                *t.from_start.entry(variant).or_default() += 1;
                let line = r
                    .get_ref(15)
                    .and_then(|v| Ok(v.as_blob_or_null()?.unwrap_or(&[])))
                    .map_err(|e| self.err(e))?;
                let same = opening
                    .as_ref()
                    .is_some_and(|(v, l, _)| *v == variant && l.as_slice() == line);
                if !same {
                    if let Some((v, l, acc)) = opening.take() {
                        top.offer_acc(v, &l, acc);
                    }
                    opening = Some((variant, line.to_vec(), Acc::default()));
                }
                if let Some((_, _, acc)) = &mut opening {
                    acc.results.add_result(result, 1);
                    acc.plies += u64::from(plies);
                }
            }
        }
        drop(rows);
        if let Some((v, l, acc)) = opening {
            top.offer_acc(v, &l, acc);
        }
        t.openings = top.into_vec();
        t.promotions = self.promotions_by_kind(&q.filter, layout)?;
        Ok(t.finish(q, variants, names, players.finish(q)))
    }

    fn promotions_by_kind(
        &self,
        filter: &GameFilter,
        layout: Layout,
    ) -> Result<Vec<(String, u64, u64)>, DbError> {
        let (clause, args) = self.filter_sql(filter, layout)?;
        let sql = format!(
            "SELECT p.kind, sum(p.count), count(DISTINCT p.game) FROM promotion p
             JOIN game g ON g.id = p.game JOIN variant v ON v.id = g.variant{clause}
             GROUP BY p.kind ORDER BY p.kind"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok((r.get::<_, String>(0)?, count(r, 1)?, count(r, 2)?))
        })
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| self.err(e))
    }
}

/// Players' results, summed game by game.
struct Players {
    wanted: Option<String>,
    color: Option<Color>,
    by_name: HashMap<String, PlayerStats>,
}

impl Players {
    fn new(q: &ReportQuery) -> Players {
        Players {
            wanted: q.filter.player.as_ref().map(|p| p.to_ascii_lowercase()),
            color: q.filter.color,
            by_name: HashMap::new(),
        }
    }

    /// Counts a game of `name` with `color`, unless the name is unknown (`?`) or not the
    /// player asked for.
    fn add(&mut self, name: &str, variant: &str, color: Color, result: &str) {
        if name.is_empty() || name == "?" {
            return;
        }
        if let Some(w) = &self.wanted {
            if !name.to_ascii_lowercase().contains(w.as_str()) {
                return;
            }
            if self.color.is_some_and(|c| c != color) {
                return;
            }
        }
        let p = match self.by_name.get_mut(name) {
            Some(p) => p,
            None => self
                .by_name
                .entry(name.to_string())
                .or_insert_with(|| PlayerStats {
                    name: name.to_string(),
                    ..PlayerStats::default()
                }),
        };
        p.total.add(result, color, 1);
        match color {
            Color::White => p.as_white.add(result, color, 1),
            Color::Black => p.as_black.add(result, color, 1),
        }
        match p.by_variant.iter_mut().find(|(v, _)| v == variant) {
            Some((_, s)) => s.add(result, color, 1),
            None => {
                let mut s = Score::default();
                s.add(result, color, 1);
                p.by_variant.push((variant.to_string(), s));
            }
        }
    }

    /// Most games first; without a player asked for, the `top` ones.
    fn finish(self, q: &ReportQuery) -> Vec<PlayerStats> {
        let mut out: Vec<PlayerStats> = self.by_name.into_values().collect();
        for p in &mut out {
            p.by_variant.sort_by(|a, b| a.0.cmp(&b.0));
        }
        out.sort_by(|a, b| {
            b.total
                .games()
                .cmp(&a.total.games())
                .then_with(|| a.name.cmp(&b.name))
        });
        if self.wanted.is_none() {
            out.truncate(q.top);
        }
        out
    }
}

/// Lengths from a histogram of plies.
fn lengths(by_length: &BTreeMap<u32, u64>, total_plies: u64, games: u64) -> Lengths {
    let (Some((&min, _)), Some((&max, _))) =
        (by_length.first_key_value(), by_length.last_key_value())
    else {
        return Lengths::default();
    };
    let mut seen = 0;
    let mut median = min;
    for (&plies, &n) in by_length {
        seen += n;
        if seen * 2 >= games {
            median = plies;
            break;
        }
    }
    // About ten ranges of a round width.
    let width = [
        1u32, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000,
    ]
    .into_iter()
    .find(|w| max / w - min / w < 12)
    .unwrap_or(10_000);
    let mut buckets: Vec<LengthBucket> = (min / width..=max / width)
        .map(|b| LengthBucket {
            from: b * width,
            to: b * width + width - 1,
            games: 0,
            pct: 0.0,
        })
        .collect();
    for (&plies, &n) in by_length {
        if let Some(b) = buckets.get_mut(((plies / width) - min / width) as usize) {
            b.games += n;
        }
    }
    for b in &mut buckets {
        b.pct = percent(b.games, games);
    }
    Lengths {
        min,
        max,
        mean: total_plies as f64 / games.max(1) as f64,
        median,
        bucket_width: width,
        buckets,
    }
}

/// The opening of the games without a move, as reports name it: a row of its own rather
/// than a blank one, in every output format.
pub const NO_MOVES: &str = "(no moves)";

/// An opening's moves in SAN, replayed from the variant's start position (in coordinates if
/// the variant is not known here; the raw move bytes if they do not replay).
fn opening_text(variants: &Registry, variant: &str, line: &[u8]) -> String {
    let Some(moves) = codec::decode_moves(line) else {
        return format!("(unreadable moves of a {variant} game)");
    };
    if moves.is_empty() {
        return NO_MOVES.to_string();
    }
    let Some(v) = variants.find(variant) else {
        return format!("({} plies of a {variant} game)", moves.len());
    };
    let mut pos = Position::start(v);
    let mut out: Vec<String> = Vec::with_capacity(moves.len());
    for m in moves {
        if !crate::write::record::well_formed(&pos, m) {
            out.push("?".to_string());
            break;
        }
        let legal = pos.legal_moves();
        out.push(kabir_notation::san(&pos, m, &legal));
        pos.play_unchecked(m);
    }
    out.join(" ")
}
