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
