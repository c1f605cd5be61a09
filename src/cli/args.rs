//! Arguments shared by several subcommands.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;

use kabir::rules::Variant;
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
            registry.add(v.clone());
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
        Some(f) => kabir::rules::Position::from_fen(variant, f)
            .with_context(|| format!("bad position string {f:?} for {}", variant.name())),
        None => Ok(kabir::rules::Position::start(variant)),
    }
}
