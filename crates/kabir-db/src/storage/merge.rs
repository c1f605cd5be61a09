//! The streaming k-way merge of sorted lists used by the derived data: the opening tallies
//! and the opening tree are kept as blobs of rows sorted by a key, and merging them (to
//! compact, or to compare with a rebuild) must hold no more than one row of each.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
