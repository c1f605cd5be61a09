//! Arguments and helpers shared by the commands that read a database: `search`, `explore`,
//! `stats`, `export` and `show`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use kabir::db::{Database, DbError, GameAnswerError, GameEnd, GameFilter, Special, names};
use kabir::rules::letters::PieceLetters;
use kabir::rules::{Color, GameResult, Move, Position, Variant};
use kabir::variants::Registry;

use super::args::VariantArgs;

/// The database to read.
#[derive(Debug, Clone, Args)]
pub struct DbArgs {
    /// The database file (made by `kabir import`); never created by this command.
    #[arg(
        long,
        env = "KABIR_DB",
        default_value = "kabir.db",
        value_name = "PATH"
    )]
    pub db: PathBuf,
}

impl DbArgs {
    /// Opens the database read-only; a missing file is an error and is not created.
    pub fn open(&self) -> Result<Database> {
        // The error names the file.
        Database::open(&self.db).map_err(|e| {
            let e = match e {
                DbError::NotFound { .. } => {
                    anyhow::anyhow!("{e} (make one with `kabir import --db PATH FILE...`)")
                }
                e => anyhow::Error::new(e),
            };
            e.context("cannot open the database")
        })
    }
}

/// A stored game that cannot be shown, in the command line's words: an unknown variant
/// names the option that gives one.
pub fn stored_game_error(e: GameAnswerError) -> anyhow::Error {
    match e {
        GameAnswerError::UnknownVariant { id, variant } => anyhow::anyhow!(
            "game {id}: its variant {variant:?} is not known here; give --variant-file"
        ),
        e => anyhow::Error::new(e),
    }
}

/// The message for a database without games.
pub fn empty_message(db: &DbArgs) -> String {
    format!(
        "the database {} holds no games (add some with `kabir import`)",
        db.db.display()
    )
}

/// `--variant` where it names the variant of a position (explore).
pub const POSITION_VARIANT: &str = "The variant of the position (--fen, --moves or the start \
     position): name or alias (see `kabir variants`); by default the database's only variant";
/// `--variant-file` where it names the variant of a position (explore).
pub const POSITION_VARIANT_FILE: &str = "A variant definition file (TOML) for a variant that \
     is not built in: the variant of the position, as --variant";

/// `--variant` where it keeps the games of a variant (stats).
pub const FILTER_VARIANT: &str = "Only games of this variant: name or alias (see `kabir \
     variants`); also the variant whose letters --promotion-to may use";
/// `--variant` where it keeps the games of a variant and reads a position (search, export).
pub const LINE_VARIANT: &str = "Only games of this variant: name or alias (see `kabir \
     variants`); also the variant of --fen and --moves (by default the database's only \
     variant) and whose letters --promotion-to may use";
/// `--variant-file` where it keeps the games of a variant.
pub const FILTER_VARIANT_FILE: &str = "A variant definition file (TOML) for a variant that is \
     not built in: only games of it, as --variant, and stored games of it can be replayed";

/// A colour, for `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    White,
    Black,
}

/// A way a game ended, for `--termination`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EndArg {
    Checkmate,
    Stalemate,
    BareKing,
    CitadelDraw,
    Other,
}

impl EndArg {
    fn end(self) -> GameEnd {
        match self {
            EndArg::Checkmate => GameEnd::Checkmate,
            EndArg::Stalemate => GameEnd::Stalemate,
            EndArg::BareKing => GameEnd::BareKing,
            EndArg::CitadelDraw => GameEnd::CitadelDraw,
            EndArg::Other => GameEnd::Other,
        }
    }
}

/// A special move a game must contain, for `--with`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpecialArg {
    /// A king swap.
    Swap,
    /// A lift of the pawn of pawns.
    Lift,
    /// A relocation of the pawn of pawns.
    Relocation,
    /// A promotion (the pawn of pawns' arrivals not included).
    Promotion,
    /// An arrival of the pawn of pawns on its last rank.
    Arrival,
    /// An adventitious king.
    AdventitiousKing,
    /// The game ended by a royal piece entering the enemy citadel.
    CitadelDraw,
}

impl SpecialArg {
    fn special(self) -> Special {
        match self {
            SpecialArg::Swap => Special::Swap,
            SpecialArg::Lift => Special::Lift,
            SpecialArg::Relocation => Special::Relocation,
            SpecialArg::Promotion => Special::Promotion,
            SpecialArg::Arrival => Special::Arrival,
            SpecialArg::AdventitiousKing => Special::AdventitiousKing,
            SpecialArg::CitadelDraw => Special::CitadelEntry,
        }
    }
}

fn parse_result(s: &str) -> Result<GameResult, String> {
    names::parse_result(s).map_err(|e| e.to_string())
}

/// A date for `--from` and `--to`: `YYYY`, `YYYY.MM` or `YYYY.MM.DD` (`-` or `/` may stand
/// for `.`), a real calendar date (Gregorian, leap years included), in the form the Date tag
/// is compared in.
fn parse_date(s: &str) -> Result<String, String> {
    names::parse_date(s).map_err(|e| e.to_string())
}

/// Conditions on the games, shared by `search`, `stats` and `export`.
#[derive(Debug, Clone, Args)]
pub struct FilterArgs {
    /// Games of this player (part of the White or Black tag, any case).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// With --player: only games where the player had this colour.
    #[arg(long, value_enum, requires = "player")]
    pub color: Option<ColorArg>,
    /// Games whose Event tag contains this (any case).
    #[arg(long, value_name = "TEXT")]
    pub event: Option<String>,
    /// Games whose Site tag contains this (any case).
    #[arg(long, value_name = "TEXT")]
    pub site: Option<String>,
    /// Games played on or after this date (YYYY, YYYY.MM or YYYY.MM.DD).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub from: Option<String>,
    /// Games played on or before this date (YYYY, YYYY.MM or YYYY.MM.DD; a year or month
    /// includes all of it).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub to: Option<String>,
    /// Games with this result: 1-0, 0-1, 1/2-1/2, * (or white, black, draw, unfinished).
    #[arg(long, value_parser = parse_result)]
    pub result: Option<GameResult>,
    /// Games that ended this way (by the rules; `other` is resignation, agreement, time or
    /// unfinished).
    #[arg(long, value_enum)]
    pub termination: Option<EndArg>,
    /// Games of at least this many plies.
    #[arg(long, value_name = "N")]
    pub min_plies: Option<u32>,
    /// Games of at most this many plies.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<u32>,
    /// Games containing this special move (repeat for several; all must be present).
    #[arg(long = "with", value_enum, value_name = "MOVE")]
    pub with: Vec<SpecialArg>,
    /// Games with a promotion to this piece: its id, such as `vizir`, or its letter (of the
    /// --variant given, or of any variant).
    #[arg(long, value_name = "PIECE")]
    pub promotion_to: Option<String>,
    #[command(flatten)]
    pub variant: VariantArgs,
}

/// The conditions the explorer takes: who played, where, when and how it ended. The names
/// and values are those of `search`, `stats` and `export`.
#[derive(Debug, Clone, Args)]
pub struct ExploreFilterArgs {
    /// Count only games of this player (part of the White or Black tag, any case).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// With --player: only games where the player had this colour.
    #[arg(long, value_enum, requires = "player")]
    pub color: Option<ColorArg>,
    /// Count only games whose Event tag contains this (any case).
    #[arg(long, value_name = "TEXT")]
    pub event: Option<String>,
    /// Count only games whose Site tag contains this (any case).
    #[arg(long, value_name = "TEXT")]
    pub site: Option<String>,
    /// Count only games played on or after this date (YYYY, YYYY.MM or YYYY.MM.DD).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub from: Option<String>,
    /// Count only games played on or before this date (YYYY, YYYY.MM or YYYY.MM.DD; a year
    /// or month includes all of it).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub to: Option<String>,
    /// Count only games with this result: 1-0, 0-1, 1/2-1/2, * (or white, black, draw,
    /// unfinished).
    #[arg(long, value_parser = parse_result)]
    pub result: Option<GameResult>,
}

impl ExploreFilterArgs {
    /// The library's filter.
    pub fn filter(&self) -> GameFilter {
        GameFilter {
            player: self.player.clone(),
            color: self.color.map(|c| match c {
                ColorArg::White => Color::White,
                ColorArg::Black => Color::Black,
            }),
            event: self.event.clone(),
            site: self.site.clone(),
            date_from: self.from.clone(),
            date_to: self.to.clone(),
            result: self.result,
            ..GameFilter::default()
        }
    }
}

impl FilterArgs {
    /// The variant asked for, if any.
    pub fn variant(&self) -> Result<Option<Arc<Variant>>> {
        if self.variant.variant.is_none() && self.variant.variant_file.is_none() {
            return Ok(None);
        }
        self.variant.resolve(None).map(Some)
    }

    /// The registry of variants for replaying stored games: the built-ins and the file given.
    pub fn registry(&self) -> Result<Registry> {
        self.variant.registry()
    }

    /// The library's filter.
    pub fn filter(&self) -> Result<GameFilter> {
        let variant = self.variant()?;
        let promotion_to = match self.promotion_to.as_deref() {
            None => None,
            Some(p) => {
                let registry;
                let all: Vec<&Arc<Variant>> = match &variant {
                    Some(v) => vec![v],
                    None => {
                        registry = self.registry()?;
                        registry
                            .ids()
                            .iter()
                            .filter_map(|id| registry.find(id))
                            .collect()
                    }
                };
                let all: Vec<&Variant> = all.into_iter().map(|v| v.as_ref()).collect();
                let kind = names::promotion_kind(&all, p)
                    .map_err(|e| anyhow::anyhow!("--promotion-to: {e}"))?;
                Some(kind)
            }
        };
        Ok(GameFilter {
            player: self.player.clone(),
            color: self.color.map(|c| match c {
                ColorArg::White => Color::White,
                ColorArg::Black => Color::Black,
            }),
            event: self.event.clone(),
            site: self.site.clone(),
            date_from: self.from.clone(),
            date_to: self.to.clone(),
            result: self.result,
            variant: variant.map(|v| v.id().to_string()),
            end: self.termination.map(EndArg::end),
            min_plies: self.min_plies,
            max_plies: self.max_plies,
            special: self.with.iter().map(|s| s.special()).collect(),
            promotion_to,
            opening: None,
            games: None,
        })
    }
}

/// A position given as a position string or as moves from the start.
#[derive(Debug, Clone, Args)]
pub struct LineArgs {
    /// The position, as a position string (FEN) of the variant.
    #[arg(long, value_name = "POSITION", conflicts_with = "moves")]
    pub fen: Option<String>,
    /// The position after these moves from the variant's start position, such as
    /// "e3 e6 Nf3" (SAN or coordinates; move numbers allowed).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,
    #[command(flatten)]
    pub letters: super::args::PieceLettersArgs,
}

impl LineArgs {
    pub fn is_given(&self) -> bool {
        self.fen.is_some() || self.moves.is_some()
    }

    /// The position and, for --moves, the moves; the start position when neither is given.
    pub fn position(&self, variant: &Arc<Variant>) -> Result<(Position, Option<Vec<Move>>)> {
        if let Some(fen) = &self.fen {
            return Ok((super::args::position(variant, Some(fen))?, None));
        }
        match &self.moves {
            Some(text) => {
                let (start, text) = match self.letters.piece_letters {
                    Some(set) => {
                        let reading = Arc::new(variant.with_piece_letters(set));
                        (Position::start(&reading), transliterate(set, text))
                    }
                    None => (Position::start(variant), text.clone()),
                };
                let (moves, pos) = kabir::notation::play_line(&start, &text)
                    .with_context(|| format!("bad --moves for {}", variant.name()))?;
                // The position of the variant itself, as stored games have it.
                let pos = match self.letters.piece_letters {
                    Some(_) => moves
                        .iter()
                        .fold(Position::start(variant), |p, &m| p.after(m)),
                    None => pos,
                };
                Ok((pos, Some(moves)))
            }
            None => Ok((Position::start(variant), None)),
        }
    }
}

/// A line of moves written with a set's letters beyond ASCII (Russian), in ASCII; each word
/// that is not a move so written is kept as it is.
fn transliterate(set: &PieceLetters, text: &str) -> String {
    if !set.has_wide_letters() {
        return text.to_string();
    }
    text.split_whitespace()
        .map(|word| {
            set.transliterate(word.as_bytes())
                .and_then(|b| String::from_utf8(b).ok())
                .unwrap_or_else(|| word.to_string())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The variant a position belongs to: the one asked for, or the database's only variant.
pub fn position_variant(db: &Database, variant: Option<Arc<Variant>>) -> Result<Arc<Variant>> {
    if let Some(v) = variant {
        return Ok(v);
    }
    let names = db.variants()?;
    match names.as_slice() {
        [one] => Ok(kabir::variants::builtin(one).with_context(|| {
            format!("the database's games are of variant {one:?}; give --variant-file")
        })?),
        [] => bail!("the database holds no games; give --variant to read a position"),
        many => bail!(
            "the database holds games of several variants ({}): choose one with --variant",
            many.join(", ")
        ),
    }
}

/// A table with a header row, drawn in the style of the other commands. Text from the games
/// is shown with its control characters escaped.
pub fn table(header: &[&str], rows: Vec<Vec<String>>) -> tabled::Table {
    let mut b = tabled::builder::Builder::default();
    b.push_record(header.iter().map(|s| s.to_string()));
    for r in rows {
        b.push_record(
            r.into_iter()
                .map(|cell| kabir::render::printable(&cell).into_owned()),
        );
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::rounded());
    t
}

/// A percentage for a table: one decimal.
pub fn pct(p: f64) -> String {
    format!("{p:.1}%")
}

/// An optional tag value for a table or CSV: empty when missing.
pub fn text(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_calendar_dates() {
        for ok in [
            "2021",
            "2021.03",
            "2021-03-31",
            "2020.02.29",
            "2000/02/29",
            "0850.12.31",
        ] {
            assert!(parse_date(ok).is_ok(), "{ok}");
        }
        assert_eq!(parse_date("2021-03-05").unwrap(), "2021.03.05");
        for bad in [
            "2021.13.45",
            "2021.13",
            "2021.00",
            "2021.02.29",
            "1900.02.29",
            "2021.02.30",
            "2021.04.31",
            "2021.01.00",
            "2021.1",
            "21",
            "2021.ab",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
        assert!(
            parse_date("2021.13.45")
                .unwrap_err()
                .contains("no month 13")
        );
        assert!(
            parse_date("2021.02.30")
                .unwrap_err()
                .contains("days 01 to 28")
        );
    }

    /// The options' values are the names the library (and so `kabir serve`) reads.
    #[test]
    fn option_values_are_the_library_names() {
        for a in EndArg::value_variants() {
            let name = a.to_possible_value().unwrap();
            assert_eq!(names::parse_termination(name.get_name()), Ok(a.end()));
        }
        for a in SpecialArg::value_variants() {
            let name = a.to_possible_value().unwrap();
            assert_eq!(names::parse_special(name.get_name()), Ok(a.special()));
        }
    }
}
