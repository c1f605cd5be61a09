//! Replay's shortcuts (moves resolved backwards from their destination, legality tested by
//! playing, check marks judged late) give exactly what the slow reference replay gives: the
//! same problems, moves, final positions and canonical text, for every variant, on generated
//! games and on the same games damaged in several ways. The replay that keeps no hashes as it
//! goes gives the same again, and the same hashes when asked.

use std::sync::Arc;

use kabir::generate::{Options, random_game};
use kabir::notation::reader::Reader;
use kabir::notation::write_game;
use kabir::replay::{replay, replay_reference, replay_unhashed};
use kabir::rules::{Game, Position, Variant};
use kabir::variants::Registry;

/// Whether a movetext word is a move (not a move number or a result).
fn is_move(word: &str) -> bool {
    !word.ends_with('.') && !matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Whether a movetext word is a move marked as giving check or mate.
fn is_check(word: &str) -> bool {
    is_move(word) && word.contains(['+', '#'])
}

/// A move's text split into its body and its check mark and glyph (`Rxa2`, `+!`).
fn split_mark(word: &str) -> (&str, &str) {
    let body = word.trim_end_matches(['+', '#', '!', '?']);
    (body, &word[body.len()..])
}

/// A square's name split off the front of `text` (`k10` from `k10j9`): a file letter and a
/// rank of digits.
fn square_prefix(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(|c: char| c.is_ascii_lowercase())?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| text.split_at(1 + digits))
}

/// The number of kinds of damage that [`damage`] knows.
const KINDS: u64 = 23;

/// The game text damaged the `how`th way, at a place chosen by `at`. `uci` is the coordinate
/// form of each move of the undamaged game, in order.
fn damage(text: &str, how: u64, at: u64, uci: &[String]) -> String {
    let (tags, movetext) = text.split_at(text.find("\n\n").map_or(0, |i| i + 2));
    let mut words: Vec<String> = movetext.split_whitespace().map(str::to_string).collect();
    let moves: Vec<usize> = (0..words.len()).filter(|&i| is_move(&words[i])).collect();
    if moves.is_empty() {
        return text.to_string();
    }
    let at = at as usize;
    // The `at`th move (counted among the moves), and the word of the move `n` moves later.
    let mi = at % moves.len();
    let k = moves[mi];
    let later = |n: usize| moves[(mi + n).min(moves.len() - 1)];
    // The `at`th move marked as a check, if any.
    let checks: Vec<usize> = moves
        .iter()
        .copied()
        .filter(|&i| is_check(&words[i]))
        .collect();
    let check = (!checks.is_empty()).then(|| checks[at % checks.len()]);
    // Its place among the moves.
    let check_mi = check.map(|c| moves.iter().position(|&i| i == c).unwrap_or(0));
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
            let other = moves[(at * 7 + 3) % moves.len()];
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
        5 => {
            let last = moves[moves.len() - 1];
            let again = words[last].clone();
            words.insert(last + 1, again);
        }
        // A check or a mate mark on a move that gives no check, once in the middle of the
        // game and once on its last move.
        6 | 7 => {
            let mark = if how == 6 { "+" } else { "#" };
            let plain = (0..moves.len())
                .map(|n| moves[(mi + n) % moves.len()])
                .find(|&i| !is_check(&words[i]));
            let last = moves[moves.len() - 1];
            for i in plain.into_iter().chain([last]) {
                if !is_check(&words[i]) {
                    words[i].push_str(mark);
                }
            }
        }
        // One check mark (in the middle of the game, usually) turned into a mate mark, or
        // left out.
        8 | 9 => {
            if let Some(c) = check {
                let (body, _) = split_mark(&words[c]);
                words[c] = format!("{body}{}", if how == 8 { "#" } else { "" });
            }
        }
        // The game cut right after a check, without a result, with its mark as written, or
        // turned into a mate mark or left out and the result `*`.
        10 | 11 => {
            if let Some(c) = check {
                words.truncate(c + 1);
                if how == 11 {
                    let (body, _) = split_mark(&words[c]);
                    words[c] = format!("{body}{}", ["#", ""][at % 2]);
                    words.push("*".to_string());
                }
            }
        }
        // The result left out.
        12 => {
            if !is_move(&words[words.len() - 1]) {
                words.pop();
            }
        }
        // A variation after a move that repeats it and the next moves (with their numbers),
        // played from the same branch point: legal.
        13 => {
            let variation = format!("( {} )", words[k..=later(2)].join(" "));
            words.insert(k + 1, variation);
        }
        // A variation whose last move is a check, so that its mark is judged at the end of
        // the variation; the main line's own mark on the move it replaces waits for the
        // main line's next move.
        14 => {
            if let (Some(c), Some(cm)) = (check, check_mi) {
                let from = moves[cm.saturating_sub(at % 3)];
                let variation = format!("( {} )", words[from..=c].join(" "));
                words.insert(from + 1, variation);
            }
        }
        // Variations within variations, after a check: `m ( m m+1 ( m+1 m+2 ) m+2 ) m+1`.
        15 => {
            let (cm, c) = match (check_mi, check) {
                (Some(cm), Some(c)) => (cm, c),
                _ => (mi, k),
            };
            let at_n = |n: usize| moves[(cm + n).min(moves.len() - 1)];
            let inner = format!("( {} )", words[at_n(1)..=at_n(2)].join(" "));
            let outer = format!(
                "( {} {inner} {} )",
                words[c..=at_n(1)].join(" "),
                words[at_n(1) + 1..=at_n(3)].join(" ")
            );
            words.insert(c + 1, outer);
        }
        // A variation with an illegal move (a move left out, so the wrong side plays), after
        // a check or a plain move; the main line goes on.
        16 => {
            let (cm, c) = match (check_mi, check) {
                (Some(cm), Some(c)) if at.is_multiple_of(2) => (cm, c),
                _ => (mi, k),
            };
            let at_n = |n: usize| words[moves[(cm + n).min(moves.len() - 1)]].clone();
            let variation = format!("( {} {} {} )", words[c], at_n(2), at_n(3));
            words.insert(c + 1, variation);
        }
        // Variations after the last move: the same move again, then another move of the
        // game, each from the same branch point.
        17 => {
            let last = moves[moves.len() - 1];
            let variation = format!("( {} ) ( {} )", words[last], words[k]);
            words.insert(last + 1, variation);
        }
        // Glyphs after every third move, check marks or not.
        18 => {
            let glyphs = ["!", "?", "!!", "??", "!?", "?!"];
            for (n, &i) in moves.iter().enumerate().skip(at % 3).step_by(3) {
                words[i].push_str(glyphs[(n + at) % glyphs.len()]);
            }
        }
        // Piece moves with a needless origin: a file, a rank (ambiguous when another such
        // piece stands on the same rank), a square, long algebraic, coordinates.
        19 => {
            for (n, &i) in moves.iter().enumerate().skip(at % 4).step_by(4) {
                let w = &words[i];
                let Some(letter) = w.chars().next().filter(char::is_ascii_uppercase) else {
                    continue;
                };
                if w.starts_with("PP") {
                    continue;
                }
                let Some((from, rest)) = uci.get(n).and_then(|u| square_prefix(u)) else {
                    continue;
                };
                let Some((to, "")) = square_prefix(rest) else {
                    continue;
                };
                if w.contains([':', '=']) {
                    continue;
                }
                let (_, mark) = split_mark(w);
                let x = if w.contains('x') { "x" } else { "" };
                let (file, rank) = from.split_at(1);
                words[i] = match (n / 4 + at) % 5 {
                    0 => format!("{letter}{file}{x}{to}{mark}"),
                    1 => format!("{letter}{rank}{x}{to}{mark}"),
                    2 => format!("{letter}{from}{x}{to}{mark}"),
                    3 => format!(
                        "{letter}{from}{}{to}{mark}",
                        if x.is_empty() { "-" } else { x }
                    ),
                    _ => format!("{from}{to}{mark}"),
                };
            }
        }
        // Pawn moves in other forms: a capture without `x`, a step with the letter `P` or
        // with its origin square.
        20 => {
            for (n, &i) in moves.iter().enumerate().skip(at % 3).step_by(3) {
                let w = &words[i];
                if !w.starts_with(|c: char| c.is_ascii_lowercase()) || w.contains('=') {
                    continue;
                }
                let (body, mark) = split_mark(w);
                words[i] = if let Some((file, to)) = body.split_once('x') {
                    format!("{file}{to}{mark}")
                } else if n % 2 == 0 {
                    format!("P{w}")
                } else {
                    match uci.get(n).and_then(|u| square_prefix(u)) {
                        Some((from, _)) => format!("{from}-{w}"),
                        None => continue,
                    }
                };
            }
        }
        // King swaps: a mark added to or taken from each swap, and one swap played again
        // elsewhere in the game.
        21 => {
            let swaps: Vec<usize> = moves
                .iter()
                .copied()
                .filter(|&i| words[i].starts_with("K:"))
                .collect();
            for &i in &swaps {
                let (body, mark) = split_mark(&words[i]);
                words[i] = if mark.is_empty() {
                    format!("{body}+")
                } else {
                    body.to_string()
                };
            }
            if let Some(&s) = swaps.get(at % swaps.len().max(1)) {
                let again = words[s].clone();
                words[later(1)] = again;
            }
        }
        // A move left out right after a check: the check's mark is judged before an
        // illegal move.
        _ => {
            if let (Some(cm), Some(_)) = (check_mi, check)
                && cm + 1 < moves.len()
            {
                words.remove(moves[cm + 1]);
            }
        }
    }
    format!("{tags}{}\n\n", words.join(" "))
}

/// A small random number generator (xorshift), so that the games below need no crate.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A random game that gives check whenever it can, three times in four, so that it has many
/// checks, king swaps in check and often a mate.
fn checking_game(variant: &Arc<Variant>, seed: u64) -> Game {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut game = Game::new(Position::start(variant));
    while game.moves().len() < 300 {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let pos = game.position();
        let checks: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.after(m).is_check())
            .collect();
        let pool = if !checks.is_empty() && !next(&mut state).is_multiple_of(4) {
            &checks
        } else {
            &moves
        };
        let m = pool[(next(&mut state) % pool.len() as u64) as usize];
        game.play_unchecked(m);
    }
    game
}

/// Games of each variant: generated ones, then ones full of checks.
const GAMES: u64 = 36;
const CHECKING_GAMES: u64 = 18;

#[test]
fn shortcuts_give_the_reference_replay() {
    let registry = Registry::builtin();
    // Per kind of damage, over all variants: games compared, problems, games valid.
    let mut by_kind = [(0usize, 0usize, 0usize); KINDS as usize + 1];
    let mut mates = 0;
    for id in kabir::variants::builtin_ids() {
        let variant = kabir::variants::builtin(&id).unwrap();
        let options = Options {
            max_plies: 400,
            ..Options::default()
        };
        let mut compared = 0;
        let mut problems = 0;
        for i in 0..GAMES + CHECKING_GAMES {
            let game = if i < GAMES {
                random_game(&variant, 17, i, &options)
            } else {
                checking_game(&variant, i)
            };
            let mut pos = game.start().clone();
            let uci: Vec<String> = game
                .moves()
                .iter()
                .map(|&m| {
                    let u = m.to_uci(&pos);
                    pos = pos.after(m);
                    u
                })
                .collect();
            let tags = vec![("Variant".to_string(), id.clone())];
            let clean = write_game(&game, &tags);
            mates += clean.contains('#') as usize;
            let texts = (0..=KINDS).map(|how| match how {
                0 => clean.clone(),
                _ => damage(&clean, how - 1, i * 13 + 5, &uci),
            });
            for (how, text) in texts.enumerate() {
                for raw in Reader::new(text.as_bytes()) {
                    let raw = raw.unwrap();
                    let fast = replay(&raw, &registry);
                    let slow = replay_reference(&raw, &registry);
                    assert_eq!(fast.problems, slow.problems, "{id} game {i}:\n{text}");
                    assert_eq!(fast.is_valid(), slow.is_valid(), "{id} game {i}:\n{text}");
                    let (f, s) = (fast.game.as_ref().unwrap(), slow.game.as_ref().unwrap());
                    assert_eq!(f.moves(), s.moves(), "{id} game {i}:\n{text}");
                    assert_eq!(f.position(), s.position(), "{id} game {i}:\n{text}");
                    assert_eq!(f.status(), s.status(), "{id} game {i}:\n{text}");
                    assert_eq!(fast.status(), slow.status(), "{id} game {i}:\n{text}");
                    assert_eq!(
                        f.hashes().collect::<Vec<_>>(),
                        s.hashes().collect::<Vec<_>>(),
                        "{id} game {i}:\n{text}"
                    );
                    assert_eq!(
                        fast.write_canonical(&raw),
                        slow.write_canonical(&raw),
                        "{id} game {i}:\n{text}"
                    );
                    let lean = replay_unhashed(&raw, &registry);
                    let l = lean.game.as_ref().unwrap();
                    assert_eq!(lean.problems, fast.problems, "{id} game {i}:\n{text}");
                    assert_eq!(lean.is_valid(), fast.is_valid(), "{id} game {i}:\n{text}");
                    assert_eq!(l.moves(), f.moves(), "{id} game {i}:\n{text}");
                    assert_eq!(l.position(), f.position(), "{id} game {i}:\n{text}");
                    assert_eq!(l.position().hash(), f.position().hash(), "{id} game {i}");
                    assert_eq!(lean.status(), fast.status(), "{id} game {i}:\n{text}");
                    assert!(l.hashes().eq(f.hashes()), "{id} game {i}:\n{text}");
                    assert_eq!(
                        lean.write_canonical(&raw),
                        fast.write_canonical(&raw),
                        "{id} game {i}:\n{text}"
                    );
                    assert_eq!(
                        lean.game.unwrap().into_parts().2,
                        fast.game.as_ref().unwrap().hashes().collect::<Vec<_>>(),
                        "{id} game {i}"
                    );
                    compared += 1;
                    problems += fast.problems.len();
                    let kind = &mut by_kind[how];
                    kind.0 += 1;
                    kind.1 += fast.problems.len();
                    kind.2 += fast.is_valid() as usize;
                }
            }
        }
        assert_eq!(
            compared,
            ((GAMES + CHECKING_GAMES) * (KINDS + 1)) as usize,
            "{id}"
        );
        // The damaged games do have problems to compare.
        assert!(problems >= 3000, "{id}: {problems}");
    }
    // Some games end in mate, so mate marks are compared too.
    assert!(mates >= 20, "{mates}");
    // Each kind of damage does what it is meant to: the legal variations and the glyphs
    // leave every game valid and without problems, every other kind makes problems. (Text 0
    // is the clean game, text `n` the game with damage `n - 1`.)
    for (how, &(compared, problems, valid)) in by_kind.iter().enumerate() {
        if matches!(how, 0 | 14 | 15 | 16 | 19) {
            assert_eq!((problems, valid), (0, compared), "text {how}");
        } else {
            assert!(problems >= 400, "text {how}: {problems}");
        }
    }
}
