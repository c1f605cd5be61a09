//! The name index: the distinct values of the White, Black, Event and Site tags (table
//! `name`, with an FTS5 trigram index for substring search), and for each the games that
//! carry it (tallies of kind [`Kind::Names`]). A search by name finds the matching names among
//! the distinct ones, then reads only their games' ids. See `docs/DATABASE.md`.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::FastMap;
use crate::derived::names::fold_name;
use crate::derived::tally::{self, Kind};
use crate::derived::{BatchInput, Derived, StoredGame, Written};

/// The tags indexed, by field number.
pub(crate) const WHITE: usize = 0;
pub(crate) const BLACK: usize = 1;
pub(crate) const EVENT: usize = 2;
pub(crate) const SITE: usize = 3;

/// A name's games are kept in bucket `id % (1 << NAME_BUCKET_BITS)` of their field, so that a
/// search reads a small part of each tally.
const NAME_BUCKET_BITS: u32 = 6;

fn part_of(field: usize, name: u64) -> i64 {
    (field as i64) << 8 | (name & ((1 << NAME_BUCKET_BITS) - 1)) as i64
}

/// Name ids known to be stored, kept by an importer across batches.
#[derive(Debug, Default)]
pub(crate) struct NameCache {
    ids: FastMap<String, i64>,
    /// The `meta` generation the ids belong to: a rebuild renumbers names.
    generation: Option<String>,
}

/// At most this many names are kept in a [`NameCache`].
const CACHE_LIMIT: usize = 200_000;

impl NameCache {
    /// Adds the names a committed batch looked up or stored.
    pub fn commit(&mut self, found: Vec<(String, i64)>) {
        if self.ids.len() + found.len() > CACHE_LIMIT {
            self.ids.clear();
        }
        self.ids.extend(found);
    }
}

/// The name index's part of a batch: its games' names, by field.
#[derive(Debug, Default)]
pub(crate) struct BatchNames<'a> {
    games: Vec<(u32, [Option<&'a str>; 4])>,
}

impl<'a> Derived<'a> for BatchNames<'a> {
    // The tallies are emptied with the openings' (`tally::CLEAR`).
    const CLEAR: &'static str =
        "DELETE FROM name; INSERT INTO name_trigram (name_trigram) VALUES ('delete-all');";

    fn add(&mut self, game: &StoredGame<'_, 'a>) {
        self.games.push((game.id, game.names));
    }

    /// Stores the names not stored yet and the batch's tally, and gives `out` the names
    /// looked up and stored, for the cache once the transaction commits.
    fn write(
        self,
        tx: &Transaction<'_>,
        batch: &mut BatchInput<'_>,
        out: &mut Written,
    ) -> rusqlite::Result<()> {
        let cache = &mut *batch.names;
        let generation: Option<String> = tx
            .prepare_cached("SELECT value FROM meta WHERE key = 'generation'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        if cache.generation != generation {
            cache.ids.clear();
            cache.generation = generation;
        }
        let mut found: FastMap<&str, i64> = FastMap::default();
        let mut select = tx.prepare_cached("SELECT id FROM name WHERE text = ?1")?;
        let mut insert = tx.prepare_cached("INSERT INTO name (text) VALUES (?1)")?;
        let mut trigrams =
            tx.prepare_cached("INSERT INTO name_trigram (rowid, text) VALUES (?1, ?2)")?;
        // (part, name, game) of every name of every game, sorted into the tally's order.
        let mut postings: Vec<(i64, u64, u32)> = Vec::with_capacity(self.games.len() * 4);
        for (game, names) in &self.games {
            for (field, name) in names.iter().enumerate() {
                let Some(name) = name.filter(|n| !n.is_empty()) else {
                    continue;
                };
                let id = match found.get(name) {
                    Some(&id) => id,
                    None => {
                        let id = match cache.ids.get(name) {
                            Some(&id) => id,
                            None => {
                                match select.query_row(params![name], |r| r.get(0)).optional()? {
                                    Some(id) => id,
                                    None => {
                                        insert.execute(params![name])?;
                                        let id = tx.last_insert_rowid();
                                        trigrams.execute(params![id, name])?;
                                        id
                                    }
                                }
                            }
                        };
                        found.insert(name, id);
                        id
                    }
                };
                let id = id as u64;
                postings.push((part_of(field, id), id, *game));
            }
        }
        postings.sort_unstable();
        let mut blobs: Vec<(i64, Vec<u8>)> = Vec::new();
        let mut games: Vec<u32> = Vec::new();
        for run in postings.chunk_by(|a, b| a.0 == b.0) {
            let mut blob = Vec::new();
            let mut rows: Vec<(u64, std::ops::Range<usize>)> = Vec::new();
            games.clear();
            for same in run.chunk_by(|a, b| a.1 == b.1) {
                let start = games.len();
                games.extend(same.iter().map(|p| p.2));
                rows.push((same[0].1, start..games.len()));
            }
            tally::encode_names(rows.iter().map(|(n, r)| (*n, &games[r.clone()])), &mut blob);
            blobs.push((run[0].0, blob));
        }
        tally::insert(tx, Kind::Names, self.games.len() as u64, &blobs)?;
        out.names = found
            .into_iter()
            .filter(|(n, _)| !cache.ids.contains_key(*n))
            .map(|(n, id)| (n.to_string(), id))
            .collect();
        Ok(())
    }
}

/// The ids of the names that contain `needle`, both folded by [`fold_name`] (case and
/// accents ignored, in every script), ascending. Every distinct name is folded and checked:
/// the trigram index folds case but keeps accents, so it would miss `Ñúñez` for `nunez`.
pub(crate) fn matching_names(conn: &Connection, needle: &str) -> rusqlite::Result<Vec<u64>> {
    let folded = fold_name(needle);
    let mut ids: Vec<u64> = conn
        .prepare_cached("SELECT id FROM name WHERE instr(kabir_fold(text), ?1) > 0")?
        .query_map(params![folded], |r| r.get::<_, i64>(0))?
        .map(|r| r.map(|id| id as u64))
        .collect::<Result<_, _>>()?;
    ids.sort_unstable();
    Ok(ids)
}

/// The games (ascending, each once) whose tag `fields` hold one of the names `names`
/// (ascending); `Err(())` inside if a tally is damaged.
pub(crate) fn games_named(
    conn: &Connection,
    fields: &[usize],
    names: &[u64],
) -> rusqlite::Result<Result<Vec<u32>, ()>> {
    let mut by_part: BTreeMap<i64, Vec<u64>> = BTreeMap::new();
    for &field in fields {
        for &n in names {
            by_part.entry(part_of(field, n)).or_default().push(n);
        }
    }
    let mut out = Vec::new();
    for (part, wanted) in by_part {
        for blob in tally::part(conn, Kind::Names, part)? {
            if tally::games_of_names(&blob, &wanted, &mut out).is_none() {
                return Ok(Err(()));
            }
        }
    }
    Ok(Ok(ascending_once(out)))
}

/// The ids in ascending order, each once. A name search matching many names gathers hundreds
/// of thousands of ids (each game once per matching field): past a few thousand, they are
/// marked in a bit set over the id range and read back in order, in linear time.
fn ascending_once(mut ids: Vec<u32>) -> Vec<u32> {
    const SORT_BELOW: usize = 4096;
    let Some(&max) = ids.iter().max() else {
        return ids;
    };
    if ids.len() < SORT_BELOW || (max as usize) / 64 > ids.len() * 4 {
        ids.sort_unstable();
        ids.dedup();
        return ids;
    }
    let mut bits = vec![0u64; max as usize / 64 + 1];
    for &id in &ids {
        bits[id as usize / 64] |= 1 << (id % 64);
    }
    ids.clear();
    for (w, &word) in bits.iter().enumerate() {
        let mut word = word;
        while word != 0 {
            ids.push(w as u32 * 64 + word.trailing_zeros());
            word &= word - 1;
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::ascending_once;
    use proptest::prelude::*;

    proptest! {
        /// The bit set gives what sorting and removing repeats gives, for few ids, many ids
        /// and ids spread thinly over a wide range.
        #[test]
        fn ascending_once_is_sort_and_dedup(
            ids in prop_oneof![
                proptest::collection::vec(0u32..20_000, 0..10_000),
                proptest::collection::vec(any::<u32>(), 0..6_000),
            ],
        ) {
            let mut want = ids.clone();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(ascending_once(ids), want);
        }
    }
}
