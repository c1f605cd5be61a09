//! Arguments shared by several subcommands.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;

use kabir::rules::Variant;
use kabir::rules::letters::{self, PieceLetters};
use kabir::variants;

/// Which variant to use: a built-in by name, or a definition file.
#[derive(Debug, Clone, Args)]
pub struct VariantArgs {
    /// The variant: name or alias (see `kabir variants`).
    #[arg(long, value_name = "NAME", conflicts_with = "variant_file")]
    pub variant: Option<String>,
    /// A variant definition file (TOML) to use instead of a built-in variant.
    #[arg(long, value_name = "PATH")]
    pub variant_file: Option<PathBuf>,
}

/// `--piece-letters`, for the commands that read moves.
#[derive(Debug, Clone, Args)]
pub struct PieceLettersArgs {
    /// Read the piece letters of moves in a language's set instead of the variant's own
    /// letters: de (K D T L S B), fr (R D T F C P), es (R D T A C P), it (R D T A C P), pt
    /// (R D T B C P), nl (K D T L P), sv (K D T L S B), pl (K H W G S), ru (Кр Ф Л С К). Where
    /// a set's letter is also a letter of the variant, the set's meaning wins. Position
    /// strings and what kabir writes keep the variant's letters (notation spec, section 5).
    #[arg(long, value_name = "LANG", value_parser = parse_piece_letters)]
    pub piece_letters: Option<&'static PieceLetters>,
}

/// A set of piece letters by its code.
fn parse_piece_letters(code: &str) -> std::result::Result<&'static PieceLetters, String> {
    letters::find(code).ok_or_else(|| {
        format!(
            "no set of piece letters {code:?}; known: {}",
            letters::codes().join(", ")
        )
    })
}

impl PieceLettersArgs {
    /// The registry reading moves with the chosen letters (unchanged without a choice).
    pub fn apply(&self, registry: kabir::variants::Registry) -> kabir::variants::Registry {
        match self.piece_letters {
            Some(set) => registry.with_piece_letters(set),
            None => registry,
        }
    }
}

/// `--max-game-size`, for the commands that read game files.
#[derive(Debug, Clone, Args)]
pub struct GameSizeArgs {
    /// The most one game's text may take: bytes, or with K, M or G (KiB, MiB, GiB). A longer
    /// game is not read: it is the error game-too-large, and reading goes on at the next line
    /// that starts with `[`. Memory follows it: a game near the limit takes about six times
    /// its size while it is read and stored.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    pub max_game_size: usize,
}

/// A size such as `16M`, `300K`, `1G` or `4096` (bytes); the units are powers of 1024.
pub fn parse_size(text: &str) -> std::result::Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "{text:?} is not a size: write bytes, or a number with K, M or G (16M)"
            ));
        }
    };
    let n: u64 = number.parse().map_err(|_| {
        format!("{text:?} is not a size: write bytes, or a number with K, M or G (16M)")
    })?;
    let bytes = n
        .checked_mul(1u64 << shift)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| format!("{text:?} is too large a size"))?;
    if bytes == 0 {
        return Err("a game takes at least one byte: give a size above 0".to_string());
    }
    Ok(bytes)
}

/// `--variant` of the commands that read game files (validate, import).
pub const GAMES_VARIANT: &str = "The variant of games without a `Variant` tag: name or alias \
     (see `kabir variants`). Without it such games are an error";
/// `--variant-file` of the commands that read game files.
pub const GAMES_VARIANT_FILE: &str = "A variant definition file (TOML): games may name its \
     variant, and it is the variant of games without a `Variant` tag";

impl VariantArgs {
    /// The chosen variant, or `default` when none was given.
    pub fn resolve(&self, default: Option<&str>) -> Result<Arc<Variant>> {
        if let Some(path) = &self.variant_file {
            return variants::load_file(path).map_err(Into::into);
        }
        match self.variant.as_deref().or(default) {
            Some(name) => variants::builtin(name).map_err(Into::into),
            None => anyhow::bail!(
                "no variant given: use --variant NAME (one of {}) or --variant-file PATH",
                variants::builtin_ids().join(", ")
            ),
        }
    }
}

impl VariantArgs {
    /// The variants for reading game files: the built-ins, plus a user's file, with the chosen
    /// variant as the default for games without a `Variant` tag.
    pub fn registry(&self) -> Result<kabir::variants::Registry> {
        let mut registry = kabir::variants::Registry::builtin();
        if let Some(path) = &self.variant_file {
            let v = variants::load_file(path)?;
            registry.add(v.clone())?;
            registry.set_default(Some(v));
        }
        if let Some(name) = &self.variant {
            let v = registry.find(name).cloned().ok_or_else(|| {
                anyhow::anyhow!(variants::LoadError::Unknown {
                    name: name.clone(),
                    known: registry.ids(),
                })
            })?;
            registry.set_default(Some(v));
        }
        Ok(registry)
    }
}

/// Reads a position string for a variant, or its start position.
pub fn position(variant: &Arc<Variant>, fen: Option<&str>) -> Result<kabir::rules::Position> {
    match fen {
        Some(f) => kabir::rules::epd::read_position(variant, f)
            .with_context(|| format!("bad position string {f:?} for {}", variant.name())),
        None => Ok(kabir::rules::Position::start(variant)),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("300k"), Ok(300 << 10));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
