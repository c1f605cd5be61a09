//! `kabir validate`: replay every game and say exactly what is wrong.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde::Serialize;
use tabled::settings::Style;

use kabir::notation::game::RawGame;
use kabir::notation::tags;
use kabir::render::printable;
use kabir::replay::{Problem, Replay};
use kabir::rules::Status;

use super::args::{GameSizeArgs, VariantArgs};
use super::diagnostic::{ColorArgs, Palette, write_game};
use super::input::{Replaying, replay_file, replay_file_with};
use super::output::{Files, Named, Output, is_broken_pipe};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One block per problem in the compiler form (`FILE:LINE:COL: error[kind]: ...`, the
    /// source line with a caret under the move, the position and the legal moves close to
    /// it), then a summary table.
    Human,
    /// A table per problem, then a summary.
    Table,
    /// JSON Lines: one object per game (schema in docs/VALIDATE.md), then a summary object.
    Json,
    /// CSV: one row per problem.
    Csv,
}

/// Check game files: replay every game (variations too) and report each problem with its
/// place (file:line:column), the move, the position before it and the legal moves close to it.
///
/// Exit status: 0 when every game is valid, 1 when some game is invalid, 2 on a usage or
/// I/O error. Warnings (check marks, non-canonical SAN, move numbers) do not make a game
/// invalid.
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::args::GAMES_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::args::GAMES_VARIANT_FILE).long_help(None)),
)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    #[command(flatten)]
    pub letters: super::args::PieceLettersArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[command(flatten)]
    pub color: ColorArgs,
    /// Print only the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Warn about every move written in coordinate form (long algebraic or UCI), instead of
    /// once for a game written entirely so; and make a `FEN` tag read only by assuming
    /// something (fields left out before the counters, chess castling rights where nothing
    /// castles: `fen-assumed`) an error.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub size: GameSizeArgs,
    /// Write the valid games, in canonical notation, to this file. It must not be a file the
    /// command reads, and it is replaced only once every game has been read: a run that
    /// fails leaves it as it was.
    #[arg(long, value_name = "OUT")]
    pub fix: Option<PathBuf>,
    /// Write the invalid games, exactly as read, to this file (with --fix the default is
    /// OUT with `.rejects` before its extension). Written as --fix is, and only when some game
    /// is invalid.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
    /// Game files (`-` for standard input): text in UTF-8, UTF-16 or UTF-32, or gzip or zstd
    /// of it, told by the first bytes whatever the name (docs/VALIDATE.md, "Input files").
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
}

/// One game in `--format json`.
#[derive(Serialize)]
struct GameReport<'a> {
    file: &'a str,
    game: u64,
    line: u32,
    variant: Option<&'a str>,
    white: Option<String>,
    black: Option<String>,
    plies: usize,
    /// The result claimed by the movetext (or the Result tag).
    result: Option<String>,
    /// The state of the final position of the main line.
    #[serde(rename = "final")]
    final_state: Option<Status>,
    /// The ply after which the game was over by the rules: `plies`, or fewer when moves were
    /// played on past a draw.
    end_ply: Option<u32>,
    valid: bool,
    errors: Vec<&'a Problem>,
    warnings: Vec<&'a Problem>,
}

#[derive(Default, Serialize)]
struct Summary {
    files: usize,
    games: u64,
    valid: u64,
    invalid: u64,
    warnings: u64,
    errors_by_kind: BTreeMap<&'static str, u64>,
    warnings_by_kind: BTreeMap<&'static str, u64>,
}

impl Summary {
    /// Counts a game: whether it is valid, and its problems' kinds and whether each is an
    /// error.
    fn count(&mut self, valid: bool, problems: impl IntoIterator<Item = (&'static str, bool)>) {
        self.games += 1;
        if valid {
            self.valid += 1;
        } else {
            self.invalid += 1;
        }
        for (kind, error) in problems {
            if error {
                *self.errors_by_kind.entry(kind).or_default() += 1;
            } else {
                self.warnings += 1;
                *self.warnings_by_kind.entry(kind).or_default() += 1;
            }
        }
    }
}

/// Where rejected games go when only --fix is given.
fn default_rejects(fix: &std::path::Path) -> PathBuf {
    let stem = fix.file_stem().and_then(|s| s.to_str()).unwrap_or("games");
    let name = match fix.extension().and_then(|e| e.to_str()) {
        Some(ext) => format!("{stem}.rejects.{ext}"),
        None => format!("{stem}.rejects"),
    };
    fix.with_file_name(name)
}

/// Validates; returns whether every game was valid.
///
/// A reader of the report that goes away (`kabir validate ... | head`) ends the report. The
/// games go on being read, quietly, only while --fix or --rejects is being written, so that
/// those files are complete; the exit status says whether a game read was invalid.
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> Result<bool> {
    let rejects_path = args
        .rejects
        .clone()
        .or_else(|| args.fix.as_deref().map(default_rejects));
    let mut files = Files::new();
    files
        .variant_file(args.variant.variant_file.as_deref())
        .game_files(&args.files);
    if let Some(path) = &args.fix {
        files.write("--fix", path);
    }
    if let Some(path) = &rejects_path {
        let what = if args.rejects.is_some() {
            "--rejects"
        } else {
            "--rejects (the default beside --fix)"
        };
        files.write(what, path);
    }
    files.check()?;
    let registry = args.letters.apply(args.variant.registry()?);
    let mut fixed = args.fix.as_deref().map(Output::create).transpose()?;
    // Made at the first rejected game, so a clean run leaves no empty file behind.
    let mut rejects: Option<Output> = None;
    let writes_files = fixed.is_some() || rejects_path.is_some();
    // Whether the reader of the report has gone.
    let mut cut = false;
    if args.format == Format::Csv && !args.quiet {
        let header = (|| -> Result<()> {
            let mut w = csv::Writer::from_writer(&mut *out);
            w.write_record([
                "file", "game", "line", "column", "severity", "kind", "ply", "text", "message",
                "position", "legal",
            ])?;
            w.flush()?;
            Ok(())
        })();
        match header {
            Err(e) if is_broken_pipe(&e) && !writes_files => return Ok(true),
            Err(e) if is_broken_pipe(&e) => cut = true,
            other => other?,
        }
    }
    let palette = Palette::new(args.color.enabled(&std::io::stdout()));
    let mut summary = Summary::default();
    // With only the summary to print, each game is reduced to its counts on the worker thread
    // that replayed it.
    let counts_only = args.quiet && !writes_files;
    for path in &args.files {
        summary.files += 1;
        if counts_only {
            let work = |_, r: Replay| {
                let problems: Vec<(&'static str, bool)> = r
                    .problems
                    .iter()
                    .map(|p| (p.kind.as_str(), p.error))
                    .collect();
                (r.is_valid(), problems)
            };
            let how = Replaying {
                hashes: false,
                strict: args.strict,
                bytes: None,
                max_game_bytes: args.size.max_game_size,
            };
            replay_file_with(path, &registry, how, work, |_, (valid, problems)| {
                summary.count(valid, problems);
                Ok(())
            })?;
            continue;
        }
        let how = Replaying {
            hashes: false,
            strict: args.strict,
            bytes: None,
            max_game_bytes: args.size.max_game_size,
        };
        let read = replay_file(path, &registry, how, |raw, r| {
            let valid = r.is_valid();
            summary.count(valid, r.problems.iter().map(|p| (p.kind.as_str(), p.error)));
            if valid {
                if let Some(f) = fixed.as_mut() {
                    f.write_all(r.write_canonical(raw).as_bytes())?;
                }
            } else if let Some(path) = &rejects_path {
                let f = match &mut rejects {
                    Some(f) => f,
                    None => rejects.insert(Output::create(path)?),
                };
                write_rejected(f, raw)?;
            }
            if args.quiet || cut {
                return Ok(());
            }
            match report(args.format, out, path, raw, r, palette) {
                Err(e) if is_broken_pipe(&e) => {
                    cut = true;
                    // Without files to complete, reading on would only find the status.
                    if writes_files { Ok(()) } else { Err(e) }
                }
                other => other,
            }
        });
        match read {
            Err(e) if cut && is_broken_pipe(&e) => return Ok(summary.invalid == 0),
            other => other?,
        }
    }
    if let Some(f) = fixed {
        f.commit()?;
    }
    if let Some(f) = rejects {
        f.commit()?;
    }
    let valid = summary.invalid == 0;
    if cut {
        return Ok(valid);
    }
    let written = match args.format {
        Format::Json => {
            serde_json::to_writer(&mut *out, &serde_json::json!({ "summary": summary }))
                .map_err(Into::into)
                .and_then(|()| out.write_all(b"\n").map_err(Into::into))
        }
        // The CSV stays one table; the summary goes to standard error.
        Format::Csv => write_summary(
            &mut Named::new(std::io::stderr(), "standard error"),
            &summary,
        ),
        Format::Human | Format::Table => write_summary(out, &summary),
    };
    match written {
        Err(e) if is_broken_pipe(&e) => Ok(valid),
        other => other.map(|()| valid),
    }
}

/// Reports a game's problems in the chosen format.
fn report(
    format: Format,
    out: &mut dyn Write,
    path: &str,
    raw: &RawGame,
    r: &Replay,
    palette: Palette,
) -> Result<()> {
    match format {
        Format::Human => write_game(out, path, raw, r, palette)?,
        Format::Table => write_tables(out, path, raw, r)?,
        Format::Json => {
            serde_json::to_writer(&mut *out, &game_report(path, raw, r))?;
            out.write_all(b"\n")?;
        }
        Format::Csv => {
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::new());
            for p in &r.problems {
                w.serialize((
                    path,
                    raw.number,
                    p.line,
                    p.column,
                    if p.error { "error" } else { "warning" },
                    p.kind.as_str(),
                    p.ply,
                    &p.text,
                    &p.message,
                    p.position.as_deref().unwrap_or_default(),
                    p.legal_san().join(" "),
                ))?;
            }
            out.write_all(&w.into_inner().map_err(|e| e.into_error())?)?;
        }
    }
    Ok(())
}

fn game_report<'a>(path: &'a str, raw: &RawGame, r: &'a Replay) -> GameReport<'a> {
    GameReport {
        file: path,
        game: raw.number,
        line: raw.start.line,
        variant: r.variant.as_ref().map(|v| v.id()),
        white: raw.tag(tags::WHITE).map(|s| s.into_owned()),
        black: raw.tag(tags::BLACK).map(|s| s.into_owned()),
        plies: r.game.as_ref().map_or(0, |g| g.moves().len()),
        result: raw
            .result()
            .map(|x| x.as_str().to_string())
            .or_else(|| raw.tag(tags::RESULT).map(|s| s.into_owned())),
        final_state: r.status(),
        end_ply: r.end_ply(),
        valid: r.is_valid(),
        errors: r.errors().collect(),
        warnings: r.warnings().collect(),
    }
}

/// The widest a value of `--format table` is drawn before it is wrapped at a space.
const VALUE_WIDTH: usize = 80;

/// Each problem of a game as a table of labelled values. Values are wrapped at spaces only and
/// never cut, and a position string stays whole on its line, however long: the labels keep
/// their column.
pub fn write_tables(out: &mut dyn Write, path: &str, raw: &RawGame, r: &Replay) -> Result<()> {
    if r.problems.is_empty() {
        return Ok(());
    }
    let players = format!(
        "{} - {}",
        raw.tag(tags::WHITE).as_deref().unwrap_or("?"),
        raw.tag(tags::BLACK).as_deref().unwrap_or("?")
    );
    for p in &r.problems {
        let mut rows: Vec<(&str, String)> = vec![
            ("where", format!("{path}:{}:{}", p.line, p.column)),
            ("game", format!("{} ({players})", raw.number)),
            (
                if p.error { "error" } else { "warning" },
                p.kind.as_str().to_string(),
            ),
        ];
        if let Some(v) = &r.variant {
            rows.push(("variant", v.id().to_string()));
        }
        if let Some(ply) = p.ply {
            rows.push(("ply", ply.to_string()));
        }
        if !p.text.is_empty() {
            rows.push(("text", p.text.clone()));
        }
        rows.push(("problem", p.message.clone()));
        if let Some(pos) = &p.position {
            rows.push(("position", pos.clone()));
        }
        if !p.legal.is_empty() {
            rows.push(("legal moves", p.legal_san().join(" ")));
        }
        let mut table = tabled::builder::Builder::default();
        for (k, v) in rows {
            // A position string is copied whole: split at its spaces it would not read back.
            let v = match k {
                "position" => printable(&v).into_owned(),
                _ => wrap_words(&printable(&v), VALUE_WIDTH),
            };
            table.push_record([k.to_string(), v]);
        }
        let mut table = table.build();
        table.with(Style::rounded());
        writeln!(out, "{table}")?;
    }
    Ok(())
}

/// `text` broken into lines of at most `width` characters at spaces; a word longer than that
/// keeps a line of its own, whole.
fn wrap_words(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut line = 0;
    for word in text.split(' ') {
        let n = word.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
    }
    out
}

fn write_summary(out: &mut dyn Write, s: &Summary) -> Result<()> {
    let mut b = tabled::builder::Builder::default();
    b.push_record(["files".to_string(), s.files.to_string()]);
    b.push_record(["games".to_string(), s.games.to_string()]);
    b.push_record(["valid".to_string(), s.valid.to_string()]);
    b.push_record(["invalid".to_string(), s.invalid.to_string()]);
    b.push_record(["warnings".to_string(), s.warnings.to_string()]);
    for (k, n) in &s.errors_by_kind {
        b.push_record([format!("error: {k}"), n.to_string()]);
    }
    for (k, n) in &s.warnings_by_kind {
        b.push_record([format!("warning: {k}"), n.to_string()]);
    }
    let mut t = b.build();
    t.with(Style::rounded());
    writeln!(out, "{t}")?;
    Ok(())
}

/// Writes a rejected game's text to a file of rejects, ending with a line end. A game too
/// large to read has no text kept, so nothing is written for it: its problem says where it is.
pub fn write_rejected(f: &mut dyn Write, raw: &RawGame) -> std::io::Result<()> {
    if raw.source.is_empty() {
        return Ok(());
    }
    f.write_all(&raw.source)?;
    if !raw.source.ends_with(b"\n") {
        f.write_all(b"\n")?;
    }
    Ok(())
}
