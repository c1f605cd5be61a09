//! Query values as people write them: results (`white`, `1-0`), dates, ways a game ended,
//! special moves and promotion pieces. The command line and the web server read them with
//! these functions, so both accept the same words.

use kabir_rules::{GameResult, Variant};

use crate::read::query::Special;
use crate::write::record::GameEnd;

/// A query value that is not one of the accepted words; the message says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Not a result ([`parse_result`]).
    #[error("expected 1-0, 0-1, 1/2-1/2, * (or white, black, draw, unfinished)")]
    Result,
    /// Not a date of the accepted forms ([`parse_date`]).
    #[error("expected YYYY, YYYY.MM or YYYY.MM.DD")]
    Date,
    /// A date whose month is not 01 to 12.
    #[error("{date} is not a date: there is no month {month:02} (01 to 12)")]
    Month {
        /// The date, with `.` between its parts.
        date: String,
        /// Its month.
        month: u32,
    },
    /// A date whose day is not in its month.
    #[error("{date} is not a date: month {month:02} of {year:04} has days 01 to {days}")]
    Day {
        /// The date, with `.` between its parts.
        date: String,
        /// Its year.
        year: u32,
        /// Its month, 1 to 12.
        month: u32,
        /// The days of that month in that year.
        days: u32,
    },
    /// Not a way a game ends ([`parse_termination`]).
    #[error("expected one of checkmate, stalemate, bare-king, citadel-draw, other")]
    Termination,
    /// Not a special move ([`parse_special`]).
    #[error(
        "expected one of swap, lift, relocation, promotion, arrival, adventitious-king, \
         citadel-draw"
    )]
    Special,
    /// Not a piece kind's id or letter ([`promotion_kind`]).
    #[error("{text:?} is not a piece: expected a piece's id or letter, one of {accepted}")]
    Promotion {
        /// The text given.
        text: String,
        /// The kinds accepted, as `id (letter)`.
        accepted: String,
    },
    /// A letter that names different kinds in the variants searched.
    #[error(
        "the letter {text:?} names different pieces in different variants ({kinds}): give the \
         piece's id, or choose a variant"
    )]
    PromotionLetter {
        /// The letter given.
        text: String,
        /// The ids of the kinds it names.
        kinds: String,
    },
}

/// A result, from its text (`1-0`, `0-1`, `1/2-1/2`, `*`) or `white`, `black`, `draw`,
/// `unfinished` (any case).
pub fn parse_result(text: &str) -> Result<GameResult, NameError> {
    match text.to_ascii_lowercase().as_str() {
        "1-0" | "white" => Ok(GameResult::WhiteWins),
        "0-1" | "black" => Ok(GameResult::BlackWins),
        "1/2-1/2" | "draw" | "½-½" => Ok(GameResult::Draw),
        "*" | "unfinished" => Ok(GameResult::Unknown),
        _ => Err(NameError::Result),
    }
}

/// A date bound in the `Date` tag's form: `YYYY`, `YYYY.MM` or `YYYY.MM.DD`, with `-` or `/`
/// accepted between the parts; a month or day must exist in the Gregorian calendar (leap
/// years included).
pub fn parse_date(text: &str) -> Result<String, NameError> {
    let d = text.replace(['-', '/'], ".");
    let parts: Vec<&str> = d.split('.').collect();
    let ok = matches!(parts.len(), 1..=3)
        && parts[0].len() == 4
        && parts[1..].iter().all(|p| p.len() == 2)
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return Err(NameError::Date);
    }
    let number = |i: usize| parts.get(i).and_then(|p| p.parse::<u32>().ok());
    let year = number(0).unwrap_or(0);
    if let Some(month) = number(1) {
        if !(1..=12).contains(&month) {
            return Err(NameError::Month { date: d, month });
        }
        if let Some(day) = number(2) {
            let days = days_in_month(year, month);
            if !(1..=days).contains(&day) {
                return Err(NameError::Day {
                    date: d,
                    year,
                    month,
                    days,
                });
            }
        }
    }
    Ok(d)
}

/// The number of days of a month (1 to 12) of a year in the Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The names of the ways a game ends, as options and parameters write them.
const TERMINATIONS: [(&str, GameEnd); 5] = [
    ("checkmate", GameEnd::Checkmate),
    ("stalemate", GameEnd::Stalemate),
    ("bare-king", GameEnd::BareKing),
    ("citadel-draw", GameEnd::CitadelDraw),
    ("other", GameEnd::Other),
];

/// A way a game ended, by its name: `checkmate`, `stalemate`, `bare-king`, `citadel-draw` or
/// `other` (or as stored and displayed: `bare king`, `citadel draw`).
pub fn parse_termination(text: &str) -> Result<GameEnd, NameError> {
    TERMINATIONS
        .iter()
        .find(|(n, _)| *n == text)
        .map(|&(_, e)| e)
        .or_else(|| GameEnd::parse(text))
        .ok_or(NameError::Termination)
}

/// The name [`parse_termination`] reads.
pub fn termination_name(end: GameEnd) -> &'static str {
    TERMINATIONS
        .iter()
        .find(|(_, e)| *e == end)
        .map_or("other", |(n, _)| n)
}

const SPECIALS: [(&str, Special); 7] = [
    ("swap", Special::Swap),
    ("lift", Special::Lift),
    ("relocation", Special::Relocation),
    ("promotion", Special::Promotion),
    ("arrival", Special::Arrival),
    ("adventitious-king", Special::AdventitiousKing),
    ("citadel-draw", Special::CitadelEntry),
];

/// A special move by its name: `swap`, `lift`, `relocation`, `promotion`, `arrival` (of the
/// pawn of pawns), `adventitious-king` or `citadel-draw` (a royal piece entering the enemy
/// citadel).
pub fn parse_special(text: &str) -> Result<Special, NameError> {
    SPECIALS
        .iter()
        .find(|(n, _)| *n == text)
        .map(|&(_, s)| s)
        .ok_or(NameError::Special)
}

/// The name [`parse_special`] reads.
pub fn special_name(special: Special) -> &'static str {
    SPECIALS
        .iter()
        .find(|(_, s)| *s == special)
        .map_or("swap", |(n, _)| n)
}

/// A name as matched by searches: Unicode lowercase, then the compatibility decomposition
/// (NFKD) with its combining marks left out, so that `ÑÚÑEZ`, `Ñúñez` and `nunez`, or
/// `ΣΩΚΡΆΤΗΣ` and `σωκράτης`, fold alike. Two letters whose lowercase is not their case
/// folding are folded as Unicode's case folding does: the final sigma `ς` to `σ` (it only
/// ends a word, and a part of a name may end anywhere) and `ß` to `ss`. Letters that carry no
/// mark in Unicode (`ø`, `ł`, `đ`) stay themselves: `ørjan` finds `Ørjan`, `orjan` does not.
/// Searches fold the stored names and the text asked for with this same function.
pub fn fold_name(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut out = String::with_capacity(text.len());
    for c in text
        .to_lowercase()
        .nfkd()
        .filter(|&c| !is_combining_mark(c))
    {
        match c {
            'ς' => out.push('σ'),
            'ß' => out.push_str("ss"),
            c => out.push(c),
        }
    }
    out
}

/// A promotion piece for [`GameFilter::promotion_to`](crate::GameFilter): a piece kind's id
/// (`vizir`, any case) or its letter (`V`, any case), among the kinds of `variants` (the
/// variant chosen, or every known variant when none is). A letter that names different kinds
/// in different variants, or a text that names no kind, is refused with what is accepted.
pub fn promotion_kind(variants: &[&Variant], text: &str) -> Result<String, NameError> {
    let kinds = || variants.iter().flat_map(|v| v.kinds().iter());
    if let Some(k) = kinds().find(|k| k.id.eq_ignore_ascii_case(text)) {
        return Ok(k.id.clone());
    }
    let symbol = text.to_uppercase();
    let mut ids: Vec<String> = kinds()
        .filter(|k| k.symbol == symbol || k.aliases.contains(&symbol))
        .map(|k| k.id.clone())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.len() {
        1 => Ok(ids.remove(0)),
        0 => {
            let mut accepted: Vec<String> = kinds()
                // The states of the pawn of pawns (`pawn-of-pawns'`) share its letter and are
                // stored under their base kind's id: only the base is worth listing.
                .filter(|k| !k.id.ends_with('\''))
                // Letters differ from variant to variant: listed only for one.
                .map(|k| match variants {
                    [_] => format!("{} ({})", k.id, k.symbol),
                    _ => k.id.clone(),
                })
                .collect();
            accepted.sort_unstable();
            accepted.dedup();
            Err(NameError::Promotion {
                text: text.to_string(),
                accepted: accepted.join(", "),
            })
        }
        _ => Err(NameError::PromotionLetter {
            text: text.to_string(),
            kinds: ids.join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fold_case_and_marks_for_every_script() {
        for (stored, asked) in [
            ("Ørjan Olsen", "ørjan"),
            ("Ñúñez", "Nunez"),
            ("ΣΩΚΡΆΤΗΣ", "σωκράτης"),
            ("σωκράτης", "ΣΩΚΡΆΤΗΣ"),
            ("ИВАНОВ", "иванов"),
            ("Straße", "STRASSE"),
            ("İstanbul", "istanbul"),
        ] {
            assert!(
                fold_name(stored).contains(&fold_name(asked)),
                "{stored} {asked}"
            );
        }
        assert!(!fold_name("Ørjan").contains(&fold_name("orjan")));
        assert_eq!(fold_name("ﬁscher"), "fischer");
    }

    #[test]
    fn words_and_their_values() {
        assert_eq!(parse_result("White"), Ok(GameResult::WhiteWins));
        assert_eq!(parse_result("½-½"), Ok(GameResult::Draw));
        assert_eq!(parse_result("won"), Err(NameError::Result));
        assert_eq!(parse_date("1999-03"), Ok("1999.03".into()));
        assert_eq!(parse_date("99.03"), Err(NameError::Date));
        assert_eq!(parse_date("1999.3"), Err(NameError::Date));
        for (name, end) in TERMINATIONS {
            assert_eq!(parse_termination(name), Ok(end));
            assert_eq!(termination_name(end), name);
        }
        for (name, s) in SPECIALS {
            assert_eq!(parse_special(name), Ok(s));
            assert_eq!(special_name(s), name);
        }
        assert!(parse_special("castle").is_err());
        let t = kabir_rules::variants::builtin("tamerlane").unwrap();
        assert_eq!(promotion_kind(&[&t], "v").as_deref(), Ok("vizir"));
        assert_eq!(promotion_kind(&[&t], "Vizir").as_deref(), Ok("vizir"));
        let unknown = promotion_kind(&[&t], "Q").unwrap_err().to_string();
        assert!(
            unknown.contains("\"Q\"") && unknown.contains("vizir (V)"),
            "{unknown}"
        );
        assert!(!unknown.contains("pawn-of-pawns'"), "{unknown}");
        assert!(promotion_kind(&[&t], "<script>").is_err());
        let all = kabir_rules::variants::builtins();
        let all: Vec<&Variant> = all.iter().map(|v| v.as_ref()).collect();
        assert_eq!(promotion_kind(&all, "ferz").as_deref(), Ok("ferz"));
        assert!(promotion_kind(&all, "xyz").is_err());
    }
}
