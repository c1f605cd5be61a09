//! Query string parameters: read strictly (an unknown or repeated name is an error, as a
//! misspelt option is on the command line) into the library's queries. The names are the
//! command line's long options without `--`; an empty value counts as absent, as an empty
//! form field sends it.

use std::sync::Arc;

use kabir_db::names;
use kabir_db::{GameFilter, GroupBy, ReportQuery, SortKey};
use kabir_rules::variants::Registry;
use kabir_rules::{Color, Move, Position, Variant};

use super::app::AppError;

/// The parameters of one request.
#[derive(Debug, Default)]
pub(crate) struct Params {
    pairs: Vec<(String, String)>,
}

/// The names taken by the conditions on games (search, stats and their API).
pub(crate) const FILTER: &[&str] = &[
    "player",
    "color",
    "event",
    "site",
    "from",
    "to",
    "result",
    "termination",
    "min-plies",
    "max-plies",
    "with",
    "promotion-to",
    "variant",
];

/// The conditions the explorer takes: a subset of [`FILTER`], with the same values.
pub(crate) const EXPLORE_FILTER: &[&str] =
    &["player", "color", "event", "site", "from", "to", "result"];

/// Names that may be given more than once.
const REPEATABLE: &[&str] = &["with"];

fn bad(text: String) -> AppError {
    AppError::BadRequest(text)
}

impl Params {
    /// Reads a query string, allowing the names in `known`.
    pub fn parse(query: Option<&str>, known: &[&[&str]]) -> Result<Params, AppError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            if !known.iter().any(|set| set.contains(&k.as_ref())) {
                let mut all: Vec<&str> = known.iter().flat_map(|s| s.iter().copied()).collect();
                all.sort_unstable();
                all.dedup();
                return Err(bad(format!(
                    "unknown parameter {k:?}; this page takes {}",
                    all.join(", ")
                )));
            }
            let v = v.trim();
            if v.is_empty() {
                continue;
            }
            // No text of a game file or a form holds one, and SQLite's full-text queries end
            // the text there: refused, rather than answered for a shorter text or failed.
            if v.contains('\0') {
                return Err(bad(format!(
                    "parameter {k:?}: a NUL character (%00) is not accepted in a value"
                )));
            }
            if !REPEATABLE.contains(&k.as_ref()) && pairs.iter().any(|(n, _)| *n == k) {
                return Err(bad(format!("parameter {k:?} is given more than once")));
            }
            pairs.push((k.into_owned(), v.to_string()));
        }
        Ok(Params { pairs })
    }

    /// Every non-empty parameter as given, unchecked: only for filling a form again beside the
    /// message that says what was wrong with it (the page escapes every value).
    pub fn lenient(query: Option<&str>) -> Params {
        let pairs = form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .map(|(k, v)| (k.into_owned(), v.trim().to_string()))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        Params { pairs }
    }

    /// Parameters already read, for filling a form again.
    pub fn from_pairs(pairs: &[(&str, String)]) -> Params {
        Params {
            pairs: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// The value of a parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The pairs given, in order, for links that keep them.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// A number within `range`.
    pub fn number<T>(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<Option<T>, AppError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let Some(v) = self.get(name) else {
            return Ok(None);
        };
        match v.parse::<T>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(bad(format!(
                "parameter {name}={v:?}: expected a whole number from {} to {}",
                range.start(),
                range.end()
            ))),
        }
    }

    /// A yes/no parameter: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`.
    pub fn flag(&self, name: &str) -> Result<bool, AppError> {
        match self.get(name).map(str::to_ascii_lowercase).as_deref() {
            None | Some("0" | "false" | "no" | "off") => Ok(false),
            Some("1" | "true" | "yes" | "on") => Ok(true),
            Some(v) => Err(bad(format!(
                "parameter {name}={v:?}: expected 1 or 0 (true or false)"
            ))),
        }
    }

    /// The variant named by `variant`, if given.
    pub fn variant(&self, registry: &Registry) -> Result<Option<Arc<Variant>>, AppError> {
        let Some(name) = self.get("variant") else {
            return Ok(None);
        };
        registry.find(name).cloned().map(Some).ok_or_else(|| {
            bad(format!(
                "unknown variant {name:?}; known variants: {}",
                registry.ids().join(", ")
            ))
        })
    }

    /// The library's conditions on games, from the [`FILTER`] names.
    pub fn filter(&self, registry: &Registry) -> Result<GameFilter, AppError> {
        let variant = self.variant(registry)?;
        let named =
            |name: &str, e: names::NameError, v: &str| bad(format!("parameter {name}={v:?}: {e}"));
        let color = match self.get("color").map(str::to_ascii_lowercase).as_deref() {
            None => None,
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            Some(v) => {
                return Err(bad(format!(
                    "parameter color={v:?}: expected white or black"
                )));
            }
        };
        if color.is_some() && self.get("player").is_none() {
            return Err(bad(format!(
                "parameter color needs player: choose a player to use 'Playing: {}'",
                if color == Some(Color::White) {
                    "White"
                } else {
                    "Black"
                }
            )));
        }
        let date = |name: &str| -> Result<Option<String>, AppError> {
            self.get(name)
                .map(|v| names::parse_date(v).map_err(|e| named(name, e, v)))
                .transpose()
        };
        let result = self
            .get("result")
            .map(|v| names::parse_result(v).map_err(|e| named("result", e, v)))
            .transpose()?;
        let end = self
            .get("termination")
            .map(|v| names::parse_termination(v).map_err(|e| named("termination", e, v)))
            .transpose()?;
        let special = self
            .all("with")
            .map(|v| names::parse_special(v).map_err(|e| named("with", e, v)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GameFilter {
            player: self.get("player").map(str::to_string),
            color,
            event: self.get("event").map(str::to_string),
            site: self.get("site").map(str::to_string),
            date_from: date("from")?,
            date_to: date("to")?,
            result,
            variant: variant.as_ref().map(|v| v.id().to_string()),
            end,
            min_plies: self.number("min-plies", 0..=u32::MAX)?,
            max_plies: self.number("max-plies", 0..=u32::MAX)?,
            special,
            promotion_to: self
                .get("promotion-to")
                .map(|p| {
                    let all: Vec<&Variant> = match &variant {
                        Some(v) => vec![v.as_ref()],
                        None => registry
                            .ids()
                            .iter()
                            .filter_map(|id| registry.find(id))
                            .map(|v| v.as_ref())
                            .collect(),
                    };
                    names::promotion_kind(&all, p).map_err(|e| named("promotion-to", e, p))
                })
                .transpose()?,
            opening: None,
            games: None,
        })
    }

    /// The explorer's conditions ([`EXPLORE_FILTER`]), for games of any variant: the position
    /// decides which.
    pub fn explore_filter(&self, registry: &Registry) -> Result<GameFilter, AppError> {
        Ok(GameFilter {
            variant: None,
            ..self.filter(registry)?
        })
    }

    /// The explorer's conditions as given, in the order of [`EXPLORE_FILTER`]: what its links
    /// carry.
    pub fn explore_filter_pairs(&self) -> Vec<(&'static str, String)> {
        EXPLORE_FILTER
            .iter()
            .filter_map(|&k| self.get(k).map(|v| (k, v.to_string())))
            .collect()
    }

    /// The position of `fen` (a position string, or an EPD line whose operations are ignored)
    /// and `moves` (played from the position string, or from the
    /// start), with the moves; the start position when neither is given.
    pub fn line(&self, variant: &Arc<Variant>) -> Result<Line, AppError> {
        let from = match self.get("fen") {
            Some(f) => kabir_rules::epd::read_position(variant, f).map_err(|e| {
                bad(format!(
                    "parameter fen={f:?}: not a position of {}: {e}",
                    variant.name()
                ))
            })?,
            None => Position::start(variant),
        };
        let (moves, position) = match self.get("moves") {
            Some(text) => kabir_notation::play_line(&from, text)
                .map_err(|e| bad(format!("parameter moves for {}: {e}", variant.name())))?,
            None => (Vec::new(), from.clone()),
        };
        Ok(Line {
            from,
            from_fen: self.get("fen").is_some(),
            moves,
            position,
        })
    }

    /// The report query of the stats names.
    pub fn report(&self, registry: &Registry) -> Result<ReportQuery, AppError> {
        let by = self
            .get("by")
            .map(|v| {
                GroupBy::parse(v).ok_or_else(|| {
                    bad(format!(
                        "parameter by={v:?}: expected variant, player, termination, year or opening"
                    ))
                })
            })
            .transpose()?;
        Ok(ReportQuery {
            filter: self.filter(registry)?,
            by,
            opening_plies: self
                .number("opening-plies", 0..=super::cost::MAX_OPENING_PLIES)?
                .unwrap_or(4),
            top: self.number("top", 0..=super::cost::MAX_TOP)?.unwrap_or(10),
        })
    }

    /// The order of a game list.
    pub fn sort(&self) -> Result<SortKey, AppError> {
        match self.get("sort") {
            None => Ok(SortKey::default()),
            Some(v) => SortKey::parse(v).ok_or_else(|| {
                bad(format!(
                    "parameter sort={v:?}: expected id, date, white, black, event, site, result or plies"
                ))
            }),
        }
    }
}

/// A position asked for, and how it was reached.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// The position the moves start from: the start position or `fen`.
    pub from: Position,
    /// Whether `from` was given as a position string.
    pub from_fen: bool,
    pub moves: Vec<Move>,
    /// The position after the moves.
    pub position: Position,
}

/// The names of the stats page and API.
pub(crate) const STATS: &[&str] = &["by", "opening-plies", "top"];
/// The names of a game list besides the conditions.
pub(crate) const SEARCH: &[&str] = &[
    "fen",
    "moves",
    "exact-order",
    "sort",
    "reverse",
    "limit",
    "offset",
];

/// The most games a list gives at once.
pub(crate) const MAX_LIMIT: usize = 1000;

/// A URL with query parameters, escaped.
pub(crate) fn url(path: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    let q = s.finish();
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{q}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<Params, AppError> {
        let known: &[&[&str]] = &[FILTER, SEARCH];
        Params::parse(Some(q), known)
    }

    #[test]
    fn strict_names_and_values() {
        assert!(
            matches!(parse("plyer=x"), Err(AppError::BadRequest(m)) if m.contains("\"plyer\""))
        );
        assert!(matches!(
            parse("player=a&player=b"),
            Err(AppError::BadRequest(_))
        ));
        let p = parse("player=&with=swap&with=lift&limit=5").unwrap();
        assert_eq!(p.get("player"), None);
        let r = Registry::builtin();
        assert_eq!(p.filter(&r).unwrap().special.len(), 2);
        assert_eq!(p.number("limit", 1..=10usize).unwrap(), Some(5));
        assert!(p.number("limit", 6..=10usize).is_err());
        assert!(parse("result=won").unwrap().filter(&r).is_err());
        assert!(parse("color=white").unwrap().filter(&r).is_err());
        assert!(parse("variant=chess").unwrap().filter(&r).is_err());
        let f = parse("variant=tamerlane&promotion-to=v&result=draw&to=1999")
            .unwrap()
            .filter(&r)
            .unwrap();
        assert_eq!(f.promotion_to.as_deref(), Some("vizir"));
        for bad in [
            "promotion-to=Q&variant=tamerlane",
            "promotion-to=%3Cscript%3E",
        ] {
            let e = parse(bad).unwrap().filter(&r).unwrap_err();
            assert!(
                matches!(&e, AppError::BadRequest(m) if m.contains("promotion-to")),
                "{bad}: {e:?}"
            );
        }
        assert_eq!(f.result, Some(kabir_rules::GameResult::Draw));
        assert_eq!(f.date_to.as_deref(), Some("1999"));
    }

    #[test]
    fn lines_from_the_start_or_a_position() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let l = parse("moves=e3+e6").unwrap().line(&v).unwrap();
        assert_eq!(l.moves.len(), 2);
        assert!(!l.from_fen);
        assert!(parse("moves=e3+e9").unwrap().line(&v).is_err());
        assert!(parse("fen=xyz").unwrap().line(&v).is_err());
        assert_eq!(
            url("/explore", &[("moves", "e3 Nf3+"), ("v", "a&b")]),
            "/explore?moves=e3+Nf3%2B&v=a%26b"
        );
    }
}
