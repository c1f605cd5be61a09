//! Random legal games, for tests and benchmarks.
//!
//! Games are reproducible: game `i` of a run with seed `s` depends only on `(s, i)`, so they
//! can be generated in parallel and in any order.

use std::sync::Arc;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Game, Position, Variant};

/// How random games are played.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Stop after this many plies if the game has not ended.
    pub max_plies: usize,
    /// The chance (0-1) of picking among the captures when there are any; higher values end
    /// games by the rules (bare king, checkmate, stalemate) more often.
    pub capture_bias: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_plies: 400,
            capture_bias: 0.7,
        }
    }
}

/// The random number generator for game `index` of a run seeded with `seed`.
fn rng_for(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// Plays game `index` of a run: random legal moves from the start position until the game
/// ends by the rules or reaches `options.max_plies`.
pub fn random_game(variant: &Arc<Variant>, seed: u64, index: u64, options: &Options) -> Game {
    random_game_from(Position::start(variant), seed, index, options)
}

/// Like [`random_game`], from a given position.
pub fn random_game_from(start: Position, seed: u64, index: u64, options: &Options) -> Game {
    let mut rng = rng_for(seed, index);
    let mut game = Game::new(start);
    while game.moves().len() < options.max_plies {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let pos = game.position();
        let captures: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let pick = if !captures.is_empty() && rng.random_bool(options.capture_bias.clamp(0.0, 1.0))
        {
            captures.choose(&mut rng).copied()
        } else {
            moves.choose(&mut rng).copied()
        };
        match pick {
            Some(m) => game.play_unchecked(m),
            None => break,
        }
    }
    game
}

/// Given names of the players of [`varied_tags`].
const GIVEN: [&str; 60] = [
    "Ali", "Omar", "Timur", "Yusuf", "Hasan", "Layla", "Zahra", "Farid", "Rustam", "Aziz", "Nadia",
    "Karim", "Samir", "Leila", "Tariq", "Mira", "Idris", "Selim", "Amina", "Jamal", "Emil", "Ada",
    "Boris", "Clara", "Dmitri", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Katya",
    "Lars", "Marta", "Nils", "Olga", "Pavel", "Rosa", "Sven", "Tanja", "Ugo", "Vera", "Wim",
    "Xenia", "Yann", "Zoé", "Émile", "Şahin", "Ørjan", "Łucja", "Arjun", "Priya", "Ravi", "Sita",
    "Chen", "Mei", "Kenji", "Yuki", "Kwame", "Amara",
];

/// Family names of the players of [`varied_tags`].
const FAMILY: [&str; 50] = [
    "al-Adli",
    "as-Suli",
    "al-Lajlaj",
    "Shatranji",
    "Khorasani",
    "Samarkandi",
    "Bukhari",
    "Tabrizi",
    "Isfahani",
    "Baghdadi",
    "Andersen",
    "Berg",
    "Castro",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Horvat",
    "Ivanov",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Novak",
    "Olsen",
    "Petrov",
    "Quint",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Urbina",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
    "Okafor",
    "Mensah",
    "Sharma",
    "Iyer",
    "Nakamura",
    "Kim",
    "Haddad",
    "Nasser",
    "Mansour",
    "Farah",
    "Lindqvist",
    "Öztürk",
    "Ñúñez",
    "Černý",
];

/// Places of [`varied_tags`]' events and sites.
const PLACES: [&str; 40] = [
    "Samarkand",
    "Bukhara",
    "Baghdad",
    "Basra",
    "Damascus",
    "Isfahan",
    "Tabriz",
    "Herat",
    "Merv",
    "Cairo",
    "Cordoba",
    "Toledo",
    "Palermo",
    "Venice",
    "Genoa",
    "Kyiv",
    "Novgorod",
    "Tbilisi",
    "Baku",
    "Kabul",
    "Delhi",
    "Lahore",
    "Multan",
    "Aleppo",
    "Mosul",
    "Shiraz",
    "Kashgar",
    "Khiva",
    "Balkh",
    "Nishapur",
    "Tashkent",
    "Almaty",
    "Istanbul",
    "Konya",
    "Trebizond",
    "Sinop",
    "Rhodes",
    "Tunis",
    "Fez",
    "Marrakesh",
];

/// Kinds of [`varied_tags`]' events.
const EVENTS: [&str; 8] = [
    "Open",
    "Championship",
    "Cup",
    "Masters",
    "Festival",
    "Invitational",
    "Club match",
    "Correspondence",
];

/// The sizes of [`varied_tags`]' pools: players, events and sites.
pub const VARIED_POOLS: (usize, usize, usize) = (
    GIVEN.len() * FAMILY.len(),
    PLACES.len() * EVENTS.len(),
    PLACES.len() * 3,
);

/// Tags of a made-up game, for benchmarks and tests of searches by name and statistics:
/// White and Black from a pool of 3,000 players, Event from 320 events, Site from 120 sites,
/// a date from 1900 to 2024 and a round from 1 to 12. Like the moves, game `index` of a run
/// with seed `seed` gets the same tags every time, from a random stream of its own (the moves
/// do not change with them). In the order of the Seven Tag Roster, without the result.
pub fn varied_tags(seed: u64, index: u64) -> Vec<(String, String)> {
    // Streams above 2^63 are never a game's: the tags do not share the moves' stream.
    let mut rng = rng_for(seed, index | 1 << 63);
    let player = |rng: &mut ChaCha8Rng| {
        format!(
            "{}, {}",
            FAMILY[rng.random_range(0..FAMILY.len())],
            GIVEN[rng.random_range(0..GIVEN.len())]
        )
    };
    let white = player(&mut rng);
    let mut black = player(&mut rng);
    while black == white {
        black = player(&mut rng);
    }
    let place = PLACES[rng.random_range(0..PLACES.len())];
    let event = format!("{place} {}", EVENTS[rng.random_range(0..EVENTS.len())]);
    let site = match rng.random_range(0..3) {
        0 => place.to_string(),
        1 => format!("{place} Chess Club"),
        _ => format!("{place}, online"),
    };
    let date = format!(
        "{}.{:02}.{:02}",
        rng.random_range(1900..=2024),
        rng.random_range(1..=12),
        rng.random_range(1..=28)
    );
    let round = rng.random_range(1..=12).to_string();
    [
        ("Event", event),
        ("Site", site),
        ("Date", date),
        ("Round", round),
        ("White", white),
        ("Black", black),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_reproducible_and_legal() {
        let v = crate::variants::builtin("tamerlane").unwrap();
        let opts = Options {
            max_plies: 120,
            ..Options::default()
        };
        let a = random_game(&v, 7, 3, &opts);
        let b = random_game(&v, 7, 3, &opts);
        let c = random_game(&v, 7, 4, &opts);
        assert_eq!(a.moves(), b.moves());
        assert_ne!(a.moves(), c.moves());
        let mut replay = Game::new(Position::start(&v));
        for &m in a.moves() {
            replay.play(m).unwrap();
        }
        assert_eq!(replay.position(), a.position());
    }

    #[test]
    fn varied_tags_are_reproducible_and_varied() {
        assert_eq!(varied_tags(1, 5), varied_tags(1, 5));
        assert_ne!(varied_tags(1, 5), varied_tags(1, 6));
        assert_ne!(varied_tags(1, 5), varied_tags(2, 5));
        let players: std::collections::HashSet<String> = (0..2000)
            .flat_map(|i| {
                let t = varied_tags(3, i);
                [t[4].1.clone(), t[5].1.clone()]
            })
            .collect();
        assert!(players.len() > 1000, "{}", players.len());
        for i in 0..50 {
            let t = varied_tags(9, i);
            let names: Vec<&str> = t.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(names, ["Event", "Site", "Date", "Round", "White", "Black"]);
            assert_ne!(t[4].1, t[5].1);
            assert!(t[2].1.len() == 10 && t[2].1.as_bytes()[4] == b'.');
        }
        assert_eq!(VARIED_POOLS, (3000, 320, 120));
    }
}
