//! `kabir serve`: the explorer, game viewer, search and statistics in a browser.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use kabir::serve::{Config, Server};

use super::args::VariantArgs;
use super::query::DbArgs;

/// Serve the database as web pages: the opening explorer on a board, a game viewer, game
/// search and statistics, with a JSON API (docs/SERVE.md).
///
/// The database is opened read-only. The server listens on 127.0.0.1 (this machine only)
/// unless --host names another address; it has no login, so anyone who can reach that
/// address can read the games. The URL is printed on standard output.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = 8080, value_name = "N")]
    pub port: u16,
    /// The address to listen on. The default, 127.0.0.1, reaches this machine only; another
    /// address (such as 0.0.0.0 for every interface) lets other machines read the database,
    /// without any login.
    #[arg(long, value_name = "ADDRESS")]
    pub host: Option<IpAddr>,
    /// Also open the pages in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Stop a request's database query after this many seconds (it is answered with 503).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// A variant definition file (TOML), for stored games of a variant that is not built in.
    #[arg(long, value_name = "PATH")]
    pub variant_file: Option<PathBuf>,
}

/// Serves until the process is stopped.
pub fn run(args: &ServeArgs, out: &mut dyn Write) -> Result<bool> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 3600.0) {
        anyhow::bail!(
            "--timeout {}: expected seconds, more than 0 and at most 3600",
            args.timeout
        );
    }
    let registry = VariantArgs {
        variant: None,
        variant_file: args.variant_file.clone(),
    }
    .registry()?;
    let ip = args.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let mut config = Config::new(&args.db.db);
    config.addr = SocketAddr::new(ip, args.port);
    config.query_timeout = Duration::from_secs_f64(args.timeout);
    config.registry = registry;
    let server = Server::bind(config).map_err(|e| match e {
        kabir::serve::ServeError::Db(e) => anyhow::Error::new(e)
            .context(format!("cannot open the database {}", args.db.db.display())),
        kabir::serve::ServeError::Bind { source, addr }
            if source.kind() == std::io::ErrorKind::AddrInUse =>
        {
            anyhow::anyhow!(
                "cannot listen on {addr}: the port is in use (choose another with --port, or \
                 --port 0 for a free one)"
            )
        }
        e => anyhow::Error::new(e),
    })?;
    if !ip.is_loopback() {
        eprintln!(
            "kabir serve: warning: listening on {ip}, not on this machine's loopback address: \
             anyone who can reach it can read the database (there is no login)"
        );
    }
    let url = server.url();
    writeln!(out, "{url}")?;
    // The URL must reach a reader now, not when the server stops.
    out.flush()?;
    if args.open {
        open_browser(&url);
    }
    server.run().context("the server stopped")?;
    Ok(true)
}

/// Starts the default browser on `url`; a failure is a warning, as the URL is printed.
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    let started = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(mut child) => {
            // The opener returns soon; waited for so that it leaves no zombie, and heard
            // when it finds no browser.
            let url = url.to_string();
            std::thread::spawn(move || {
                if let Ok(status) = child.wait()
                    && !status.success()
                {
                    eprintln!(
                        "kabir serve: warning: could not start a browser ({status}); open {url}"
                    );
                }
            });
        }
        Err(e) => eprintln!("kabir serve: warning: could not start a browser ({e}); open {url}"),
    }
}
