//! `kabir show`: one game's tags and moves, and the board at a ply.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use kabir::db::{GameAnswer, GameId, StoredGame};
use kabir::notation::san::Glyph;
use kabir::render::{Charset, TextBoard};
use kabir::rules::{Color, Position};

use super::args::VariantArgs;
use super::query::{DbArgs, empty_message, table};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tags, moves and the board as text.
    Text,
    /// One JSON object: tags, special moves, the moves with variations and comments, each
    /// with its position, and the position at --ply (fields in docs/QUERIES.md).
    Json,
}

/// Show a game: its tags, result and moves, and the board after a ply (the last one unless
/// --ply is given), with the citadels.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The game's id (the `id` column of `kabir search`).
    #[arg(value_name = "GAME_ID")]
    pub game: GameId,
    /// Show the board after this many plies (0: the start position).
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
    /// Draw the board with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    pub flip: bool,
    /// Also save the board as a picture (`.svg` or `.png`; see `kabir diagram`).
    #[arg(long, value_name = "FILE")]
    pub diagram: Option<std::path::PathBuf>,
    /// The definition file (TOML) of the game's variant, when it is not built in (a stored
    /// game names its variant, so no --variant is needed).
    #[arg(long, value_name = "PATH")]
    pub variant_file: Option<std::path::PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The numbered moves, with the move that led to the board at `ply` in brackets.
fn movetext(start: &Position, sans: &[String], ply: usize) -> String {
    let mut n = start.fullmove_number();
    let mut turn = start.turn();
    let mut parts = Vec::with_capacity(sans.len() * 3 / 2);
    for (i, s) in sans.iter().enumerate() {
        if turn == Color::White {
            parts.push(format!("{n}."));
        } else if i == 0 {
            parts.push(format!("{n}..."));
        }
        parts.push(if i + 1 == ply {
            format!("[{s}]")
        } else {
            s.clone()
        });
        if turn == Color::Black {
            n += 1;
        }
        turn = !turn;
    }
    parts.join(" ")
}

/// Adds to each move of the main line the glyphs and NAGs written on it (`Qd2!!`, `Kf5 $14`),
/// as the JSON form and `kabir export` keep them.
fn annotate(
    sans: &mut [String],
    game: &StoredGame,
    registry: &kabir::variants::Registry,
) -> Result<()> {
    let answer =
        GameAnswer::new(game, registry, Some(0)).map_err(super::query::stored_game_error)?;
    for (san, m) in sans.iter_mut().zip(&answer.moves) {
        let mut glyph = true;
        for &nag in &m.nags {
            match Glyph::ALL.get(usize::from(nag).wrapping_sub(1)) {
                Some(g) if glyph => san.push_str(g.as_str()),
                _ => {
                    san.push_str(" $");
                    san.push_str(&nag.to_string());
                }
            }
            glyph = false;
        }
    }
    Ok(())
}

/// Shows the game; exit status 1 if there is no such game.
pub fn run(args: &ShowArgs, out: &mut dyn Write) -> Result<bool> {
    if let Some(path) = &args.diagram {
        let mut files = super::output::Files::new();
        files
            .database(&args.db.db)
            .variant_file(args.variant_file.as_deref());
        super::diagram::check_picture("--diagram", path, &mut files)?;
    }
    let db = args.db.open()?;
    let registry = VariantArgs {
        variant: None,
        variant_file: args.variant_file.clone(),
    }
    .registry()?;
    let Some(game) = db.game(args.game)? else {
        let why = if db.is_empty()? {
            empty_message(&args.db)
        } else {
            "see `kabir search` for the ids".to_string()
        };
        super::output::note(format_args!("kabir show: no game {} ({why})", args.game));
        return Ok(false);
    };
    match args.format {
        Format::Text => show(&game, args, &registry, out)?,
        Format::Json => {
            let answer = GameAnswer::new(&game, &registry, args.ply)
                .map_err(super::query::stored_game_error)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&answer)?)?;
            save_diagram(&game, args, &registry)?;
        }
    }
    Ok(true)
}

fn show(
    game: &StoredGame,
    args: &ShowArgs,
    registry: &kabir::variants::Registry,
    out: &mut dyn Write,
) -> Result<()> {
    let plies = game.moves.len();
    let ply = args.ply.unwrap_or(plies);
    if ply > plies {
        anyhow::bail!("--ply {ply}: game {} has only {plies} plies", game.id);
    }
    let stored = super::query::stored_game_error;
    let start = game.position_at(registry, 0).map_err(stored)?;
    let pos = game.position_at(registry, ply).map_err(stored)?;
    let mut sans = game.san_moves(registry).map_err(stored)?;
    annotate(&mut sans, game, registry)?;
    writeln!(
        out,
        "game {} ({})",
        game.id,
        kabir::render::printable(pos.variant().name())
    )?;
    let rows = game
        .tags
        .iter()
        .map(|(k, v)| vec![k.clone(), v.clone()])
        .collect();
    let mut tags = table(&["tag", "value"], rows);
    if args.ascii {
        tags.with(tabled::settings::Style::ascii());
    }
    writeln!(out, "{tags}")?;
    let s = &game.special;
    let mut special = s.phrases();
    special.extend(
        s.promotions_by_kind
            .iter()
            .map(|(k, n)| format!("{n} to {k}")),
    );
    writeln!(
        out,
        "result {}, termination {}, {} plies{}",
        game.result,
        game.end.as_str(),
        game.plies,
        if special.is_empty() {
            String::new()
        } else {
            format!("; {}", special.join(", "))
        }
    )?;
    writeln!(out)?;
    if !sans.is_empty() {
        writeln!(out, "{} {}", movetext(&start, &sans, ply), game.result)?;
        writeln!(out)?;
    }
    let at = match ply {
        0 => "the start position".to_string(),
        p => {
            let before = game.position_at(registry, p - 1).map_err(stored)?;
            let n = before.fullmove_number();
            let dots = if before.turn() == Color::White {
                "."
            } else {
                "..."
            };
            format!("after ply {p} ({n}{dots} {})", sans[p - 1])
        }
    };
    writeln!(out, "board {at}:")?;
    let board = TextBoard {
        charset: if args.ascii {
            Charset::Ascii
        } else {
            Charset::Unicode
        },
        flipped: args.flip,
    };
    write!(out, "{}", board.render(&pos))?;
    writeln!(out, "position: {}", pos.to_fen())?;
    save_diagram(game, args, registry)
}

/// Saves the board at the ply shown, when --diagram asks for it.
fn save_diagram(
    game: &StoredGame,
    args: &ShowArgs,
    registry: &kabir::variants::Registry,
) -> Result<()> {
    if let Some(path) = &args.diagram {
        let ply = args.ply.unwrap_or(game.moves.len());
        let scene = super::diagram::stored_game_scene(game, registry, ply)?;
        let svg = super::diagram::draw(&scene, &[], None, args.flip)?;
        super::diagram::save_picture(&svg, path, 1.0)?;
    }
    Ok(())
}
