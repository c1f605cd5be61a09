//! The JSON API: the objects the query commands print with `--format json`.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use kabir_db::{
    DEFAULT_TREE_NODES, Database, ExploreAnswer, GameAnswer, GameAnswerError, GameId, GameQuery,
    SearchAnswer, SearchPage, TreeQuery,
};
use kabir_rules::Variant;
use kabir_rules::variants::Registry;

use super::app::{AppError, State as App, with_db, with_db_costing};
use super::cost;
use super::params::{self, EXPLORE_FILTER, FILTER, Params, SEARCH, STATS};

/// A JSON answer.
pub(crate) fn json<T: Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Err(e) => error_response(&AppError::Internal(format!("internal error: {e}"))),
    }
}

/// An error as JSON: `{"error": "..."}` with the status.
pub(crate) fn error_response(e: &AppError) -> Response {
    #[derive(Serialize)]
    struct Error {
        error: String,
    }
    let body = serde_json::to_vec(&Error { error: e.message() }).unwrap_or_default();
    let mut r = (
        e.status(),
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response();
    if let Some(s) = e.retry_after() {
        r.headers_mut().insert(header::RETRY_AFTER, s.into());
    }
    r
}

fn answer<T: Serialize>(r: Result<T, AppError>) -> Response {
    match r {
        Ok(v) => json(&v),
        Err(e) => error_response(&e),
    }
}

/// The variant of a position: the one asked for, or the database's only variant.
pub(crate) fn position_variant(
    db: &Database,
    registry: &Registry,
    chosen: Option<Arc<Variant>>,
) -> Result<Arc<Variant>, AppError> {
    if let Some(v) = chosen {
        return Ok(v);
    }
    let names = db.variants()?;
    match names.as_slice() {
        [one] => registry.find(one).cloned().ok_or_else(|| {
            AppError::BadRequest(format!(
                "the database's games are of variant {one:?}, which this server does not know \
                 (start it with --variant-file)"
            ))
        }),
        [] => Err(AppError::BadRequest(
            "the database holds no games; give variant= to read a position".into(),
        )),
        many => Err(AppError::BadRequest(format!(
            "the database holds games of several variants ({}): choose one with variant=",
            many.join(", ")
        ))),
    }
}

/// `GET /api/explore?variant=V&fen=F&moves=M&depth=N&breadth=N&examples=N&max-nodes=N` and the
/// conditions `player`, `color`, `event`, `site`, `from`, `to`, `result`: what
/// `kabir explore --format json` prints.
pub(crate) async fn explore(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    match explore_value(app, q).await {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Err(e) => error_response(&e),
    }
}

/// The answer written out where it is made: it borrows from the explorer.
async fn explore_value(app: Arc<App>, q: Option<String>) -> Result<Vec<u8>, AppError> {
    let p = Params::parse(
        q.as_deref(),
        &[
            &[
                "variant",
                "fen",
                "moves",
                "depth",
                "breadth",
                "examples",
                "max-nodes",
            ],
            EXPLORE_FILTER,
        ],
    )?;
    let chosen = p.variant(&app.registry)?;
    // Checked before the database is read.
    let filter = p.explore_filter(&app.registry)?;
    let depth = p.number("depth", 1..=cost::MAX_DEPTH)?.unwrap_or(1);
    let breadth = p.number("breadth", 0..=cost::MAX_BREADTH)?.unwrap_or(3);
    let examples = p.number("examples", 0..=cost::MAX_EXAMPLES)?.unwrap_or(3);
    // A tree may be made smaller than the command line's default, not larger: the server
    // holds one per request running.
    let max_nodes = p
        .number("max-nodes", 1..=DEFAULT_TREE_NODES)?
        .unwrap_or(DEFAULT_TREE_NODES);
    let query = TreeQuery {
        depth,
        breadth,
        examples,
        max_nodes,
    };
    let registry = app.registry.clone();
    let cost = cost::explore_filtered(!filter.is_empty(), depth, examples);
    with_db_costing(&app, cost, move |db| {
        let variant = position_variant(db, &registry, chosen)?;
        let line = p.line(&variant)?;
        let tree = db.explore_tree_filtered(&line.position, &filter, &query)?;
        serde_json::to_vec(&ExploreAnswer::tree(&line.position, &tree))
            .map_err(|e| AppError::Internal(e.to_string()))
    })
    .await
}

/// The library query of a game list's parameters; `None` for the position when none is
/// asked for.
pub(crate) fn game_query(
    db: &Database,
    registry: &Registry,
    p: &Params,
) -> Result<GameQuery, AppError> {
    let mut q = GameQuery {
        filter: p.filter(registry)?,
        sort: p.sort()?,
        descending: p.flag("reverse")?,
        limit: Some(p.number("limit", 1..=params::MAX_LIMIT)?.unwrap_or(50)),
        offset: p.number("offset", 0..=1_000_000_000usize)?.unwrap_or(0),
        position: None,
    };
    let exact = p.flag("exact-order")?;
    if exact && (p.get("moves").is_none() || p.get("fen").is_some()) {
        return Err(AppError::BadRequest(
            "exact-order needs moves from the start position (and no fen)".into(),
        ));
    }
    if p.get("fen").is_some() || p.get("moves").is_some() {
        let variant = position_variant(db, registry, p.variant(registry)?).map_err(|e| {
            // Said as what the form asked for: the position needs a variant to be read.
            let given = if p.get("moves").is_some() {
                "moves"
            } else {
                "fen"
            };
            match e {
                AppError::BadRequest(m) => {
                    AppError::BadRequest(format!("parameter {given} needs a variant: {m}"))
                }
                e => e,
            }
        })?;
        let line = p.line(&variant)?;
        q.filter.variant = Some(variant.id().to_string());
        if exact {
            q.filter.opening = Some(line.moves.clone());
        }
        q.position = Some(line.position);
    }
    Ok(q)
}

/// `GET /api/games?<conditions>&fen=F|moves=M&exact-order=1&sort=K&reverse=1&limit=N&offset=N`:
/// what `kabir search --format json` prints.
pub(crate) async fn games(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    answer(games_value(app, q).await)
}

async fn games_value(app: Arc<App>, q: Option<String>) -> Result<SearchAnswer, AppError> {
    let p = Params::parse(q.as_deref(), &[FILTER, SEARCH])?;
    // Conditions and the size of the list are checked before the database is read.
    p.filter(&app.registry)?;
    let (_, limit) = game_query_unchecked(&p)?;
    let registry = app.registry.clone();
    with_db_costing(&app, cost::games(limit), move |db| {
        if db.is_empty()? {
            let q = game_query_unchecked(&p)?;
            return Ok(SearchAnswer::new(&SearchPage::default(), q.0, Some(q.1)));
        }
        let q = game_query(db, &registry, &p)?;
        let page = db.search(&q)?;
        Ok(SearchAnswer::new(&page, q.offset, q.limit))
    })
    .await
}

/// The offset and limit alone, for an empty database.
fn game_query_unchecked(p: &Params) -> Result<(usize, usize), AppError> {
    Ok((
        p.number("offset", 0..=1_000_000_000usize)?.unwrap_or(0),
        p.number("limit", 1..=params::MAX_LIMIT)?.unwrap_or(50),
    ))
}

/// Reads a game id from a path.
pub(crate) fn game_id(text: &str) -> Result<GameId, AppError> {
    text.parse::<GameId>().map_err(|_| {
        AppError::NotFound(format!(
            "no game {text:?}: a game id is a whole number (see search)"
        ))
    })
}

/// `GET /api/game/ID?ply=N`: what `kabir show ID --ply N --format json` prints.
pub(crate) async fn game(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    answer(game_value(app, id, q).await)
}

pub(crate) async fn load_game(
    app: &Arc<App>,
    id: GameId,
    ply: Option<usize>,
) -> Result<GameAnswer, AppError> {
    let registry = app.registry.clone();
    with_db(app, move |db| {
        let game = db
            .game(id)?
            .ok_or_else(|| AppError::NotFound(format!("no game {id} in this database")))?;
        GameAnswer::new(&game, &registry, ply).map_err(|e| match e {
            GameAnswerError::PastEnd { .. } => AppError::BadRequest(e.to_string()),
            GameAnswerError::UnknownVariant { .. } => {
                AppError::BadRequest(format!("{e} (start the server with --variant-file)"))
            }
            GameAnswerError::Corrupt { .. } => AppError::Internal(e.to_string()),
            _ => AppError::Internal(e.to_string()),
        })
    })
    .await
}

async fn game_value(app: Arc<App>, id: String, q: Option<String>) -> Result<GameAnswer, AppError> {
    let p = Params::parse(q.as_deref(), &[&["ply"]])?;
    let id = game_id(&id)?;
    let ply = p.number("ply", 0..=usize::MAX)?;
    load_game(&app, id, ply).await
}

/// `GET /api/stats?<conditions>&by=K&opening-plies=N&top=N`: what `kabir stats --format json`
/// prints.
pub(crate) async fn stats(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    answer(stats_value(app, q).await)
}

async fn stats_value(app: Arc<App>, q: Option<String>) -> Result<kabir_db::Report, AppError> {
    let p = Params::parse(q.as_deref(), &[FILTER, STATS])?;
    let query = p.report(&app.registry)?;
    let registry = app.registry.clone();
    with_db_costing(&app, cost::report(&query), move |db| {
        Ok(db.report(&query, &registry)?)
    })
    .await
}
