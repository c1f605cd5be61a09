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

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
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
    let Some(driver) = find_program(&["chromedriver"]) else {
        let ci = std::env::var_os("CI").is_some();
        if !ci && std::env::var_os("KABIR_SKIP_BROWSER_TESTS").is_some() {
            eprintln!("browser test skipped: KABIR_SKIP_BROWSER_TESTS is set");
            return;
        }
        panic!(
            "chromedriver not found on PATH: install Debian's chromium and chromium-driver \
             (`apt-get install -y chromium chromium-driver`, as .ci/run does), or set \
             KABIR_SKIP_BROWSER_TESTS=1 to skip this test on a machine without a browser"
        );
    };
    let browser = find_program(&["chromium", "chromium-browser", "google-chrome"])
        .expect("chromedriver is here but no chromium: install Debian's chromium");
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);

    let port = free_port();
    let _driver = Killed(
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
                // The network is closed here: no background connections, no updates.
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                    "--window-size=1400,1000", "--force-device-scale-factor=1",
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
    let Some(driver) = find_program(&["chromedriver"]) else {
        let ci = std::env::var_os("CI").is_some();
        if !ci && std::env::var_os("KABIR_SKIP_BROWSER_TESTS").is_some() {
            eprintln!("browser test skipped: KABIR_SKIP_BROWSER_TESTS is set");
            return;
        }
        panic!(
            "chromedriver not found on PATH: install Debian's chromium and chromium-driver, \
             or set KABIR_SKIP_BROWSER_TESTS=1 to skip this test on a machine without a browser"
        );
    };
    let browser = find_program(&["chromium", "chromium-browser", "google-chrome"])
        .expect("chromedriver is here but no chromium: install Debian's chromium");
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let (_server, base) = serve(&db);
    let port = free_port();
    let _driver = Killed(
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
