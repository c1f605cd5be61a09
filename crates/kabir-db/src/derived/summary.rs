//! Statistics summaries: the counts a report on every game (or every game of a variant)
//! needs, kept up to date by each imported batch, so that such a report reads a few hundred
//! rows instead of every game. Tables `summary` (by variant, year, result and termination),
//! `summary_length` (by variant and length) and `summary_promotion` (by variant and piece
//! kind). See `docs/DATABASE.md`.

use std::borrow::Cow;

use rusqlite::{Transaction, params};

use crate::FastMap;
use crate::derived::{BatchInput, Derived, StoredGame, Written};
use crate::write::record::GameEnd;

/// What the summaries take from one stored game.
pub(crate) struct Facts<'a> {
    pub variant: i64,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'a str,
    pub end: GameEnd,
    pub plies: u32,
    /// The `Date` tag's value.
    pub date: Option<&'a str>,
    /// Swaps, lifts, relocations, promotions, arrivals, adventitious kings, citadel entries.
    pub special: [u64; 7],
    /// Promotions by kind id.
    pub promotions: &'a [(String, u64)],
    pub standard_start: bool,
    pub moves_blob: &'a [u8],
}

/// Counts of one summary row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub games: u64,
    pub plies: u64,
    /// Special moves played, in [`Facts::special`] order.
    pub moves: [u64; 7],
    /// Games with at least one of each.
    pub with: [u64; 7],
}

/// A result as a summary row keys it: the four results without an allocation.
fn result_key(result: &str) -> Cow<'static, str> {
    match result {
        "1-0" => Cow::Borrowed("1-0"),
        "0-1" => Cow::Borrowed("0-1"),
        "1/2-1/2" => Cow::Borrowed("1/2-1/2"),
        "*" => Cow::Borrowed("*"),
        other => Cow::Owned(other.to_string()),
    }
}

/// A year as a summary row keys it (and reports group it): the `Date` value's first four
/// characters when they are digits, or none (`????`).
fn year_key(date: Option<&str>) -> Option<[u8; 4]> {
    let y = date?.as_bytes().get(..4)?;
    y.iter()
        .all(|b| b.is_ascii_digit())
        .then(|| [y[0], y[1], y[2], y[3]])
}

/// The key of a summary row: variant, year, result and how the game ended.
type RowKey = (i64, Option<[u8; 4]>, Cow<'static, str>, GameEnd);

/// The summaries' part of a batch, added up in memory and written at once.
#[derive(Debug, Default)]
pub(crate) struct BatchSummary {
    rows: FastMap<RowKey, Counts>,
    lengths: FastMap<(i64, u32), u64>,
    promotions: FastMap<(i64, String), (u64, u64)>,
}

impl Derived<'_> for BatchSummary {
    const CLEAR: &'static str =
        "DELETE FROM summary; DELETE FROM summary_length; DELETE FROM summary_promotion;";

    fn add(&mut self, game: &StoredGame<'_, '_>) {
        let f = game.facts;
        let c = self
            .rows
            .entry((f.variant, year_key(f.date), result_key(f.result), f.end))
            .or_default();
        c.games += 1;
        c.plies += u64::from(f.plies);
        for (i, &n) in f.special.iter().enumerate() {
            c.moves[i] += n;
            c.with[i] += u64::from(n > 0);
        }
        *self.lengths.entry((f.variant, f.plies)).or_default() += 1;
        for (kind, n) in f.promotions {
            if *n > 0 {
                let p = self
                    .promotions
                    .entry((f.variant, kind.clone()))
                    .or_default();
                p.0 += n;
                p.1 += 1;
            }
        }
    }

    /// Adds the batch to the summary tables.
    fn write(
        self,
        tx: &Transaction<'_>,
        _: &mut BatchInput<'_>,
        _: &mut Written,
    ) -> rusqlite::Result<()> {
        let mut stmt = tx.prepare_cached(
            "INSERT INTO summary (variant, year, result, termination, games, plies, swaps, lifts,
                 relocations, promotions, arrivals, adventitious_kings, citadel_entries,
                 with_swaps, with_lifts, with_relocations, with_promotions, with_arrivals,
                 with_adventitious_kings, with_citadel_entries)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20)
             ON CONFLICT (variant, year, result, termination) DO UPDATE SET
                 games = games + excluded.games, plies = plies + excluded.plies,
                 swaps = swaps + excluded.swaps, lifts = lifts + excluded.lifts,
                 relocations = relocations + excluded.relocations,
                 promotions = promotions + excluded.promotions,
                 arrivals = arrivals + excluded.arrivals,
                 adventitious_kings = adventitious_kings + excluded.adventitious_kings,
                 citadel_entries = citadel_entries + excluded.citadel_entries,
                 with_swaps = with_swaps + excluded.with_swaps,
                 with_lifts = with_lifts + excluded.with_lifts,
                 with_relocations = with_relocations + excluded.with_relocations,
                 with_promotions = with_promotions + excluded.with_promotions,
                 with_arrivals = with_arrivals + excluded.with_arrivals,
                 with_adventitious_kings = with_adventitious_kings
                     + excluded.with_adventitious_kings,
                 with_citadel_entries = with_citadel_entries + excluded.with_citadel_entries",
        )?;
        // In key order, so that the same games make the same file, byte for byte.
        let mut rows: Vec<_> = self.rows.iter().collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for ((variant, year, result, end), c) in rows {
            let n = |v: u64| v as i64;
            let year = match year {
                Some(y) => String::from_utf8_lossy(y).into_owned(),
                None => "????".to_string(),
            };
            stmt.execute(params![
                variant,
                year,
                result,
                end.as_str(),
                n(c.games),
                n(c.plies),
                n(c.moves[0]),
                n(c.moves[1]),
                n(c.moves[2]),
                n(c.moves[3]),
                n(c.moves[4]),
                n(c.moves[5]),
                n(c.moves[6]),
                n(c.with[0]),
                n(c.with[1]),
                n(c.with[2]),
                n(c.with[3]),
                n(c.with[4]),
                n(c.with[5]),
                n(c.with[6]),
            ])?;
        }
        let mut stmt = tx.prepare_cached(
            "INSERT INTO summary_length (variant, plies, games) VALUES (?1, ?2, ?3)
             ON CONFLICT (variant, plies) DO UPDATE SET games = games + excluded.games",
        )?;
        let mut lengths: Vec<_> = self.lengths.iter().collect();
        lengths.sort_unstable();
        for ((variant, plies), games) in lengths {
            stmt.execute(params![variant, plies, *games as i64])?;
        }
        let mut stmt = tx.prepare_cached(
            "INSERT INTO summary_promotion (variant, kind, moves, games) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (variant, kind) DO UPDATE SET moves = moves + excluded.moves,
                 games = games + excluded.games",
        )?;
        let mut promotions: Vec<_> = self.promotions.iter().collect();
        promotions.sort_unstable();
        for ((variant, kind), (moves, games)) in promotions {
            stmt.execute(params![variant, kind, *moves as i64, *games as i64])?;
        }
        Ok(())
    }
}
