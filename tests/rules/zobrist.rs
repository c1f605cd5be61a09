//! Position hashes are stored in databases, so they must never change. This test pins them: if
//! it fails, a change altered the hash of some position, and every existing database would
//! give wrong answers. Change the golden file only together with a schema migration.

use kabir::rules::Position;

#[test]
fn hashes_match_the_golden_file() {
    let golden = include_str!("../data/zobrist.csv");
    let mut checked = 0;
    for line in golden.lines().skip(1) {
        let mut parts = line.splitn(3, ',');
        let (variant, hash, fen) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let v = kabir::variants::builtin(variant).unwrap();
        let pos = Position::from_fen(&v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let expected = u64::from_str_radix(hash.trim_start_matches("0x"), 16).unwrap();
        assert_eq!(pos.hash(), expected, "{variant} {fen}");
        assert_eq!(pos.compute_hash(), expected, "{variant} {fen}");
        checked += 1;
    }
    assert!(checked >= 12);
}

#[test]
fn counters_do_not_change_the_hash_but_everything_else_does() {
    let v = kabir::variants::builtin("tamerlane").unwrap();
    let start = Position::start(&v);
    let fen = start.to_fen();
    let other_counters = fen.replace(" 0 1", " 17 40");
    assert_eq!(
        Position::from_fen(&v, &other_counters).unwrap().hash(),
        start.hash()
    );
    let no_white_swap = fen.replace(" Kk ", " k ");
    assert_ne!(
        Position::from_fen(&v, &no_white_swap).unwrap().hash(),
        start.hash()
    );
    let black_to_move = fen.replace(" w ", " b ");
    assert_ne!(
        Position::from_fen(&v, &black_to_move).unwrap().hash(),
        start.hash()
    );
}
