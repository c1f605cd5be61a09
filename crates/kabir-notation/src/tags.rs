//! Tag pairs: the names kabir knows, game results and the canonical order of tags.

/// `Event`
pub const EVENT: &str = "Event";
/// `Site`
pub const SITE: &str = "Site";
/// `Date`
pub const DATE: &str = "Date";
/// `Round`
pub const ROUND: &str = "Round";
/// `White`
pub const WHITE: &str = "White";
/// `Black`
pub const BLACK: &str = "Black";
/// `Result`
pub const RESULT: &str = "Result";
/// `Variant`: the game's variant. Required (or a default given by the user).
pub const VARIANT: &str = "Variant";
/// `SetUp`: `1` when the game starts from the position in `FEN`.
pub const SET_UP: &str = "SetUp";
/// `FEN`: the start position as a position string.
pub const FEN: &str = "FEN";
/// `Termination`: how the game ended.
pub const TERMINATION: &str = "Termination";

/// The seven-tag roster, in PGN order.
pub const SEVEN_TAG_ROSTER: [&str; 7] = [EVENT, SITE, DATE, ROUND, WHITE, BLACK, RESULT];

/// The tags that the writer puts first, in this order; every other tag follows in input
/// order.
pub const CANONICAL_ORDER: [&str; 11] = [
    EVENT,
    SITE,
    DATE,
    ROUND,
    WHITE,
    BLACK,
    RESULT,
    VARIANT,
    SET_UP,
    FEN,
    TERMINATION,
];

/// The place of a tag name in [`CANONICAL_ORDER`], if it has one.
pub fn canonical_rank(name: &str) -> Option<usize> {
    CANONICAL_ORDER.iter().position(|&n| n == name)
}

/// Sorts tags into canonical order: [`CANONICAL_ORDER`] first, then the rest in their
/// original order (the sort is stable).
pub fn sort_canonical<T>(tags: &mut [T], name: impl Fn(&T) -> &str) {
    tags.sort_by_key(|t| canonical_rank(name(t)).unwrap_or(CANONICAL_ORDER.len()));
}

/// The key under which a variant name is looked up: lowercase, with spaces, hyphens and
/// underscores removed. `"Knavish Shatranj"`, `"knavish-shatranj"` and `"KNAVISH_shatranj"`
/// all give `"knavishshatranj"`.
pub fn variant_key(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\t'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The result of a game, as written after the movetext and in the `Result` tag (the rules
/// crate's, shared by the reader, the database and the command line).
pub use kabir_rules::GameResult;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip() {
        for r in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
            GameResult::Unknown,
        ] {
            assert_eq!(GameResult::from_ascii(r.as_str().as_bytes()), Some(r));
        }
        assert_eq!(GameResult::from_ascii(b"1/2"), None);
        assert_eq!(GameResult::from_ascii(b"0-0"), None);
    }

    #[test]
    fn canonical_order_keeps_the_rest_in_input_order() {
        let mut tags = vec![
            "Annotator",
            "FEN",
            "White",
            "Event",
            "PlyCount",
            "Variant",
            "Result",
        ];
        sort_canonical(&mut tags, |t| t);
        assert_eq!(
            tags,
            [
                "Event",
                "White",
                "Result",
                "Variant",
                "FEN",
                "Annotator",
                "PlyCount"
            ]
        );
        assert_eq!(canonical_rank("Event"), Some(0));
        assert_eq!(canonical_rank("Termination"), Some(10));
        assert_eq!(canonical_rank("event"), None);
    }

    #[test]
    fn variant_keys() {
        assert_eq!(variant_key("Knavish Shatranj"), "knavishshatranj");
        assert_eq!(variant_key("knavish-shatranj"), "knavishshatranj");
        assert_eq!(variant_key("SHATRANJ_AL KABIR"), "shatranjalkabir");
        assert_eq!(variant_key("Timur's Chess"), "timur'schess");
        assert_eq!(variant_key("tamerlane-greenwood-1"), "tamerlanegreenwood1");
    }
}
