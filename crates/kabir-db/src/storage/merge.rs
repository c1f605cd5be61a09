//! Merging sorted runs, at two scales. Rows: the streaming k-way merge of sorted lists used by
//! the derived data (the opening tallies and the opening tree are kept as blobs of rows sorted
//! by a key, and merging them, to compact or to compare with a rebuild, must hold no more
//! than one row of each). Runs: the tiers in which the position index's segments and the
//! tallies are kept, like a log-structured merge tree, so that a query reads a few runs of
//! each level rather than one per imported batch.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rusqlite::{Connection, Transaction, TransactionBehavior};

/// The rows of `lists` (each sorted by `key`) in key order, rows with equal keys combined by
/// `add` into the first of them, each result given to `each`. Among equal keys, rows are
/// added in the order of their lists.
pub(crate) fn merge_sorted<T, K: Ord, I: Iterator<Item = T>>(
    lists: &mut [I],
    key: impl Fn(&T) -> K,
    mut add: impl FnMut(&mut T, &T),
    mut each: impl FnMut(T),
) {
    // The key of the next row of each list, smallest first.
    let mut heap: BinaryHeap<Reverse<(K, usize)>> = BinaryHeap::with_capacity(lists.len());
    let mut heads: Vec<Option<T>> = Vec::with_capacity(lists.len());
    for (i, list) in lists.iter_mut().enumerate() {
        let head = list.next();
        if let Some(r) = &head {
            heap.push(Reverse((key(r), i)));
        }
        heads.push(head);
    }
    let mut current: Option<(K, T)> = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        let Some(row) = heads.get_mut(i).and_then(Option::take) else {
            continue;
        };
        match &mut current {
            Some((ck, c)) if *ck == k => add(c, &row),
            _ => {
                if let Some((_, c)) = current.take() {
                    each(c);
                }
                current = Some((k, row));
            }
        }
        let next = lists[i].next();
        if let Some(r) = &next {
            heap.push(Reverse((key(r), i)));
        }
        heads[i] = next;
    }
    if let Some((_, c)) = current {
        each(c);
    }
}

/// A run kept in tiers: a row of the runs' table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    pub id: i64,
    /// The games whose data the run holds.
    pub games: i64,
}

/// Runs of one kind kept in tiers: each batch adds a run of level 0, and [`FANOUT`] runs of
/// a level become one of the next. The runs are the rows of a table with columns `id`,
/// `level`, `games` and [`OWNER`](Tiered::OWNER), which tells the kinds apart.
///
/// [`FANOUT`]: Tiered::FANOUT
pub(crate) trait Tiered {
    /// The table of runs.
    const TABLE: &'static str;
    /// The column naming the kind of run.
    const OWNER: &'static str;
    /// Runs of one level merged into one of the next once there are this many.
    const FANOUT: i64;

    /// The value of [`OWNER`](Tiered::OWNER) of these runs.
    fn owner(&self) -> i64;

    /// Replaces `runs` (oldest first) by one run of `level`.
    fn merge(&self, tx: &Transaction<'_>, level: i64, runs: &[Run]) -> rusqlite::Result<()>;

    /// Work to do a step at a time when no tier is full; returns whether there was any.
    fn settle_step(&self, _tx: &Transaction<'_>) -> rusqlite::Result<bool> {
        Ok(false)
    }
}

/// One merge of the oldest runs of the lowest full level, if there is one, or else one step
/// of [`Tiered::settle_step`]; returns whether there was either.
pub(crate) fn merge_step<T: Tiered>(tx: &Transaction<'_>, t: &T) -> rusqlite::Result<bool> {
    let args = [t.owner(), T::FANOUT];
    let full: Option<i64> = tx
        .query_row(
            &format!(
                "SELECT level FROM {} WHERE {} = ?1 GROUP BY level
                 HAVING count(*) >= ?2 ORDER BY level LIMIT 1",
                T::TABLE,
                T::OWNER
            ),
            rusqlite::params_from_iter(&args),
            |r| r.get(0),
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let Some(level) = full else {
        return t.settle_step(tx);
    };
    let args = [t.owner(), level, T::FANOUT];
    let runs: Vec<Run> = tx
        .prepare(&format!(
            "SELECT id, games FROM {} WHERE {} = ?1 AND level = ?2 ORDER BY id LIMIT ?3",
            T::TABLE,
            T::OWNER
        ))?
        .query_map(rusqlite::params_from_iter(&args), |r| {
            Ok(Run {
                id: r.get(0)?,
                games: r.get(1)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    t.merge(tx, level + 1, &runs)?;
    Ok(true)
}

/// Merges full tiers (see [`merge_step`]) until none is, each merge in a transaction of its
/// own, so that readers wait for one merge at most. Returns the number of steps taken.
pub(crate) fn merge_tiers<T: Tiered>(conn: &mut Connection, t: &T) -> rusqlite::Result<usize> {
    let mut steps = 0;
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if !merge_step(&tx, t)? {
            tx.commit()?;
            return Ok(steps);
        }
        tx.commit()?;
        steps += 1;
    }
}

/// Merges every run of the kind into one, of a level above all of theirs.
pub(crate) fn merge_all<T: Tiered>(tx: &Transaction<'_>, t: &T) -> rusqlite::Result<()> {
    let runs: Vec<(Run, i64)> = tx
        .prepare(&format!(
            "SELECT id, games, level FROM {} WHERE {} = ?1 ORDER BY id",
            T::TABLE,
            T::OWNER
        ))?
        .query_map([t.owner()], |r| {
            Ok((
                Run {
                    id: r.get(0)?,
                    games: r.get(1)?,
                },
                r.get(2)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    if runs.len() > 1 {
        let level = runs.iter().map(|r| r.1).max().unwrap_or(0) + 1;
        let runs: Vec<Run> = runs.into_iter().map(|r| r.0).collect();
        t.merge(tx, level, &runs)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_in_order_and_adds_equal_keys() {
        let mut lists = [
            vec![(1, 10), (4, 1), (9, 1)].into_iter(),
            vec![].into_iter(),
            vec![(1, 5), (2, 2), (9, 100)].into_iter(),
            vec![(0, 7), (9, 1000)].into_iter(),
        ];
        let mut out = Vec::new();
        merge_sorted(&mut lists, |r| r.0, |a, b| a.1 += b.1, |r| out.push(r));
        assert_eq!(out, [(0, 7), (1, 15), (2, 2), (4, 1), (9, 1101)]);
    }

    #[test]
    fn equal_keys_are_added_in_list_order() {
        let mut lists = [
            vec![(1, "a")].into_iter(),
            vec![(1, "b")].into_iter(),
            vec![(1, "c")].into_iter(),
        ];
        let mut seen = String::new();
        merge_sorted(
            &mut lists,
            |r| r.0,
            |a, b| {
                assert_eq!(a.1, "a");
                seen.push_str(b.1);
            },
            |_| {},
        );
        assert_eq!(seen, "bc");
    }

    #[test]
    fn no_lists_give_nothing() {
        let mut lists: [std::vec::IntoIter<(u8, u8)>; 0] = [];
        merge_sorted(&mut lists, |r| r.0, |_, _| {}, |_| panic!("no rows"));
    }
}
