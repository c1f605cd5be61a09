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

/// The Seven Tag Roster of a game: its `Event`, `Site`, `Date`, `Round`, `White`, `Black` and
/// `Result` values, each `None` when the game has no such tag. `T` is how a value is held:
/// `&str` borrowed from the game's tags, `String`, or the tag's place in a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Roster<T> {
    /// `Event`: the tournament or match.
    pub event: Option<T>,
    /// `Site`: where it was played.
    pub site: Option<T>,
    /// `Date`: `YYYY.MM.DD`, with `??` for what is not known.
    pub date: Option<T>,
    /// `Round`: the round of the event.
    pub round: Option<T>,
    /// `White`: the player of the first side.
    pub white: Option<T>,
    /// `Black`: the player of the second side.
    pub black: Option<T>,
    /// `Result`: as written in the tag, which need not be a valid result.
    pub result: Option<T>,
}

impl<T> Roster<T> {
    /// The roster whose value for each of the seven tag names (in [`SEVEN_TAG_ROSTER`] order)
    /// is what `value` gives for that name.
    pub fn from_fn(mut value: impl FnMut(&'static str) -> Option<T>) -> Roster<T> {
        Roster {
            event: value(EVENT),
            site: value(SITE),
            date: value(DATE),
            round: value(ROUND),
            white: value(WHITE),
            black: value(BLACK),
            result: value(RESULT),
        }
    }

    /// The values with their tag names, in [`SEVEN_TAG_ROSTER`] order.
    pub fn into_pairs(self) -> [(&'static str, Option<T>); 7] {
        [
            (EVENT, self.event),
            (SITE, self.site),
            (DATE, self.date),
            (ROUND, self.round),
            (WHITE, self.white),
            (BLACK, self.black),
            (RESULT, self.result),
        ]
    }

    /// The value of the tag `name` (one of the seven, exactly as [`SEVEN_TAG_ROSTER`] spells
    /// it); `None` for any other name.
    pub fn get(&self, name: &str) -> Option<&T> {
        match name {
            EVENT => self.event.as_ref(),
            SITE => self.site.as_ref(),
            DATE => self.date.as_ref(),
            ROUND => self.round.as_ref(),
            WHITE => self.white.as_ref(),
            BLACK => self.black.as_ref(),
            RESULT => self.result.as_ref(),
            _ => None,
        }
    }

    /// Each value changed by `f`; an absent one stays absent.
    pub fn map<U>(self, mut f: impl FnMut(T) -> Option<U>) -> Roster<U> {
        let mut pairs = self
            .into_pairs()
            .into_iter()
            .map(|(_, v)| v.and_then(&mut f));
        let mut next = || pairs.next().flatten();
        Roster {
            event: next(),
            site: next(),
            date: next(),
            round: next(),
            white: next(),
            black: next(),
            result: next(),
        }
    }

    /// The values by reference.
    pub fn as_ref(&self) -> Roster<&T> {
        Roster {
            event: self.event.as_ref(),
            site: self.site.as_ref(),
            date: self.date.as_ref(),
            round: self.round.as_ref(),
            white: self.white.as_ref(),
            black: self.black.as_ref(),
            result: self.result.as_ref(),
        }
    }
}

impl<'t> Roster<&'t str> {
    /// The roster of a list of tags: for each of the seven, the value of the first tag of
    /// that name, compared ignoring ASCII case.
    pub fn of_tags<K, V>(tags: &'t [(K, V)]) -> Roster<&'t str>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        Roster::from_fn(|name| {
            tags.iter()
                .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_ref())
        })
    }
}

impl<T: AsRef<str>> Roster<T> {
    /// The values as `&str`.
    pub fn as_deref(&self) -> Roster<&str> {
        self.as_ref().map(|v| Some(v.as_ref()))
    }
}

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
    fn roster_of_tags_takes_the_first_of_each_name_in_any_case() {
        let tags = [
            ("white", "Ana"),
            ("Event", "Cup"),
            ("White", "Bo"),
            ("Annotator", "X"),
            ("RESULT", "1-0"),
        ];
        let r = Roster::of_tags(&tags);
        assert_eq!(r.white, Some("Ana"));
        assert_eq!(r.event, Some("Cup"));
        assert_eq!(r.result, Some("1-0"));
        assert_eq!((r.site, r.date, r.round, r.black), (None, None, None, None));
        assert_eq!(r.get(WHITE), Some(&"Ana"));
        assert_eq!(r.get("Annotator"), None);
        let names: Vec<&str> = r.into_pairs().iter().map(|(n, _)| *n).collect();
        assert_eq!(names, SEVEN_TAG_ROSTER);
        let lengths = r.map(|v| (!v.contains('-')).then_some(v.len()));
        assert_eq!(lengths.white, Some(3));
        assert_eq!(lengths.event, Some(3));
        assert_eq!(lengths.result, None);
        assert_eq!(lengths.site, None);
        let owned = r.map(|v| Some(v.to_string()));
        assert_eq!(owned.as_deref(), r);
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
