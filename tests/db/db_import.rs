//! Importing games and reading them back: counts, the index against a replay, the explorer
//! and position search against brute force, filters and totals.

use std::collections::{BTreeMap, BTreeSet};

use kabir::db::{
    Database, DuplicateRule, GameEnd, GameFilter, GameId, GameRecord, MergeWork, PositionHit,
    ReportQuery, Special,
};
use kabir::rules::{Color, MoveKind, Position};
use kabir::variants::Registry;

use crate::db_common::{positions, records, temp_db};

/// A mixed set: full-length Tamerlane games, short ones (which share openings) and shatranj.
fn sample() -> Vec<GameRecord> {
    let mut all = records("tamerlane", 1, 0..40, 400);
    all.extend(records("tamerlane", 2, 0..120, 12));
    all.extend(records("shatranj", 3, 0..60, 200));
    all.extend(records("knavish-shatranj", 4, 0..20, 60));
    all
}

fn import(path: &std::path::Path, recs: Vec<GameRecord>, batch: usize) -> kabir::db::BatchStats {
    let mut db = Database::create_or_open(path).unwrap();
    let mut imp = db.importer().unwrap();
    let batches: Vec<Vec<GameRecord>> = recs.chunks(batch).map(|c| c.to_vec()).collect();
    imp.import_all(batches, |_| {}).unwrap()
}

/// The first ply at which each record reaches `pos` (game ids are record index + 1).
fn brute_force(recs: &[GameRecord], pos: &Position) -> Vec<PositionHit> {
    recs.iter()
        .enumerate()
        .filter(|(_, r)| r.variant.id() == pos.variant().id())
        .filter_map(|(i, r)| {
            positions(r)
                .iter()
                .position(|p| p == pos)
                .map(|ply| PositionHit {
                    game: GameId(i as u32 + 1),
                    ply: ply as u32,
                })
        })
        .collect()
}

#[test]
fn import_reimport_and_row_counts() {
    let (_dir, path) = temp_db();
    let recs = sample();
    let n = recs.len() as u64;
    let plies: u64 = recs.iter().map(|r| r.moves.len() as u64 + 1).sum();
    let first = import(&path, recs.clone(), 50);
    assert_eq!(first.imported, n);
    assert_eq!(first.duplicates, 0);
    assert_eq!(first.positions, plies);
    let again = import(&path, recs.clone(), 33);
    assert_eq!(again.imported, 0);
    assert_eq!(again.duplicates, n);

    let db = Database::open(&path).unwrap();
    let c = db.connection();
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM game") as u64, n);
    assert_eq!(count("SELECT count(*) FROM game_text") as u64, n);
    assert_eq!(count("SELECT count(*) FROM variant"), 3);
    assert_eq!(count("SELECT sum(postings) FROM segment") as u64, plies);
    assert_eq!(
        count(
            "SELECT (SELECT coalesce(sum(length(entries)), 0) FROM posting)
                  + (SELECT sum(length(entries) + coalesce(length(beyond), 0)) FROM tree)"
        ) as u64,
        plies * 20
    );
    assert_eq!(count("SELECT sum(plies + 1) FROM game") as u64, plies);
    db.integrity_check().unwrap();
    assert_eq!(db.game_count().unwrap(), n);
}

#[test]
fn duplicates_are_the_same_record_not_the_same_moves() {
    let (_dir, path) = temp_db();
    let recs = records("shatranj", 9, 0..10, 40);
    let mut batch = recs.clone();
    // Same record with another tag (not of the roster) and text: a duplicate of the first,
    // also within one batch.
    let mut annotated = recs[0].clone();
    annotated.tags.push(("Annotator".into(), "someone".into()));
    annotated.pgn.push('\n');
    batch.push(annotated);
    // Same moves from a start position with other move counters: not a duplicate.
    let mut other_start = recs[1].clone();
    let fen = other_start.start.to_fen().replace(" 0 1", " 0 7");
    other_start.start = Position::from_fen(&other_start.variant, &fen).unwrap();
    batch.push(other_start);
    // Same moves, other players: another game.
    let mut other_players = recs[2].clone();
    other_players.tags.retain(|(k, _)| k != "White");
    other_players
        .tags
        .push(("White".into(), "Someone else".into()));
    batch.push(other_players);
    let mut db = Database::create_or_open(&path).unwrap();
    let stats = db.importer().unwrap().import_batch(batch).unwrap();
    assert_eq!((stats.imported, stats.duplicates), (12, 1));
    // The duplicate names the game it repeats: the first of the batch, id 1.
    assert_eq!(
        stats.duplicate_of,
        vec![kabir::db::Duplicate {
            index: 10,
            of: GameId(1)
        }]
    );
    // Another result, round, event, site or date: another game each; an absent roster tag
    // is its unknown value.
    let mut others = Vec::new();
    for (tag, value) in [
        ("Result", "*"),
        ("Round", "99"),
        ("Event", "Other"),
        ("Site", "Elsewhere"),
        ("Date", "1999.01.01"),
    ] {
        let mut r = recs[5].clone();
        if tag == "Result" {
            // Another result than the game's own.
            r.result = if r.result == value { "1-0" } else { value }.into();
        } else {
            r.tags.retain(|(k, _)| k != tag);
            r.tags.push((tag.into(), value.into()));
        }
        others.push(r);
    }
    let mut untagged = recs[6].clone();
    untagged.tags.clear();
    let mut unknown = untagged.clone();
    unknown.tags = ["Event", "Site", "Round", "White", "Black"]
        .map(|k| (k.to_string(), "?".to_string()))
        .to_vec();
    unknown.tags.push(("Date".into(), "????.??.??".into()));
    let stats = db
        .importer()
        .unwrap()
        .import_batch(
            others
                .into_iter()
                .chain([untagged, unknown, recs[5].clone()])
                .collect(),
        )
        .unwrap();
    assert_eq!((stats.imported, stats.duplicates), (6, 2));
    let of: Vec<u32> = stats.duplicate_of.iter().map(|d| d.of.0).collect();
    // The tagless game and the same with every tag unknown: one record. Then the stored game
    // 6 (records[5]).
    assert_eq!(of, vec![18, 6]);

    // Under the moves rule, every one of them is a duplicate of the first game with its
    // moves.
    let mut importer = db.importer().unwrap();
    importer.set_duplicate_rule(DuplicateRule::Moves);
    let mut again = recs[2].clone();
    again.tags.clear();
    let stats = importer.import_batch(vec![again, recs[5].clone()]).unwrap();
    assert_eq!((stats.imported, stats.duplicates), (0, 2));
    let of: Vec<u32> = stats.duplicate_of.iter().map(|d| d.of.0).collect();
    assert_eq!(of, vec![3, 6]);
}

#[test]
fn the_moves_rule_finds_games_stored_under_either_rule() {
    let (_dir, path) = temp_db();
    let recs = records("tamerlane", 11, 0..6, 30);
    let mut renamed = recs.clone();
    for r in &mut renamed {
        r.tags.retain(|(k, _)| k != "Black");
        r.tags.push(("Black".into(), "Renamed".into()));
    }
    let mut db = Database::create_or_open(&path).unwrap();
    // Moves rule first: the renamed games are duplicates, within one batch too.
    let mut importer = db.importer().unwrap();
    importer.set_duplicate_rule(DuplicateRule::Moves);
    let stats = importer
        .import_batch(recs.iter().chain(&renamed).cloned().collect())
        .unwrap();
    assert_eq!((stats.imported, stats.duplicates), (6, 6));
    // Then the record rule adds them: the database now holds each game twice, by players.
    let stats = db
        .importer()
        .unwrap()
        .import_batch(renamed.clone())
        .unwrap();
    assert_eq!((stats.imported, stats.duplicates), (6, 0));
    // And the moves rule again: all twelve are duplicates, of the first stored.
    let mut importer = db.importer().unwrap();
    importer.set_duplicate_rule(DuplicateRule::Moves);
    let stats = importer
        .import_batch(renamed.iter().chain(&recs).cloned().collect())
        .unwrap();
    assert_eq!((stats.imported, stats.duplicates), (0, 12));
    assert!(stats.duplicate_of.iter().all(|d| d.of.0 <= 6), "{stats:?}");
    assert_eq!(db.game_count().unwrap(), 12);
}

#[test]
fn malformed_records_are_rejected_not_stored() {
    let (_dir, path) = temp_db();
    let mut recs = records("tamerlane", 5, 0..4, 30);
    recs[1].result = "2-0".into();
    recs[2].moves[3].from = kabir::rules::Square(250);
    recs[3].variant = crate::db_common::variant("shatranj");
    let mut db = Database::create_or_open(&path).unwrap();
    let stats = db.importer().unwrap().import_batch(recs).unwrap();
    assert_eq!(stats.imported, 1);
    let bad: Vec<usize> = stats.rejected.iter().map(|r| r.index).collect();
    assert_eq!(bad, vec![1, 2, 3]);
}

#[test]
fn index_hashes_equal_replay_hashes() {
    let (_dir, path) = temp_db();
    let recs = sample();
    import(&path, recs.clone(), 64);
    let db = Database::open(&path).unwrap();
    // Decode the documented blob layout with plain SQL and byte reading: the entries of the
    // positions a game reached before the opening tree's last ply are kept with the tree
    // (with its buckets), the others beyond them in the same rows (`posting` rows are those
    // of segments written before version 5: none here).
    let mut stored = BTreeSet::new();
    for (column, table, bits) in [
        ("entries", "posting", kabir::db::BUCKET_BITS),
        ("entries", "tree", kabir::db::TREE_BUCKET_BITS),
        ("beyond", "tree", kabir::db::TREE_BUCKET_BITS),
    ] {
        let mut stmt = db
            .connection()
            .prepare(&format!(
                "SELECT bucket, coalesce({column}, x'') FROM {table}
                 ORDER BY variant, bucket, segment"
            ))
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let bucket: i64 = row.get(0).unwrap();
            let blob: Vec<u8> = row.get(1).unwrap();
            assert_eq!(blob.len() % 20, 0);
            for e in blob.chunks_exact(20) {
                let hash = u64::from_le_bytes(e[0..8].try_into().unwrap());
                let game = u32::from_le_bytes(e[8..12].try_into().unwrap());
                let ply = u16::from_le_bytes(e[12..14].try_into().unwrap());
                assert_eq!((hash >> (64 - bits)) as i64, bucket);
                // A game back at one of its first positions is rare in these games.
                let with_tree = column == "entries" && table == "tree";
                assert_eq!(ply < kabir::db::TREE_PLIES, with_tree, "{game} {ply}");
                assert!(stored.insert((game, ply, hash)));
            }
        }
    }
    let mut replayed = BTreeSet::new();
    for (i, r) in recs.iter().enumerate() {
        for (ply, p) in positions(r).iter().enumerate() {
            replayed.insert((i as u32 + 1, ply as u16, p.hash()));
        }
    }
    assert_eq!(stored, replayed);
}

#[test]
fn search_and_explorer_agree_with_brute_force() {
    let (_dir, path) = temp_db();
    let recs = sample();
    import(&path, recs.clone(), 70);
    let db = Database::open(&path).unwrap();
    let mut queries: Vec<Position> = Vec::new();
    for name in ["tamerlane", "shatranj", "knavish-shatranj"] {
        queries.push(Position::start(&crate::db_common::variant(name)));
    }
    for r in recs.iter().step_by(7) {
        let ps = positions(r);
        for ply in [1, 2, 3, 4, 10, ps.len() - 1] {
            if let Some(p) = ps.get(ply) {
                queries.push(p.clone());
            }
        }
    }
    for q in &queries {
        let expected = brute_force(&recs, q);
        assert_eq!(db.search_position(q).unwrap(), expected, "{q:?}");

        let ex = db.explore(q, 3).unwrap();
        assert_eq!(ex.games, expected.len() as u64);
        let continued: u64 = ex.moves.iter().map(|m| m.games).sum();
        assert_eq!(continued, ex.games - ex.ended_here);
        // Per move, by brute force.
        let mut by_move: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
        for hit in &expected {
            let r = &recs[hit.game.0 as usize - 1];
            let Some(m) = r.moves.get(hit.ply as usize) else {
                continue;
            };
            let e = by_move.entry(m.to_uci(q)).or_default();
            e.0 += 1;
            e.1 += u64::from(r.result.as_str() == "1-0");
            e.2 += r.moves.len() as u64;
        }
        assert_eq!(ex.moves.len(), by_move.len());
        for m in &ex.moves {
            let (games, white, plies) = by_move[&m.uci];
            assert_eq!(m.games, games);
            assert_eq!(m.results.white_wins, white);
            assert!((m.average_plies - plies as f64 / games as f64).abs() < 1e-9);
            assert!(!m.examples.is_empty() && m.examples.len() <= 3);
            let w = m.results.white_wins + m.results.draws + m.results.black_wins;
            assert_eq!(w + m.results.unfinished, m.games);
        }
    }
    // The start position: every game of the variant, each once, at ply 0.
    let start = Position::start(&crate::db_common::variant("tamerlane"));
    let hits = db.search_position(&start).unwrap();
    assert_eq!(hits.len(), 160);
    assert!(hits.iter().all(|h| h.ply == 0));
}

#[test]
fn a_forged_hash_collision_gives_no_wrong_answer() {
    let (_dir, path) = temp_db();
    let recs = records("tamerlane", 11, 0..20, 30);
    import(&path, recs.clone(), 20);
    // Index game 1 at ply 5 under the hash of game 2's position at ply 7: a collision.
    let target = positions(&recs[1])[7].clone();
    let other = positions(&recs[0])[5].clone();
    assert_ne!(target, other);
    let mut entry = Vec::new();
    entry.extend_from_slice(&target.hash().to_le_bytes());
    entry.extend_from_slice(&1u32.to_le_bytes());
    entry.extend_from_slice(&5u16.to_le_bytes());
    entry.extend_from_slice(&[0xff, 0xff, 0xff, 0, 30, 0]);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "INSERT INTO segment (variant, level, games, postings) VALUES (1, 0, 1, 1)",
            [],
        )
        .unwrap();
        let seg = conn.last_insert_rowid();
        let bucket = (target.hash() >> (64 - kabir::db::BUCKET_BITS)) as i64;
        conn.execute(
            "INSERT INTO posting (variant, bucket, segment, entries) VALUES (1, ?1, ?2, ?3)",
            rusqlite::params![bucket, seg, entry],
        )
        .unwrap();
    }
    let db = Database::open(&path).unwrap();
    assert_eq!(
        db.search_position(&target).unwrap(),
        brute_force(&recs, &target)
    );
    let ex = db.explore(&target, 5).unwrap();
    assert_eq!(ex.games, brute_force(&recs, &target).len() as u64);
    // A position never played that shares nothing: nothing found.
    assert!(
        db.search_position(&other)
            .unwrap()
            .iter()
            .all(|h| h.game == 1)
    );
}

#[test]
fn games_come_back_as_stored() {
    let (_dir, path) = temp_db();
    let recs = sample();
    import(&path, recs.clone(), 100);
    let db = Database::open(&path).unwrap();
    for (i, r) in recs.iter().enumerate() {
        let g = db.game(i as u32 + 1).unwrap().unwrap();
        assert_eq!(g.variant, r.variant.id());
        assert_eq!(g.moves, r.moves);
        assert_eq!(g.tags, r.tags);
        assert_eq!(g.pgn, r.pgn);
        assert_eq!(g.result.as_str(), r.result);
        assert_eq!(g.plies as usize, r.moves.len());
        assert_eq!(g.start_fen, r.start.to_fen());
        // Replaying the stored moves reaches the recorded end and its termination.
        let mut pos = Position::from_fen(&r.variant, &g.start_fen).unwrap();
        for &m in &g.moves {
            pos.play_unchecked(m);
        }
        let expected = match pos.status() {
            kabir::rules::Status::Over { termination, .. } => match termination {
                kabir::rules::Termination::Checkmate => GameEnd::Checkmate,
                kabir::rules::Termination::Stalemate => GameEnd::Stalemate,
                kabir::rules::Termination::BareKing => GameEnd::BareKing,
                kabir::rules::Termination::Citadel => GameEnd::CitadelDraw,
            },
            kabir::rules::Status::Ongoing => GameEnd::Other,
        };
        assert_eq!(g.end, expected);
        let swaps = r.moves.iter().filter(|m| m.kind == MoveKind::Swap).count() as u64;
        assert_eq!(g.special.count[Special::Swap], swaps);
        let promos: u64 = g.special.promotions_by_kind.iter().map(|(_, n)| n).sum();
        assert_eq!(promos, g.special.count[Special::Promotion]);
    }
    assert!(db.game(100_000).unwrap().is_none());
}

#[test]
fn filters_and_stats() {
    let (_dir, path) = temp_db();
    let recs = sample();
    import(&path, recs.clone(), 1000);
    let db = Database::open(&path).unwrap();
    let count = |f: &GameFilter| db.count_games(f).unwrap();
    let brute = |pred: &dyn Fn(&GameRecord) -> bool| recs.iter().filter(|r| pred(r)).count() as u64;
    let tag = |r: &GameRecord, k: &str| {
        r.tags
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let f = GameFilter {
        player: Some("white 3".into()),
        ..GameFilter::default()
    };
    assert_eq!(count(&f), brute(&|r| tag(r, "White") == "White 3"));
    let f = GameFilter {
        player: Some("BLACK 2".into()),
        color: Some(Color::White),
        ..GameFilter::default()
    };
    assert_eq!(count(&f), 0);
    let f = GameFilter {
        variant: Some("shatranj".into()),
        result: Some(kabir::rules::GameResult::Draw),
        ..GameFilter::default()
    };
    assert_eq!(
        count(&f),
        brute(&|r| r.variant.id() == "shatranj" && r.result.as_str() == "1/2-1/2")
    );
    let f = GameFilter {
        date_from: Some("1410.01.01".into()),
        date_to: Some("1419.12.31".into()),
        min_plies: Some(10),
        max_plies: Some(200),
        event: Some("event 1".into()),
        ..GameFilter::default()
    };
    assert_eq!(
        count(&f),
        brute(&|r| {
            let d = tag(r, "Date");
            d.as_str() >= "1410.01.01"
                && d.as_str() <= "1419.12.31"
                && (10..=200).contains(&r.moves.len())
                && tag(r, "Event") == "Test event 1"
        })
    );
    let f = GameFilter {
        special: vec![Special::Swap],
        ..GameFilter::default()
    };
    assert_eq!(
        count(&f),
        brute(&|r| r.moves.iter().any(|m| m.kind == MoveKind::Swap))
    );
    // Input that looks like SQL is only data.
    let f = GameFilter {
        player: Some("'; DROP TABLE game; --".into()),
        site: Some("%".into()),
        ..GameFilter::default()
    };
    assert_eq!(count(&f), 0);
    assert_eq!(db.game_count().unwrap(), recs.len() as u64);
    let page = db.find_games(&GameFilter::default(), 10, 5).unwrap();
    assert_eq!(
        page.iter().map(|g| g.id).collect::<Vec<_>>(),
        (6..16).collect::<Vec<_>>()
    );

    // The report of each variant's games against the records.
    let registry = Registry::builtin();
    let all = db.report(&ReportQuery::default(), &registry).unwrap();
    assert_eq!(all.games, recs.len() as u64);
    let variants: BTreeSet<&str> = recs.iter().map(|r| r.variant.id()).collect();
    assert!(variants.len() > 1);
    let mut games = 0;
    for variant in variants {
        let q = ReportQuery {
            filter: GameFilter {
                variant: Some(variant.to_string()),
                ..GameFilter::default()
            },
            ..ReportQuery::default()
        };
        let v = db.report(&q, &registry).unwrap();
        let mine: Vec<&GameRecord> = recs.iter().filter(|r| r.variant.id() == variant).collect();
        assert_eq!(v.games, mine.len() as u64, "{variant}");
        games += v.games;
        assert_eq!(v.results.games(), v.games);
        let white_wins = mine.iter().filter(|r| r.result.as_str() == "1-0").count();
        assert_eq!(v.results.white_wins, white_wins as u64, "{variant}");
        assert_eq!(v.terminations.iter().map(|e| e.games).sum::<u64>(), v.games);
        let swaps: usize = mine
            .iter()
            .map(|r| r.moves.iter().filter(|m| m.kind == MoveKind::Swap).count())
            .sum();
        let reported = v.special.iter().find(|s| s.name == "king swap").unwrap();
        assert_eq!(reported.moves, swaps as u64, "{variant}");
        let plies: u64 = mine.iter().map(|r| r.moves.len() as u64).sum();
        assert_eq!(
            (v.lengths.mean * v.games as f64).round() as u64,
            plies,
            "{variant}"
        );
    }
    assert_eq!(games, all.games);
}

#[test]
fn merged_segments_answer_the_same() {
    let (_dir, path) = temp_db();
    let recs = records("tamerlane", 21, 0..132, 40);
    // Batches of 2: 66 segments, merged in tiers of 32 as they come.
    import(&path, recs.clone(), 2);
    let q = positions(&recs[3])[2].clone();
    let db = Database::open(&path).unwrap();
    let before = db.search_position(&q).unwrap();
    assert_eq!(before, brute_force(&recs, &q));
    let segments = db.segment_count().unwrap();
    // Two of level 1 (32 batches each) and the last two batches' own.
    assert_eq!(segments, 4);
    drop(db);
    let mut db = Database::create_or_open(&path).unwrap();
    db.compact().unwrap();
    let segments = db.segment_count().unwrap();
    assert_eq!(segments, 1);
    assert_eq!(db.search_position(&q).unwrap(), before);
    db.integrity_check().unwrap();
}

/// With little merge work a batch, merges stay under way across batches and imports, their
/// rows half moved: position search and the explorer find what brute force finds all along,
/// a batch of the default work finishes them, and compacting leaves one segment with the same
/// answers.
#[test]
fn merges_under_way_answer_the_same() {
    let (_dir, path) = temp_db();
    let recs = records("tamerlane", 22, 0..154, 40);
    let queries: Vec<Position> = [0, 17, 40, 95, 120]
        .iter()
        .flat_map(|&i| {
            let ps = positions(&recs[i]);
            [ps[0].clone(), ps[2].clone(), ps[ps.len() / 2].clone()]
        })
        .collect();
    let under_way = |db: &Database| -> (i64, i64) {
        db.connection()
            .query_row(
                "SELECT count(*) FILTER (WHERE merge_next IS NOT NULL),
                        count(*) FILTER (WHERE merge_into IS NOT NULL) FROM segment",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    };
    let check = |db: &Database, stored: usize| {
        let now = under_way(db);
        for q in &queries {
            let want: Vec<PositionHit> = brute_force(&recs[..stored], q);
            assert_eq!(
                db.search_position(q).unwrap(),
                want,
                "{stored} games, {now:?}"
            );
            let explored = db.explore(q, 12).unwrap();
            assert_eq!(explored.games, want.len() as u64, "{stored} games, {now:?}");
            let moves: u64 = explored.moves.iter().map(|m| m.games).sum();
            assert_eq!(moves + explored.ended_here, explored.games);
        }
        now
    };
    // 12 imports of two batches of 4 games, then 54 imports of one game, each merging about
    // 100 entries (a level-0 merge holds about 5,200).
    let mut sessions: Vec<Vec<Vec<GameRecord>>> = recs[..96]
        .chunks(8)
        .map(|c| c.chunks(4).map(<[GameRecord]>::to_vec).collect())
        .collect();
    sessions.extend(recs[96..150].iter().map(|r| vec![vec![r.clone()]]));
    let mut most_under_way = (0, 0);
    let mut stored = 0;
    for batches in sessions {
        let mut db = Database::create_or_open(&path).unwrap();
        let mut imp = db.importer().unwrap();
        imp.set_merge_work(MergeWork {
            per_entry: 0,
            least: 100,
        });
        stored += batches.iter().map(Vec::len).sum::<usize>();
        imp.import_all(batches, |_| {}).unwrap();
        most_under_way = most_under_way.max(check(&db, stored));
    }
    assert!(
        most_under_way.0 >= 1 && most_under_way.1 >= kabir::db::MERGE_FANOUT,
        "{most_under_way:?}"
    );
    let mut db = Database::create_or_open(&path).unwrap();
    assert_ne!(under_way(&db), (0, 0));
    // A batch with the default work finishes every merge under way.
    db.importer()
        .unwrap()
        .import_all(vec![recs[150..].to_vec()], |_| {})
        .unwrap();
    assert_eq!(check(&db, recs.len()), (0, 0));
    db.compact().unwrap();
    let segments = db.segment_count().unwrap();
    assert_eq!(segments, 1);
    check(&db, recs.len());
    db.integrity_check().unwrap();
}

#[test]
fn a_game_that_returns_to_a_position_counts_once_at_its_first_visit() {
    let (_dir, path) = temp_db();
    let v = crate::db_common::variant("shatranj");
    let mut game = kabir::rules::Game::new(Position::start(&v));
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "b1c3", "b8c6"] {
        let m = kabir::rules::Move::from_uci(uci, game.position()).unwrap();
        game.play(m).unwrap();
    }
    let mut recs = vec![crate::db_common::record_of(&game, &v, 0)];
    recs.extend(records("shatranj", 5, 0..10, 30));
    import(&path, recs.clone(), 100);
    let db = Database::open(&path).unwrap();
    let start = Position::start(&v);
    let hits = db.search_position(&start).unwrap();
    assert_eq!(hits.len(), 11);
    assert_eq!(
        hits[0],
        PositionHit {
            game: GameId(1),
            ply: 0
        }
    );
    let ex = db.explore(&start, 20).unwrap();
    assert_eq!(ex.games, 11);
    let g1f3 = ex.moves.iter().find(|m| m.uci == "g1f3");
    assert!(g1f3.is_some_and(|m| m.examples.contains(&GameId(1))));
    // Game 1 played b1c3 at its second visit: not counted for it.
    assert!(
        ex.moves
            .iter()
            .filter(|m| m.uci == "b1c3")
            .all(|m| !m.examples.contains(&GameId(1)))
    );
    let after = start.after(kabir::rules::Move::from_uci("g1f3", &start).unwrap());
    assert_eq!(
        db.search_position(&after).unwrap(),
        brute_force(&recs, &after)
    );
    assert_eq!(
        db.search_position(&after).unwrap()[0],
        PositionHit {
            game: GameId(1),
            ply: 1
        }
    );
}
