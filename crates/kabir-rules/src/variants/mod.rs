//! The built-in variant definitions and loading of user definition files.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::letters::PieceLetters;
use crate::{Variant, VariantDef};

/// A built-in definition: its id and its TOML text.
const BUILTIN: &[(&str, &str)] = &[
    ("shatranj", include_str!("defs/shatranj.toml")),
    (
        "knavish-shatranj",
        include_str!("defs/knavish-shatranj.toml"),
    ),
    ("tamerlane", include_str!("defs/tamerlane.toml")),
    (
        "grand-shatranj-nw",
        include_str!("defs/grand-shatranj-nw.toml"),
    ),
    (
        "tamerlane-greenwood-1",
        include_str!("defs/tamerlane-greenwood-1.toml"),
    ),
    (
        "tamerlane-greenwood-2",
        include_str!("defs/tamerlane-greenwood-2.toml"),
    ),
    (
        "tamerlane-greenwood-3",
        include_str!("defs/tamerlane-greenwood-3.toml"),
    ),
    (
        "tamerlane-greenwood-4",
        include_str!("defs/tamerlane-greenwood-4.toml"),
    ),
    (
        "tamerlane-greenwood-5",
        include_str!("defs/tamerlane-greenwood-5.toml"),
    ),
    ("chaturanga", include_str!("defs/chaturanga.toml")),
    ("courier", include_str!("defs/courier.toml")),
];

/// Why a variant could not be found or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No variant has this name.
    #[error("unknown variant {name:?}; known variants: {}", known.join(", "))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The ids of the variants there are, to suggest instead.
        known: Vec<String>,
    },
    /// Two variants of a registry answer to the same name (id, display name, alias or a name
    /// other programs give it, compared as [`Registry::find`] compares them).
    #[error("variant {second}: the name {name:?} is already variant {first}'s")]
    SharedName {
        /// The name, as the second variant writes it.
        name: String,
        /// The id of the variant that has it first.
        first: String,
        /// The id of the variant that has it too.
        second: String,
    },
    /// A definition file could not be read, is larger than 1 MiB, or is not UTF-8.
    #[error("cannot read variant file {path}: {source}")]
    Io {
        /// The file's path.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The text is not TOML, or not of the definition format (an unknown or missing field).
    #[error("variant file {path}: {message}")]
    Syntax {
        /// Where the text came from: a file path, or a name for a built-in definition.
        path: String,
        /// The TOML reader's message.
        message: String,
    },
    /// The definition was read but refused by [`Variant::new`](crate::Variant::new).
    #[error("variant file {path}: {source}")]
    Invalid {
        /// Where the text came from: a file path, or a name for a built-in definition.
        path: String,
        /// Why the definition was refused.
        source: crate::VariantError,
    },
}

/// Reads a definition from TOML text; `origin` names it in errors.
pub fn parse_definition(text: &str, origin: &str) -> Result<VariantDef, LoadError> {
    toml::from_str(text).map_err(|e| LoadError::Syntax {
        path: origin.to_string(),
        message: e.to_string(),
    })
}

/// Builds a variant from TOML text.
pub fn from_toml(text: &str, origin: &str) -> Result<Arc<Variant>, LoadError> {
    let def = parse_definition(text, origin)?;
    Variant::new(def)
        .map(Arc::new)
        .map_err(|source| LoadError::Invalid {
            path: origin.to_string(),
            source,
        })
}

/// Loads a user's variant definition file.
pub fn load_file(path: &Path) -> Result<Arc<Variant>, LoadError> {
    let io = |source| LoadError::Io {
        path: path.display().to_string(),
        source,
    };
    let bytes = crate::limits::read_whole(path, crate::limits::VARIANT_DEFINITION).map_err(io)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the file is not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            ),
        ))
    })?;
    from_toml(&text, &path.display().to_string())
}

/// The ids of the built-in variants.
pub fn builtin_ids() -> Vec<String> {
    BUILTIN.iter().map(|(id, _)| id.to_string()).collect()
}

/// The built-in variants' definitions as written, without building their move tables:
/// enough to list their names, descriptions and start positions at no cost.
pub fn builtin_definitions() -> Vec<VariantDef> {
    BUILTIN
        .iter()
        .filter_map(|(id, text)| parse_definition(text, id).ok())
        .collect()
}

/// All built-in variants.
pub fn builtins() -> Vec<Arc<Variant>> {
    BUILTIN
        .iter()
        .filter_map(|(id, text)| from_toml(text, &format!("built-in {id}")).ok())
        .collect()
}

/// Every name a definition answers to, as written and folded, without repeats: its id,
/// display name, aliases and the names other programs give it.
fn all_names(def: &VariantDef) -> impl Iterator<Item = (&str, String)> {
    let mut seen = std::collections::HashSet::new();
    [def.id.as_str(), def.name.as_str()]
        .into_iter()
        .chain(def.aliases.iter().map(String::as_str))
        .chain(def.names.iter())
        .map(|n| (n, fold(n)))
        .filter(move |(_, folded)| seen.insert(folded.clone()))
}

/// Folds a name for matching: lowercase, without spaces, hyphens, underscores or apostrophes.
fn fold(name: &str) -> String {
    folded(name).collect()
}

/// The characters of `name` folded (see [`fold`]).
fn folded(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\'' | '\u{2019}'))
        .flat_map(char::to_lowercase)
}

/// Whether `name` folds to `folded_name` (`fold(name) == folded_name`).
fn folds_to(name: &str, folded_name: &str) -> bool {
    folded(name).eq(folded_name.chars())
}

/// [`folded`] of an ASCII `name` into `buf`, as bytes; `None` for a name that is not ASCII
/// or would not fit. For ASCII, folding is dropping the separators and lowercasing, and the
/// folded text's bytes equal another's exactly when its characters do.
fn fold_ascii<'a>(name: &str, buf: &'a mut [u8; 64]) -> Option<&'a [u8]> {
    if !name.is_ascii() {
        return None;
    }
    let mut len = 0;
    for b in name.bytes() {
        if matches!(b, b' ' | b'-' | b'_' | b'\'') {
            continue;
        }
        *buf.get_mut(len)? = b.to_ascii_lowercase();
        len += 1;
    }
    buf.get(..len)
}

/// A built-in variant by id, display name or alias (case-insensitive, ignoring spaces,
/// hyphens and underscores), as [`Registry::find`] matches them.
pub fn builtin(name: &str) -> Result<Arc<Variant>, LoadError> {
    let registry = Registry::builtin();
    registry
        .find(name)
        .cloned()
        .ok_or_else(|| LoadError::Unknown {
            name: name.to_string(),
            known: registry.ids(),
        })
}

/// The variants a run knows: the built-ins and any loaded from files, with an optional default
/// for games that name none. Built once; lookups are cheap. A built-in variant is compiled the
/// first time it is looked up, so a run pays only for the variants it uses.
#[derive(Debug, Clone)]
pub struct Registry {
    variants: Vec<Arc<Entry>>,
    default: Option<Arc<Variant>>,
    /// The set of piece letters its variants read moves in, if not their own.
    letters: Option<&'static PieceLetters>,
}

/// One variant of a registry: its names, and the variant once compiled.
#[derive(Debug)]
struct Entry {
    /// The letters moves are read with, when not the variant's own.
    letters: Option<&'static PieceLetters>,
    id: String,
    /// The id, folded.
    folded_id: String,
    /// The id, display name and aliases, folded for matching; a built-in's are read from its
    /// definition when first needed.
    names: OnceLock<Vec<String>>,
    /// The definition text of a built-in variant not compiled yet.
    text: Option<&'static str>,
    compiled: OnceLock<Option<Arc<Variant>>>,
}

impl Entry {
    fn new(variant: &Variant) -> Entry {
        let id = variant.id();
        let names: Vec<String> = all_names(variant.definition())
            .map(|(_, folded)| folded)
            .collect();
        Entry {
            letters: None,
            id: id.to_string(),
            folded_id: fold(id),
            names: OnceLock::from(names),
            text: None,
            compiled: OnceLock::new(),
        }
    }

    fn builtin(id: &str, text: &'static str) -> Entry {
        Entry {
            letters: None,
            id: id.to_string(),
            folded_id: fold(id),
            names: OnceLock::new(),
            text: Some(text),
            compiled: OnceLock::new(),
        }
    }

    fn names(&self) -> &[String] {
        self.names.get_or_init(|| {
            match self.text.and_then(|t| parse_definition(t, &self.id).ok()) {
                Some(def) => all_names(&def).map(|(_, folded)| folded).collect(),
                None => vec![fold(&self.id)],
            }
        })
    }

    fn variant(&self) -> Option<&Arc<Variant>> {
        self.compiled
            .get_or_init(|| {
                let text = self.text?;
                let variant = from_toml(text, &format!("built-in {}", self.id)).ok()?;
                Some(match self.letters {
                    Some(set) => Arc::new(variant.with_piece_letters(set)),
                    None => variant,
                })
            })
            .as_ref()
    }
}

impl Registry {
    /// The built-in variants. The process keeps one set of them: every registry and every
    /// [`builtin`] look-up shares it, so each definition is parsed once and each variant
    /// compiled once per process, however many times a command asks (compiling Tamerlane
    /// takes milliseconds, the larger part of a database query's fixed cost).
    pub fn builtin() -> Registry {
        static SHARED: OnceLock<Registry> = OnceLock::new();
        SHARED.get_or_init(Registry::parse_builtin).clone()
    }

    /// The built-ins, unparsed: a definition is read when a look-up first needs its names
    /// (for a name that is no variant's id) or its variant.
    fn parse_builtin() -> Registry {
        let variants = BUILTIN
            .iter()
            .map(|(id, text)| Arc::new(Entry::builtin(id, text)))
            .collect();
        Registry {
            variants,
            default: None,
            letters: None,
        }
    }

    /// Adds a variant (a user's file). It takes the place of a variant with the same id; a
    /// name it shares with a variant of another id is the error [`LoadError::SharedName`],
    /// since a `Variant` tag with that name could mean either.
    pub fn add(&mut self, variant: Arc<Variant>) -> Result<(), LoadError> {
        let entry = Entry::new(&variant);
        self.variants.retain(|e| e.id != entry.id);
        for (name, folded) in all_names(variant.definition()) {
            if let Some(other) = self.variants.iter().find(|e| e.names().contains(&folded)) {
                return Err(LoadError::SharedName {
                    name: name.to_string(),
                    first: other.id.clone(),
                    second: entry.id.clone(),
                });
            }
        }
        let _ = entry.compiled.set(Some(variant));
        self.variants.insert(0, Arc::new(entry));
        Ok(())
    }

    /// Checks that no two variants share a name (id, display name, alias, or a name other
    /// programs give them, compared as [`Registry::find`] compares them). The built-ins are
    /// checked by a test, since their definitions are compiled in; [`Registry::add`] checks
    /// each variant it adds.
    pub fn check_names(&self) -> Result<(), LoadError> {
        for (i, entry) in self.variants.iter().enumerate() {
            for earlier in &self.variants[..i] {
                if let Some(name) = entry.names().iter().find(|n| earlier.names().contains(n)) {
                    return Err(LoadError::SharedName {
                        name: name.clone(),
                        first: earlier.id.clone(),
                        second: entry.id.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The same variants reading the piece letters of moves in `set`
    /// ([`Variant::with_piece_letters`]); position strings keep the variants' own letters.
    pub fn with_piece_letters(&self, set: &'static PieceLetters) -> Registry {
        let variants = self
            .variants
            .iter()
            .map(|e| {
                let entry = Entry {
                    letters: Some(set),
                    id: e.id.clone(),
                    folded_id: e.folded_id.clone(),
                    names: OnceLock::new(),
                    text: e.text,
                    compiled: OnceLock::new(),
                };
                if let Some(names) = e.names.get() {
                    let _ = entry.names.set(names.clone());
                }
                if e.text.is_none() {
                    let view = e.variant().map(|v| Arc::new(v.with_piece_letters(set)));
                    let _ = entry.compiled.set(view);
                }
                Arc::new(entry)
            })
            .collect();
        Registry {
            variants,
            default: self
                .default
                .as_ref()
                .map(|v| Arc::new(v.with_piece_letters(set))),
            letters: Some(set),
        }
    }

    /// The set of piece letters the variants read moves in, when not their own
    /// ([`Registry::with_piece_letters`]).
    pub fn piece_letters(&self) -> Option<&'static PieceLetters> {
        self.letters
    }

    /// Sets the variant for games without a `Variant` tag.
    pub fn set_default(&mut self, variant: Option<Arc<Variant>>) {
        self.default = variant;
    }

    /// The variant for games without a `Variant` tag, if one was set.
    pub fn default_variant(&self) -> Option<&Arc<Variant>> {
        self.default.as_ref()
    }

    /// A variant by id, display name or alias (case, spaces, hyphens and underscores ignored).
    pub fn find(&self, name: &str) -> Option<&Arc<Variant>> {
        // Every game read is looked up by its `Variant` tag, so nothing is allocated for it.
        // A short ASCII name (every `Variant` tag in practice) is folded once, and then
        // compared as bytes: folding it again against each name was most of a game's lookup.
        let mut buf = [0u8; 64];
        let ascii = fold_ascii(name, &mut buf);
        let matches = |folded: &str| match ascii {
            Some(f) => f == folded.as_bytes(),
            None => folds_to(name, folded),
        };
        // Every id before any other name: the names of the entries before the one asked
        // for by id are then never read (a TOML parse each). No name is two variants'
        // (`Registry::add`), so the order finds the same variant.
        self.variants
            .iter()
            .find(|e| matches(&e.folded_id))
            .or_else(|| {
                self.variants
                    .iter()
                    .find(|e| e.names().iter().any(|n| matches(n)))
            })
            .and_then(|e| e.variant())
    }

    /// The ids of the known variants.
    pub fn ids(&self) -> Vec<String> {
        self.variants.iter().map(|e| e.id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_compiles() {
        for (id, text) in BUILTIN {
            let v = from_toml(text, id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(v.id(), *id);
        }
    }

    /// A refused definition says which part of it is wrong.
    #[test]
    fn refusals_name_the_part() {
        use crate::VariantErrorKind as K;
        let text = BUILTIN[0].1;
        let start = text.lines().find(|l| l.starts_with("start")).unwrap();
        let files = text.lines().find(|l| l.starts_with("files")).unwrap();
        for (from, to, kind) in [
            ("id = \"shatranj\"", "id = \"Not An Id\"", K::Id),
            (start, "start = \"8/8/8/8/8/8/8/8 w - - 0 1\"", K::Start),
            (files, "files = 40", K::Board),
        ] {
            assert!(text.contains(from), "{from}");
            let changed = text.replacen(from, to, 1);
            match from_toml(&changed, "test") {
                Err(LoadError::Invalid { source, .. }) => assert_eq!(source.kind, kind, "{source}"),
                other => panic!("{to}: {other:?}"),
            }
        }
    }

    #[test]
    fn definitions_match_the_compiled_variants() {
        let defs = builtin_definitions();
        let compiled = builtins();
        assert_eq!(defs.len(), BUILTIN.len());
        for (d, v) in defs.iter().zip(&compiled) {
            assert_eq!(&d.id, v.id());
            assert_eq!(d.description, v.description());
            assert_eq!(d.start, v.start_fen());
        }
    }

    #[test]
    fn no_two_builtins_share_a_name() {
        Registry::builtin().check_names().unwrap();
    }

    /// Each name another program gives a built-in variant finds it.
    #[test]
    fn the_names_of_other_programs_resolve() {
        let mut named = 0;
        for def in builtin_definitions() {
            for name in def.names.iter() {
                assert_eq!(builtin(name).unwrap().id(), def.id, "{name}");
                assert_eq!(builtin(&name.to_uppercase()).unwrap().id(), def.id);
                named += 1;
            }
        }
        assert!(named >= 5, "{named}");
        let shatranj = builtin("shatranj").unwrap();
        let names = shatranj.other_names();
        assert_eq!(names.uci.as_deref(), Some("shatranj"));
        assert!(names.tags.iter().any(|t| t == "Shatranj"));
    }

    /// A name shared by two variants is an error when the registry is built, whichever name
    /// of either it is; a variant of the same id takes the other's place.
    #[test]
    fn a_shared_name_is_an_error() {
        let text = BUILTIN[0].1;
        let other = |from: &str, to: &str| {
            let changed = text
                .replacen("id = \"shatranj\"", "id = \"other\"", 1)
                .replacen("name = \"Shatranj\"", "name = \"Other\"", 1)
                .replacen(
                    "aliases = [\"shatranj\", \"classic shatranj\", \"chatrang\"]",
                    "",
                    1,
                )
                .replacen("tags = [\"Shatranj\", \"shatranj\"]", "", 1)
                .replacen("uci = \"shatranj\"", "", 1)
                .replacen("xboard = \"shatranj\"", "", 1)
                .replacen("pychess = \"shatranj\"", "", 1)
                .replacen("fairy_stockfish = \"shatranj\"", "", 1)
                .replacen(from, to, 1);
            from_toml(&changed, "test").unwrap()
        };
        let mut registry = Registry::builtin();
        registry.add(other("[names]", "[names]")).unwrap();
        assert_eq!(registry.find("Other").unwrap().id(), "other");
        registry.check_names().unwrap();
        for (from, to) in [
            ("[names]", "[names]\nxboard = \"Classic-Shatranj\""),
            ("[names]", "[names]\ntags = [\"KNAVISH\"]"),
            ("name = \"Other\"", "name = \"Timur\""),
        ] {
            let mut registry = Registry::builtin();
            match registry.add(other(from, to)) {
                Err(LoadError::SharedName { first, second, .. }) => {
                    assert_eq!(second, "other", "{to}");
                    assert_ne!(first, "other", "{to}");
                }
                r => panic!("{to}: {r:?}"),
            }
        }
        // The same id replaces the built-in, whose names it may keep.
        let mut registry = Registry::builtin();
        registry.add(from_toml(text, "test").unwrap()).unwrap();
        assert_eq!(registry.ids().len(), BUILTIN.len());
    }

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(builtin("Shatranj").unwrap().id(), "shatranj");
        assert_eq!(builtin("Tamerlane Chess").unwrap().id(), "tamerlane");
        assert_eq!(builtin("shatranj_al-kabir").unwrap().id(), "tamerlane");
        assert_eq!(builtin("KnavishShatranj").unwrap().id(), "knavish-shatranj");
        let e = builtin("chess").unwrap_err().to_string();
        assert!(e.contains("shatranj") && e.contains("tamerlane"), "{e}");
    }

    /// The byte comparison of short ASCII names finds what the character one does.
    #[test]
    fn ascii_folding_is_folding() {
        let names = [
            "Shatranj",
            "TAMERLANE chess",
            "shatranj_al-kabir",
            "Knavish-Shatranj",
            "Grand Shatranj N W",
            "it's",
            "",
            "  -_",
            "Échecs",
            "x".repeat(64).as_str(),
        ]
        .map(str::to_string);
        for name in names.iter().chain([&"y".repeat(65)]) {
            let mut buf = [0u8; 64];
            let ascii = fold_ascii(name, &mut buf).map(|b| b.to_vec());
            let fits = name.is_ascii() && folded(name).count() <= 64;
            assert_eq!(ascii.is_some(), fits, "{name}");
            if let Some(bytes) = ascii {
                assert_eq!(
                    bytes,
                    folded(name).collect::<String>().into_bytes(),
                    "{name}"
                );
            }
        }
        let registry = Registry::builtin();
        let long = format!("{}tamerlane", " ".repeat(70));
        assert_eq!(registry.find(&long).map(|v| v.id()), Some("tamerlane"));
        assert!(registry.find("Shatranj X").is_none());
    }
}
