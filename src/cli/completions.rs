//! `kabir completions` and `kabir man`: shell completions and the manual page, made from the
//! same definition of the command line as `--help`, so they never disagree with it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::Shell;

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
    /// directory instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(
    args: &CompletionsArgs,
    mut cmd: clap::Command,
    out: &mut dyn Write,
) -> Result<()> {
    let name = cmd.get_name().to_string();
    clap_complete::generate(args.shell, &mut cmd, name, out);
    Ok(())
}

pub fn man(args: &ManArgs, cmd: clap::Command, out: &mut dyn Write) -> Result<()> {
    match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(cmd, dir)
                .with_context(|| format!("cannot write the pages to {}", dir.display()))?;
        }
        None => clap_mangen::Man::new(cmd).render(out)?,
    }
    Ok(())
}
