//! Variations replayed on the game all lines share (a variation takes back the move it
//! replaces, and its own moves when it ends) give what replaying each line from the start
//! gives: games with variations nested at random, written here by playing every line on a
//! game of its own, replay without a problem, keep the main line's moves and position
//! hashes, and write canonical text that replays the same; an illegal move put in one
//! variation is the only problem, at its place.

use kabir::generate::{Options, random_game};
use kabir::notation::game::RawGame;
use kabir::notation::reader::Reader;
use kabir::notation::{resolve, san, san::SanPlus, san_plus};
use kabir::replay::{Replay, replay, replay_reference, replay_unhashed};
use kabir::rules::{Game, Move};
use kabir::variants::Registry;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Writes game records with variations.
struct Writer {
    rng: ChaCha8Rng,
    words: Vec<String>,
    /// Whether an illegal move is to be put in a variation, and the word it went in as.
    inject: bool,
    injected: Option<usize>,
}

impl Writer {
    /// Writes `moves` played from `game`, with variations after some of them: each plays
    /// other legal moves from the position before the move it replaces, on a game of its
    /// own, and may hold variations in turn.
    fn line(&mut self, mut game: Game, moves: &[Move], depth: u32) {
        let variation = depth > 0;
        let mut dead = false;
        for &m in moves {
            let before = game.clone();
            let legal = game.legal_moves();
            let text = san_plus(game.position(), m, &legal);
            let illegal = if variation && self.inject && !dead && self.rng.random_bool(0.2) {
                illegal_text(&game, m)
            } else {
                None
            };
            match illegal {
                Some(bad) => {
                    self.injected = Some(self.words.len());
                    self.inject = false;
                    self.words.push(bad);
                    // The rest of the line is not replayed: it is written as it is.
                    dead = true;
                }
                None => self.words.push(text),
            }
            game.play(m).expect("a legal move");
            if depth < 4 && self.rng.random_bool(0.3) {
                let mut alt = before.clone();
                let plies = self.rng.random_range(1..=5);
                let mut played = Vec::new();
                for _ in 0..plies {
                    let legal = alt.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let pick = legal[self.rng.random_range(0..legal.len())];
                    alt.play(pick).expect("a legal move");
                    played.push(pick);
                }
                if !played.is_empty() {
                    self.words.push("(".to_string());
                    self.line(before, &played, depth + 1);
                    self.words.push(")".to_string());
                }
            }
        }
    }
}

/// A move's text that no legal move of `game`'s position fits: the move `m` played there
/// read for the other side, if it fits none.
fn illegal_text(game: &Game, m: Move) -> Option<String> {
    let mut after = game.clone();
    after.play(m).ok()?;
    let replies = after.legal_moves();
    let reply = *replies.first()?;
    let text = san(after.position(), reply, &replies);
    let parsed = SanPlus::from_ascii(text.as_bytes()).ok()?;
    resolve(&parsed.san, game.position(), &game.legal_moves())
        .is_err()
        .then_some(text)
}

fn read_one(text: &str) -> RawGame {
    let mut games: Vec<RawGame> = Reader::new(text.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0)
}

fn problems(r: &Replay) -> Vec<(&'static str, u32, u32)> {
    r.problems
        .iter()
        .map(|p| (p.kind.as_str(), p.line, p.column))
        .collect()
}

#[test]
fn variations_replay_as_their_lines_do() {
    let registry = Registry::builtin();
    let mut with_error = 0;
    for variant in kabir::variants::builtins() {
        for index in 0..12u64 {
            let options = Options {
                max_plies: 60,
                capture_bias: 0.8,
            };
            let main = random_game(&variant, 7, index, &options);
            let start = Game::new(main.start().clone());
            let mut w = Writer {
                rng: ChaCha8Rng::seed_from_u64(index),
                words: Vec::new(),
                inject: index % 3 == 2,
                injected: None,
            };
            w.line(start, main.moves(), 0);
            let header = format!("[Variant \"{}\"]\n\n", variant.id());
            let movetext = w.words.join(" ");
            let text = format!("{header}{movetext} *\n");
            let raw = read_one(&text);
            let r = replay(&raw, &registry);
            let same = replay_unhashed(&raw, &registry);
            let reference = replay_reference(&raw, &registry);
            assert_eq!(r.problems, same.problems, "{text}");
            assert_eq!(r.problems, reference.problems, "{text}");
            let game = r.game.as_deref().unwrap();
            assert_eq!(game.moves(), main.moves(), "{text}");
            assert!(game.hashes().eq(main.hashes()), "{text}");
            match w.injected {
                None => {
                    assert_eq!(problems(&r), [], "{text}");
                    assert!(r.is_valid());
                    // The canonical text replays to itself.
                    let canonical = r.write_canonical(&raw);
                    let again_raw = read_one(&canonical);
                    let again = replay(&again_raw, &registry);
                    assert_eq!(problems(&again), [], "{canonical}");
                    assert_eq!(again.write_canonical(&again_raw), canonical);
                    assert_eq!(again.game.as_deref().unwrap().moves(), main.moves());
                }
                Some(word) => {
                    with_error += 1;
                    let column = 1 + w.words[..word].iter().map(|w| w.len() + 1).sum::<usize>();
                    let found = problems(&r);
                    assert_eq!(found.len(), 1, "{text}: {found:?}");
                    assert!(
                        ["illegal-move", "ambiguous-move"].contains(&found[0].0),
                        "{found:?}"
                    );
                    assert_eq!((found[0].1, found[0].2), (3, column as u32), "{text}");
                }
            }
        }
    }
    assert!(with_error >= 10, "{with_error}");
}

#[test]
fn variations_nested_at_one_place_and_repeated_at_every_move() {
    let registry = Registry::builtin();
    // A variation before any move of its line replaces the move before its line began (as in
    // python-chess): here `1. d3` replaces White's first move.
    let raw = read_one("[Variant \"Shatranj\"]\n\n1. e3 e6 ((1. d3 d6) 1... d6) 2. Nf3 *\n");
    let r = replay(&raw, &registry);
    assert_eq!(problems(&r), []);
    let raw = read_one("[Variant \"Shatranj\"]\n\n1. e3 e6 ((1... d6) 1... d6) *\n");
    let r = replay(&raw, &registry);
    assert_eq!(problems(&r), [("illegal-move", 3, 17)]);
    // A variation after every move of a long game: each costs its own moves only.
    let mut text = String::from("[Variant \"Shatranj\"]\n\n");
    for n in 1..=2_000 {
        if n % 2 == 1 {
            text.push_str(&format!("{n}. Nf3 ({n}. Nh3) Nf6 ({n}... Nh6) "));
        } else {
            text.push_str(&format!("{n}. Ng1 Ng8\n"));
        }
    }
    text.push_str("*\n");
    let raw = read_one(&text);
    let r = replay(&raw, &registry);
    assert_eq!(problems(&r), []);
    assert_eq!(r.game.as_deref().unwrap().moves().len(), 4_000);
}
