//! The shortcuts used by replay agree with the full move generator at every position of
//! random games: `has_legal_move` and `legal_moves_to`.

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
                let mut targets: Vec<_> = legal.iter().map(|m| m.to).collect();
                targets.dedup();
                for to in targets.into_iter().take(6) {
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
