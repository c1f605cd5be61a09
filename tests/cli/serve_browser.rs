//! `kabir serve` in a real browser: headless Chromium driven through WebDriver
//! (chromedriver). Opens the explorer, plays a move by clicking it and one by clicking its
//! arrow on the board, steps back and forward with the arrow keys and the browser, steps
//! through a game with the arrow keys, and takes screenshots.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them). Without them
//! the test fails, saying so; set `KABIR_SKIP_BROWSER_TESTS=1` to skip it on a machine
//! without a browser (never in CI). `KABIR_GALLERY=DIR` also writes the screenshots to DIR
//! (`docs/gallery` for the README's pictures).
#![cfg(feature = "serve")]

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MOUSE_BUTTON_LEFT, MouseActions, PointerAction,
};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// A child process ended when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The games: the samples and 300 random Tamerlane games.
fn database(dir: &Path) -> PathBuf {
    let db = dir.join("browser.db");
    let pgn = dir.join("tamerlane.pgn");
    let kabir = env!("CARGO_BIN_EXE_kabir");
    let ok = |c: &mut Command| {
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(Command::new(kabir)
        .args([
            "generate",
            "--variant",
            "tamerlane",
            "--games",
            "300",
            "--seed",
            "23",
        ])
        .arg("-o")
        .arg(&pgn));
    ok(Command::new(kabir)
        .args(["import", "-q", "--db"])
        .arg(&db)
        .args(crate::queries_common::samples())
        .arg(&pgn));
    db
}

fn serve(db: &Path) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .arg("serve")
        .arg("--db")
        .arg(db)
        .args(["--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Killed(child), line.trim().trim_end_matches('/').to_string())
}

async fn press(c: &Client, key: Key) {
    let k = char::from(key);
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: k })
        .then(KeyAction::Up { value: k });
    c.perform_actions(actions).await.unwrap();
}

/// Waits until the page's URL satisfies `ok`, and the page has settled on it.
async fn wait_url(c: &Client, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let url = c.current_url().await.unwrap().to_string();
        // The script swaps the page's main part in; `data-title` matches the new title then.
        let settled = c
            .execute(
                "const m = document.getElementById('main'); \
                 return !!m && document.title.startsWith(m.dataset.title);",
                vec![],
            )
            .await
            .unwrap();
        if ok(&url) && settled == json!(true) {
            return url;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "waited for {what}; the page is at {url}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn main_attr(c: &Client, name: &str) -> String {
    c.find(Locator::Css("main"))
        .await
        .unwrap()
        .attr(name)
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn texts(c: &Client, css: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css(css)).await.unwrap() {
        out.push(e.text().await.unwrap());
    }
    out
}

fn param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

fn moves_param(url: &str) -> String {
    param(url, "moves").unwrap_or_default()
}

fn ply_param(url: &str) -> Option<usize> {
    param(url, "ply").and_then(|v| v.parse().ok())
}

fn save_png(name: &str, png: &[u8]) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is a PNG");
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap();
    let (w, h) = info.info().size();
    assert!(w >= 1000 && h >= 700, "{name}: {w}x{h}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
    if let Some(gallery) = std::env::var_os("KABIR_GALLERY") {
        std::fs::write(Path::new(&gallery).join(name), png).unwrap();
    }
}

#[test]
fn explorer_and_game_viewer_in_a_browser() {
    let Some((_driver, port, browser)) = chromedriver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);

    let profile = dir.path().join("profile");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = window_session(port, &browser, &profile, (1400, 1000)).await;

        // The explorer on Tamerlane: the board with its citadels, and the moves.
        c.goto(&format!("{base}/explore?variant=tamerlane"))
            .await
            .unwrap();
        wait_url(&c, "the explorer", |u| u.contains("/explore")).await;
        assert_eq!(
            c.find_all(Locator::Css("svg.kabir-diagram rect.citadel"))
                .await
                .unwrap()
                .len(),
            2
        );
        let first_moves = texts(&c, "table.moves td.move a").await;
        assert!(first_moves.len() > 5, "{first_moves:?}");
        assert!(first_moves[0].starts_with("1. "), "{first_moves:?}");
        assert_eq!(
            c.find_all(Locator::Css("svg.kabir-diagram rect.highlight"))
                .await
                .unwrap()
                .len(),
            0,
            "no last move at the start"
        );

        // Click the most played move: URL, board, line and table follow.
        let link = c.find(Locator::Css("table.moves td.move a")).await.unwrap();
        let san = first_moves[0].trim_start_matches("1. ").to_string();
        link.click().await.unwrap();
        let url = wait_url(&c, "the first move", |u| u.contains("moves=")).await;
        assert_eq!(moves_param(&url), san);
        assert_eq!(main_attr(&c, "data-moves").await, san);
        assert_eq!(
            c.find_all(Locator::Css("svg.kabir-diagram rect.highlight"))
                .await
                .unwrap()
                .len(),
            2,
            "the move's squares are highlighted"
        );
        let line = texts(&c, "nav.line a").await;
        assert_eq!(line, ["Start".to_string(), format!("1. {san}")]);
        let replies = texts(&c, "table.moves td.move a").await;
        assert!(
            !replies.is_empty() && replies.iter().all(|m| m.starts_with("1\u{2026} ")),
            "{replies:?}"
        );
        assert_ne!(replies, first_moves);
        let turn = c
            .find(Locator::Css("svg.kabir-diagram"))
            .await
            .unwrap()
            .attr("data-turn")
            .await
            .unwrap();
        assert_eq!(turn.as_deref(), Some("black"));

        // Click an arrow on the board: the move it shows is played.
        let arrow = c
            .find(Locator::Css("svg.kabir-diagram path.arrow"))
            .await
            .unwrap();
        let (from, to) = (
            arrow.attr("data-from").await.unwrap().unwrap(),
            arrow.attr("data-to").await.unwrap().unwrap(),
        );
        let expected = c
            .find(Locator::Css(&format!(
                "table.moves a[data-from='{from}'][data-to='{to}']"
            )))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let reply = expected.trim_start_matches("1\u{2026} ").to_string();
        c.execute(
            "document.querySelector('svg.kabir-diagram path.arrow')\
             .dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));",
            vec![],
        )
        .await
        .unwrap();
        let two = format!("{san} {reply}");
        let url = wait_url(&c, "the arrow's move", |u| moves_param(u) == two).await;
        assert!(url.contains("variant=tamerlane"));
        assert_eq!(texts(&c, "nav.line a").await.len(), 3);

        // Arrow keys: back one move, then forward along the same line.
        press(&c, Key::Left).await;
        wait_url(&c, "a move back", |u| moves_param(u) == san).await;
        press(&c, Key::Right).await;
        wait_url(&c, "the line again", |u| moves_param(u) == two).await;
        // The browser's back button.
        c.back().await.unwrap();
        wait_url(&c, "history back", |u| moves_param(u) == san).await;
        press(&c, Key::Home).await;
        wait_url(&c, "the start", |u| !u.contains("moves=")).await;

        // A screenshot of the explorer after the most played first move.
        c.goto(&format!("{base}/explore?variant=tamerlane&moves={san}"))
            .await
            .unwrap();
        wait_url(&c, "the explorer", |u| u.contains("moves=")).await;
        save_png(
            "serve-explorer-tamerlane.png",
            &c.screenshot().await.unwrap(),
        );

        // The game viewer: a sample game with a king swap, from its start, with the arrow keys.
        let swap_game: serde_json::Value = serde_json::from_str(&ureq_get(&format!(
            "{base}/api/games?variant=tamerlane&with=swap&limit=1"
        )))
        .unwrap();
        let id = swap_game["games"][0]["id"]
            .as_u64()
            .expect("a game with a swap");
        let game: serde_json::Value =
            serde_json::from_str(&ureq_get(&format!("{base}/api/game/{id}"))).unwrap();
        let moves = game["moves"].as_array().unwrap();
        let swap_ply = moves
            .iter()
            .find(|m| {
                m["special"]
                    .as_array()
                    .is_some_and(|s| s.contains(&json!("swap")))
            })
            .and_then(|m| m["ply"].as_u64())
            .expect("the swap's ply") as usize;
        c.goto(&format!("{base}/game/{id}?ply=0")).await.unwrap();
        wait_url(&c, "the game's start", |u| ply_param(u) == Some(0)).await;
        assert!(
            c.find(Locator::Css("a.mv.current")).await.is_err(),
            "no move yet"
        );
        for ply in 1..=swap_ply {
            press(&c, Key::Right).await;
            wait_url(&c, "the next move", |u| ply_param(u) == Some(ply)).await;
            let current = texts(&c, "a.mv.current").await;
            assert_eq!(current.len(), 1);
            assert!(
                current[0].starts_with(moves[ply - 1]["san"].as_str().unwrap()),
                "{current:?} at ply {ply}"
            );
        }
        // The swap is on the board (both squares, an arrow each way) and said in words.
        assert_eq!(
            c.find_all(Locator::Css("svg.kabir-diagram path.arrow"))
                .await
                .unwrap()
                .len(),
            2
        );
        let caption = c
            .find(Locator::Css(".move-caption"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(caption.contains("King swap"), "{caption}");
        press(&c, Key::Left).await;
        wait_url(&c, "a move back", |u| ply_param(u) == Some(swap_ply - 1)).await;
        press(&c, Key::End).await;
        wait_url(&c, "the end", |u| ply_param(u) == Some(moves.len())).await;

        // A commented sample game with a variation, for the screenshot: its variation's
        // move is shown in the move list and can be stepped back from.
        let found: serde_json::Value =
            serde_json::from_str(&ureq_get(&format!("{base}/api/games?player=Timur&limit=1")))
                .unwrap();
        let id = found["games"][0]["id"].as_u64().unwrap();
        c.goto(&format!("{base}/game/{id}?ply=12")).await.unwrap();
        wait_url(&c, "the sample game", |u| ply_param(u) == Some(12)).await;
        press(&c, Key::Right).await;
        wait_url(&c, "ply 13", |u| ply_param(u) == Some(13)).await;
        let variation = c.find(Locator::Css("span.variation a.mv")).await.unwrap();
        variation.click().await.unwrap();
        wait_url(&c, "the variation's move", |u| u.contains("node=")).await;
        assert!(texts(&c, "a.mv.current").await[0].starts_with("fxg6"));
        press(&c, Key::Left).await;
        wait_url(&c, "the position before the variation", |u| {
            ply_param(u) == Some(13)
        })
        .await;
        save_png("serve-game-viewer.png", &c.screenshot().await.unwrap());

        c.close().await.unwrap();
    });
}

fn ureq_get(url: &str) -> String {
    ureq::get(url)
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap()
}

// ----- Layout on a phone and on a laptop ------------------------------------------------------

/// The page sizes the layout is checked at, in CSS pixels: a phone held upright, a laptop.
const PHONE: (u32, u32) = (390, 844);
const LAPTOP: (u32, u32) = (1366, 900);

/// A running chromedriver and its port, or `None` when browser tests are skipped.
fn chromedriver() -> Option<(Killed, u16, PathBuf)> {
    let Some(driver) = find_program(&["chromedriver"]) else {
        let ci = std::env::var_os("CI").is_some();
        if !ci && std::env::var_os("KABIR_SKIP_BROWSER_TESTS").is_some() {
            eprintln!("browser test skipped: KABIR_SKIP_BROWSER_TESTS is set");
            return None;
        }
        panic!(
            "chromedriver not found on PATH: install Debian's chromium and chromium-driver, \
             or set KABIR_SKIP_BROWSER_TESTS=1 to skip this test on a machine without a browser"
        );
    };
    let browser = find_program(&["chromium", "chromium-browser", "google-chrome"])
        .expect("chromedriver is here but no chromium: install Debian's chromium");
    let port = free_port();
    let child = Killed(
        Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((child, port, browser))
}

/// A session whose page is exactly `width` by `height` CSS pixels. The phone's is a mobile
/// page: it follows the viewport tag, and a page wider than the phone makes it zoom out,
/// which its `scrollWidth` shows.
async fn sized_session(port: u16, browser: &Path, profile: &Path, size: (u32, u32)) -> Client {
    let (width, height) = size;
    let mobile = width < 800;
    let metrics = json!({
        "deviceMetrics": {
            "width": width, "height": height, "pixelRatio": 1.0,
            "mobile": mobile, "touch": mobile,
        },
    });
    session(port, browser, profile, Some(metrics), &[]).await
}

/// A session in a desktop window of `width` by `height` pixels (the window, not the page:
/// its bars take some of it).
async fn window_session(port: u16, browser: &Path, profile: &Path, size: (u32, u32)) -> Client {
    let (width, height) = size;
    let args = [
        format!("--window-size={width},{height}"),
        "--force-device-scale-factor=1".to_string(),
    ];
    session(port, browser, profile, None, &args).await
}

/// A headless chromium session through the chromedriver on `port`, with `mobile` emulation
/// if given and `args` besides the usual ones. The network is closed here: no background
/// connections, no updates.
async fn session(
    port: u16,
    browser: &Path,
    profile: &Path,
    mobile: Option<serde_json::Value>,
    args: &[String],
) -> Client {
    let mut all: Vec<String> = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    all.extend(args.iter().cloned());
    all.push(format!("--user-data-dir={}", profile.display()));
    let mut options = json!({ "binary": browser, "args": all });
    if let Some(m) = mobile {
        options["mobileEmulation"] = m;
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session with chromium")
}

/// The page's width as laid out (`scrollWidth`) and the window's width and height.
async fn page_size(c: &Client) -> (f64, f64, f64) {
    let v = c
        .execute(
            "return [document.documentElement.scrollWidth, innerWidth, innerHeight];",
            vec![],
        )
        .await
        .unwrap();
    let n = |i: usize| v[i].as_f64().unwrap();
    (n(0), n(1), n(2))
}

/// The rectangle (left, top, right, bottom) of the first element `css` selects, if any.
async fn rect(c: &Client, css: &str) -> Option<[f64; 4]> {
    let v = c
        .execute(
            "const e = document.querySelector(arguments[0]); if (!e) return null; \
             const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];",
            vec![json!(css)],
        )
        .await
        .unwrap();
    let a = v.as_array()?;
    Some([0, 1, 2, 3].map(|i| a[i].as_f64().unwrap()))
}

/// Whether `r` lies inside a window of `size` (half a pixel of rounding allowed).
fn inside(r: [f64; 4], (w, h): (u32, u32)) -> bool {
    r[0] >= -0.5 && r[1] >= -0.5 && r[2] <= f64::from(w) + 0.5 && r[3] <= f64::from(h) + 0.5
}

fn save_sized_png(name: &str, png: &[u8], (width, height): (u32, u32)) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is a PNG");
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap();
    assert_eq!(info.info().size(), (width, height), "{name}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
    if let Some(gallery) = std::env::var_os("KABIR_GALLERY") {
        std::fs::write(Path::new(&gallery).join(name), png).unwrap();
    }
}

/// The breadcrumbs of the explorer's line that are shown (not folded away).
async fn shown_crumbs(c: &Client) -> usize {
    let v = c
        .execute(
            "return [...document.querySelectorAll('nav.line a')]\
             .filter(a => a.checkVisibility()).length;",
            vec![],
        )
        .await
        .unwrap();
    v.as_u64().unwrap() as usize
}

#[test]
fn serve_layout_fits_a_phone_and_a_laptop() {
    let Some((_driver, port, browser)) = chromedriver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);
    let api = |path: &str| -> serde_json::Value {
        serde_json::from_str(&ureq_get(&format!("{base}{path}"))).unwrap()
    };
    // An 8x8 game for the viewer, and the longest game for a long line.
    let short = api("/api/games?variant=shatranj&limit=1")["games"][0]["id"]
        .as_u64()
        .expect("a Shatranj game");
    let longest = &api("/api/games?variant=tamerlane&sort=plies&reverse=1&limit=1")["games"][0];
    let long = longest["id"].as_u64().unwrap();
    let long_ply = 307;
    assert!(longest["plies"].as_u64().unwrap() >= long_ply);
    let variants: Vec<String> = api("/api/stats?by=variant")["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap().to_string())
        .collect();
    assert!(variants.len() >= 5, "{variants:?}");

    let mut pages: Vec<String> = variants
        .iter()
        .map(|v| format!("/explore?variant={v}"))
        .collect();
    pages.extend(
        [
            "/explore?variant=tamerlane&moves=Cj4".to_string(),
            format!("/game/{short}?ply=5"),
            format!("/game/{long}?ply={long_ply}"),
            "/search?variant=tamerlane".into(),
            "/search".into(),
            "/stats".into(),
        ]
        .into_iter()
        .chain(
            ["variant", "player", "termination", "year", "opening"]
                .map(|by| format!("/stats?by={by}")),
        )
        .chain(
            [
                "/no-such-page",
                "/game/999999",
                "/search?min-plies=many",
                "/stats?top=1000",
                "/explore?variant=tamerlane&moves=Zz99",
            ]
            .map(String::from),
        ),
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for (n, size) in [PHONE, LAPTOP].into_iter().enumerate() {
            let profile = dir.path().join(format!("profile-{n}"));
            let c = sized_session(port, &browser, &profile, size).await;
            let (w, h) = (f64::from(size.0), f64::from(size.1));

            // Every page: nothing wider than the window; the board and its step buttons in it.
            for page in &pages {
                c.goto(&format!("{base}{page}")).await.unwrap();
                let (scroll_width, inner_width, inner_height) = page_size(&c).await;
                assert_eq!(
                    (scroll_width, inner_width, inner_height),
                    (w, w, h),
                    "{page} at {size:?}: the page is wider than the window"
                );
                if let Some(board) = rect(&c, ".board").await {
                    assert!(inside(board, size), "{page} at {size:?}: board at {board:?}");
                    let controls = rect(&c, ".controls").await.expect("step buttons");
                    assert!(
                        inside(controls, size),
                        "{page} at {size:?}: step buttons at {controls:?}"
                    );
                }
                if page.starts_with("/stats") && rect(&c, ".chart svg").await.is_some() {
                    // The smallest text of the chart as drawn, in CSS pixels.
                    let smallest = c
                        .execute(
                            "const svg = document.querySelector('.chart svg'); \
                             const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
                             return Math.min(...[...svg.querySelectorAll('text[font-size]')] \
                               .map(t => parseFloat(t.getAttribute('font-size')) * k));",
                            vec![],
                        )
                        .await
                        .unwrap()
                        .as_f64()
                        .unwrap();
                    assert!(smallest >= 10.0, "{page} at {size:?}: chart text of {smallest} px");
                }
            }
            // The explorer and the 8x8 viewer use the room: the board is not a thumbnail.
            for page in ["/explore?variant=tamerlane".to_string(), format!("/game/{short}?ply=5")] {
                c.goto(&format!("{base}{page}")).await.unwrap();
                let board = rect(&c, ".board").await.unwrap();
                let (bw, bh) = (board[2] - board[0], board[3] - board[1]);
                assert!(
                    bw >= 0.85 * (w - 40.0) || bh >= 0.7 * h,
                    "{page} at {size:?}: a board of {bw}x{bh}"
                );
            }

            // A move chosen low in the explorer's table: the board is in view after it.
            c.goto(&format!("{base}/explore?variant=tamerlane"))
                .await
                .unwrap();
            wait_url(&c, "the explorer", |u| u.contains("/explore")).await;
            let links = c
                .find_all(Locator::Css("table.moves td.move a"))
                .await
                .unwrap();
            assert!(links.len() > 20, "a long table: {}", links.len());
            let low = links.last().unwrap();
            let san = low.text().await.unwrap();
            let san = san.rsplit(' ').next().unwrap().to_string();
            c.execute(
                "const a = [...document.querySelectorAll('table.moves td.move a')].pop(); \
                 a.scrollIntoView({block: 'end'});",
                vec![],
            )
            .await
            .unwrap();
            let before = rect(&c, ".board").await.unwrap();
            if size == PHONE {
                assert!(!inside(before, size), "the table's end is below the board: {before:?}");
            } else {
                assert!(inside(before, size), "the board stays beside the moves: {before:?}");
            }
            low.click().await.unwrap();
            wait_url(&c, "the low move", |u| moves_param(u) == san).await;
            let after = rect(&c, ".board").await.unwrap();
            assert!(inside(after, size), "at {size:?}, the board after the move: {after:?}");

            // A long line, from the game viewer: folded to its first and last moves.
            c.goto(&format!("{base}/game/{long}?ply={long_ply}"))
                .await
                .unwrap();
            wait_url(&c, "the long game", |u| ply_param(u) == Some(long_ply as usize)).await;
            c.find(Locator::Css("p.links a"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            let url = wait_url(&c, "the explorer at the move", |u| u.contains("/explore")).await;
            let line = moves_param(&url);
            assert_eq!(line.split(' ').count(), long_ply as usize, "{url}");
            // Start, four moves, the fold, six moves.
            assert_eq!(shown_crumbs(&c).await, 11, "at {size:?}");
            assert_eq!(
                c.find_all(Locator::Css("nav.line a")).await.unwrap().len(),
                long_ply as usize + 1
            );
            let summary = c
                .find(Locator::Css("nav.line details.middle summary"))
                .await
                .unwrap();
            assert!(summary.text().await.unwrap().contains("297"));
            let board = rect(&c, ".board").await.unwrap();
            assert!(inside(board, size), "at {size:?}, board under a long line: {board:?}");
            if size == PHONE {
                save_sized_png(
                    "serve-long-line-phone.png",
                    &c.screenshot().await.unwrap(),
                    size,
                );
            }
            // The whole line is one click away.
            summary.click().await.unwrap();
            assert_eq!(shown_crumbs(&c).await, long_ply as usize + 1);
            let fifth = c
                .find(Locator::Css("nav.line details.middle a"))
                .await
                .unwrap();
            assert!(fifth.is_displayed().await.unwrap());
            let href = fifth.attr("href").await.unwrap().unwrap();
            let first5: Vec<&str> = line.split(' ').take(5).collect();
            assert_eq!(moves_param(&href), first5.join(" "));
            assert_eq!(page_size(&c).await.0, w, "the open line wraps");

            // Pictures of each kind of page at this size.
            let tag = if size == PHONE { "phone" } else { "laptop" };
            for (name, page) in [
                ("explorer", "/explore?variant=tamerlane&moves=Cj4".to_string()),
                ("game", format!("/game/{short}?ply=5")),
                ("search", "/search?variant=tamerlane".into()),
                ("stats", "/stats?by=variant".into()),
            ] {
                c.goto(&format!("{base}{page}")).await.unwrap();
                if size == PHONE && name != "explorer" && name != "game" {
                    // The phone shows the form first; the picture is of the results under it.
                    c.execute(
                        "document.querySelector('.columns > .panel:last-child')\
                         .scrollIntoView({block: 'start'});",
                        vec![],
                    )
                    .await
                    .unwrap();
                }
                save_sized_png(
                    &format!("serve-{name}-{tag}.png"),
                    &c.screenshot().await.unwrap(),
                    size,
                );
            }
            c.close().await.unwrap();
        }
    });

    // Without the script the fold is a <details>: the whole line is in the page.
    let moves: Vec<String> = api(&format!("/api/game/{long}"))["moves"]
        .as_array()
        .unwrap()
        .iter()
        .take(long_ply as usize)
        .map(|m| {
            m["san"]
                .as_str()
                .unwrap()
                .trim_end_matches(['+', '#'])
                .to_string()
        })
        .collect();
    let html = ureq_get(&format!(
        "{base}/explore?variant=tamerlane&moves={}",
        moves.join("+")
    ));
    let (_, folded) = html
        .split_once("<details class=\"middle\">")
        .expect("a fold");
    let (folded, _) = folded.split_once("</details>").unwrap();
    assert_eq!(folded.matches("<a href=").count(), long_ply as usize - 10);
}

// ----- Playing on the explorer's board, arrows by keyboard, variations in the viewer -----
// One browser session, at a phone's size (390x844) and a laptop's (1366x900) in turn.

/// A Tamerlane position where White's king on a8 may enter Black's citadel, swap with the
/// pawn of rooks on b9 (it is attacked, and with a prince beside it no check rule binds) and
/// that pawn may promote on b10.
const SPECIAL_FEN: &str = "5k5/2PR9/K6r3/11/11/11/11/11/12/10S w K - 0 1";
/// Grand Shatranj N W: White has lost every piece, so the pawn on c9 promotes to any.
const PROMOTION_FEN: &str = "4k5/2P7/10/10/10/10/10/10/10/4K5 w - - 0 1";

fn explore_at(base: &str, variant: &str, fen: &str) -> String {
    let q = form_urlencoded::Serializer::new(String::new())
        .append_pair("variant", variant)
        .append_pair("fen", fen)
        .finish();
    format!("{base}/explore?{q}")
}

/// The squares `kabir perft --divide 1` moves the piece on `from` to.
fn perft_targets(variant: &str, fen: &str, from: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["perft", "--variant", variant, "--fen", fen, "--divide", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut to: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|m| m.strip_prefix(from))
        // The target's name: a promotion's letter after the rank is not part of it.
        .map(|rest| {
            let b = rest.as_bytes();
            let promotes = b.len() > 2
                && b[b.len() - 1].is_ascii_lowercase()
                && b[b.len() - 2].is_ascii_digit();
            rest[..rest.len() - usize::from(promotes)].to_string()
        })
        .collect();
    to.sort();
    to.dedup();
    to
}

async fn run_js(c: &Client, script: &str) -> serde_json::Value {
    c.execute(script, vec![]).await.unwrap()
}

/// The centre of a square (or of the first element `css` finds), in the viewport, brought
/// into view first.
async fn centre_of(c: &Client, css: &str) -> (f64, f64) {
    let v = c
        .execute(
            "const e = document.querySelector(arguments[0]); if (!e) return null; \
             const r0 = e.getBoundingClientRect(); \
             if (r0.top < 0 || r0.bottom > innerHeight) e.scrollIntoView({block: 'center'}); \
             const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2];",
            vec![json!(css)],
        )
        .await
        .unwrap();
    let xy = v.as_array().unwrap_or_else(|| panic!("nothing at {css}"));
    (xy[0].as_f64().unwrap(), xy[1].as_f64().unwrap())
}

fn square(sq: &str) -> String {
    format!("svg.kabir-diagram rect.square[data-square='{sq}']")
}

async fn pointer(c: &Client, steps: Vec<PointerAction>) {
    let mut a = MouseActions::new("mouse".into());
    for s in steps {
        a = a.then(s);
    }
    c.perform_actions(a).await.unwrap();
}

fn move_to((x, y): (f64, f64)) -> PointerAction {
    PointerAction::MoveTo {
        duration: Some(Duration::from_millis(20)),
        x: x.round(),
        y: y.round(),
    }
}

async fn click_square(c: &Client, sq: &str) {
    let at = centre_of(c, &square(sq)).await;
    pointer(
        c,
        vec![
            move_to(at),
            PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            },
            PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            },
        ],
    )
    .await;
}

async fn drag_square(c: &Client, from: &str, to: &str) {
    let a = centre_of(c, &square(from)).await;
    let b = centre_of(c, &square(to)).await;
    pointer(
        c,
        vec![
            move_to(a),
            PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            },
            move_to(((a.0 + b.0) / 2.0 + 3.0, (a.1 + b.1) / 2.0 + 3.0)),
            move_to(b),
            PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            },
        ],
    )
    .await;
}

/// The squares marked as targets of the chosen piece.
async fn marked(c: &Client) -> Vec<String> {
    let v = run_js(
        c,
        "return Array.from(document.querySelectorAll('svg.kabir-diagram g.play-marks circle.target'))\
         .map(e => e.dataset.square).sort();",
    )
    .await;
    serde_json::from_value(v).unwrap()
}

async fn open_page(c: &Client, url: &str, what: &str) {
    c.goto(url).await.unwrap();
    wait_url(c, what, |_| true).await;
}

/// What the board, the moves table and the viewer's keys do, at one window size.
async fn play_on_the_board(c: &Client, base: &str, size: &str) {
    let special = explore_at(base, "tamerlane", SPECIAL_FEN);

    // Clicking the king marks exactly its legal moves' targets: the citadel and the swap's
    // partner included. Escape, then a click elsewhere, cancel.
    open_page(c, &special, "the special position").await;
    click_square(c, "a8").await;
    let expected = perft_targets("tamerlane", SPECIAL_FEN, "a8");
    assert!(expected.contains(&"bc".to_string()) && expected.contains(&"b9".to_string()));
    assert_eq!(marked(c).await, expected, "{size}: the king's targets");
    press(c, Key::Escape).await;
    assert!(marked(c).await.is_empty(), "{size}: Escape cancels");
    click_square(c, "b9").await;
    assert_eq!(
        marked(c).await,
        perft_targets("tamerlane", SPECIAL_FEN, "b9"),
        "{size}: the pawn's targets"
    );
    let away = centre_of(c, "section.moves-panel h2").await;
    pointer(
        c,
        vec![
            move_to(away),
            PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            },
            PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            },
        ],
    )
    .await;
    assert!(
        marked(c).await.is_empty(),
        "{size}: a click elsewhere cancels"
    );

    // A target plays the move, which no game played: the citadel entry, then (from the
    // same position again) the king swap and the forced promotion.
    click_square(c, "a8").await;
    click_square(c, "bc").await;
    wait_url(c, "the citadel entry", |u| moves_param(u) == "Kbc").await;
    assert_eq!(main_attr(c, "data-moves").await, "Kbc");
    open_page(c, &special, "the special position").await;
    click_square(c, "a8").await;
    click_square(c, "b9").await;
    wait_url(c, "the king swap", |u| moves_param(u) == "K:b9").await;
    open_page(c, &special, "the special position").await;
    drag_square(c, "b9", "b10").await;
    wait_url(c, "the promotion, dragged", |u| moves_param(u) == "b10=R").await;
    // The page after the move is playable too: Black's king moves from the new position.
    click_square(c, "f10").await;
    assert!(
        !marked(c).await.is_empty(),
        "{size}: Black's king after b10=R"
    );
    press(c, Key::Escape).await;

    // A promotion with a choice: one button per piece; the one chosen is played.
    open_page(
        c,
        &explore_at(base, "grand-shatranj-nw", PROMOTION_FEN),
        "the promotion",
    )
    .await;
    click_square(c, "c9").await;
    assert_eq!(marked(c).await, ["c10"]);
    click_square(c, "c10").await;
    let options = c
        .find_all(Locator::Css("#play-choice button.play-option"))
        .await
        .unwrap();
    let promotions = {
        let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
            .args([
                "perft",
                "--variant",
                "grand-shatranj-nw",
                "--fen",
                PROMOTION_FEN,
            ])
            .args(["--divide", "1"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("c9c10"))
            .count()
    };
    assert!(promotions > 1);
    assert_eq!(options.len(), promotions, "{size}: a button per promotion");
    let mut knight = None;
    for o in &options {
        if o.text().await.unwrap() == "Knight" {
            knight = Some(o.attr("data-san").await.unwrap().unwrap());
            o.click().await.unwrap();
            break;
        }
    }
    let knight = knight.expect("a button for the knight");
    assert!(knight.starts_with("c10="), "{knight}");
    wait_url(c, "the knight promotion", |u| moves_param(u) == knight).await;
    let piece = run_js(
        c,
        "const g = document.querySelector(\"svg.kabir-diagram g.piece[data-square='c10']\"); \
         return g ? g.dataset.kind : null;",
    )
    .await;
    assert_eq!(piece, json!("knight"), "{size}");

    // The moves table and the arrows: hovering a row marks its arrow, and Tab reaches an
    // arrow, which Enter plays.
    open_page(
        c,
        &format!("{base}/explore?variant=tamerlane"),
        "the explorer",
    )
    .await;
    let rows = c
        .find_all(Locator::Css("table.moves tbody td.move a"))
        .await
        .unwrap();
    let row = rows.len().min(2);
    assert!(row > 0);
    let link = &rows[row - 1];
    let (from, to) = (
        link.attr("data-from").await.unwrap().unwrap(),
        link.attr("data-to").await.unwrap().unwrap(),
    );
    let at = centre_of(c, &format!("table.moves tbody tr:nth-child({row}) td.num")).await;
    pointer(c, vec![move_to(at)]).await;
    let hovered = run_js(
        c,
        "return Array.from(document.querySelectorAll('svg.kabir-diagram path.arrow.hovered'))\
         .map(p => p.dataset.from + '-' + p.dataset.to);",
    )
    .await;
    assert_eq!(
        hovered,
        json!([format!("{from}-{to}")]),
        "{size}: the hovered row's arrow"
    );

    let mut focused = json!(null);
    for _ in 0..80 {
        press(c, Key::Tab).await;
        focused = run_js(
            c,
            "const e = document.activeElement; \
             return e && e.matches('path.arrow') ? [e.dataset.from, e.dataset.to, e.getAttribute('aria-label')] : null;",
        )
        .await;
        if !focused.is_null() {
            break;
        }
    }
    let f = focused.as_array().expect("Tab reaches an arrow").clone();
    let label = f[2].as_str().unwrap();
    let san = c
        .find(Locator::Css(&format!(
            "table.moves a[data-from='{}'][data-to='{}']",
            f[0].as_str().unwrap(),
            f[1].as_str().unwrap()
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
        .trim_start_matches("1. ")
        .to_string();
    assert_eq!(label, format!("Play 1. {san}"), "{size}");
    press(c, Key::Enter).await;
    wait_url(c, "the arrow played by Enter", |u| moves_param(u) == san).await;

    // The viewer: at the move before a variation, the next move can be chosen with the up
    // and down keys, and the right arrow follows the choice.
    let found: serde_json::Value =
        serde_json::from_str(&ureq_get(&format!("{base}/api/games?player=Timur&limit=1"))).unwrap();
    let id = found["games"][0]["id"].as_u64().unwrap();
    let game: serde_json::Value =
        serde_json::from_str(&ureq_get(&format!("{base}/api/game/{id}"))).unwrap();
    let branch = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["variations"].as_array().is_some_and(|v| !v.is_empty()))
        .expect("a move with a variation")
        .clone();
    let ply = branch["ply"].as_u64().unwrap() as usize;
    let alt = branch["variations"][0]["moves"][0]["san"]
        .as_str()
        .unwrap()
        .to_string();
    let before = format!("{base}/game/{id}?ply={}", ply - 1);
    open_page(c, &before, "the move before the variation").await;
    let chosen = || async { texts(c, "#next-choice a.choice.chosen").await };
    assert_eq!(chosen().await.len(), 1);
    assert!(chosen().await[0].contains(branch["san"].as_str().unwrap()));
    press(c, Key::Down).await;
    assert!(
        chosen().await[0].contains(&alt),
        "{size}: {:?}",
        chosen().await
    );
    let marked_in_list = texts(c, "#movelist a.mv.next-chosen").await;
    assert_eq!(marked_in_list.len(), 1);
    assert!(marked_in_list[0].starts_with(&alt), "{marked_in_list:?}");
    press(c, Key::Right).await;
    wait_url(c, "the variation's first move", |u| u.contains("node=")).await;
    assert!(texts(c, "a.mv.current").await[0].starts_with(&alt));
    // Down then up comes back to the main line's move.
    open_page(c, &before, "the move before the variation").await;
    press(c, Key::Down).await;
    press(c, Key::Up).await;
    press(c, Key::Right).await;
    wait_url(c, "the main line's move", |u| ply_param(u) == Some(ply)).await;
}

#[test]
fn serve_board_plays_moves_and_keys_choose_at_phone_and_laptop_sizes() {
    let Some((_driver, port, browser)) = chromedriver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);
    let profile = dir.path().join("profile-board");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = window_session(port, &browser, &profile, (390, 844)).await;
        for (w, h) in [(390u32, 844u32), (1366, 900)] {
            c.set_window_size(w, h).await.unwrap();
            c.goto(&format!("{base}/explore")).await.unwrap();
            let width = run_js(&c, "return innerWidth;").await;
            assert!(
                width
                    .as_u64()
                    .is_some_and(|x| x <= u64::from(w) && x + 40 >= u64::from(w)),
                "the window is {width} wide, not {w}"
            );
            play_on_the_board(&c, &base, &format!("{w}x{h}")).await;
        }
        c.close().await.unwrap();
    });
}

// ----- downloads and copy buttons --------------------------------------------------------

/// Chromedriver's own commands for the session, past what fantoccini offers: focus for the
/// page (headless, a page is never focused, and the clipboard refuses an unfocused page) and
/// the permission to read the clipboard back.
fn clipboard_allowed(driver_port: u16, session: &str) {
    let post = |path: &str, body: serde_json::Value| {
        let url = format!("http://127.0.0.1:{driver_port}/session/{session}/{path}");
        let mut r = ureq::post(&url)
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .unwrap();
        let answer = r.body_mut().read_to_string().unwrap();
        assert!(!answer.contains("\"error\""), "{path}: {answer}");
    };
    post(
        "goog/cdp/execute",
        json!({"cmd": "Emulation.setFocusEmulationEnabled", "params": {"enabled": true}}),
    );
    for name in ["clipboard-read", "clipboard-write"] {
        post(
            "permissions",
            json!({"descriptor": {"name": name}, "state": "granted"}),
        );
    }
}

/// The answer to a `fetch` of `href` made by the page itself: status, headers and text.
async fn fetched_in_page(c: &Client, href: &str) -> serde_json::Value {
    c.execute_async(
        "const done = arguments[arguments.length - 1];
         fetch(arguments[0]).then(r => r.text().then(t => done({
             status: r.status,
             type: r.headers.get('content-type'),
             disposition: r.headers.get('content-disposition'),
             text: t,
         })), e => done({error: String(e)}));",
        vec![json!(href)],
    )
    .await
    .unwrap()
}

/// What the clipboard holds, read by the page (`reader`: the expression of the clipboard
/// object to read it with).
async fn clipboard_text(c: &Client, reader: &str) -> String {
    let v = c
        .execute_async(
            &format!(
                "const done = arguments[arguments.length - 1];
                 {reader}.readText().then(done, e => done('error: ' + e));"
            ),
            vec![],
        )
        .await
        .unwrap();
    v.as_str().unwrap_or_default().to_string()
}

/// Clicks a copy button as a user does and waits for the copy to be done; whether it worked.
async fn click_copy(c: &Client, css: &str) -> bool {
    c.execute(
        "window.kabirCopies = [];
         document.addEventListener('kabir-copied', e => window.kabirCopies.push(e.detail.ok));",
        vec![],
    )
    .await
    .unwrap();
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let start = Instant::now();
    loop {
        let v = c
            .execute("return window.kabirCopies;", vec![])
            .await
            .unwrap();
        if let Some(ok) = v.as_array().and_then(|a| a.first()) {
            return ok == &json!(true);
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no copy after clicking {css}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether the element is shown and lies within the window's width.
async fn shown_in_width(c: &Client, css: &str) -> bool {
    let v = c
        .execute(
            "const e = document.querySelector(arguments[0]);
             if (!e) return false;
             const r = e.getBoundingClientRect();
             return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth;",
            vec![json!(css)],
        )
        .await
        .unwrap();
    v == json!(true)
}

/// Checks a downloaded text with `kabir validate`; the number of games, all valid.
fn valid_games(text: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("download.pgn");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["validate", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{report}");
    assert!(!report.contains("\"valid\":false"), "{report}");
    // A line per game, then the summary.
    let summary: serde_json::Value =
        serde_json::from_str(report.lines().last().unwrap_or("{}")).unwrap();
    assert_eq!(summary["summary"]["invalid"], 0, "{report}");
    let games = summary["summary"]["games"].as_u64().unwrap() as usize;
    assert_eq!(report.lines().count(), games + 1, "{report}");
    games
}

#[test]
fn downloads_and_copy_buttons_in_a_browser() {
    let Some((_driver, port, browser)) = chromedriver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);
    let kabir = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let api = |target: &str| -> serde_json::Value {
        serde_json::from_str(&ureq_get(&format!("{base}{target}"))).unwrap()
    };

    let profile = dir.path().join("profile");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": browser,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                    "--window-size=1366,900", "--force-device-scale-factor=1",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let c = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a WebDriver session with chromium");
        // Permissions are the page's origin's: granted once the browser is there.
        c.goto(&format!("{base}/explore")).await.unwrap();
        let session = c.session_id().await.unwrap().expect("a session id");
        clipboard_allowed(port, &session);

        let first = api("/api/explore?variant=tamerlane")["moves"][0]["san"]
            .as_str()
            .unwrap()
            .to_string();
        let position = api(&format!("/api/explore?variant=tamerlane&moves={first}"));
        let fen = position["fen"].as_str().unwrap().to_string();
        let games = position["games"].as_u64().unwrap() as usize;
        let exported = kabir(&["export", "--variant", "tamerlane", "--moves", &first]);
        let game_id = api(&format!("/api/games?variant=tamerlane&moves={first}&limit=1"))
            ["games"][0]["id"]
            .as_u64()
            .unwrap();
        let game = api(&format!("/api/game/{game_id}?ply=5"));

        for (width, height) in [(390, 844), (1366, 900)] {
            c.set_window_size(width, height).await.unwrap();

            // The explorer after the most played first move.
            c.goto(&format!("{base}/explore?variant=tamerlane&moves={first}"))
                .await
                .unwrap();
            wait_url(&c, "the explorer", |u| u.contains("moves=")).await;
            let link = ".tools a.download";
            assert!(shown_in_width(&c, link).await, "{link} at {width}");
            let href = c
                .find(Locator::Css(link))
                .await
                .unwrap()
                .attr("href")
                .await
                .unwrap()
                .unwrap();
            let got = fetched_in_page(&c, &href).await;
            assert_eq!(got["status"], 200, "{got}");
            assert_eq!(got["type"], "application/x-chess-pgn; charset=utf-8");
            assert_eq!(got["disposition"], "attachment; filename=\"kabir-position.pgn\"");
            let text = got["text"].as_str().unwrap();
            assert_eq!(text, exported, "the download is the export");
            assert_eq!(valid_games(text), games);

            // Copy FEN: with the clipboard API, then as over plain http elsewhere, without it.
            let button = ".tools button.copy[data-copy]";
            assert!(shown_in_width(&c, button).await, "{button} at {width}");
            assert!(click_copy(&c, button).await, "the copy worked");
            assert_eq!(clipboard_text(&c, "navigator.clipboard").await, fen);
            let label = c.find(Locator::Css(button)).await.unwrap().text().await.unwrap();
            assert_eq!(label, "Copied");
            c.execute(
                "window.kabirClipboard = navigator.clipboard;
                 Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true});",
                vec![],
            )
            .await
            .unwrap();
            c.execute_async(
                "const done = arguments[arguments.length - 1];
                 window.kabirClipboard.writeText('something else').then(done, done);",
                vec![],
            )
            .await
            .unwrap();
            assert_eq!(
                clipboard_text(&c, "window.kabirClipboard").await,
                "something else"
            );
            assert!(click_copy(&c, button).await, "the fallback copy worked");
            assert_eq!(clipboard_text(&c, "window.kabirClipboard").await, fen);

            // Without the script's mark, as without JavaScript, the buttons are hidden.
            c.execute(
                "document.documentElement.classList.remove('can-copy');",
                vec![],
            )
            .await
            .unwrap();
            assert!(
                !c.find(Locator::Css(button)).await.unwrap().is_displayed().await.unwrap(),
                "a copy button without the script"
            );

            // The game viewer at ply 5: its text to download and to copy, and its position.
            c.goto(&format!("{base}/game/{game_id}?ply=5")).await.unwrap();
            wait_url(&c, "the game", |u| ply_param(u) == Some(5)).await;
            assert!(shown_in_width(&c, link).await, "{link} at {width}");
            let href = c
                .find(Locator::Css(link))
                .await
                .unwrap()
                .attr("href")
                .await
                .unwrap()
                .unwrap();
            assert_eq!(href, format!("/pgn/game/{game_id}"));
            let got = fetched_in_page(&c, &href).await;
            assert_eq!(got["status"], 200, "{got}");
            assert_eq!(
                got["disposition"],
                format!("attachment; filename=\"kabir-game-{game_id}.pgn\"").as_str()
            );
            let text = got["text"].as_str().unwrap();
            assert_eq!(valid_games(text), 1);
            assert_eq!(text.trim_end(), game["pgn"].as_str().unwrap().trim_end());
            assert!(exported.contains(text), "the game's text is the export's");

            let fen_button = ".tools button.copy[data-copy]";
            assert!(click_copy(&c, fen_button).await);
            assert_eq!(
                clipboard_text(&c, "navigator.clipboard").await,
                game["fen"].as_str().unwrap()
            );
            let pgn_button = ".tools button.copy[data-copy-from]";
            assert!(shown_in_width(&c, pgn_button).await, "{pgn_button} at {width}");
            assert!(click_copy(&c, pgn_button).await);
            let copied = clipboard_text(&c, "navigator.clipboard").await;
            assert_eq!(copied.trim_end(), text.trim_end());
        }
        c.close().await.unwrap();
    });
}

// ----- The explorer's filters ------------------------------------------------------------

/// `kabir explore --format json` on `db` with `args`: the games that reached the position.
fn cli_explore_games(db: &Path, args: &[&str]) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["explore", "--format", "json", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["games"].as_u64().unwrap()
}

/// The number the explorer page's heading gives: "N games reached this position".
async fn page_games(c: &Client) -> u64 {
    let h = c
        .find(Locator::Css(".moves-panel h2"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let digits: String = h
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no count in {h:?}"))
}

#[test]
fn explorer_filters_in_a_browser_count_as_the_command_line() {
    let Some((_driver, port, browser)) = chromedriver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);
    let all = cli_explore_games(&db, &["--variant", "tamerlane"]);
    let timur = cli_explore_games(
        &db,
        &[
            "--variant",
            "tamerlane",
            "--player",
            "timur",
            "--color",
            "white",
        ],
    );
    let timur_won = cli_explore_games(
        &db,
        &[
            "--variant",
            "tamerlane",
            "--player",
            "timur",
            "--color",
            "white",
            "--result",
            "1-0",
        ],
    );
    assert!(
        all > timur && timur > 0,
        "the filter must narrow: {all} {timur}"
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for (n, size) in [PHONE, LAPTOP].into_iter().enumerate() {
            let profile = dir.path().join(format!("profile-filter-{n}"));
            let c = sized_session(port, &browser, &profile, size).await;
            c.goto(&format!("{base}/explore?variant=tamerlane"))
                .await
                .unwrap();
            assert_eq!(page_games(&c).await, all, "unfiltered at {size:?}");

            // The form is folded under the board until opened.
            let summary = c
                .find(Locator::Css("details.explore-filter summary"))
                .await
                .unwrap();
            summary.click().await.unwrap();
            c.find(Locator::Css("details.explore-filter input[name=player]"))
                .await
                .unwrap()
                .send_keys("TIMUR")
                .await
                .unwrap();
            c.execute(
                "document.querySelector('details.explore-filter select[name=color]').value = 'white';",
                vec![],
            )
            .await
            .unwrap();
            c.find(Locator::Css("details.explore-filter button[type=submit]"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            let url = wait_url(&c, "the filtered explorer", |u| u.contains("player=")).await;
            assert!(url.contains("color=white"), "{url}");
            assert!(!url.contains("event="), "empty fields stay out: {url}");
            assert_eq!(page_games(&c).await, timur, "filtered at {size:?}");
            let (scroll_width, inner_width, _) = page_size(&c).await;
            assert_eq!(scroll_width, inner_width, "the open form fits at {size:?}");

            // Every move of the table keeps the filter.
            let links = c
                .find_all(Locator::Css("table.moves td.move a"))
                .await
                .unwrap();
            assert!(!links.is_empty());
            for a in &links {
                let href = a.attr("href").await.unwrap().unwrap();
                assert!(href.contains("player=TIMUR"), "{href}");
            }

            // A result narrows it further.
            c.goto(&format!("{url}&result=1-0")).await.unwrap();
            assert_eq!(page_games(&c).await, timur_won, "with a result at {size:?}");
            c.close().await.unwrap();
        }
    });
}
