//! Game text to download: one game (`/pgn/game/ID`), or every game of a search, all its
//! pages (`/pgn/search?...`, the search page's parameters but the page's own). The text is
//! what `kabir export` writes for the same games ([`kabir_db::StoredGame::write_pgn`]).
//!
//! A search's games are sent as they are read, never gathered whole: the parameters and the
//! list of the games' ids are settled first (so that a bad request is still a 400 and a slow
//! search a 503), then a task reads the games a piece at a time, each piece a short heavy
//! request of its own, and hands the pieces to the answer's body through a small channel. A
//! client that stops reading holds no database thread: the task waits for it at most
//! [`CLIENT_WAIT`], then gives up and frees its download slot.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use kabir_db::GameId;

use super::api::{game_id, game_query};
use super::app::{AppError, State as App, with_db, with_db_costing, with_db_waiting};
use super::cost::Cost;
use super::pages::error_page;
use super::params::{FILTER, Params};

/// The type of game text: the registration most programs recognise, and the text's encoding.
pub(crate) const CONTENT_TYPE: &str = "application/x-chess-pgn; charset=utf-8";

/// The parameters of a search's download: the search page's, without its page (`limit`,
/// `offset`), since every game is sent.
pub(crate) const DOWNLOAD: &[&str] = &["fen", "moves", "exact-order", "sort", "reverse"];

/// The most games read for one piece of a download: few enough that a piece is a short job
/// for a database thread.
const PIECE_GAMES: usize = 200;
/// A piece ends at the game that takes it past this many bytes, whatever its count.
const PIECE_BYTES: usize = 1 << 20;
/// Pieces read ahead of the client: enough to keep a fast client busy while the next one is
/// read, few enough that a slow client costs little memory.
pub(crate) const AHEAD: usize = 2;
/// How long a download waits for its client to take a piece before it stops.
const CLIENT_WAIT: Duration = Duration::from_secs(60);

/// An answer the browser saves as `name`.
fn attachment(name: &str, body: Body) -> Response {
    let mut r = (StatusCode::OK, [(header::CONTENT_TYPE, CONTENT_TYPE)], body).into_response();
    // Names made here from digits and letters only: always a valid header.
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

/// `GET /pgn/game/ID`: the game's text, as `kabir export` writes it.
pub(crate) async fn game(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    match game_text(&app, &id, q.as_deref()).await {
        Ok((id, text)) => attachment(&format!("kabir-game-{id}.pgn"), Body::from(text)),
        Err(e) => error_page(&e, Some(&app.db_name)),
    }
}

async fn game_text(
    app: &Arc<App>,
    id: &str,
    q: Option<&str>,
) -> Result<(GameId, Vec<u8>), AppError> {
    if let Some((k, _)) = form_urlencoded::parse(q.unwrap_or("").as_bytes()).next() {
        return Err(AppError::BadRequest(format!(
            "unknown parameter {k:?}; a game's download takes no parameters"
        )));
    }
    let id = game_id(id)?;
    let text = with_db(app, move |db| {
        let g = db
            .game(id)?
            .ok_or_else(|| AppError::NotFound(format!("no game {id} in this database")))?;
        let mut text = Vec::with_capacity(g.pgn.len() + 2);
        g.write_pgn(&mut text)
            .map_err(|e| AppError::Internal(e.to_string()))?;
        Ok(text)
    })
    .await?;
    Ok((id, text))
}

/// `GET /pgn/search?<conditions>[&fen=F|moves=M[&exact-order=1]][&sort=K&reverse=1]`: every
/// game the search finds, in its order, as `kabir export` writes them; sent as it is read.
pub(crate) async fn search(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    match search_body(&app, q.as_deref()).await {
        Ok((name, body)) => attachment(name, body),
        Err(e) => error_page(&e, Some(&app.db_name)),
    }
}

async fn search_body(app: &Arc<App>, q: Option<&str>) -> Result<(&'static str, Body), AppError> {
    let p = Params::parse(q, &[FILTER, DOWNLOAD])?;
    // What can be checked without the database is, before a slot is taken.
    p.filter(&app.registry)?;
    p.sort()?;
    p.flag("reverse")?;
    p.flag("exact-order")?;
    let name = if p.get("fen").is_some() || p.get("moves").is_some() {
        "kabir-position.pgn"
    } else {
        "kabir-search.pgn"
    };
    let slot = app.download_slot().await?;
    let registry = app.registry.clone();
    // Listing every game of a search may read many: heavy, like a long page of games.
    let ids = with_db_costing(app, Cost::Heavy, move |db| {
        // As `kabir export`: an empty database has no games to send, whatever is asked.
        if db.is_empty()? {
            return Ok(Vec::new());
        }
        let mut q = game_query(db, &registry, &p)?;
        q.limit = None;
        q.offset = 0;
        Ok(db.search_ids(&q)?)
    })
    .await?;
    Ok((name, stream(app.clone(), ids, slot)))
}

/// A piece of a download, or its end. A channel that closes without [`Piece::End`] is a
/// download that failed: the body ends with an error, and the client sees the connection
/// cut rather than a shorter file that looks whole.
enum Piece {
    Text(Bytes),
    End,
}

/// The body of a download of `ids`: a task reads them while the client takes them.
fn stream(app: Arc<App>, ids: Vec<GameId>, slot: OwnedSemaphorePermit) -> Body {
    let (tx, rx) = mpsc::channel(AHEAD);
    tokio::spawn(read_pieces(app, ids, slot, tx));
    let pieces = futures_util::stream::unfold(Some(rx), |rx| async move {
        let mut rx = rx?;
        match rx.recv().await {
            Some(Piece::Text(b)) => Some((Ok(b), Some(rx))),
            Some(Piece::End) => None,
            None => Some((
                Err(std::io::Error::other("the download stopped before its end")),
                None,
            )),
        }
    });
    Body::from_stream(pieces)
}

/// Reads the games a piece at a time, each piece a heavy request of its own (so that pages
/// never wait behind a download, and no thread is held while the client reads), and sends
/// them. Stops at the first failure, or when the client has gone or stopped reading.
async fn read_pieces(
    app: Arc<App>,
    ids: Vec<GameId>,
    slot: OwnedSemaphorePermit,
    tx: mpsc::Sender<Piece>,
) {
    let _slot = slot;
    let ids: Arc<[GameId]> = ids.into();
    // Every heavy query running ends within the time bound: a piece waits for a permit
    // longer than a request does, rather than cut a download short while the server is busy.
    let wait = app.timeout.saturating_mul(2);
    let mut at = 0;
    while at < ids.len() {
        let all = ids.clone();
        let piece = with_db_waiting(&app, Cost::Heavy, wait, move |db| {
            let mut text = Vec::new();
            let mut read = 0;
            for &id in all.iter().skip(at).take(PIECE_GAMES) {
                let g = db.game(id)?.ok_or_else(|| {
                    AppError::Internal(format!("game {id} disappeared during the download"))
                })?;
                g.write_pgn(&mut text)
                    .map_err(|e| AppError::Internal(e.to_string()))?;
                read += 1;
                if text.len() >= PIECE_BYTES {
                    break;
                }
            }
            Ok((read, text))
        })
        .await;
        let Ok((read, text)) = piece else {
            return;
        };
        at += read;
        if tx
            .send_timeout(Piece::Text(Bytes::from(text)), CLIENT_WAIT)
            .await
            .is_err()
        {
            return;
        }
    }
    let _ = tx.send_timeout(Piece::End, CLIENT_WAIT).await;
}
