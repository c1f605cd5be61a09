//! The shortcuts used by replay agree with the full move generator at every position of
//! random games: `has_legal_move`, `legal_moves_to` and `pseudo_legal_moves_to`.

use kabir::generate::{Options, random_game};
use kabir::rules::{MoveKind, Position};

#[test]
fn shortcuts_agree_with_the_full_generator() {
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 250,
            ..Options::default()
        };
        let mut positions = 0;
        for i in 0..30 {
            let game = random_game(&variant, 5, i, &options);
            let mut pos: Position = game.start().clone();
            for &played in game.moves().iter().chain(std::iter::once(&game.moves()[0])) {
                let legal = pos.legal_moves();
                let mut scratch = pos.clone();
                assert_eq!(scratch.has_legal_move(), !legal.is_empty(), "{id} {pos:?}");
                assert_eq!(scratch, pos);
                // Every square, legal destinations or not, for all kinds and for each kind.
                for to in pos.variant().geometry().squares() {
                    let mut fast = Vec::new();
                    scratch.legal_moves_to(to, |_| true, &mut fast);
                    let mut slow: Vec<_> = legal
                        .iter()
                        .filter(|m| m.to == to && m.kind == MoveKind::Normal)
                        .copied()
                        .collect();
                    fast.sort();
                    slow.sort();
                    assert_eq!(fast, slow, "{id} {pos:?}");
                    let mut pseudo = Vec::new();
                    for (k, _) in pos.variant().kinds().iter().enumerate() {
                        scratch.pseudo_legal_moves_to(to, 1 << k, &mut pseudo);
                        let mut of_kind: Vec<_> = slow
                            .iter()
                            .filter(|m| pos.kind_at(m.from).is_some_and(|x| x.index() == k))
                            .copied()
                            .collect();
                        // The legal ones among the candidates are the legal moves.
                        pseudo.retain(|m| legal.contains(m));
                        pseudo.sort();
                        of_kind.sort();
                        assert_eq!(pseudo, of_kind, "{id} {pos:?} kind {k}");
                    }
                }
                positions += 1;
                if !legal.contains(&played) {
                    break;
                }
                pos.play_unchecked(played);
            }
        }
        assert!(positions > 1000, "{id}: {positions}");
    }
}

/// A game's check flags (judged from the move's own squares where that is enough) and its
/// test of a candidate by playing it agree with the full tests, at every ply of random games.
#[test]
fn game_check_shortcuts_agree_with_the_full_tests() {
    use kabir::rules::Game;
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 300,
            ..Options::default()
        };
        let mut tried = 0;
        for i in 0..20 {
            let played = random_game(&variant, 9, i, &options);
            let mut game = Game::new(played.start().clone());
            for &m in played.moves() {
                let legal = game.position().legal_moves();
                // Every candidate to the move's square: played if and only if legal.
                let mut candidates = Vec::new();
                game.position()
                    .pseudo_legal_moves_to(m.to, u64::MAX, &mut candidates);
                for c in candidates {
                    let mut g = game.clone();
                    assert_eq!(g.play_if_legal(c), legal.contains(&c), "{id} {c:?}");
                    if legal.contains(&c) {
                        assert_eq!(g.last_move_gave_check(), g.position().is_check(), "{id}");
                        assert_eq!(g.position(), &game.position().after(c), "{id}");
                    } else {
                        assert_eq!(g.position(), game.position(), "{id}");
                        assert_eq!(g.moves().len(), game.moves().len(), "{id}");
                    }
                    tried += 1;
                }
                game.play_unchecked(m);
                assert_eq!(
                    game.last_move_gave_check(),
                    game.position().is_check(),
                    "{id}"
                );
                assert_eq!(
                    game.position().hash(),
                    game.position().compute_hash(),
                    "{id}"
                );
            }
            assert_eq!(game.position(), played.position(), "{id}");
        }
        assert!(tried > 1000, "{id}: {tried}");
    }
}
