//! Piece letters of other languages: the sets a record written in German, French, Russian...
//! names its pieces with.
//!
//! A set gives a letter to each chess role (king, queen, rook, bishop, knight, pawn). A variant
//! says which of its pieces plays each role (`role` in its definition: Shatranj's ferz is the
//! queen, its alfil the bishop); [`Variant::with_piece_letters`](crate::Variant::with_piece_letters)
//! then reads moves with the set's letters. A set is only ever chosen by the user
//! (`--piece-letters`): letters are never guessed.
//!
//! ```
//! use kabir_rules::letters::{self, Role};
//! let de = letters::find("de").unwrap();
//! assert_eq!(de.letter(Role::Knight), Some("S"));
//! assert_eq!(de.role_of('T'), Some(Role::Rook));
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// The part a piece plays for the letters of a language: the chess piece whose name it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The king.
    King,
    /// The queen (in the Shatranj family, the ferz or general it grew from).
    Queen,
    /// The rook.
    Rook,
    /// The bishop (in the Shatranj family, the alfil or elephant it grew from).
    Bishop,
    /// The knight.
    Knight,
    /// A pawn.
    Pawn,
}

impl Role {
    /// Every role, in the order sets list them.
    pub const ALL: [Role; 6] = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ];

    /// The role's English name (`knight`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Queen => "queen",
            Role::Rook => "rook",
            Role::Bishop => "bishop",
            Role::Knight => "knight",
            Role::Pawn => "pawn",
        }
    }

    /// The English chess letter of the role (`N`).
    pub fn english(self) -> char {
        match self {
            Role::King => 'K',
            Role::Queen => 'Q',
            Role::Rook => 'R',
            Role::Bishop => 'B',
            Role::Knight => 'N',
            Role::Pawn => 'P',
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One language's piece letters.
#[derive(Debug, PartialEq, Eq)]
pub struct PieceLetters {
    /// The code `--piece-letters` takes (ISO 639-1: `de`).
    pub code: &'static str,
    /// The language's English name (`German`).
    pub language: &'static str,
    /// Per role, the letter(s) and the word they stand for; `None` where the language writes
    /// no letter (pawns, mostly).
    pub letters: [(Role, Option<(&'static str, &'static str)>); 6],
}

/// Shorthand for the tables below.
const fn set(
    code: &'static str,
    language: &'static str,
    [k, q, r, b, n, p]: [Option<(&'static str, &'static str)>; 6],
) -> PieceLetters {
    PieceLetters {
        code,
        language,
        letters: [
            (Role::King, k),
            (Role::Queen, q),
            (Role::Rook, r),
            (Role::Bishop, b),
            (Role::Knight, n),
            (Role::Pawn, p),
        ],
    }
}

/// The sets kabir knows, by code.
pub static SETS: [PieceLetters; 9] = [
    set(
        "de",
        "German",
        [
            Some(("K", "König")),
            Some(("D", "Dame")),
            Some(("T", "Turm")),
            Some(("L", "Läufer")),
            Some(("S", "Springer")),
            Some(("B", "Bauer")),
        ],
    ),
    set(
        "fr",
        "French",
        [
            Some(("R", "roi")),
            Some(("D", "dame")),
            Some(("T", "tour")),
            Some(("F", "fou")),
            Some(("C", "cavalier")),
            Some(("P", "pion")),
        ],
    ),
    set(
        "es",
        "Spanish",
        [
            Some(("R", "rey")),
            Some(("D", "dama")),
            Some(("T", "torre")),
            Some(("A", "alfil")),
            Some(("C", "caballo")),
            Some(("P", "peón")),
        ],
    ),
    set(
        "it",
        "Italian",
        [
            Some(("R", "re")),
            Some(("D", "donna")),
            Some(("T", "torre")),
            Some(("A", "alfiere")),
            Some(("C", "cavallo")),
            Some(("P", "pedone")),
        ],
    ),
    set(
        "pt",
        "Portuguese",
        [
            Some(("R", "rei")),
            Some(("D", "dama")),
            Some(("T", "torre")),
            Some(("B", "bispo")),
            Some(("C", "cavalo")),
            Some(("P", "peão")),
        ],
    ),
    set(
        "nl",
        "Dutch",
        [
            Some(("K", "koning")),
            Some(("D", "dame")),
            Some(("T", "toren")),
            Some(("L", "loper")),
            Some(("P", "paard")),
            None,
        ],
    ),
    set(
        "sv",
        "Swedish",
        [
            Some(("K", "kung")),
            Some(("D", "dam")),
            Some(("T", "torn")),
            Some(("L", "löpare")),
            Some(("S", "springare")),
            Some(("B", "bonde")),
        ],
    ),
    set(
        "pl",
        "Polish",
        [
            Some(("K", "król")),
            Some(("H", "hetman")),
            Some(("W", "wieża")),
            Some(("G", "goniec")),
            Some(("S", "skoczek")),
            None,
        ],
    ),
    set(
        "ru",
        "Russian",
        [
            Some(("Кр", "король")),
            Some(("Ф", "ферзь")),
            Some(("Л", "ладья")),
            Some(("С", "слон")),
            Some(("К", "конь")),
            None,
        ],
    ),
];

/// The set with a code (`de`, case ignored), if kabir knows it.
pub fn find(code: &str) -> Option<&'static PieceLetters> {
    SETS.iter().find(|s| s.code.eq_ignore_ascii_case(code))
}

/// The codes of the known sets, for messages and `--help`.
pub fn codes() -> Vec<&'static str> {
    SETS.iter().map(|s| s.code).collect()
}

impl PieceLetters {
    /// The letter(s) of a role, if the language writes one.
    pub fn letter(&self, role: Role) -> Option<&'static str> {
        self.letters
            .iter()
            .find(|(r, _)| *r == role)
            .and_then(|(_, l)| l.map(|(text, _)| text))
    }

    /// The word a role's letter stands for (`Springer`).
    pub fn word(&self, role: Role) -> Option<&'static str> {
        self.letters
            .iter()
            .find(|(r, _)| *r == role)
            .and_then(|(_, l)| l.map(|(_, word)| word))
    }

    /// The role an uppercase ASCII letter of the set names, if any.
    pub fn role_of(&self, letter: char) -> Option<Role> {
        self.letters.iter().find_map(|&(role, l)| {
            l.filter(|(text, _)| text.len() == 1 && text.starts_with(letter))
                .map(|_| role)
        })
    }

    /// Whether some letter of the set is not ASCII: then moves are read through
    /// [`PieceLetters::transliterate`].
    pub fn has_wide_letters(&self) -> bool {
        self.letters
            .iter()
            .any(|(_, l)| l.is_some_and(|(text, _)| !text.is_ascii()))
    }

    /// The length in bytes of the set's letter beyond ASCII that `bytes` begin with (the
    /// longest, if several), or 0.
    pub fn wide_letter_len(&self, bytes: &[u8]) -> usize {
        self.wide_letter_at(bytes).map_or(0, |(len, _)| len)
    }

    /// The longest non-ASCII letter of the set at the start of `bytes`, and its role.
    fn wide_letter_at(&self, bytes: &[u8]) -> Option<(usize, Role)> {
        self.letters
            .iter()
            .filter_map(|&(role, l)| l.map(|(text, _)| (text, role)))
            .filter(|(text, _)| !text.is_ascii() && bytes.starts_with(text.as_bytes()))
            .max_by_key(|(text, _)| text.len())
            .map(|(text, role)| (text.len(), role))
    }

    /// A move written with the set's non-ASCII letters, in ASCII: each such letter, where a
    /// piece letter may stand (at the start, after `=`), becomes its role's English letter.
    /// `None` when the text holds other non-ASCII characters. Text already ASCII is returned
    /// unchanged.
    pub fn transliterate(&self, text: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            if text[i].is_ascii() {
                out.push(text[i]);
                i += 1;
                continue;
            }
            let letter_place = i == 0 || text[i - 1] == b'=';
            let (len, role) = self.wide_letter_at(&text[i..]).filter(|_| letter_place)?;
            out.push(role.english() as u8);
            i += len;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_gives_each_letter_one_role() {
        for set in &SETS {
            let mut seen = Vec::new();
            for (_, l) in set.letters {
                if let Some((text, _)) = l {
                    assert!(!seen.contains(&text), "{}: {text} twice", set.code);
                    seen.push(text);
                    assert!(
                        text.chars().next().is_some_and(char::is_uppercase),
                        "{}: {text}",
                        set.code
                    );
                }
            }
        }
        assert_eq!(codes().len(), SETS.len());
    }

    #[test]
    fn russian_letters_become_english_ones_where_a_piece_letter_stands() {
        let ru = find("RU").unwrap();
        assert!(ru.has_wide_letters());
        assert!(!find("de").unwrap().has_wide_letters());
        let t = |s: &str| {
            ru.transliterate(s.as_bytes())
                .map(|v| String::from_utf8(v).unwrap())
        };
        assert_eq!(t("Кf3").as_deref(), Some("Nf3"));
        assert_eq!(t("Крe2").as_deref(), Some("Ke2"));
        assert_eq!(t("Сxc6+").as_deref(), Some("Bxc6+"));
        assert_eq!(t("e8=Ф").as_deref(), Some("e8=Q"));
        assert_eq!(t("e4").as_deref(), Some("e4"));
        // A Cyrillic letter where no piece letter may stand is not a move.
        assert_eq!(t("eК4"), None);
        assert_eq!(t("Жf3"), None);
    }

    #[test]
    fn roles_of_ascii_letters() {
        let fr = find("fr").unwrap();
        assert_eq!(fr.role_of('F'), Some(Role::Bishop));
        assert_eq!(fr.role_of('R'), Some(Role::King));
        assert_eq!(fr.role_of('N'), None);
        assert_eq!(find("nl").unwrap().letter(Role::Pawn), None);
        assert_eq!(find("de").unwrap().word(Role::Knight), Some("Springer"));
        assert!(find("xx").is_none());
    }
}
