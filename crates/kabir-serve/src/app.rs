//! The application: routes, the guards every request passes, the database connections and
//! the errors a request can get.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use kabir_db::{Database, DbError};
use kabir_rules::variants::Registry;

use super::Config;
use super::cost::Cost;

/// The longest request target accepted (path and query).
pub(crate) const MAX_TARGET: usize = 16 * 1024;

/// Everything the handlers share.
#[derive(Debug)]
pub(crate) struct State {
    pub db_path: std::path::PathBuf,
    /// The file name, for the pages' header.
    pub db_name: String,
    pub registry: Registry,
    pub timeout: Duration,
    /// Whether the server listens on a loopback address only (then it answers only to
    /// loopback host names).
    pub loopback: bool,
    pool: Mutex<Vec<Conn>>,
    /// The permits of heavy requests ([`Cost::Heavy`]): one fewer than the database threads,
    /// so that one thread at least is always free for light ones.
    heavy: Arc<Semaphore>,
    /// How many permits `heavy` has, for the message of a request refused for want of one.
    pub heavy_permits: usize,
    /// The slots of streamed downloads (`download::search`): each holds one while its games
    /// are read and sent, which bounds the lists of ids and the text held for clients.
    downloads: Arc<Semaphore>,
    /// The zero of the deadlines kept in [`Conn::deadline`].
    epoch: Instant,
}

/// A read-only connection with the deadline its progress handler enforces.
struct Conn {
    db: Database,
    /// Nanoseconds after [`State::epoch`] past which a running statement is interrupted;
    /// `u64::MAX` when no request is running.
    deadline: Arc<AtomicU64>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("db", &self.db).finish()
    }
}

/// SQLite calls the progress handler every this many virtual machine instructions: often
/// enough to stop within a millisecond, rarely enough to cost nothing measurable.
const PROGRESS_STEPS: i32 = 1000;

/// The longest a heavy request waits for a permit before it is answered 503: long enough to
/// ride out a short burst, short enough that a client learns soon that the server is busy.
const HEAVY_WAIT: Duration = Duration::from_secs(2);

/// The most streamed downloads at once: each holds a list of its games' ids (4 bytes a game)
/// and up to [`crate::download::AHEAD`] pieces of text not yet taken by its client.
pub(crate) const DOWNLOADS: usize = 4;

/// The database threads for `workers` queries at once: two at least, so that heavy requests
/// can have one and light ones another.
pub(crate) fn threads(workers: usize) -> usize {
    workers.max(2)
}

impl State {
    pub fn new(config: Config, first: Database, loopback: bool) -> State {
        let heavy_permits = threads(config.workers) - 1;
        let db_name = config.db.file_name().map_or_else(
            || config.db.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let state = State {
            db_path: config.db,
            db_name,
            registry: config.registry,
            timeout: config.query_timeout,
            loopback,
            pool: Mutex::new(Vec::new()),
            heavy: Arc::new(Semaphore::new(heavy_permits)),
            heavy_permits,
            downloads: Arc::new(Semaphore::new(DOWNLOADS)),
            epoch: Instant::now(),
        };
        if let Ok(conn) = state.prepare(first) {
            state.put(conn);
        }
        state
    }

    fn prepare(&self, mut db: Database) -> Result<Conn, DbError> {
        let deadline = Arc::new(AtomicU64::new(u64::MAX));
        let watched = deadline.clone();
        let epoch = self.epoch;
        db.interrupt_when(PROGRESS_STEPS, move || {
            let now = u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
            now >= watched.load(Ordering::Relaxed)
        })?;
        // The file is opened read-only already; this makes any write a statement error too.
        db.connection()
            .execute_batch("PRAGMA query_only = 1")
            .map_err(|e| db.err(e))?;
        Ok(Conn { db, deadline })
    }

    /// A slot for a streamed download, waiting for one at most as long as a heavy request
    /// waits for its permit; else [`AppError::Downloads`].
    pub async fn download_slot(&self) -> Result<OwnedSemaphorePermit, AppError> {
        let wait = HEAVY_WAIT.min(self.timeout);
        match tokio::time::timeout(wait, self.downloads.clone().acquire_owned()).await {
            Ok(Ok(p)) => Ok(p),
            Ok(Err(_)) | Err(_) => Err(AppError::Downloads {
                slots: DOWNLOADS,
                retry_after: Duration::from_secs(self.timeout.as_secs_f64().ceil() as u64),
            }),
        }
    }

    fn take(&self) -> Result<Conn, DbError> {
        let pooled = self.pool.lock().ok().and_then(|mut p| p.pop());
        match pooled {
            Some(c) => Ok(c),
            None => self.prepare(Database::open(&self.db_path)?),
        }
    }

    fn put(&self, conn: Conn) {
        if let Ok(mut p) = self.pool.lock() {
            p.push(conn);
        }
    }

    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }
}

/// What went wrong with a request.
#[derive(Debug)]
pub(crate) enum AppError {
    /// A parameter is missing, unknown or malformed: 400 with the message.
    BadRequest(String),
    /// No such page or game: 404.
    NotFound(String),
    /// The query took longer than allowed: 503.
    Timeout(Duration),
    /// A heavy request found every heavy permit taken for [`HEAVY_WAIT`]: 503 with
    /// `Retry-After`.
    Busy {
        /// The heavy requests the server runs at once.
        permits: usize,
        /// When to try again: by then every heavy query running has ended or been stopped.
        retry_after: Duration,
    },
    /// A streamed download found every download slot taken for [`HEAVY_WAIT`]: 503 with
    /// `Retry-After`.
    Downloads {
        /// The downloads the server streams at once.
        slots: usize,
        /// When to try again.
        retry_after: Duration,
    },
    /// The database failed (damaged, locked by a writer, unreadable): 500, or 503 when busy.
    Db(DbError),
    /// A bug: 500.
    Internal(String),
}

impl From<DbError> for AppError {
    fn from(e: DbError) -> AppError {
        AppError::Db(e)
    }
}

impl AppError {
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Timeout(_)
            | AppError::Busy { .. }
            | AppError::Downloads { .. }
            | AppError::Db(DbError::Busy { .. }) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Db(_) | AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn message(&self) -> String {
        match self {
            AppError::BadRequest(m) | AppError::NotFound(m) | AppError::Internal(m) => m.clone(),
            AppError::Timeout(d) => format!(
                "the query took longer than {} s and was stopped; narrow it down (a position \
                 deeper in the opening, more conditions) or start the server with a longer \
                 --timeout",
                d.as_secs_f64()
            ),
            AppError::Busy {
                permits,
                retry_after,
            } => format!(
                "the server is busy: it runs at most {permits} heavy request{} at once (a deep \
                 explorer tree, a long list of games, statistics that read every game) and all \
                 are taken; try again in {} s, or ask for less (docs/SERVE.md lists what is \
                 heavy)",
                if *permits == 1 { "" } else { "s" },
                retry_after.as_secs()
            ),
            AppError::Downloads { slots, retry_after } => format!(
                "the server is busy: it sends at most {slots} downloads of games at once and all \
                 are taken; try again in {} s",
                retry_after.as_secs()
            ),
            AppError::Db(e) => e.to_string(),
        }
    }

    /// The `Retry-After` of the answer, in seconds, when the client should try again later.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::Busy { retry_after, .. } | AppError::Downloads { retry_after, .. } => {
                Some(retry_after.as_secs())
            }
            _ => None,
        }
    }
}

/// Runs `f`, a light request's work, with a database connection: see [`with_db_costing`].
pub(crate) async fn with_db<T, F>(state: &Arc<State>, f: F) -> Result<T, AppError>
where
    T: Send + 'static,
    F: FnOnce(&Database) -> Result<T, AppError> + Send + 'static,
{
    with_db_costing(state, Cost::Light, f).await
}

/// Runs `f` with a database connection on the blocking pool, within the request's time
/// bound: SQLite interrupts a statement past the deadline, and the request is answered then
/// whether or not the work has stopped.
///
/// A heavy request first takes one of the heavy permits, waiting at most [`HEAVY_WAIT`]
/// (else 503, [`AppError::Busy`]), and holds it until its work has stopped, not merely until
/// it is answered: there are fewer permits than threads, so at most that many threads are
/// ever busy with heavy work and a light request finds one free.
pub(crate) async fn with_db_costing<T, F>(
    state: &Arc<State>,
    cost: Cost,
    f: F,
) -> Result<T, AppError>
where
    T: Send + 'static,
    F: FnOnce(&Database) -> Result<T, AppError> + Send + 'static,
{
    with_db_waiting(state, cost, HEAVY_WAIT.min(state.timeout), f).await
}

/// [`with_db_costing`], a heavy request waiting at most `wait` for its permit.
pub(crate) async fn with_db_waiting<T, F>(
    state: &Arc<State>,
    cost: Cost,
    wait: Duration,
    f: F,
) -> Result<T, AppError>
where
    T: Send + 'static,
    F: FnOnce(&Database) -> Result<T, AppError> + Send + 'static,
{
    let timeout = state.timeout;
    let permit = match cost {
        Cost::Light => None,
        Cost::Heavy => {
            match tokio::time::timeout(wait, state.heavy.clone().acquire_owned()).await {
                Ok(Ok(p)) => Some(p),
                // The semaphore is never closed; a closed one would be refused the same way.
                Ok(Err(_)) | Err(_) => {
                    return Err(AppError::Busy {
                        permits: state.heavy_permits,
                        retry_after: Duration::from_secs(timeout.as_secs_f64().ceil() as u64),
                    });
                }
            }
        }
    };
    let deadline = Instant::now() + timeout;
    let st = state.clone();
    let task = tokio::task::spawn_blocking(move || {
        // Released when the work is done, whether or not the request is still waiting.
        let _permit = permit;
        // A request that waited for a thread past its deadline is not started.
        if Instant::now() >= deadline {
            return Err(AppError::Timeout(timeout));
        }
        let conn = st.take()?;
        conn.deadline.store(st.nanos(deadline), Ordering::Relaxed);
        let result = f(&conn.db);
        conn.deadline.store(u64::MAX, Ordering::Relaxed);
        st.put(conn);
        match result {
            Err(_) if Instant::now() >= deadline => Err(AppError::Timeout(timeout)),
            r => r,
        }
    });
    // A little longer than the database's own bound, which answers with a better message.
    match tokio::time::timeout(timeout + Duration::from_millis(250), task).await {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(AppError::Internal(
            "internal error: the query failed unexpectedly".into(),
        )),
        Err(_) => Err(AppError::Timeout(timeout)),
    }
}

/// The routes, behind the guards.
pub(crate) fn router(state: Arc<State>) -> Router {
    let routes = Router::new()
        .route("/", get(super::pages::home))
        .route("/explore", get(super::pages::explore))
        .route("/game/{id}", get(super::pages::game))
        .route("/search", get(super::pages::search))
        .route("/stats", get(super::pages::stats))
        .route("/api/explore", get(super::api::explore))
        .route("/api/games", get(super::api::games))
        .route("/api/game/{id}", get(super::api::game))
        .route("/api/stats", get(super::api::stats))
        .route("/pgn/game/{id}", get(super::download::game))
        .route("/pgn/search", get(super::download::search))
        .route("/assets/{name}", get(super::assets::asset))
        .route("/favicon.ico", get(super::assets::favicon))
        .fallback(not_found)
        .with_state(state.clone());
    guard(routes, state.loopback)
}

async fn not_found(req: Request) -> Response {
    let path = req.uri().path().to_string();
    let e = AppError::NotFound(format!("no page {path}"));
    if path.starts_with("/api/") {
        super::api::error_response(&e)
    } else {
        super::pages::error_page(&e, None)
    }
}

/// The guards every request passes, outermost first: security headers on every answer, the
/// host name check, the request size bound, and a last guard that turns a panic into a 500
/// answer instead of a dropped connection.
pub(crate) fn guard(routes: Router, loopback: bool) -> Router {
    routes
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panicked))
        .layer(middleware::from_fn(bound_request))
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            check_host(loopback, req, next)
        }))
        .layer(middleware::from_fn(security_headers))
}

fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    plain(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error: the request could not be answered\n",
    )
}

fn plain(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.to_string(),
    )
        .into_response()
}

/// Requests carry no body, and their target is at most [`MAX_TARGET`] bytes.
async fn bound_request(req: Request, next: Next) -> Response {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        let mut r = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD requests are answered\n",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let has_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if has_body {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "requests to this server carry no body\n",
        );
    }
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > MAX_TARGET {
        return plain(
            StatusCode::URI_TOO_LONG,
            &format!("the request target is longer than {MAX_TARGET} bytes\n"),
        );
    }
    next.run(req).await
}

/// Whether a `Host` header names this machine's loopback interface.
pub(crate) fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        // [::1]:8080
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                host
            }
        })
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// On a loopback address, requests must name a loopback host: a web page elsewhere cannot
/// read this server through a host name of its own that resolves to 127.0.0.1 (DNS
/// rebinding).
async fn check_host(loopback: bool, req: Request, next: Next) -> Response {
    if loopback {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| req.uri().authority().map(|a| a.as_str()));
        if !host.is_some_and(loopback_host) {
            return plain(
                StatusCode::MISDIRECTED_REQUEST,
                "this server answers only requests for localhost or 127.0.0.1\n",
            );
        }
    }
    next.run(req).await
}

/// The Content-Security-Policy of every answer: scripts, styles and fonts only from this
/// server's own files (no inline script or style, whatever a game's text holds), pictures
/// from here or inline, no plugins, no framing, forms only to this server.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

async fn security_headers(req: Request, next: Next) -> Response {
    let start = Instant::now();
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    let set = |h: &mut axum::http::HeaderMap, k: HeaderName, v: &'static str| {
        h.insert(k, HeaderValue::from_static(v));
    };
    set(h, header::CONTENT_SECURITY_POLICY, CSP);
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(h, header::X_FRAME_OPTIONS, "DENY");
    set(h, header::REFERRER_POLICY, "no-referrer");
    set(
        h,
        HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    );
    if !h.contains_key(header::CACHE_CONTROL) {
        set(h, header::CACHE_CONTROL, "no-cache");
    }
    // The server's time for the request, for measuring from outside (docs/SERVE.md).
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if let Ok(v) = HeaderValue::from_str(&format!("app;dur={ms:.2}")) {
        h.insert(HeaderName::from_static("server-timing"), v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request as HttpRequest;
    use tower::ServiceExt;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    async fn boom() -> &'static str {
        panic!("a bug in a handler")
    }

    #[test]
    fn a_panic_is_a_500_answer_with_the_security_headers() {
        let app = guard(Router::new().route("/boom", get(boom)), true);
        let req = HttpRequest::get("/boom")
            .header("host", "127.0.0.1:8080")
            .body(Body::empty())
            .unwrap();
        let r = runtime().block_on(app.oneshot(req)).unwrap();
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(r.headers()[header::CONTENT_SECURITY_POLICY], CSP);
        assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }

    #[test]
    fn a_heavy_request_past_the_permits_waits_then_is_refused_while_light_ones_run() {
        let path = std::env::temp_dir().join(format!("kabir-serve-busy-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        drop(Database::create_or_open(&path).unwrap());
        let mut config = Config::new(&path);
        config.workers = 2;
        config.query_timeout = Duration::from_millis(300);
        let state = Arc::new(State::new(config, Database::open(&path).unwrap(), true));
        assert_eq!(state.heavy_permits, 1);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(threads(2))
            .build()
            .unwrap();
        rt.block_on(async {
            // Another heavy request holds the only permit.
            let held = state.heavy.clone().acquire_owned().await.unwrap();
            let empty = with_db(&state, |db| Ok(db.is_empty()?)).await.unwrap();
            assert!(empty, "a light request runs meanwhile");
            let started = Instant::now();
            let e = with_db_costing(&state, Cost::Heavy, |_| Ok(()))
                .await
                .unwrap_err();
            assert!(started.elapsed() >= Duration::from_millis(300), "it waited");
            assert!(matches!(e, AppError::Busy { permits: 1, .. }), "{e:?}");
            assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(e.retry_after(), Some(1));
            assert!(
                e.message().contains("at most 1 heavy request at once"),
                "{}",
                e.message()
            );
            drop(held);
            with_db_costing(&state, Cost::Heavy, |_| Ok(()))
                .await
                .unwrap();
        });
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_download_past_the_slots_waits_then_is_refused() {
        let path =
            std::env::temp_dir().join(format!("kabir-serve-slots-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        drop(Database::create_or_open(&path).unwrap());
        let mut config = Config::new(&path);
        config.query_timeout = Duration::from_millis(300);
        let state = Arc::new(State::new(config, Database::open(&path).unwrap(), true));
        runtime().block_on(async {
            let mut held = Vec::new();
            for _ in 0..DOWNLOADS {
                held.push(state.download_slot().await.unwrap());
            }
            let started = Instant::now();
            let e = state.download_slot().await.unwrap_err();
            assert!(started.elapsed() >= Duration::from_millis(300), "it waited");
            assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(e.retry_after(), Some(1));
            assert!(
                e.message().contains("at most 4 downloads of games at once"),
                "{}",
                e.message()
            );
            // Heavy requests are not downloads: they still run.
            with_db_costing(&state, Cost::Heavy, |_| Ok(()))
                .await
                .unwrap();
            held.pop();
            assert!(state.download_slot().await.is_ok());
        });
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn other_hosts_bodies_and_methods_are_refused() {
        let app = || guard(Router::new().route("/", get(|| async { "ok" })), true);
        let rt = runtime();
        let status = |r: HttpRequest<Body>| rt.block_on(app().oneshot(r)).unwrap().status();
        let req = |host: &str| {
            HttpRequest::get("/")
                .header("host", host)
                .body(Body::empty())
                .unwrap()
        };
        assert_eq!(status(req("localhost:1234")), StatusCode::OK);
        assert_eq!(status(req("[::1]:1234")), StatusCode::OK);
        assert_eq!(status(req("evil.example")), StatusCode::MISDIRECTED_REQUEST);
        assert_eq!(
            status(req("127.0.0.1.evil.example:80")),
            StatusCode::MISDIRECTED_REQUEST
        );
        let post = HttpRequest::post("/")
            .header("host", "localhost")
            .body(Body::from("x"))
            .unwrap();
        assert_eq!(status(post), StatusCode::METHOD_NOT_ALLOWED);
        let with_body = HttpRequest::get("/")
            .header("host", "localhost")
            .header("content-length", "5")
            .body(Body::from("hello"))
            .unwrap();
        assert_eq!(status(with_body), StatusCode::PAYLOAD_TOO_LARGE);
        let long = HttpRequest::get(format!("/?q={}", "a".repeat(MAX_TARGET)))
            .header("host", "localhost")
            .body(Body::empty())
            .unwrap();
        assert_eq!(status(long), StatusCode::URI_TOO_LONG);
        // Not on loopback: any host name.
        let open = guard(Router::new().route("/", get(|| async { "ok" })), false);
        assert_eq!(
            rt.block_on(open.oneshot(req("example.org")))
                .unwrap()
                .status(),
            StatusCode::OK
        );
    }
}
