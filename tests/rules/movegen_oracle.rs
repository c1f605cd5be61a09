//! The move generator against a slow one written straight from the rules and the variant
//! definition (`tests/oracle`): at every ply of generated games of every built-in variant,
//! every generated move is legal and every legal move is generated. At the same plies the
//! incremental hash equals the hash computed from scratch and the position string reads back
//! to the same position.

use kabir::generate::{Options, random_game, random_game_from};
use kabir::rules::{Game, Move, Position};
use proptest::prelude::*;

/// Checks one position; returns how many legal moves it has.
fn check_position(pos: &Position, context: &str) -> usize {
    let fen = pos.to_fen();
    let mut fast: Vec<Move> = pos.legal_moves();
    fast.sort();
    let slow = crate::oracle::legal_moves(pos);
    if fast != slow {
        let name = |m: &Move| format!("{m:?}");
        let extra: Vec<_> = fast
            .iter()
            .filter(|m| !slow.contains(m))
            .map(name)
            .collect();
        let missing: Vec<_> = slow
            .iter()
            .filter(|m| !fast.contains(m))
            .map(name)
            .collect();
        panic!(
            "{context} {fen}: generated but not legal {extra:?}; legal but not generated {missing:?}"
        );
    }
    assert_eq!(pos.hash(), pos.compute_hash(), "{context} {fen}");
    let again = Position::from_fen(pos.variant(), &fen)
        .unwrap_or_else(|e| panic!("{context} {fen} does not read back: {e}"));
    assert_eq!(&again, pos, "{context} {fen}");
    assert_eq!(again.hash(), pos.hash(), "{context} {fen}");
    fast.len()
}

/// Checks every position of a game, the final one included; returns the positions checked.
fn check_game(game: &Game, context: &str) -> usize {
    let mut pos = game.start().clone();
    for (ply, &m) in game.moves().iter().enumerate() {
        check_position(&pos, &format!("{context} ply {ply}"));
        pos.play_unchecked(m);
    }
    check_position(&pos, &format!("{context} end"));
    assert_eq!(&pos, game.position(), "{context}");
    game.moves().len() + 1
}

#[test]
fn every_variant_agrees_with_the_slow_generator() {
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 80,
            ..Options::default()
        };
        let positions: usize = (0..2)
            .map(|i| check_game(&random_game(&variant, 23, i, &options), &id))
            .sum();
        assert!(positions > 60, "{id}: {positions}");
    }
}

/// A position as a piece list, side to move and swap field.
type Setup<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);

/// Games from positions next to Tamerlane's special rules, so that lifts, relocations, swaps
/// and citadel moves are compared too.
#[test]
fn tamerlane_special_moves_agree_with_the_slow_generator() {
    let v = crate::rules_common::tamerlane();
    let setups: [Setup; 4] = [
        (
            &[
                ("f1", "K"),
                ("a9", "PP"),
                ("f4", "PK"),
                ("f10", "k"),
                ("k2", "pp"),
                ("f7", "pk"),
            ],
            "w",
            "Kk",
        ),
        (
            &[
                ("f1", "K"),
                ("a10", "PP'"),
                ("c4", "N"),
                ("e4", "N"),
                ("f10", "k"),
                ("k1", "pp'"),
                ("c7", "n"),
                ("e7", "n"),
            ],
            "w",
            "Kk",
        ),
        (
            &[
                ("e1", "K"),
                ("a10", "PP''"),
                ("f3", "PK"),
                ("e10", "k"),
                ("k1", "pp''"),
                ("f8", "pk"),
            ],
            "b",
            "Kk",
        ),
        (
            &[
                ("j2", "K"),
                ("k2", "A"),
                ("i2", "R"),
                ("k10", "k"),
                ("a9", "a"),
                ("a1", "r"),
            ],
            "w",
            "-",
        ),
    ];
    let mut specials = 0;
    for (i, (pieces, side, swaps)) in setups.iter().enumerate() {
        let start = crate::rules_common::setup(&v, pieces, side, swaps);
        for game in 0..6 {
            let options = Options {
                max_plies: 40,
                capture_bias: 0.3,
            };
            let g = random_game_from(start.clone(), 31, game, &options);
            check_game(&g, &format!("setup {i} game {game}"));
            specials += g
                .moves()
                .iter()
                .filter(|m| m.kind != kabir::rules::MoveKind::Normal)
                .count();
        }
        // The position itself has special moves to compare.
        let moves = check_position(&start, &format!("setup {i}"));
        assert!(moves > 0);
    }
    assert!(specials > 0, "the games played some special moves");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Any generated game of any built-in variant agrees with the slow generator at every ply.
    #[test]
    fn generated_games_agree_with_the_slow_generator(
        v in any::<usize>(),
        seed in any::<u64>(),
        index in 0u64..1000,
        plies in 1usize..100,
        capture_bias in 0.0f64..1.0,
    ) {
        let ids = kabir::variants::builtin_ids();
        let id = &ids[v % ids.len()];
        let variant = kabir::variants::builtin(id).unwrap();
        let options = Options { max_plies: plies, capture_bias };
        let game = random_game(&variant, seed, index, &options);
        check_game(&game, id);
    }
}
