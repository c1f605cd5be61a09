//! The HTML pages: explorer, game viewer, game search and statistics. Every page works as
//! plain links and forms; the script only makes moving around quicker.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use kabir_db::{
    Database, Explorer, ExplorerGames, GameAnswer, GameFilter, GameId, GameRow, GroupBy,
    MoveAnswer, Report, SearchAnswer, SearchHit, SortKey,
};
use kabir_diagram::{DiagramOptions, default_caption, position_svg};
use kabir_rules::variants::Registry;
use kabir_rules::{Color, Move, MoveKind, Position, Variant};

use super::api::{game_id, game_query, load_game};
use super::app::{AppError, State as App, with_db, with_db_costing};
use super::cost;
use super::params::{EXPLORE_FILTER, FILTER, Line, Params, SEARCH, STATS, url};
use super::play::{self, NextMove};
use super::view::{self, MainAttrs, Nav, count, layout, move_label, nav_link, pct, result_bar};

/// An HTML answer.
fn page(markup: Markup) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response()
}

/// An error as a page, with its status.
pub(crate) fn error_page(e: &AppError, db_name: Option<&str>) -> Response {
    let title = match e.status() {
        _ if e.retry_after().is_some() => "Busy",
        StatusCode::BAD_REQUEST => "Bad request",
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::SERVICE_UNAVAILABLE => "Too slow",
        _ => "Error",
    };
    let body = html! {
        section.panel.error {
            h1 { (title) }
            p.message { (e.message()) }
            p { a href="/explore" { "Back to the explorer" } }
        }
    };
    let markup = layout(
        title,
        Nav::None,
        db_name.unwrap_or(""),
        MainAttrs {
            page: "error",
            ..MainAttrs::default()
        },
        body,
    );
    let mut r = (
        e.status(),
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response();
    if let Some(s) = e.retry_after() {
        r.headers_mut().insert(header::RETRY_AFTER, s.into());
    }
    r
}

fn respond(app: &App, r: Result<Markup, AppError>) -> Response {
    match r {
        Ok(m) => page(m),
        Err(e) => error_page(&e, Some(&app.db_name)),
    }
}

/// The pages whose parameters come from a form.
#[derive(Clone, Copy)]
enum FormPage {
    Explore,
    Search,
    Stats,
}

/// Like [`respond`], but a request the form's parameters made bad is answered with the
/// form again, filled with what was sent, and the message beside it.
fn respond_form(
    app: &App,
    r: Result<Markup, AppError>,
    q: Option<&str>,
    which: FormPage,
) -> Response {
    match r {
        Err(e @ AppError::BadRequest(_)) => form_error_page(app, &e, q, which),
        r => respond(app, r),
    }
}

fn form_error_page(app: &App, e: &AppError, q: Option<&str>, which: FormPage) -> Response {
    let p = Params::lenient(q);
    let message = html! { p.message role="alert" { (e.message()) } };
    let (title, nav, page_name, body) = match which {
        FormPage::Search => (
            "Games",
            Nav::Search,
            "search",
            html! {
                div.columns.search {
                    section.panel.form-panel {
                        h2 { "Find games" }
                        (message)
                        (filter_form(&p, &app.registry, "/search", true))
                    }
                }
            },
        ),
        FormPage::Stats => (
            "Statistics",
            Nav::Stats,
            "stats",
            html! {
                div.columns.stats {
                    section.panel.form-panel {
                        h2 { "Statistics" }
                        (message)
                        (filter_form(&p, &app.registry, "/stats", false))
                    }
                }
            },
        ),
        FormPage::Explore => {
            let ids = app.registry.ids();
            let mut variants: Vec<(&str, &str)> = vec![("", "the database's")];
            variants.extend(ids.iter().map(|i| (i.as_str(), i.as_str())));
            (
                "Explorer",
                Nav::Explore,
                "explore-error",
                html! {
                    section.panel.form-panel {
                        h2 { "Explorer" }
                        (message)
                        form.filters method="get" action="/explore" {
                            div.grid {
                                (select(&p, "variant", "Variant", &variants))
                                (text_input(&p, "moves", "Moves", "e.g. f4 f7 e4"))
                                (text_input(&p, "fen", "Position (FEN)", ""))
                                (game_filter_fields(&p))
                            }
                            @if p.get("flip").is_some() {
                                input type="hidden" name="flip" value="1";
                            }
                            div.actions {
                                button type="submit" { "Go" }
                                a href="/explore" { "Start position" }
                            }
                        }
                    }
                },
            )
        }
    };
    let markup = layout(
        title,
        nav,
        &app.db_name,
        MainAttrs {
            page: page_name,
            ..MainAttrs::default()
        },
        body,
    );
    (
        e.status(),
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response()
}

pub(crate) async fn home() -> Redirect {
    Redirect::to("/explore")
}

// ----- explorer -------------------------------------------------------------------------

/// The variants to offer: those with games, known to this server.
fn known_variants(db: &Database, registry: &Registry) -> Result<Vec<Arc<Variant>>, AppError> {
    Ok(db
        .variants()?
        .iter()
        .filter_map(|n| registry.find(n).cloned())
        .collect())
}

/// The explorer's variant when none is asked for: the one with the most games.
fn main_variant(
    db: &Database,
    variants: &[Arc<Variant>],
) -> Result<Option<Arc<Variant>>, AppError> {
    if variants.len() < 2 {
        return Ok(variants.first().cloned());
    }
    let mut best: Option<(u64, &Arc<Variant>)> = None;
    for v in variants {
        let n = db.count_games(&GameFilter {
            variant: Some(v.id().to_string()),
            ..GameFilter::default()
        })?;
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, v));
        }
    }
    Ok(best.map(|(_, v)| v.clone()))
}

struct ExploreData {
    variants: Vec<Arc<Variant>>,
    variant: Arc<Variant>,
    line: Line,
    fen: Option<String>,
    ex: Explorer,
    /// The position's games worth reading, among those the filter keeps; `None` when more
    /// games reached it than are read for the lists.
    lists: Option<ExplorerGames>,
    /// The filter's parameters as given, carried by every link of the page.
    keep: Vec<(&'static str, String)>,
}

/// How many games of the position each of the explorer's lists shows.
const EXPLORER_GAMES: usize = 8;
/// The most games of a position read to make its lists: beyond, the page links to the game
/// search in those orders instead (see docs/SERVE.md for what a list costs).
const LISTED_AT_MOST: u64 = 50_000;
/// How many of the most played moves get an arrow on the board.
const EXPLORER_ARROWS: usize = 5;

pub(crate) async fn explore(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    let r = explore_page(&app, q.clone()).await;
    respond_form(&app, r, q.as_deref(), FormPage::Explore)
}

async fn explore_page(app: &Arc<App>, q: Option<String>) -> Result<Markup, AppError> {
    let p = Params::parse(
        q.as_deref(),
        &[&["variant", "fen", "moves", "flip"], EXPLORE_FILTER],
    )?;
    let chosen = p.variant(&app.registry)?;
    let flip = p.flag("flip")?;
    let filter = p.explore_filter(&app.registry)?;
    let keep = p.explore_filter_pairs();
    let registry = app.registry.clone();
    let fen = p.get("fen").map(str::to_string);
    let cost = cost::explore_filtered(!filter.is_empty(), 1, 0);
    let data = with_db_costing(app, cost, move |db| {
        let variants = known_variants(db, &registry)?;
        let variant = match chosen {
            Some(v) => v,
            None => match main_variant(db, &variants)? {
                Some(v) => v,
                None => kabir_rules::variants::builtin("tamerlane")
                    .map_err(|e| AppError::Internal(e.to_string()))?,
            },
        };
        let line = p.line(&variant)?;
        let ex = db.explore_filtered(&line.position, &filter, 0)?;
        let lists = if ex.games <= LISTED_AT_MOST {
            Some(db.explore_games(&line.position, &filter, EXPLORER_GAMES)?)
        } else {
            None
        };
        Ok(ExploreData {
            variants,
            variant,
            line,
            fen,
            ex,
            lists,
            keep,
        })
    })
    .await?;
    Ok(explore_view(app, &data, flip))
}

/// The explorer's URL for a line.
fn explore_url(variant: &str, fen: Option<&str>, moves: &[String], flip: bool) -> String {
    explore_url_kept(variant, fen, moves, flip, &[])
}

/// The explorer's URL for a line, with the filter's parameters `keep`.
fn explore_url_kept(
    variant: &str,
    fen: Option<&str>,
    moves: &[String],
    flip: bool,
    keep: &[(&str, String)],
) -> String {
    let joined = moves.join(" ");
    let mut pairs = vec![("variant", variant)];
    if let Some(f) = fen {
        pairs.push(("fen", f));
    }
    if !moves.is_empty() {
        pairs.push(("moves", &joined));
    }
    if flip {
        pairs.push(("flip", "1"));
    }
    pairs.extend(keep.iter().map(|(k, v)| (*k, v.as_str())));
    url("/explore", &pairs)
}

/// Each move of a line in SAN, with the position before it.
fn line_sans(from: &Position, moves: &[Move]) -> Vec<(Position, String)> {
    let mut pos = from.clone();
    let mut out = Vec::with_capacity(moves.len());
    let mut legal = Vec::new();
    for &m in moves {
        pos.legal_moves_into(&mut legal);
        let san = kabir_notation::san(&pos, m, &legal);
        let next = pos.after(m);
        out.push((std::mem::replace(&mut pos, next), san));
    }
    out
}

/// A line longer than this many moves is shown folded: its first [`LINE_HEAD`] and last
/// [`LINE_TAIL`] moves, the others behind a "\u{2026}" that opens in place. A line of 307 moves
/// would otherwise push the board off the screen.
const LINE_FOLD: usize = 12;
const LINE_HEAD: usize = 4;
const LINE_TAIL: usize = 6;

/// The explorer's line as breadcrumbs: the start, then each move (`link(i)` the URL of the
/// line up to move `i`), the last one current.
fn line_crumbs(
    steps: &[(Position, String)],
    from_fen: bool,
    start: &str,
    link: impl Fn(usize) -> String,
) -> Markup {
    let n = steps.len();
    let folded = (n > LINE_FOLD).then_some(LINE_HEAD..n - LINE_TAIL);
    let crumb = |i: usize| {
        let (before, san) = &steps[i];
        html! {
            a href=(link(i)) class=@if i + 1 == n { "current" } { (move_label(before, san)) }
        }
    };
    html! {
        nav.line aria-label="Line" {
            a href=(start) class=@if n == 0 { "current" } {
                @if from_fen { "Position" } @else { "Start" }
            }
            @for i in 0..n {
                @match &folded {
                    Some(middle) if i == middle.start => {
                        span.sep { "\u{203a}" }
                        details.middle {
                            summary title="Show the moves between" {
                                "\u{2026} " (middle.len()) " moves"
                            }
                            div.middle-moves {
                                @for j in middle.clone() {
                                    @if j > middle.start { span.sep { "\u{203a}" } }
                                    (crumb(j))
                                }
                            }
                        }
                    }
                    Some(middle) if middle.contains(&i) => {}
                    _ => {
                        span.sep { "\u{203a}" }
                        (crumb(i))
                    }
                }
            }
        }
    }
}

fn explore_view(app: &App, d: &ExploreData, flip: bool) -> Markup {
    let explore_url = |variant: &str, fen: Option<&str>, moves: &[String], flip: bool| {
        explore_url_kept(variant, fen, moves, flip, &d.keep)
    };
    let v = d.variant.id();
    let fen = d.fen.as_deref();
    let steps = line_sans(&d.line.from, &d.line.moves);
    let sans: Vec<String> = steps.iter().map(|(_, s)| s.clone()).collect();
    let here = explore_url(v, fen, &sans, flip);
    let pos = &d.line.position;
    let g = d.variant.geometry();

    // The board: the last move, arrows for the most played moves, a caption.
    let last = d.line.moves.last().map(|m| (m.from, m.to));
    let mut caption = default_caption(pos);
    if let Some((before, san)) = steps.last() {
        caption.push_str(&format!(" \u{b7} after {}", move_label(before, san)));
    }
    let options = DiagramOptions {
        last_move: last,
        arrows: d
            .ex
            .moves
            .iter()
            .take(EXPLORER_ARROWS)
            .map(|m| (m.mv.from, m.mv.to))
            .collect(),
        caption: Some(caption),
        flipped: flip,
    };
    let board = position_svg(pos, &options);

    let child = |san: &str| {
        let mut next = sans.clone();
        next.push(san.to_string());
        explore_url(v, fen, &next, flip)
    };
    let parent = (!sans.is_empty()).then(|| explore_url(v, fen, &sans[..sans.len() - 1], flip));
    let start = explore_url(v, fen, &[], flip);
    let forward = d.ex.moves.first().map(|m| child(&m.san));
    let continued: u64 = d.ex.games - d.ex.ended_here;
    // The games that reached the position: their list, and their text to download.
    let (search_link, download_link) = {
        let joined = sans.join(" ");
        let mut pairs = vec![("variant", v)];
        if let Some(f) = fen {
            pairs.push(("fen", f));
        }
        if !sans.is_empty() {
            pairs.push(("moves", &joined));
        }
        pairs.extend(d.keep.iter().map(|(k, v)| (*k, v.as_str())));
        (url("/search", &pairs), url("/pgn/search", &pairs))
    };
    let search_sorted = |extra: &[(&str, &str)]| {
        let mut link = search_link.clone();
        for (k, v) in extra {
            link.push_str(if link.contains('?') { "&" } else { "?" });
            link.push_str(&url("", &[(k, v)])[1..]);
        }
        link
    };
    let title = if sans.is_empty() {
        format!("{} explorer", d.variant.name())
    } else {
        format!(
            "{} after {}",
            d.variant.name(),
            steps
                .last()
                .map(|(b, s)| move_label(b, s))
                .unwrap_or_default()
        )
    };

    let body = html! {
        nav.variants aria-label="Variant" {
            @for other in &d.variants {
                a href=(explore_url(other.id(), None, &[], flip))
                    class=@if other.id() == v { "current" } { (other.name()) }
            }
            @if !d.variants.iter().any(|o| o.id() == v) {
                a.current href=(explore_url(v, None, &[], flip)) { (d.variant.name()) }
            }
        }
        (line_crumbs(&steps, d.line.from_fen, &start, |i| explore_url(v, fen, &sans[..=i], flip)))
        div.columns {
            section.board-column {
                div.board.explorer-board { (view::board_svg(&board)) }
                (play::legal_moves_data(&play::playable(pos)))
                div.controls {
                    (nav_link("start", (!sans.is_empty()).then_some(start.as_str()), "\u{ab}", "Start (Home)"))
                    (nav_link("back", parent.as_deref(), "\u{25c0}", "Back one move (\u{2190})"))
                    (nav_link("forward", forward.as_deref(), "\u{25b6}", "Most played move (\u{2192})"))
                    (nav_link("flip", Some(&explore_url(v, fen, &sans, !flip)), "\u{21c5}", "Flip the board (f)"))
                }
                (play::explorer_hint())
                form.fen method="get" action="/explore" {
                    label for="fen" { "Position string (FEN)" }
                    div.row {
                        input type="hidden" name="variant" value=(v);
                        @for (k, value) in &d.keep {
                            input type="hidden" name=(k) value=(value);
                        }
                        input #fen type="text" name="fen" value=(pos.to_fen()) spellcheck="false" autocomplete="off";
                        button type="submit" { "Go" }
                    }
                }
                p.share { "Link to this position: " a href=(here) { "permalink" } }
                (tools(Some(&pos.to_fen()), None, (d.ex.games > 0).then(|| {
                    (download_link.as_str(), format!("Download the {} game{} (PGN)", count(d.ex.games), if d.ex.games == 1 { "" } else { "s" }))
                })))
                (explore_filter_form(d, v, fen, &sans, flip))
            }
            section.panel.moves-panel {
                h2 {
                    (count(d.ex.games)) " game" @if d.ex.games != 1 { "s" }
                    span.sub { " reached this position" }
                }
                @if d.ex.games > 0 {
                    (result_bar(&d.ex.results))
                    p.note {
                        "Counted: games that reached it by any move order, each once. "
                        @if d.ex.ended_here > 0 {
                            (count(d.ex.ended_here)) " ended here; " (count(continued)) " went on."
                        }
                    }
                }
                @if d.ex.moves.is_empty() {
                    p.empty-note {
                        @if d.ex.games == 0 { "No game in the database reached this position." }
                        @else { "No game went on from this position." }
                    }
                } @else {
                    div.table-wrap { table.moves {
                        thead { tr { th { "Move" } th.num { "Games" } th.num { "Share" } th.bar-col { "White / Draw / Black" } th.num.opt { "Avg plies" } } }
                        tbody {
                            @for m in &d.ex.moves {
                                tr {
                                    td.move {
                                        a.nav href=(child(&m.san)) data-from=(g.name(m.mv.from)) data-to=(g.name(m.mv.to)) {
                                            (move_label(pos, &m.san))
                                        }
                                    }
                                    td.num { (count(m.games)) }
                                    td.num { (pct(m.share_pct)) }
                                    td.bar-col { (result_bar(&m.results)) }
                                    td.num.opt { (format!("{:.1}", m.average_plies)) }
                                }
                            }
                        }
                        tfoot {
                            tr {
                                td { "All moves" }
                                td.num { (count(continued)) }
                                td.num { "100%" }
                                td.bar-col { (result_bar(&sum_results(&d.ex))) }
                                td.opt {}
                            }
                        }
                    } }
                }
                @match &d.lists {
                    Some(lists) => {
                        @if !lists.recent.is_empty() {
                            h3 { "Recent games" }
                            (position_table(&lists.recent, &pos.to_fen(), false))
                        }
                        @if !lists.decisive.is_empty() {
                            h3 { "Shortest decisive games" }
                            (position_table(&lists.decisive, &pos.to_fen(), true))
                        }
                    }
                    None => {
                        p.more {
                            (count(d.ex.games)) " games: "
                            a href=(search_sorted(&[("sort", "date"), ("reverse", "1")])) { "newest first" }
                            ", shortest "
                            a href=(search_sorted(&[("result", "1-0"), ("sort", "plies")])) { "wins for White" }
                            ", "
                            a href=(search_sorted(&[("result", "0-1"), ("sort", "plies")])) { "for Black" }
                        }
                    }
                }
                @if d.ex.games > 0 {
                    p.more { a href=(search_link) { "All " (count(d.ex.games)) " games \u{2192}" } }
                }
            }
        }
    };
    layout(
        &title,
        Nav::Explore,
        &app.db_name,
        MainAttrs {
            page: "explore",
            moves: Some(sans.join(" ")),
            base: Some(explore_url(v, fen, &[], flip)),
        },
        body,
    )
}

/// The row of copy buttons and the download link under a board or over a list: a button
/// that copies `fen`, one that copies the text of the element `text_id`, and a link to
/// download game text. The buttons need the script, which shows them (`app.js`).
fn tools(fen: Option<&str>, text_id: Option<&str>, download: Option<(&str, String)>) -> Markup {
    html! {
        div.tools {
            @if let Some(f) = fen {
                button.copy type="button" data-copy=(f) title="Copy the position string (FEN)" { "Copy FEN" }
            }
            @if let Some(t) = text_id {
                button.copy type="button" data-copy-from=(t) title="Copy the game text (PGN)" { "Copy PGN" }
            }
            @if let Some((href, label)) = download {
                a.download href=(href) download { (label) }
            }
        }
    }
}

/// A position's games, each linking to the viewer at the position: players, result, date,
/// and with `plies` the length (the order of the decisive games).
fn position_table(games: &[SearchHit], fen: &str, plies: bool) -> Markup {
    html! {
        table.games.position-games {
            thead {
                tr {
                    th.num { "#" } th { "White" } th { "Black" } th { "Result" } th { "Date" }
                    @if plies { th.num { "Plies" } }
                }
            }
            tbody {
                @for h in games {
                    @let g = &h.game;
                    @let link = url(&format!("/game/{}", g.id), &[("fen", fen)]);
                    tr {
                        td.num { a href=(link) { (g.id) } }
                        td { a href=(link) { (view::or_unknown(&g.white)) } }
                        td { a href=(link) { (view::or_unknown(&g.black)) } }
                        td.result { (g.result.as_str()) }
                        td.date { (view::or_unknown(&g.date)) }
                        @if plies { td.num { (g.plies) } }
                    }
                }
            }
        }
    }
}

/// The fields of a game filter that the explorer and the search form share, filled from `p`.
fn game_filter_fields(p: &Params) -> Markup {
    html! {
        (text_input(p, "player", "Player", "name or part of it"))
        (select(p, "color", "Playing", &[("", "either colour"), ("white", "White"), ("black", "Black")]))
        (text_input(p, "event", "Event", ""))
        (text_input(p, "site", "Site", ""))
        (text_input(p, "from", "From date", "YYYY[.MM[.DD]]"))
        (text_input(p, "to", "To date", "YYYY[.MM[.DD]]"))
        (select(p, "result", "Result", &[("", "any"), ("1-0", "1-0"), ("0-1", "0-1"), ("1/2-1/2", "\u{bd}-\u{bd}"), ("*", "unfinished")]))
    }
}

/// The explorer's filter beside the board: it keeps the line, the board's side and the
/// position string; open while a filter is in force.
fn explore_filter_form(
    d: &ExploreData,
    v: &str,
    fen: Option<&str>,
    sans: &[String],
    flip: bool,
) -> Markup {
    let p = Params::from_pairs(&d.keep);
    let joined = sans.join(" ");
    html! {
        details.explore-filter open[!d.keep.is_empty()] {
            summary {
                "Filter games"
                @if !d.keep.is_empty() { span.sub { " (" (d.keep.len()) " in force)" } }
            }
            form.filters.explore-filter-form method="get" action="/explore" {
                input type="hidden" name="variant" value=(v);
                @if let Some(f) = fen { input type="hidden" name="fen" value=(f); }
                @if !sans.is_empty() { input type="hidden" name="moves" value=(joined); }
                @if flip { input type="hidden" name="flip" value="1"; }
                div.grid { (game_filter_fields(&p)) }
                div.actions {
                    button type="submit" { "Apply" }
                    @if !d.keep.is_empty() {
                        a href=(explore_url(v, fen, sans, flip)) { "Clear" }
                    }
                }
            }
        }
    }
}

fn sum_results(ex: &Explorer) -> kabir_db::Results {
    let mut sum = kabir_db::Results::default();
    for m in &ex.moves {
        sum.white_wins += m.results.white_wins;
        sum.draws += m.results.draws;
        sum.black_wins += m.results.black_wins;
        sum.unfinished += m.results.unfinished;
    }
    sum
}

/// Rows of a game list, each linking to the viewer (at the ply it reached the position, if
/// any).
fn linked_rows(rows: &[GameRow]) -> Vec<(GameRow, String)> {
    rows.iter()
        .map(|r| {
            let link = match r.ply {
                Some(p) => url(&format!("/game/{}", r.id), &[("ply", &p.to_string())]),
                None => format!("/game/{}", r.id),
            };
            (r.clone(), link)
        })
        .collect()
}

/// A list of games, each with its link to the viewer.
fn games_table(rows: &[(GameRow, String)], compact: bool) -> Markup {
    html! {
        div.table-wrap { table.games {
            thead {
                tr {
                    th.num { "#" }
                    th { "White" } th { "Black" } th { "Result" }
                    @if !compact { th.opt { "Event" } th.opt { "Site" } th.opt { "Variant" } }
                    th.opt2 { "Date" } th.num { "Plies" }
                    @if !compact { th.opt { "End" } }
                }
            }
            tbody {
                @for (r, link) in rows {
                    tr {
                        td.num { a href=(link) { (r.id) } }
                        td { a href=(link) { (view::or_unknown(&r.white)) } }
                        td { a href=(link) { (view::or_unknown(&r.black)) } }
                        td.result { (r.result) }
                        @if !compact {
                            td.opt { (view::or_unknown(&r.event)) }
                            td.opt { (view::or_unknown(&r.site)) }
                            td.opt { (r.variant) }
                        }
                        td.date.opt2 { (view::or_unknown(&r.date)) }
                        td.num { (r.plies) }
                        @if !compact { td.opt { (r.termination) } }
                    }
                }
            }
        } }
    }
}

// ----- game viewer -------------------------------------------------------------------------

/// A move of the game's tree in reading order, with its neighbours on its own line.
struct Flat<'a> {
    m: &'a MoveAnswer,
    main: bool,
    /// The move before it on the way from the start (`None`: the start position).
    prev: Option<usize>,
    /// The next move of its line.
    next: Option<usize>,
}

/// Appends a line's moves in reading order: each move, then the variations that replace it.
/// `before` is the move before the line's first one.
fn flatten<'a>(
    moves: &'a [MoveAnswer],
    main: bool,
    before: Option<usize>,
    out: &mut Vec<Flat<'a>>,
) {
    let mut prev = before;
    let mut last_in_line: Option<usize> = None;
    for m in moves {
        let i = out.len();
        out.push(Flat {
            m,
            main,
            prev,
            next: None,
        });
        if let Some(l) = last_in_line {
            out[l].next = Some(i);
        }
        last_in_line = Some(i);
        for v in &m.variations {
            flatten(&v.moves, false, prev, out);
        }
        prev = Some(i);
    }
}

fn flat_tree(game: &GameAnswer) -> Vec<Flat<'_>> {
    let mut flat = Vec::new();
    flatten(&game.moves, true, None, &mut flat);
    flat
}

pub(crate) async fn game(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    let r = game_page(&app, id, q).await;
    respond(&app, r)
}

async fn game_page(app: &Arc<App>, id: String, q: Option<String>) -> Result<Markup, AppError> {
    let p = Params::parse(q.as_deref(), &[&["ply", "node", "fen", "flip"]])?;
    let id = game_id(&id)?;
    let flip = p.flag("flip")?;
    let ply = p.number("ply", 0..=usize::MAX)?;
    let node = p.number("node", 0..=usize::MAX)?;
    let fen = p.get("fen");
    if [ply.is_some(), node.is_some(), fen.is_some()]
        .iter()
        .filter(|&&b| b)
        .count()
        > 1
    {
        return Err(AppError::BadRequest("give one of ply, node and fen".into()));
    }
    let mut game = load_game(app, id, ply).await?;
    if let Some(f) = fen {
        // The first ply at which the game stands at the position.
        game.ply = first_ply_at(&game, &app.registry, f).ok_or_else(|| {
            AppError::BadRequest(format!(
                "parameter fen={f:?}: game {id} never reaches that position"
            ))
        })?;
    }
    let flat = flat_tree(&game);
    // The move shown: a node of the tree, or the main line's move at the ply.
    let current = match node {
        Some(k) if k < flat.len() => Some(k),
        Some(k) => {
            return Err(AppError::BadRequest(format!(
                "parameter node={k}: game {id} has {} moves with its variations",
                flat.len()
            )));
        }
        None => flat.iter().position(|f| f.main && f.m.ply == game.ply),
    };
    let variant = app
        .registry
        .find(&game.variant)
        .cloned()
        .ok_or_else(|| AppError::BadRequest(format!("unknown variant {:?}", game.variant)))?;
    Ok(game_view(app, &game, &flat, current, &variant, flip))
}

/// The first ply of the main line at which `game` stands at the position `fen`.
fn first_ply_at(game: &GameAnswer, registry: &Registry, fen: &str) -> Option<usize> {
    let variant = registry.find(&game.variant)?;
    let target = Position::from_fen(variant, fen).ok()?;
    let at = |f: &str| Position::from_fen(variant, f).is_ok_and(|p| p == target);
    if at(&game.start) {
        return Some(0);
    }
    game.moves
        .iter()
        .find(|m| m.fen.as_deref().is_some_and(at))
        .map(|m| m.ply)
}

/// The page's URL for a move of the tree (`None`: the start).
fn game_url(id: GameId, flat: &[Flat<'_>], k: Option<usize>, flip: bool) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    match k {
        None => pairs.push(("ply", "0".into())),
        Some(k) if flat[k].main => pairs.push(("ply", flat[k].m.ply.to_string())),
        Some(k) => pairs.push(("node", k.to_string())),
    }
    if flip {
        pairs.push(("flip", "1".into()));
    }
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (*a, b.as_str())).collect();
    url(&format!("/game/{id}"), &refs)
}

/// What a special move does, in words.
fn special_text(name: &str, before: &Position, m: Move) -> String {
    let v = before.variant();
    let g = v.geometry();
    let piece = |sq| {
        before
            .piece_at(sq)
            .map(|p| v.kind(p.kind).name.to_lowercase())
            .unwrap_or_default()
    };
    match name {
        "swap" => format!(
            "King swap: the {} on {} and the {} on {} change places (once a game)",
            piece(m.from),
            g.name(m.from),
            piece(m.to),
            g.name(m.to)
        ),
        "lift" => format!(
            "Lift: the waiting pawn of pawns is placed on {}, where it forks or wins a piece",
            g.name(m.to)
        ),
        "relocation" => format!(
            "Relocation: the pawn of pawns goes from {} to its relocation square {}",
            g.name(m.from),
            g.name(m.to)
        ),
        "promotion" => format!(
            "Promotion: the pawn becomes a {}",
            m.promotion
                .map(|k| v.kind(k).name.to_lowercase())
                .unwrap_or_default()
        ),
        "arrival" => "The pawn of pawns arrives on its last rank and waits there, immune".into(),
        "adventitious-king" => {
            "Third arrival: the pawn of pawns becomes an adventitious king".into()
        }
        "citadel-draw" => format!(
            "The {} enters the enemy citadel {}: the game is drawn",
            piece(m.from),
            g.name(m.to)
        ),
        other => other.to_string(),
    }
}

fn game_view(
    app: &App,
    game: &GameAnswer,
    flat: &[Flat<'_>],
    current: Option<usize>,
    variant: &Arc<Variant>,
    flip: bool,
) -> Markup {
    let id = game.id;
    let start = Position::from_fen(variant, &game.start).ok();
    let fen_of = |k: Option<usize>| match k {
        None => Some(game.start.clone()),
        Some(k) => flat[k].m.fen.clone(),
    };
    let shown = fen_of(current).and_then(|f| Position::from_fen(variant, &f).ok());
    let before = current
        .and_then(|k| fen_of(flat[k].prev))
        .and_then(|f| Position::from_fen(variant, &f).ok());
    let cur = current.map(|k| &flat[k]);
    let mv = cur.and_then(|f| f.m.mv);

    // The board, with the move's squares and, for a swap or a lift, arrows that show it.
    let mut arrows = Vec::new();
    if let Some(m) = mv {
        match m.kind {
            MoveKind::Swap => arrows.extend([(m.from, m.to), (m.to, m.from)]),
            MoveKind::Lift | MoveKind::Relocation => arrows.push((m.from, m.to)),
            MoveKind::Normal => {}
        }
    }
    let board = shown.as_ref().map(|pos| {
        let mut caption = String::new();
        let names = [game.white.as_str(), game.black.as_str()];
        if names.iter().all(|n| !n.is_empty() && *n != "?") {
            caption.push_str(&format!("{} \u{2013} {} \u{b7} ", names[0], names[1]));
        }
        caption.push_str(&default_caption(pos));
        position_svg(
            pos,
            &DiagramOptions {
                last_move: mv.map(|m| (m.from, m.to)),
                arrows: arrows.clone(),
                caption: Some(caption),
                flipped: flip,
            },
        )
    });

    let first_main = flat.iter().position(|f| f.main);
    let last_main = flat.iter().rposition(|f| f.main);
    let prev_url = current.map(|k| game_url(id, flat, flat[k].prev, flip));
    let next_k = match current {
        None => first_main,
        Some(k) => flat[k].next,
    };
    let next_url = next_k.map(|k| game_url(id, flat, Some(k), flip));
    let first_url = current.is_some().then(|| game_url(id, flat, None, flip));
    let last_url = (current != last_main)
        .then(|| last_main.map(|k| game_url(id, flat, Some(k), flip)))
        .flatten();

    // The way from the start to the move shown, for the explorer.
    let mut path = Vec::new();
    let mut k = current;
    while let Some(i) = k {
        path.push(flat[i].m.san.trim_end_matches(['+', '#']).to_string());
        k = flat[i].prev;
    }
    path.reverse();
    let standard = start
        .as_ref()
        .is_some_and(|s| *s == Position::start(variant));
    let explore_link = explore_url(
        variant.id(),
        (!standard).then_some(game.start.as_str()),
        &path,
        flip,
    );

    let players = format!(
        "{} \u{2013} {}",
        if game.white.is_empty() {
            "?"
        } else {
            &game.white
        },
        if game.black.is_empty() {
            "?"
        } else {
            &game.black
        }
    );
    let mut tags: Vec<(&String, &String)> = game.tags.iter().collect();
    const ROSTER: [&str; 7] = kabir_notation::tags::SEVEN_TAG_ROSTER;
    tags.sort_by_key(|(k, _)| ROSTER.iter().position(|r| r == k).unwrap_or(ROSTER.len()));
    let s = &game.special;
    let specials = s.phrases();

    let move_caption = match (cur, &before) {
        (Some(f), Some(b)) => Some(move_label(b, &f.m.san)),
        (Some(f), None) => Some(f.m.san.clone()),
        _ => None,
    };
    let numbering = start.as_ref().map(|s| (s.fullmove_number(), s.turn()));
    // Every move that may follow the one shown: its line's next move, which comes first in
    // reading order, and the first moves of the variations that replace that move.
    let next_moves: Vec<NextMove> = flat
        .iter()
        .enumerate()
        .filter(|(_, f)| f.prev == current)
        .map(|(j, f)| NextMove {
            label: match &shown {
                Some(p) => move_label(p, &f.m.san),
                None => f.m.san.clone(),
            },
            href: game_url(id, flat, Some(j), flip),
            continues: Some(j) == next_k,
        })
        .collect();

    let body = html! {
        section.game-head {
            h1 { (players) }
            p.sub {
                @for (i, part) in [game.event.as_str(), game.site.as_str(), game.date.as_str()]
                    .iter().filter(|p| !p.is_empty() && **p != "?" && **p != "????.??.??").enumerate() {
                    @if i > 0 { " \u{b7} " }
                    (part)
                }
                @if !game.round.is_empty() && game.round != "?" { " \u{b7} round " (game.round) }
            }
            p.badges {
                span.badge.result { (game.result) }
                span.badge { (game.termination) }
                span.badge { (game.plies) @if game.plies == 1 { " ply" } @else { " plies" } }
                span.badge { (variant.name()) }
                @for sp in &specials { span.badge.special { (sp) } }
            }
        }
        div.columns {
            section.board-column {
                div.board.game-board {
                    @if let Some(b) = &board { (view::board_svg(b)) }
                }
                div.controls {
                    (nav_link("first", first_url.as_deref(), "\u{ab}", "Start (Home)"))
                    (nav_link("prev", prev_url.as_deref(), "\u{25c0}", "Back (\u{2190})"))
                    (nav_link("next", next_url.as_deref(), "\u{25b6}", "Forward (\u{2192})"))
                    (nav_link("last", last_url.as_deref(), "\u{bb}", "End (End)"))
                    (nav_link("flip", Some(&game_url(id, flat, current, !flip)), "\u{21c5}", "Flip the board (f)"))
                }
                (play::next_choice(&next_moves))
                div.move-caption {
                    @match &move_caption {
                        Some(c) => {
                            strong { (c) }
                            @if cur.is_some_and(|f| !f.main) { span.badge { "variation" } }
                            @if let (Some(f), Some(b), Some(m)) = (cur, &before, mv) {
                                @for sp in &f.m.special {
                                    p.special { (special_text(sp, b, m)) }
                                }
                            }
                        }
                        None => { strong { "Start position" } }
                    }
                    p.links { a href=(explore_link) { "Open this position in the explorer \u{2192}" } }
                }
                (tools(fen_of(current).as_deref(), Some("game-pgn"), Some((&format!("/pgn/game/{id}"), "Download PGN".to_string()))))
            }
            section.panel.game-panel {
                div.movelist #movelist {
                    @for c in &game.comments { p.comment { (c) } }
                    (move_list(&game.moves, flat, current, numbering, id, flip, true))
                    span.result-end { (game.result) }
                }
                details.tags {
                    summary { "Tags" }
                    table.tags {
                        @for (k, v) in &tags { tr { th { (k) } td { (v) } } }
                    }
                }
                details.pgn {
                    summary { "Game text" }
                    pre #game-pgn { (game.pgn) }
                }
            }
        }
    };
    layout(
        &format!("Game {id}: {players}"),
        Nav::Game,
        &app.db_name,
        MainAttrs {
            page: "game",
            ..MainAttrs::default()
        },
        body,
    )
}

/// The index in `flat` of a move.
fn index_of(flat: &[Flat<'_>], m: &MoveAnswer) -> Option<usize> {
    flat.iter().position(|f| std::ptr::eq(f.m, m))
}

/// A line of the move list: numbered moves, glyphs, comments, and its variations in
/// brackets after the move they replace.
fn move_list(
    moves: &[MoveAnswer],
    flat: &[Flat<'_>],
    current: Option<usize>,
    numbering: Option<(u32, Color)>,
    id: GameId,
    flip: bool,
    main: bool,
) -> Markup {
    // The number of the move at a ply, and whether White plays it.
    let number = |ply: usize| -> (u32, bool) {
        let (n0, turn0) = numbering.unwrap_or((1, Color::White));
        let offset = ply - 1 + usize::from(turn0 == Color::Black);
        (n0 + (offset / 2) as u32, offset.is_multiple_of(2))
    };
    // A Black move is numbered at the start of its line and after a comment or variation.
    let numbered: Vec<bool> = (0..moves.len())
        .map(|i| i == 0 || !moves[i - 1].comments.is_empty() || !moves[i - 1].variations.is_empty())
        .collect();
    html! {
        @for (i, m) in moves.iter().enumerate() {
            @let k = index_of(flat, m);
            @let (n, white) = number(m.ply.max(1));
            @if white { span.num { (n) "." } } @else if numbered[i] { span.num { (n) "\u{2026}" } }
            a.mv.main[main] .current[k.is_some() && k == current] .special[!m.special.is_empty()]
                href=(game_url(id, flat, k, flip)) {
                (m.san)
                @for nag in &m.nags { (nag_text(*nag)) }
            }
            " "
            @for c in &m.comments { span.comment { (c) } " " }
            @for v in &m.variations {
                span.variation {
                    "("
                    @for c in &v.comments { span.comment { (c) } " " }
                    (move_list(&v.moves, flat, current, numbering, id, flip, false))
                    ")"
                }
                " "
            }
        }
    }
}

fn nag_text(n: u8) -> String {
    match n {
        1 => "!".into(),
        2 => "?".into(),
        3 => "!!".into(),
        4 => "??".into(),
        5 => "!?".into(),
        6 => "?!".into(),
        n => format!(" ${n}"),
    }
}

// ----- search --------------------------------------------------------------------------

pub(crate) async fn search(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    let r = search_page(&app, q.clone()).await;
    respond_form(&app, r, q.as_deref(), FormPage::Search)
}

async fn search_page(app: &Arc<App>, q: Option<String>) -> Result<Markup, AppError> {
    let p = Params::parse(q.as_deref(), &[FILTER, SEARCH])?;
    p.filter(&app.registry)?;
    let registry = app.registry.clone();
    let given = !p.pairs().is_empty();
    let (p, answer) = with_db(app, move |db| {
        let q = game_query(db, &registry, &p)?;
        let page = db.search(&q)?;
        Ok((p, SearchAnswer::new(&page, q.offset, q.limit)))
    })
    .await?;
    let limit = answer.limit.unwrap_or(50);
    let keep: Vec<(&str, &str)> = p
        .pairs()
        .iter()
        .filter(|(k, _)| k != "offset")
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let at = |offset: usize| {
        let o = offset.to_string();
        let mut pairs = keep.clone();
        if offset > 0 {
            pairs.push(("offset", &o));
        }
        url("/search", &pairs)
    };
    // Every page's games: the download takes the search without its page.
    let download_pairs: Vec<(&str, &str)> = keep
        .iter()
        .filter(|(k, _)| *k != "limit")
        .copied()
        .collect();
    let shown_to = answer.offset + answer.games.len();
    let prev = (answer.offset > 0).then(|| at(answer.offset.saturating_sub(limit)));
    let next = ((shown_to as u64) < answer.total).then(|| at(shown_to));
    let body = html! {
        div.columns.search {
            section.panel.form-panel {
                h2 { "Find games" }
                (filter_form(&p, &app.registry, "/search", true))
            }
            section.panel.results-panel {
                h2 {
                    (count(answer.total)) " game" @if answer.total != 1 { "s" } " "
                    span.sub {
                        @if p.flag("exact-order").unwrap_or(false) { "began with exactly these moves" }
                        @else if p.get("moves").is_some() || p.get("fen").is_some() { "reached the position (any move order)" }
                        @else if given { "match" } @else { "in the database" }
                    }
                }
                @if answer.total > 0 {
                    (tools(None, None, Some((&url("/pgn/search", &download_pairs), format!("Download all {} game{} (PGN)", count(answer.total), if answer.total == 1 { "" } else { "s" })))))
                }
                @if !answer.games.is_empty() {
                    p.note { "Showing " (answer.offset + 1) "\u{2013}" (shown_to) }
                    (games_table(&linked_rows(&answer.games), false))
                    div.pager {
                        (nav_link("prev", prev.as_deref(), "\u{25c0} Previous", "Previous page"))
                        (nav_link("next", next.as_deref(), "Next \u{25b6}", "Next page"))
                    }
                }
            }
        }
    };
    Ok(layout(
        "Games",
        Nav::Search,
        &app.db_name,
        MainAttrs {
            page: "search",
            ..MainAttrs::default()
        },
        body,
    ))
}

/// A whole number from 0 to `max`: the form offers no value past the parameter's bound.
fn number_input(p: &Params, name: &str, label: &str, default: usize, max: usize) -> Markup {
    html! {
        label {
            span { (label) }
            input type="number" name=(name) min="0" max=(max) step="1" value=[p.get(name)] placeholder=(default);
        }
    }
}

fn text_input(p: &Params, name: &str, label: &str, placeholder: &str) -> Markup {
    html! {
        label {
            span { (label) }
            input type="text" name=(name) value=[p.get(name)] placeholder=(placeholder);
        }
    }
}

fn select(p: &Params, name: &str, label: &str, options: &[(&str, &str)]) -> Markup {
    let chosen = p.get(name).unwrap_or("");
    html! {
        label {
            span { (label) }
            select name=(name) {
                @for (value, text) in options {
                    option value=(value) selected[*value == chosen] { (text) }
                }
            }
        }
    }
}

/// The form of the conditions on games; `search` adds the position and the order.
fn filter_form(p: &Params, registry: &Registry, action: &str, search: bool) -> Markup {
    let ids = registry.ids();
    let mut variants: Vec<(&str, &str)> = vec![("", "any")];
    variants.extend(ids.iter().map(|i| (i.as_str(), i.as_str())));
    let withs = [
        ("swap", "king swap"),
        ("lift", "lift"),
        ("relocation", "relocation"),
        ("promotion", "promotion"),
        ("arrival", "pawn of pawns arrival"),
        ("adventitious-king", "adventitious king"),
        ("citadel-draw", "citadel draw"),
    ];
    let chosen_with: Vec<&str> = p
        .pairs()
        .iter()
        .filter(|(k, _)| k == "with")
        .map(|(_, v)| v.as_str())
        .collect();
    html! {
        form.filters method="get" action=(action) {
            div.grid {
                (select(p, "variant", "Variant", &variants))
                (game_filter_fields(p))
                (select(p, "termination", "Ended by", &[("", "any"), ("checkmate", "checkmate"), ("stalemate", "stalemate"), ("bare-king", "bare king"), ("citadel-draw", "citadel draw"), ("other", "other")]))
                (text_input(p, "min-plies", "Min plies", ""))
                (text_input(p, "max-plies", "Max plies", ""))
                (text_input(p, "promotion-to", "Promotion to", "piece id or letter"))
            }
            fieldset.with {
                legend { "With special moves" }
                @for (value, text) in withs {
                    label.check {
                        input type="checkbox" name="with" value=(value) checked[chosen_with.contains(&value)];
                        (text)
                    }
                }
            }
            @if search {
                div.grid {
                    (text_input(p, "moves", "Opening moves", "e.g. f4 f7 e4"))
                    (text_input(p, "fen", "Position (FEN)", ""))
                    label.check {
                        input type="checkbox" name="exact-order" value="1" checked[p.flag("exact-order").unwrap_or(false)];
                        "in this order only"
                    }
                    (select(p, "sort", "Sort by", &SortKey::ALL.map(|k| (k.as_str(), k.as_str()))))
                    label.check {
                        input type="checkbox" name="reverse" value="1" checked[p.flag("reverse").unwrap_or(false)];
                        "reverse"
                    }
                    (select(p, "limit", "Per page", &[("", "50"), ("25", "25"), ("100", "100"), ("500", "500")]))
                }
            } @else {
                div.grid {
                    (select(p, "by", "Break down by", &[("", "nothing"), ("variant", "variant"), ("player", "player"), ("termination", "termination"), ("year", "year"), ("opening", "opening")]))
                    (number_input(p, "top", "Top", 10, cost::MAX_TOP))
                    (number_input(p, "opening-plies", "Opening plies", 4, cost::MAX_OPENING_PLIES))
                }
            }
            div.actions {
                button type="submit" { @if search { "Search" } @else { "Show" } }
                a href=(action) { "Clear" }
            }
        }
    }
}

// ----- statistics ------------------------------------------------------------------------

pub(crate) async fn stats(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Response {
    let r = stats_page(&app, q.clone()).await;
    respond_form(&app, r, q.as_deref(), FormPage::Stats)
}

async fn stats_page(app: &Arc<App>, q: Option<String>) -> Result<Markup, AppError> {
    let p = Params::parse(q.as_deref(), &[FILTER, STATS])?;
    let query = p.report(&app.registry)?;
    let registry = app.registry.clone();
    let (report, chart) = with_db_costing(app, cost::report(&query), move |db| {
        let report = db.report(&query, &registry)?;
        // The chart's line of games per year, whatever the breakdown.
        let years = if query.by == Some(GroupBy::Year) {
            report.groups.clone()
        } else {
            let by_year = kabir_db::ReportQuery {
                by: Some(GroupBy::Year),
                ..query.clone()
            };
            db.report(&by_year, &registry)?.groups
        };
        let chart = kabir_diagram::chart::stats_svg(&kabir_diagram::chart::ChartData::from_report(
            &report, &years,
        ));
        Ok((report, chart))
    })
    .await?;
    let body = html! {
        div.columns.stats {
            section.panel.form-panel {
                h2 { "Statistics" }
                (filter_form(&p, &app.registry, "/stats", false))
            }
            section.panel.report {
                h2 { (count(report.games)) " game" @if report.games != 1 { "s" } }
                @if report.games > 0 { (result_bar(&report.results)) }
                div.chart { (view::svg(&chart)) }
                (report_tables(&report))
            }
        }
    };
    Ok(layout(
        "Statistics",
        Nav::Stats,
        &app.db_name,
        MainAttrs {
            page: "stats",
            ..MainAttrs::default()
        },
        body,
    ))
}

fn report_tables(r: &Report) -> Markup {
    let l = &r.lengths;
    html! {
        div.tables {
            div {
                h3 { "Length" }
                p { "Plies: min " (l.min) ", median " (l.median) ", mean " (format!("{:.1}", l.mean)) ", max " (l.max) }
                h3 { "How games ended" }
                div.table-wrap { table.small {
                    @for e in &r.terminations {
                        tr { td { (e.termination.as_str()) } td.num { (count(e.games)) } td.num { (pct(e.pct)) } }
                    }
                } }
            }
            div {
                h3 { "Special moves" }
                div.table-wrap { table.small {
                    thead { tr { th { "Move" } th.num { "Times" } th.num { "Games" } th.num { "Share" } } }
                    @for s in &r.special {
                        tr { td { (s.name) } td.num { (count(s.moves)) } td.num { (count(s.games)) } td.num { (pct(s.games_pct)) } }
                    }
                } }
            }
        }
        @if !r.openings.is_empty() {
            h3 { "Most common openings (first " (r.opening_plies) " plies)" }
            div.table-wrap { table.moves {
                thead { tr { th { "Opening" } th.num { "Games" } th.num { "Share" } th.bar-col { "White / Draw / Black" } th.num.opt { "Avg plies" } } }
                @for o in &r.openings {
                    @let v = o.variant.as_deref().unwrap_or("");
                    tr {
                        td { a href=(url("/explore", &[("variant", v), ("moves", &o.key)])) { (o.key) } }
                        td.num { (count(o.games)) }
                        td.num { (pct(o.share_pct)) }
                        td.bar-col { (result_bar(&o.results)) }
                        td.num.opt { (format!("{:.1}", o.average_plies)) }
                    }
                }
            } }
        }
        @if !r.players.is_empty() {
            h3 { "Players" }
            div.table-wrap { table.small {
                thead { tr { th { "Player" } th.num { "Games" } th.num.opt { "Points" } th.num { "Score" } th.opt2 { "As White" } th.opt2 { "As Black" } } }
                @for pl in &r.players {
                    tr {
                        td { a href=(url("/search", &[("player", &pl.name)])) { (pl.name) } }
                        td.num { (count(pl.total.games())) }
                        td.num.opt { (pl.total.points()) }
                        td.num { (pct(pl.total.score_pct())) }
                        td.opt2 { "+" (pl.as_white.wins) " =" (pl.as_white.draws) " \u{2212}" (pl.as_white.losses) }
                        td.opt2 { "+" (pl.as_black.wins) " =" (pl.as_black.draws) " \u{2212}" (pl.as_black.losses) }
                    }
                }
            } }
        }
        @if let Some(by) = r.by.filter(|b| *b != "player" && *b != "opening") {
            h3 { "By " (by) }
            div.table-wrap { table.moves {
                thead { tr { th { (by) } th.num { "Games" } th.num { "Share" } th.bar-col { "White / Draw / Black" } th.num.opt { "Avg plies" } } }
                @for g in &r.groups {
                    tr {
                        td { (g.key) }
                        td.num { (count(g.games)) }
                        td.num { (pct(g.share_pct)) }
                        td.bar-col { (result_bar(&g.results)) }
                        td.num.opt { (format!("{:.1}", g.average_plies)) }
                    }
                }
            } }
        }
    }
}
