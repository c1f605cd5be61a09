//! `kabir diagram`: draw a position as SVG or PNG.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;

use kabir::db::{Database, StoredGame};
use kabir::diagram::{DiagramOptions, default_caption, position_svg, svg_to_png};
use kabir::rules::{Color, Move, Position, Square, Variant};
use kabir::variants::Registry;

use super::args::VariantArgs;
use super::output::Files;

/// Draw a position as a picture: the board in its real shape (citadels beside it), the pieces,
/// the last move, arrows, the side to move and a caption.
///
/// The position is the variant's start position, a position string (--fen), a position after
/// a line of moves (--moves, from the start or from --fen), or a position of a stored game
/// (--db-game, at --ply or at its end). The picture is SVG, or PNG when the output file ends
/// in `.png`; without -o the SVG goes to standard output. The piece key is in
/// docs/DIAGRAMS.md.
#[derive(Debug, Args)]
#[command(mut_arg("variant", |a| a.help(
    "The variant of the position: name or alias (see `kabir variants`); without it, a \
     position string is read as the first built-in variant that accepts it, and the start \
     position is Shatranj's. Not needed with --db-game",
).long_help(None)))]
pub struct DiagramArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// The position string to draw (or to play --moves from).
    #[arg(long, value_name = "POSITION", conflicts_with = "db_game")]
    pub fen: Option<String>,
    /// Moves to play first, in SAN or coordinates (`"e3 e6 Nf3"`); the last one is highlighted.
    #[arg(long, value_name = "MOVES", conflicts_with = "db_game")]
    pub moves: Option<String>,
    /// A game of the database (its id, as `kabir search` lists it).
    #[arg(long, value_name = "ID")]
    pub db_game: Option<u32>,
    /// With --db-game: the position after this many plies (default: the end of the game).
    #[arg(long, value_name = "N", requires = "db_game")]
    pub ply: Option<usize>,
    /// The database file for --db-game.
    #[arg(
        long,
        env = "KABIR_DB",
        default_value = "kabir.db",
        value_name = "PATH"
    )]
    pub db: PathBuf,
    /// An arrow from one square to another (`e2e4`, `k2wc`); may be given several times.
    #[arg(long = "arrow", value_name = "FROMTO")]
    pub arrows: Vec<String>,
    /// The text under the board (default: the variant, the side to move and the last move).
    #[arg(long, value_name = "TEXT")]
    pub caption: Option<String>,
    /// Draw the board from Black's side.
    #[arg(long)]
    pub flip: bool,
    /// PNG pixels per SVG unit (a square is 64 units).
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR")]
    pub scale: f32,
    /// Write the picture here; `.svg` or `.png` chooses the format.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A position and what led to it.
pub struct Scene {
    pub position: Position,
    /// The last move and the position it was played in.
    pub last: Option<(Position, Move)>,
    /// What the caption starts with (the game, when there is one).
    pub title: Option<String>,
}

impl Scene {
    /// The caption: the title, the variant, the side to move and the last move in SAN.
    pub fn caption(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(t) = &self.title {
            parts.push(t.clone());
        }
        parts.push(default_caption(&self.position));
        if let Some((before, m)) = &self.last {
            let legal = before.legal_moves();
            let n = before.fullmove_number();
            let dots = if before.turn() == Color::White {
                "."
            } else {
                "..."
            };
            parts.push(format!(
                "last move {n}{dots} {}",
                kabir::notation::san_plus(before, *m, &legal)
            ));
        }
        parts.join(" \u{b7} ")
    }

    /// The squares the last move highlights.
    pub fn last_squares(&self) -> Option<(Square, Square)> {
        // A swap's two squares are its king's and its partner's; a lift's are where the pawn
        // of pawns waited and where it went.
        self.last.as_ref().map(|(_, m)| (m.from, m.to))
    }
}

/// Plays a line of moves (SAN or coordinates, move numbers allowed) from `start`.
pub fn line_scene(start: &Position, moves: &[Move]) -> Scene {
    let mut pos = start.clone();
    let mut last = None;
    for &m in moves {
        last = Some((pos.clone(), m));
        pos.play_unchecked(m);
    }
    Scene {
        position: pos,
        last,
        title: None,
    }
}

fn play_moves(start: &Position, text: &str) -> Result<Scene> {
    let (moves, _) = kabir::notation::play_line(start, text)
        .with_context(|| format!("bad --moves for {}", start.variant().name()))?;
    Ok(line_scene(start, &moves))
}

/// The position of a stored game after `ply` plies (default: all of them).
fn game_scene(db_path: &Path, id: u32, ply: Option<usize>, args: &VariantArgs) -> Result<Scene> {
    let db = Database::open(db_path)?;
    let game = db
        .game(id)?
        .with_context(|| format!("no game {id} in {}", db_path.display()))?;
    let registry = args.registry()?;
    let ply = ply.unwrap_or(game.moves.len());
    stored_game_scene(&game, &registry, ply)
}

/// A stored game's position after `ply` plies, its last move, and a title naming the game and
/// its players.
pub fn stored_game_scene(game: &StoredGame, registry: &Registry, ply: usize) -> Result<Scene> {
    let id = game.id;
    let variant: Arc<Variant> = registry.find(&game.variant).cloned().with_context(|| {
        format!(
            "game {id} is of variant {:?}, which is unknown here",
            game.variant
        )
    })?;
    if ply > game.moves.len() {
        bail!(
            "game {id} has {} plies; --ply {ply} is past its end",
            game.moves.len()
        );
    }
    let mut pos = Position::from_fen(&variant, &game.start_fen)
        .with_context(|| format!("game {id}: bad start position"))?;
    let mut last = None;
    for (i, &m) in game.moves[..ply].iter().enumerate() {
        if !pos.legal_moves().contains(&m) {
            bail!("game {id}: stored move {} does not fit its position", i + 1);
        }
        last = Some((pos.clone(), m));
        pos.play_unchecked(m);
    }
    let tag = |name: &str| game.tag(name).filter(|v| !v.is_empty() && *v != "?");
    let mut title = format!("Game {id}");
    if let (Some(w), Some(b)) = (tag("White"), tag("Black")) {
        title.push_str(&format!(": {w} \u{2013} {b}"));
    }
    Ok(Scene {
        position: pos,
        last,
        title: Some(title),
    })
}

/// Reads `e2e4`, `k2wc`, `wck2`: two square names of the board, run together.
pub fn parse_arrow(variant: &Variant, text: &str) -> Result<(Square, Square)> {
    let g = variant.geometry();
    let text = text.trim().to_ascii_lowercase();
    (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .find_map(|i| Some((g.parse(&text[..i])?, g.parse(&text[i..])?)))
        .with_context(|| {
            format!(
                "--arrow {text:?}: expected two squares of the {} board, as in e2e4",
                variant.name()
            )
        })
}

/// The picture format an output file asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    pub fn of(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => bail!(
                "{}: the picture file must end in .svg or .png",
                path.display()
            ),
        }
    }
}

/// Writes an SVG document to `path` as SVG or PNG (by its extension), whole or not at all
/// (see [`super::output::Output`]).
pub fn save_picture(svg: &str, path: &Path, scale: f32) -> Result<()> {
    let bytes = match Format::of(path)? {
        Format::Svg => svg.as_bytes().to_vec(),
        Format::Png => svg_to_png(svg, scale)?,
    };
    super::output::write_file(path, &bytes)
}

/// Refuses a picture file before any work: one whose name says no format, or one that is a
/// file the command reads (`files`, which lists them).
pub fn check_picture(what: &str, path: &Path, files: &mut Files) -> Result<()> {
    Format::of(path)?;
    files.write(what, path).check()?;
    Ok(())
}

/// Draws a scene with the arrows and caption the arguments ask for.
pub fn draw(scene: &Scene, arrows: &[String], caption: Option<&str>, flip: bool) -> Result<String> {
    let variant = scene.position.variant();
    let arrows = arrows
        .iter()
        .map(|a| parse_arrow(variant, a))
        .collect::<Result<Vec<_>>>()?;
    let options = DiagramOptions {
        last_move: scene.last_squares(),
        arrows,
        caption: Some(caption.map_or_else(|| scene.caption(), str::to_string)),
        flipped: flip,
    };
    Ok(position_svg(&scene.position, &options))
}

/// The position to start from: the variant's start, or the position string. Without a variant
/// a position string is read as the first built-in variant that accepts it; with neither, the
/// start is Shatranj's.
fn start_position(args: &VariantArgs, fen: Option<&str>) -> Result<Position> {
    if args.variant.is_none()
        && args.variant_file.is_none()
        && let Some(f) = fen
        && let Some(pos) = kabir::variants::builtins()
            .into_iter()
            .find_map(|v| kabir::rules::epd::read_position(&v, f).ok())
    {
        return Ok(pos);
    }
    let variant = args.resolve(Some("shatranj"))?;
    super::args::position(&variant, fen)
}

pub fn run(args: &DiagramArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(path) = &args.output {
        let mut files = Files::new();
        files.variant_file(args.variant.variant_file.as_deref());
        if args.db_game.is_some() {
            files.database(&args.db);
        }
        check_picture("--output", path, &mut files)?;
    }
    let scene = match args.db_game {
        Some(id) => game_scene(&args.db, id, args.ply, &args.variant)?,
        None => {
            let start = start_position(&args.variant, args.fen.as_deref())?;
            match &args.moves {
                Some(m) => play_moves(&start, m)?,
                None => Scene {
                    position: start,
                    last: None,
                    title: None,
                },
            }
        }
    };
    let svg = draw(&scene, &args.arrows, args.caption.as_deref(), args.flip)?;
    match &args.output {
        Some(path) => save_picture(&svg, path, args.scale),
        None => out.write_all(svg.as_bytes()).map_err(Into::into),
    }
}
