//! `kabir serve`: the opening explorer, a game viewer, search and statistics as web pages
//! over a game database, with a JSON API behind them.
//!
//! The server reads the database read-only, through the same library calls as the query
//! commands ([`Database::explore`](kabir_db::Database::explore),
//! [`search`](kabir_db::Database::search), [`report`](kabir_db::Database::report),
//! [`game`](kabir_db::Database::game)), and its API answers with the same JSON objects
//! ([`kabir_db::ExploreAnswer`], [`kabir_db::SearchAnswer`], [`kabir_db::GameAnswer`],
//! [`kabir_db::Report`]). Pages are HTML from templates that escape every string; the board
//! is [`kabir_diagram::position_svg`]; the style sheet, script and font are compiled into
//! the binary. The security model is described in `docs/SERVE.md`.
//!
//! ```no_run
//! let config = kabir_serve::Config::new("kabir.db");
//! let server = kabir_serve::Server::bind(config)?;
//! println!("{}", server.url());
//! server.run()?;
//! # Ok::<(), kabir_serve::ServeError>(())
//! ```

mod api;
mod app;
mod assets;
mod cost;
mod download;
mod pages;
mod params;
mod play;
mod view;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kabir_db::{Database, DbError};
use kabir_rules::variants::Registry;

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database file, opened read-only.
    pub db: PathBuf,
    /// Where to listen; by default 127.0.0.1 on port 8080.
    pub addr: SocketAddr,
    /// The longest a request may query the database; past it the query is interrupted and
    /// the request answered with 503.
    pub query_timeout: Duration,
    /// Database queries running at once, each on its own connection and thread (two at
    /// least); heavy requests may hold one fewer, so that light ones always find a thread.
    pub workers: usize,
    /// The variants stored games may be of: the built-ins and any loaded from files.
    pub registry: Registry,
}

impl Config {
    /// Serving `db` on 127.0.0.1:8080, queries bounded to 10 seconds, 4 at once.
    pub fn new(db: impl Into<PathBuf>) -> Config {
        Config {
            db: db.into(),
            addr: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080),
            query_timeout: Duration::from_secs(10),
            workers: 4,
            registry: Registry::builtin(),
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The database could not be opened for queries: missing, not a kabir database, or of a
    /// schema this version cannot read.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The address could not be bound (in use, or not this machine's).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why binding failed.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error after binding: while setting up the listener or the runtime, or while
    /// serving.
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    state: Arc<app::State>,
    workers: usize,
}

impl Server {
    /// Opens the database (read-only; a missing or foreign file is an error here, before any
    /// request) and binds the address. Port 0 picks a free port: see [`Server::url`].
    pub fn bind(config: Config) -> Result<Server, ServeError> {
        let db = Database::open(&config.db)?;
        let listener = TcpListener::bind(config.addr).map_err(|source| ServeError::Bind {
            addr: config.addr,
            source,
        })?;
        listener.set_nonblocking(true)?;
        let loopback = config.addr.ip().is_loopback();
        let workers = config.workers.max(1);
        let state = app::State::new(config, db, loopback);
        Ok(Server {
            listener,
            state: Arc::new(state),
            workers,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        // A bound listener knows its address; the configured one is the fallback.
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
    }

    /// The address of the pages, `http://127.0.0.1:PORT/`. An unspecified address
    /// (`0.0.0.0`) is given as the loopback one, which reaches it from this machine.
    pub fn url(&self) -> String {
        let addr = self.local_addr();
        let ip = match addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}/", SocketAddr::new(ip, addr.port()))
    }

    /// Serves until the process ends: one thread for the connections and `workers` threads
    /// (two at least) for the database queries, one fewer of which may run heavy requests
    /// at once (`docs/SERVE.md`).
    pub fn run(self) -> Result<(), ServeError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .max_blocking_threads(app::threads(self.workers))
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            axum::serve(listener, app::router(self.state)).await
        })?;
        Ok(())
    }
}
