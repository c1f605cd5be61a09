//! Replay's shortcuts (moves resolved backwards from their destination, legality tested by
//! playing, check marks judged late) give exactly what the slow reference replay gives: the
//! same problems, moves, final positions and canonical text, for every variant, on generated
//! games and on the same games damaged in several ways.

use kabir::generate::{Options, random_game};
use kabir::notation::reader::Reader;
use kabir::notation::write_game;
use kabir::replay::{replay, replay_reference};
use kabir::variants::Registry;

/// Whether a movetext word is a move (not a move number or a result).
fn is_move(word: &str) -> bool {
    !word.ends_with('.') && !matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// The game text damaged the `how`th way, at a place chosen by `at`.
fn damage(text: &str, how: u64, at: u64) -> String {
    let (tags, movetext) = text.split_at(text.find("\n\n").map_or(0, |i| i + 2));
    let mut words: Vec<String> = movetext.split_whitespace().map(str::to_string).collect();
    let moves: Vec<usize> = (0..words.len()).filter(|&i| is_move(&words[i])).collect();
    if moves.is_empty() {
        return text.to_string();
    }
    let k = moves[(at as usize) % moves.len()];
    match how {
        // Check and mate marks left out, or all turned into the other mark.
        0 => words
            .iter_mut()
            .for_each(|w| *w = w.replace(['+', '#'], "")),
        1 => words
            .iter_mut()
            .for_each(|w| *w = w.replace('+', "%").replace('#', "+").replace('%', "#")),
        // A move left out: the rest of the game is played by the wrong side.
        2 => {
            words.remove(k);
        }
        // A move replaced by another one of the same game.
        3 => {
            let other = moves[(at as usize * 7 + 3) % moves.len()];
            words[k] = words[other].clone();
        }
        // A move written without its disambiguation or piece letter.
        4 => {
            let w = &words[k];
            words[k] = if w.len() > 3 && w.as_bytes()[0].is_ascii_uppercase() {
                format!("{}{}", &w[..1], &w[2..])
            } else {
                w[1..].to_string()
            };
        }
        // A move played after the end: the last move again.
        _ => {
            let last = moves[moves.len() - 1];
            let again = words[last].clone();
            words.insert(last + 1, again);
        }
    }
    format!("{tags}{}\n\n", words.join(" "))
}

#[test]
fn shortcuts_give_the_reference_replay() {
    let registry = Registry::builtin();
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 400,
            ..Options::default()
        };
        let mut compared = 0;
        let mut problems = 0;
        for i in 0..36u64 {
            let game = random_game(&variant, 17, i, &options);
            let tags = vec![("Variant".to_string(), id.clone())];
            let clean = write_game(&game, &tags);
            let texts = [clean.clone(), damage(&clean, i % 6, i * 13 + 5)];
            for text in texts {
                for raw in Reader::new(text.as_bytes()) {
                    let raw = raw.unwrap();
                    let fast = replay(&raw, &registry);
                    let slow = replay_reference(&raw, &registry);
                    assert_eq!(fast.problems, slow.problems, "{id} game {i}:\n{text}");
                    assert_eq!(fast.is_valid(), slow.is_valid(), "{id} game {i}");
                    let (f, s) = (fast.game.as_ref().unwrap(), slow.game.as_ref().unwrap());
                    assert_eq!(f.moves(), s.moves(), "{id} game {i}");
                    assert_eq!(f.position(), s.position(), "{id} game {i}");
                    assert_eq!(f.status(), s.status(), "{id} game {i}");
                    assert_eq!(
                        f.hashes().collect::<Vec<_>>(),
                        s.hashes().collect::<Vec<_>>()
                    );
                    assert_eq!(
                        fast.write_canonical(&raw),
                        slow.write_canonical(&raw),
                        "{id} game {i}"
                    );
                    compared += 1;
                    problems += fast.problems.len();
                }
            }
        }
        assert_eq!(compared, 72, "{id}");
        // The damaged games do have problems to compare.
        assert!(problems >= 20, "{id}: {problems}");
    }
}
