//! Generated games written in canonical notation read back to the same games, for every
//! variant; writing is idempotent.

use kabir::generate::{Options, random_game};
use kabir::notation::reader::Reader;
use kabir::notation::write_game;
use kabir::replay::replay;
use kabir::variants::Registry;

fn tags(variant: &str, i: u64) -> Vec<(String, String)> {
    vec![
        ("Event".into(), "round trip".into()),
        ("Round".into(), i.to_string()),
        ("Variant".into(), variant.into()),
    ]
}

#[test]
fn generated_games_round_trip() {
    let registry = Registry::builtin();
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 300,
            ..Options::default()
        };
        let games: Vec<_> = (0..40)
            .map(|i| random_game(&variant, 11, i, &options))
            .collect();
        let text: String = games
            .iter()
            .enumerate()
            .map(|(i, g)| write_game(g, &tags(&id, i as u64)))
            .collect();
        let raws: Vec<_> = Reader::new(text.as_bytes()).map(|r| r.unwrap()).collect();
        assert_eq!(raws.len(), games.len(), "{id}");
        let mut rewritten = String::new();
        for (raw, game) in raws.iter().zip(&games) {
            let r = replay(raw, &registry);
            let problems: Vec<_> = r.problems.iter().collect();
            assert!(
                r.is_valid() && problems.is_empty(),
                "{id} game {}: {problems:#?}",
                raw.number
            );
            let replayed = r.game.as_ref().unwrap();
            assert_eq!(replayed.moves(), game.moves(), "{id}");
            assert_eq!(replayed.position(), game.position(), "{id}");
            rewritten.push_str(&r.write_canonical(raw));
        }
        // Canonical writing is idempotent.
        let again: String = Reader::new(rewritten.as_bytes())
            .map(|raw| {
                let raw = raw.unwrap();
                replay(&raw, &registry).write_canonical(&raw)
            })
            .collect();
        assert_eq!(again, rewritten, "{id}");
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any generated game, in any variant: write -> read -> replay gives the same moves and
        /// final position, and writing the replayed game again gives the same text.
        #[test]
        fn write_read_replay_is_the_identity(seed in any::<u64>(), index in 0u64..1000, v in any::<usize>(), plies in 1usize..400) {
            let ids = kabir::variants::builtin_ids();
            let id = &ids[v % ids.len()];
            let variant = kabir::variants::builtin(id).unwrap();
            let options = Options { max_plies: plies, ..Options::default() };
            let game = random_game(&variant, seed, index, &options);
            let text = write_game(&game, &tags(id, index));
            let raw = Reader::new(text.as_bytes()).next().unwrap().unwrap();
            let registry = Registry::builtin();
            let r = replay(&raw, &registry);
            prop_assert!(r.is_valid() && r.problems.is_empty(), "{:?}", r.problems);
            let replayed = r.game.as_ref().unwrap();
            prop_assert_eq!(replayed.moves(), game.moves());
            prop_assert_eq!(replayed.position(), game.position());
            let canonical = r.write_canonical(&raw);
            let raw2 = Reader::new(canonical.as_bytes()).next().unwrap().unwrap();
            let again = replay(&raw2, &registry).write_canonical(&raw2);
            prop_assert_eq!(again, canonical);
        }
    }
}
