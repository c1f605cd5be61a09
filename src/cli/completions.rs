//! `kabir completions` and `kabir man`: shell completions and the manual page, made from the
//! same definition of the command line as `--help`, so they never disagree with it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::Shell;

use super::output::Files;

/// Print a shell's completion script for kabir.
///
/// Install it where your shell looks for completions, for example:
/// bash: `kabir completions bash > ~/.local/share/bash-completion/completions/kabir`;
/// zsh: `kabir completions zsh > ~/.zfunc/_kabir` (with `fpath+=~/.zfunc` before `compinit`);
/// fish: `kabir completions fish > ~/.config/fish/completions/kabir.fish`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Print kabir's manual page (roff), or write one page per command to a directory.
///
/// Read it with `kabir man | man -l -`, or install it:
/// `kabir man > ~/.local/share/man/man1/kabir.1`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `kabir.1` and a page for each command (`kabir-validate.1`, ...) to this
    /// directory (made if missing) instead of printing the main page. Each page replaces the
    /// one there once it is written whole.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(
    args: &CompletionsArgs,
    mut cmd: clap::Command,
    out: &mut dyn Write,
) -> Result<()> {
    let name = cmd.get_name().to_string();
    // Made in memory: the generator panics on a failed write (a closed pipe, a full disk),
    // where a write here returns the error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, name, &mut script);
    out.write_all(&script)?;
    Ok(())
}

pub fn man(args: &ManArgs, cmd: clap::Command, out: &mut dyn Write) -> Result<()> {
    let Some(dir) = &args.dir else {
        clap_mangen::Man::new(cmd).render(out)?;
        return Ok(());
    };
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    collect_pages(&cmd, &mut pages)?;
    let names: Vec<&str> = pages.iter().map(|(name, _)| name.as_str()).collect();
    Files::new().write_folder("--dir", dir, &names).check()?;
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "cannot write the pages to {}: not a directory",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, page) in &pages {
        super::output::write_file(&dir.join(name), page)?;
    }
    Ok(())
}

/// The manual page of a command and of each of its subcommands not hidden (`kabir.1`,
/// `kabir-validate.1`, ...), subcommands first, with their file names.
fn collect_pages(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect_pages(sub, pages)?;
    }
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    pages.push((man.get_filename(), page));
    Ok(())
}
