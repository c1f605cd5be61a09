//! `kabir serve` through the real binary on a free port: every page, the API against the
//! command line's JSON, bad requests, hostile game text, the security headers and where the
//! server listens.
#![cfg(feature = "serve")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::queries_common::{build_db, json};

/// A running `kabir serve`, stopped when dropped.
struct Served {
    child: Child,
    url: String,
    stderr: Option<std::process::ChildStderr>,
}

impl Served {
    fn start(db: &Path, extra: &[&str]) -> Served {
        Served::start_with(db, extra, |_| {})
    }

    fn start_with(db: &Path, extra: &[&str], setup: impl FnOnce(&mut Command)) -> Served {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kabir"));
        cmd.arg("serve")
            .arg("--db")
            .arg(db)
            .args(["--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        setup(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_end_matches('/').to_string();
        assert!(url.starts_with("http://"), "no URL printed: {line:?}");
        let stderr = child.stderr.take();
        Served { child, url, stderr }
    }

    fn port(&self) -> u16 {
        self.url.rsplit(':').next().unwrap().parse().unwrap()
    }

    fn get(&self, target: &str) -> Answer {
        get(&format!("{}{target}", self.url))
    }

    /// Standard error so far (the server is stopped first).
    fn stop_and_stderr(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut s = String::new();
        if let Some(mut e) = self.stderr.take() {
            e.read_to_string(&mut s).unwrap();
        }
        s
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn get(url: &str) -> Answer {
    get_up_to(url, 10 << 20)
}

/// A request whose answer may be up to `limit` bytes long.
fn get_up_to(url: &str, limit: u64) -> Answer {
    let mut r = agent().get(url).call().unwrap();
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    Answer {
        status: r.status().as_u16(),
        headers,
        body: String::from_utf8_lossy(
            &r.body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .unwrap(),
        )
        .into_owned(),
    }
}

/// A request written by hand, for what a client library would not send.
fn raw(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A game whose tags try to inject markup and script.
const HOSTILE: &str = r#"[Event "\"><img src=x onerror=alert(2)>"]
[Site "Nowhere"]
[Date "2024.01.01"]
[White "<script>alert(1)</script>"]
[Black "Bob & 'Eve'"]
[Result "1-0"]
[Variant "Shatranj"]

{ </p><script>alert(3)</script> } 1. e3 { <b>bold</b> } e6 2. Nf3 1-0
"#;

/// The shared database: the query tests' games plus the hostile one.
fn db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        // Under the build's own temporary folder, made afresh by each run.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_http");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = build_db(&dir);
        let x = dir.join("hostile.pgn");
        std::fs::write(&x, HOSTILE).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
            .args(["import", "-q", "--db"])
            .arg(&db)
            .arg(&x)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        db
    })
}

fn hostile_id() -> u32 {
    let v = json(db(), &["search", "--player", "script", "--limit", "1"]);
    v["games"][0]["id"].as_u64().unwrap() as u32
}

fn tamerlane_game() -> u32 {
    let v = json(
        db(),
        &[
            "search",
            "--variant",
            "tamerlane",
            "--min-plies",
            "20",
            "--limit",
            "1",
        ],
    );
    v["games"][0]["id"].as_u64().unwrap() as u32
}

#[test]
fn every_page_answers_with_the_security_headers() {
    let s = Served::start(db(), &[]);
    let id = tamerlane_game();
    let pages = [
        "/explore".to_string(),
        "/explore?variant=tamerlane".into(),
        "/explore?variant=tamerlane&moves=f4+f7&flip=1".into(),
        "/explore?variant=shatranj&moves=e3".into(),
        "/explore?variant=shatranj&fen=rnbkqbnr%2Fpppppppp%2F8%2F8%2F8%2F4P3%2FPPPP1PPP%2FRNBKQBNR+b+-+-+0+1&moves=e6".into(),
        format!("/game/{id}"),
        format!("/game/{id}?ply=0"),
        format!("/game/{id}?ply=5&flip=1"),
        "/game/1?node=1".into(),
        "/search".into(),
        "/search?variant=tamerlane&with=swap&sort=plies&reverse=1&limit=25".into(),
        "/search?variant=shatranj&moves=e3+e6&offset=1".into(),
        "/stats".into(),
        "/stats?by=termination&variant=tamerlane".into(),
        "/stats?by=year".into(),
    ];
    for p in &pages {
        let a = s.get(p);
        assert_eq!(a.status, 200, "{p}: {}", a.body);
        assert_eq!(
            a.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{p}"
        );
        let csp = a.header("content-security-policy").unwrap_or("");
        assert!(csp.contains("script-src 'self'"), "{p}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{p}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{p}: {csp}");
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"), "{p}");
        assert_eq!(a.header("x-frame-options"), Some("DENY"), "{p}");
        // No inline script, and every script is one of the server's own files.
        assert!(!a.body.contains("<script>"), "{p}");
        for (i, _) in a.body.match_indices("<script") {
            let tag = &a.body[i..i + a.body[i..].find('>').unwrap()];
            assert!(tag.contains("src=\"/assets/app.js"), "{p}: {tag}");
        }
    }
    // The explorer after moves shows the board, the moves and the line.
    let a = s.get("/explore?variant=tamerlane&moves=f4");
    assert!(a.body.contains("class=\"kabir-diagram\""));
    assert!(a.body.contains("data-square=\"wc\""), "citadels drawn");
    assert!(a.body.contains("<table class=\"moves\""));
    assert!(a.body.contains("1. f4"));
    for (name, kind) in [
        ("style.css", "text/css"),
        ("app.js", "text/javascript"),
        ("board-font.ttf", "font/ttf"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let a = s.get(&format!("/assets/{name}"));
        assert_eq!(a.status, 200, "{name}");
        assert!(
            a.header("content-type").unwrap().starts_with(kind),
            "{name}"
        );
    }
    assert_eq!(s.get("/").status, 200, "the root leads to the explorer");
    // The explorer's games open the viewer at the position.
    let a = s.get("/explore?variant=shatranj&moves=e3+e6");
    let i = a.body.find("/game/").expect("a game listed");
    let link = a.body[i..i + a.body[i..].find('"').unwrap()].replace("&amp;", "&");
    assert!(link.contains("?fen="), "{link}");
    let g = s.get(&link);
    assert_eq!(g.status, 200, "{link}");
    assert!(g.body.contains("class=\"mv main current\""), "{link}");
    assert!(
        g.body.contains("1\u{2026} e6") || g.body.contains("e6</a>"),
        "{link}"
    );
}

/// The API's answer for `target` and the command line's for `args`, as JSON values.
fn same(s: &Served, target: &str, args: &[&str]) {
    let a = s.get(target);
    assert_eq!(a.status, 200, "{target}: {}", a.body);
    assert_eq!(
        a.header("content-type"),
        Some("application/json"),
        "{target}"
    );
    assert_eq!(
        a.json(),
        json(db(), args),
        "{target} against kabir {args:?}"
    );
}

#[test]
fn the_api_answers_as_the_command_line() {
    let s = Served::start(db(), &[]);
    same(
        &s,
        "/api/explore?variant=tamerlane",
        &["explore", "--variant", "tamerlane"],
    );
    same(
        &s,
        "/api/explore?variant=shatranj&moves=e3+e6&depth=3&breadth=2&examples=5",
        &[
            "explore",
            "--variant",
            "shatranj",
            "--moves",
            "e3 e6",
            "--depth",
            "3",
            "--breadth",
            "2",
            "--examples",
            "5",
        ],
    );
    // A tree cut at its bound, as the command line cuts it.
    let cut = "/api/explore?variant=tamerlane&depth=20&breadth=100&max-nodes=50";
    same(
        &s,
        cut,
        &[
            "explore",
            "--variant",
            "tamerlane",
            "--depth",
            "20",
            "--breadth",
            "100",
            "--max-nodes",
            "50",
        ],
    );
    let a = s.get(cut).json();
    assert_eq!(a["truncated"], true, "{a}");
    assert_eq!(a["max_nodes"], 50);
    let fen = "rnbkqbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBKQBNR b - - 0 1";
    same(
        &s,
        &format!(
            "/api/explore?variant=shatranj&fen={}",
            fen.replace(' ', "+").replace('/', "%2F")
        ),
        &["explore", "--variant", "shatranj", "--fen", fen],
    );
    same(&s, "/api/games", &["search"]);
    same(
        &s,
        "/api/games?variant=tamerlane&sort=plies&reverse=1&limit=7&offset=2",
        &[
            "search",
            "--variant",
            "tamerlane",
            "--sort",
            "plies",
            "--reverse",
            "--limit",
            "7",
            "--offset",
            "2",
        ],
    );
    same(
        &s,
        "/api/games?player=player+1&color=white&result=white&from=1985&to=1995.06",
        &[
            "search", "--player", "player 1", "--color", "white", "--result", "white", "--from",
            "1985", "--to", "1995.06",
        ],
    );
    same(
        &s,
        "/api/games?variant=shatranj&moves=e3+e6&exact-order=1",
        &[
            "search",
            "--variant",
            "shatranj",
            "--moves",
            "e3 e6",
            "--exact-order",
        ],
    );
    same(
        &s,
        "/api/games?variant=shatranj&moves=d3+d6+e3+e6",
        &["search", "--variant", "shatranj", "--moves", "d3 d6 e3 e6"],
    );
    same(
        &s,
        "/api/games?with=promotion&termination=other&min-plies=10&max-plies=200&variant=tamerlane&promotion-to=v",
        &[
            "search",
            "--with",
            "promotion",
            "--termination",
            "other",
            "--min-plies",
            "10",
            "--max-plies",
            "200",
            "--variant",
            "tamerlane",
            "--promotion-to",
            "v",
        ],
    );
    let id = tamerlane_game().to_string();
    same(&s, &format!("/api/game/{id}"), &["show", &id]);
    same(
        &s,
        &format!("/api/game/{id}?ply=3"),
        &["show", &id, "--ply", "3"],
    );
    same(&s, "/api/game/1?ply=0", &["show", "1", "--ply", "0"]);
    same(&s, "/api/stats", &["stats"]);
    same(
        &s,
        "/api/stats?by=termination&variant=tamerlane",
        &["stats", "--by", "termination", "--variant", "tamerlane"],
    );
    same(
        &s,
        "/api/stats?by=opening&opening-plies=2&top=3",
        &[
            "stats",
            "--by",
            "opening",
            "--opening-plies",
            "2",
            "--top",
            "3",
        ],
    );
    same(
        &s,
        "/api/stats?by=player&event=cup",
        &["stats", "--by", "player", "--event", "cup"],
    );
}

#[test]
fn bad_requests_are_400_and_unknown_paths_404_never_500() {
    let s = Served::start(db(), &[]);
    let id = tamerlane_game();
    let bad = [
        "/explore?variant=chess",
        "/explore?variant=tamerlane&moves=f4+f7+Kz9",
        "/explore?variant=shatranj&fen=not+a+position",
        "/explore?colour=white",
        "/explore?variant=shatranj&variant=tamerlane",
        "/explore?flip=maybe",
        "/api/explore?variant=tamerlane&depth=0",
        "/api/explore?variant=tamerlane&depth=21",
        "/api/explore?variant=tamerlane&max-nodes=0",
        "/api/explore?variant=tamerlane&max-nodes=20001",
        // A NUL reaches no query (SQLite's full-text search ends its text there).
        "/api/games?player=a%00b",
        "/api/games?event=a%00b",
        "/api/games?site=%00",
        "/api/stats?player=a%00b",
        "/api/stats?event=cup%00",
        "/search?player=a%00b",
        "/stats?event=a%00b",
        "/api/explore?variant=shatranj&moves=e4",
        "/api/explore",
        "/api/games?limit=0",
        "/api/games?limit=1001",
        "/api/games?offset=-1",
        "/api/games?result=won",
        "/api/games?from=99",
        "/api/games?color=white",
        "/api/games?with=castle",
        "/api/games?sort=elo",
        "/api/games?exact-order=1",
        "/api/games?termination=resigned",
        "/api/stats?by=month",
        "/api/stats?top=-3",
        "/search?min-plies=many",
        "/stats?opening-plies=999999",
        "/game/1?ply=99999",
        "/game/1?ply=1&node=1",
        "/game/1?node=999999",
        "/api/game/1?ply=99999",
        "/api/game/1?depth=2",
    ];
    for t in bad {
        let a = s.get(t);
        assert_eq!(a.status, 400, "{t}: {}", a.body);
        if t.starts_with("/api/") {
            let msg = a.json()["error"].as_str().unwrap().to_string();
            assert!(msg.len() > 10, "{t}: {msg}");
        } else {
            assert!(a.body.contains("class=\"message\""), "{t}");
        }
    }
    // The message says what is wrong.
    let a = s.get("/api/explore?variant=chess");
    assert!(a.json()["error"].as_str().unwrap().contains("tamerlane"));
    let a = s.get("/explore?variant=tamerlane&moves=f4+f7+Kz9");
    assert!(a.body.contains("move 3"), "{}", a.body);
    let a = s.get("/api/games?player=a%00b");
    assert!(
        a.json()["error"].as_str().unwrap().contains("NUL"),
        "{}",
        a.body
    );
    for t in [
        "/nope",
        "/api/nope",
        "/game/999999",
        "/game/abc",
        "/api/game/999999",
        "/api/game/-1",
        "/assets/secret.txt",
        "/assets/../Cargo.toml",
        "/explore/deeper",
    ] {
        let a = s.get(t);
        assert_eq!(a.status, 404, "{t}: {}", a.body);
    }
    // Odd and hostile requests of every kind: a 4xx answer, never a 5xx.
    let odd = [
        "/explore?moves=%00%01%02".to_string(),
        "/explore?variant=tamerlane&moves=%E2%80%AE".into(),
        format!("/explore?variant=tamerlane&moves={}", "f4+".repeat(2000)),
        "/search?player=%27%3B+DROP+TABLE+game%3B--".into(),
        "/search?player=%25&event=_".into(),
        "/api/games?min-plies=99999999999".into(),
        "/api/games?offset=99999999999999999999".into(),
        format!("/game/{id}?ply=-1"),
        "/game/4294967296".into(),
        "/api/game/0".into(),
        "/search?%ZZ=1".into(),
        "/stats?with=".into(),
        "/explore?fen=%20&variant=".into(),
    ];
    for t in &odd {
        let a = s.get(t);
        assert!(
            (200..500).contains(&a.status),
            "{t}: {} {}",
            a.status,
            a.body
        );
    }
    assert!(
        get(&format!(
            "{}/search?player=%27%3B+DROP+TABLE+game%3B--",
            s.url
        ))
        .status
            == 200
    );
    // Not GET, a body, a huge target.
    let port = s.port();
    let post = raw(
        port,
        "POST /explore HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
    );
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    let long = format!(
        "GET /explore?moves={} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        "a".repeat(20_000)
    );
    let a = raw(port, &long);
    assert!(a.starts_with("HTTP/1.1 414"), "{}", &a[..a.len().min(200)]);
    // After all that the server still answers.
    assert_eq!(s.get("/explore").status, 200);
}

/// Words of a message written as Rust names (`MissingDestination`, `BadOrigin`): a capital,
/// lowercase letters, then another capital inside one word.
fn rust_names(message: &str) -> Vec<&str> {
    message
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| {
            let mut chars = w.chars();
            chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && w.len() > 2
                && w[1..].chars().any(|c| c.is_ascii_lowercase())
                && w[1..].chars().any(|c| c.is_ascii_uppercase())
        })
        .collect()
}

/// The message of an error page: the text of its `p.message`.
fn page_message(body: &str) -> String {
    let start = body
        .find("class=\"message\"")
        .unwrap_or_else(|| panic!("no message: {body}"));
    let text = &body[start..];
    let text = &text[text.find('>').unwrap() + 1..];
    text[..text.find("</").unwrap()].to_string()
}

#[test]
fn every_parameter_is_checked_and_named_in_words() {
    let s = Served::start(db(), &[]);
    let id = tamerlane_game();
    let game = format!("/game/{id}");
    let api_game = format!("/api/game/{id}");
    let filter = [
        "color",
        "from",
        "to",
        "result",
        "termination",
        "min-plies",
        "max-plies",
        "with",
        "promotion-to",
        "variant",
    ];
    let list = [
        "fen",
        "moves",
        "exact-order",
        "sort",
        "reverse",
        "limit",
        "offset",
    ];
    let stats = ["by", "opening-plies", "top"];
    // Each route, what its requests start with, and the parameters that take only some values.
    let routes: Vec<(&str, &str, Vec<&str>)> = vec![
        ("/explore", "", vec!["variant", "fen", "moves", "flip"]),
        (&game, "", vec!["ply", "node", "fen", "flip"]),
        ("/search", "", filter.iter().chain(&list).copied().collect()),
        (
            "/api/games",
            "",
            filter.iter().chain(&list).copied().collect(),
        ),
        ("/stats", "", filter.iter().chain(&stats).copied().collect()),
        (
            "/api/stats",
            "",
            filter.iter().chain(&stats).copied().collect(),
        ),
        (
            "/api/explore",
            "variant=tamerlane&",
            vec!["fen", "moves", "depth", "breadth", "examples", "max-nodes"],
        ),
        (&api_game, "", vec!["ply"]),
    ];
    for (path, base, names) in &routes {
        for name in names {
            for garbage in ["%3Cscript%3E", "zz9"] {
                let t = format!("{path}?{base}{name}={garbage}");
                let a = s.get(&t);
                assert_eq!(a.status, 400, "{t}: {}", a.body);
                let message = if path.starts_with("/api/") {
                    a.json()["error"].as_str().unwrap().to_string()
                } else {
                    page_message(&a.body)
                };
                assert!(message.contains(name), "{t}: {message}");
                let named = rust_names(&message);
                assert!(named.is_empty(), "{t}: {named:?} in {message}");
            }
        }
    }
    // Names, events and sites are searched for as given: any text is a question.
    for t in [
        "/search?player=%3Cscript%3E",
        "/api/games?event=zz9",
        "/stats?site=zz9",
    ] {
        assert_eq!(s.get(t).status, 200, "{t}");
    }
    // A move that cannot be read is said in words, not as the reader's names for it.
    for t in [
        "/api/explore?variant=tamerlane&moves=Nz",
        "/api/games?variant=shatranj&moves=Ng1g2f3",
        "/explore?variant=shatranj&moves=e3+N",
    ] {
        let a = s.get(t);
        assert_eq!(a.status, 400, "{t}: {}", a.body);
        let message = if t.starts_with("/api/") {
            a.json()["error"].as_str().unwrap().to_string()
        } else {
            page_message(&a.body)
        };
        assert!(
            message.contains("is not a move: expected"),
            "{t}: {message}"
        );
        assert!(rust_names(&message).is_empty(), "{t}: {message}");
    }
    // An unknown promotion piece lists what is accepted.
    let a = s.get("/api/games?variant=tamerlane&promotion-to=Q");
    let message = a.json()["error"].as_str().unwrap().to_string();
    assert!(
        message.contains("promotion-to") && message.contains("vizir (V)"),
        "{message}"
    );
    let a = s.get("/api/games?variant=tamerlane&promotion-to=v");
    assert_eq!(a.status, 200, "{}", a.body);
}

#[test]
fn a_bad_form_comes_back_filled_with_the_message_beside_it() {
    let s = Served::start(db(), &[]);
    let cases = [
        (
            "/search?color=white&event=Cup",
            "choose a player",
            "value=\"Cup\"",
        ),
        // The database holds several variants: a line of moves needs one chosen.
        (
            "/search?moves=f4&event=Cup",
            "moves needs a variant",
            "value=\"f4\"",
        ),
        (
            "/stats?top=zz9&player=Ali",
            "parameter top",
            "value=\"Ali\"",
        ),
        (
            "/search?player=%3Cb%3E&limit=0",
            "parameter limit",
            "value=\"&lt;b&gt;\"",
        ),
        (
            "/explore?variant=tamerlane&moves=f4+Kz9",
            "move 2",
            "value=\"f4 Kz9\"",
        ),
    ];
    for (t, said, filled) in cases {
        let a = s.get(t);
        assert_eq!(a.status, 400, "{t}: {}", a.body);
        assert!(page_message(&a.body).contains(said), "{t}: {}", a.body);
        assert!(a.body.contains("<form"), "{t}: {}", a.body);
        assert!(a.body.contains(filled), "{t}: {}", a.body);
    }
    // The API keeps answering errors as JSON.
    let a = s.get("/api/games?color=white");
    assert_eq!(a.status, 400);
    assert!(a.json()["error"].as_str().unwrap().contains("player"));
    // Empty fields are absent, as a form sent without the script gives them.
    let a = s.get("/search?player=&color=&event=&variant=&moves=&limit=&with=");
    assert_eq!(a.status, 200, "{}", a.body);
    // Links the server builds leave empty values out.
    let a = s.get("/search?variant=tamerlane&event=&limit=2");
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(a.body.contains("offset=2"), "{}", a.body);
    for empty in ["=&amp;", "=\""] {
        assert!(
            !a.body.contains(&format!("href=\"/search?{empty}")) && !a.body.contains("event="),
            "{}",
            a.body
        );
    }
}

#[test]
fn names_match_ignoring_case_and_accents_in_every_script() {
    use crate::queries_search::{NAMES_FOUND, NAMES_PGN};
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("names.pgn");
    std::fs::write(&pgn, NAMES_PGN).unwrap();
    let db = dir.path().join("names.db");
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(&pgn)
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = Served::start(&db, &[]);
    for (asked, games) in NAMES_FOUND {
        let t = params_url("/api/games", &[("player", asked)]);
        let a = s.get(&t);
        assert_eq!(
            a.json()["total"].as_u64(),
            Some(games),
            "{asked}: {}",
            a.body
        );
    }
}

fn params_url(path: &str, pairs: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        q.append_pair(k, v);
    }
    format!("{path}?{}", q.finish())
}

#[test]
fn text_from_game_files_is_escaped() {
    let s = Served::start(db(), &[]);
    let id = hostile_id();
    for target in [
        format!("/game/{id}"),
        format!("/game/{id}?ply=1"),
        "/search?variant=shatranj".to_string(),
        "/search?player=script".into(),
        "/explore?variant=shatranj&moves=e3+e6".into(),
        "/stats?by=player&player=script".into(),
    ] {
        let a = s.get(&target);
        assert_eq!(a.status, 200, "{target}");
        assert!(
            a.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{target}: the name is shown, escaped"
        );
        assert!(!a.body.contains("<script>alert"), "{target}");
        assert!(!a.body.contains("<img src=x"), "{target}");
        assert!(!a.body.contains("<b>bold"), "{target}");
    }
    let a = s.get(&format!("/game/{id}"));
    assert!(
        a.body.contains("&lt;b&gt;bold&lt;/b&gt;"),
        "comments shown as text"
    );
    // JSON carries the text exactly.
    let v = s.get(&format!("/api/game/{id}")).json();
    assert_eq!(v["white"], "<script>alert(1)</script>");
    assert_eq!(v["moves"][0]["comments"][0], "<b>bold</b>");
}

#[test]
fn listens_on_loopback_unless_told_otherwise() {
    let s = Served::start(db(), &[]);
    assert!(s.url.starts_with("http://127.0.0.1:"), "{}", s.url);
    let port = s.port();
    // Bound to 127.0.0.1 only: another address of the machine (here another loopback one)
    // is refused.
    assert!(TcpStream::connect(("127.0.0.2", port)).is_err());
    // A page elsewhere that points its own host name at 127.0.0.1 is not answered.
    let a = raw(
        port,
        "GET /api/games HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
    );
    assert!(a.starts_with("HTTP/1.1 421"), "{a}");
    let a = raw(
        port,
        "GET /api/games HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert!(a.starts_with("HTTP/1.1 200"), "{a}");
    assert!(!s.stop_and_stderr().contains("warning"));

    // With --host, every interface, and a warning that there is no login.
    let open = Served::start(db(), &["--host", "0.0.0.0"]);
    let port = open.port();
    let a = raw(
        port,
        "GET /api/games?limit=1 HTTP/1.1\r\nHost: kabir.example\r\nConnection: close\r\n\r\n",
    );
    assert!(a.starts_with("HTTP/1.1 200"), "{a}");
    assert!(TcpStream::connect(("127.0.0.2", port)).is_ok());
    let err = open.stop_and_stderr();
    assert!(err.contains("warning") && err.contains("no login"), "{err}");
}

#[test]
fn the_database_is_read_only_and_queries_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    std::fs::copy(db(), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let s = Served::start(&copy, &[]);
    for t in [
        "/explore",
        "/search",
        "/stats",
        "/game/1",
        "/api/games",
        "/api/stats",
    ] {
        assert_eq!(s.get(t).status, 200, "{t}");
    }
    drop(s);
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        before,
        "the file is unchanged"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["copy.db"], "no journal or WAL file made");

    // Past its time a query is stopped, and the request answered with 503 and why.
    let s = Served::start(&copy, &["--timeout", "0.000001"]);
    let a = s.get("/api/stats");
    assert_eq!(a.status, 503, "{}", a.body);
    assert!(a.json()["error"].as_str().unwrap().contains("--timeout"));
    assert_eq!(s.get("/stats").status, 503);
    // Pages that need no query still answer.
    assert_eq!(s.get("/assets/style.css").status, 200);
}

#[test]
fn start_up_errors_and_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["serve", "--port", "0", "--db"])
        .arg(dir.path().join("missing.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no such database file"), "{err}");

    // A port in use is named, with the way out.
    let s = Served::start(db(), &[]);
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["serve", "--port", &s.port().to_string(), "--db"])
        .arg(db())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--port 0"));

    // --open without any browser to start: a warning, and the server runs.
    let empty = tempfile::tempdir().unwrap();
    let s = Served::start_with(db(), &["--open"], |c| {
        c.env("PATH", empty.path());
    });
    assert_eq!(s.get("/explore").status, 200);
    std::thread::sleep(Duration::from_millis(200));
    let err = s.stop_and_stderr();
    assert!(err.contains("could not start a browser"), "{err}");
}

/// Runs `kabir ARGS`, expecting success.
fn run_kabir(args: &[&std::ffi::OsStr]) {
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Long random Tamerlane games (`kabir generate`'s own length), enough that a deep explorer
/// tree with many examples per move takes a good part of a second.
fn heavy_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_http_heavy");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("games.pgn");
        let db = dir.join("games.db");
        run_kabir(&[
            "generate".as_ref(),
            "--variant".as_ref(),
            "tamerlane".as_ref(),
            "--games".as_ref(),
            "2000".as_ref(),
            "--seed".as_ref(),
            "7".as_ref(),
            "-o".as_ref(),
            pgn.as_os_str(),
        ]);
        run_kabir(&[
            "import".as_ref(),
            "-q".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            pgn.as_os_str(),
        ]);
        db
    })
}

#[test]
fn heavy_requests_never_hold_up_a_page() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    // Four database threads (the default), three of which may run heavy requests.
    let s = Served::start(heavy_db(), &["--timeout", "20"]);
    let page = "/explore?variant=tamerlane&moves=f4";
    assert_eq!(s.get(page).status, 200);
    let heavy = format!(
        "{}/api/explore?variant=tamerlane&depth=20&breadth=100&examples=100",
        s.url
    );
    let calls = 8;
    let pending = Arc::new(AtomicUsize::new(calls));
    let clients: Vec<_> = (0..calls)
        .map(|_| {
            let (url, pending) = (heavy.clone(), pending.clone());
            std::thread::spawn(move || {
                // A tree of 20,000 moves with their examples: tens of megabytes.
                let a = get_up_to(&url, 1 << 30);
                pending.fetch_sub(1, Ordering::SeqCst);
                a
            })
        })
        .collect();
    // Time for the calls to reach the server and take every heavy thread.
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..5 {
        let start = Instant::now();
        let a = s.get(page);
        let took = start.elapsed();
        let still = pending.load(Ordering::SeqCst);
        assert_eq!(a.status, 200, "{}", a.body);
        assert!(
            took < Duration::from_millis(200),
            "the page took {took:?} while heavy calls ran"
        );
        // Three run and the others wait for a permit: most are still unanswered.
        assert!(
            still >= 3,
            "only {still} of {calls} heavy calls were still pending"
        );
    }
    let answers: Vec<Answer> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let done = answers.iter().filter(|a| a.status == 200).count();
    assert!(done >= 3, "the heavy calls ran: {done} answered");
    for a in answers.iter().filter(|a| a.status != 200) {
        // Past the wait for a permit: refused, saying why and when to come back.
        assert_eq!(a.status, 503, "{}", a.body);
        assert_eq!(a.header("retry-after"), Some("20"));
        let msg = a.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains("at most 3 heavy requests at once"), "{msg}");
    }
}

#[test]
fn sizes_past_their_bounds_are_refused_before_any_work() {
    let s = Served::start(db(), &[]);
    let cases = [
        ("/api/explore?variant=tamerlane&depth=21", "depth", "20"),
        (
            "/api/explore?variant=tamerlane&breadth=101",
            "breadth",
            "100",
        ),
        (
            "/api/explore?variant=tamerlane&examples=101",
            "examples",
            "100",
        ),
        ("/api/stats?by=opening&top=101", "top", "100"),
        (
            "/api/stats?by=opening&opening-plies=9",
            "opening-plies",
            "8",
        ),
        ("/api/games?limit=1001", "limit", "1000"),
        ("/stats?by=opening&top=1000", "top", "100"),
        ("/stats?by=opening&opening-plies=200", "opening-plies", "8"),
        ("/search?limit=1001", "limit", "1000"),
    ];
    for (t, name, bound) in cases {
        let a = s.get(t);
        assert_eq!(a.status, 400, "{t}: {}", a.body);
        let msg = if t.starts_with("/api/") {
            a.json()["error"].as_str().unwrap().to_string()
        } else {
            a.body.clone()
        };
        assert!(msg.contains(name), "{t}: {msg}");
        assert!(msg.contains(bound), "{t}: {msg}");
    }
    // At the bounds: answered.
    for t in [
        "/api/explore?variant=tamerlane&depth=20&breadth=100&examples=100&max-nodes=200",
        "/api/stats?by=opening&top=100&opening-plies=8",
        "/stats?by=opening&top=100&opening-plies=8",
    ] {
        assert_eq!(s.get(t).status, 200, "{t}");
    }
    // The statistics form offers no value past the bounds.
    let form = s.get("/stats").body;
    assert!(form.contains(r#"name="top" min="0" max="100""#), "{form}");
    assert!(
        form.contains(r#"name="opening-plies" min="0" max="8""#),
        "{form}"
    );
}

#[test]
fn the_landing_page_follows_an_import_while_serving() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let shatranj = dir.path().join("shatranj.pgn");
    let tamerlane = dir.path().join("tamerlane.pgn");
    let more = dir.path().join("more.pgn");
    std::fs::write(
        &shatranj,
        crate::queries_common::generated_pgn("shatranj", 6, 1),
    )
    .unwrap();
    std::fs::write(
        &tamerlane,
        crate::queries_common::generated_pgn("tamerlane", 3, 2),
    )
    .unwrap();
    std::fs::write(
        &more,
        crate::queries_common::generated_pgn("tamerlane", 6, 3),
    )
    .unwrap();
    let import = |pgn: &Path| {
        run_kabir(&[
            "import".as_ref(),
            "-q".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            pgn.as_os_str(),
        ])
    };
    import(&shatranj);
    import(&tamerlane);
    let s = Served::start(&db, &[]);
    // The variant with the most games: 6 of shatranj against 3.
    let a = s.get("/");
    assert_eq!(a.status, 200);
    assert!(a.body.contains("<title>Shatranj explorer"), "{}", a.body);
    // Into the same file while the server runs: now 9 of Tamerlane.
    import(&more);
    let a = s.get("/");
    assert_eq!(a.status, 200);
    assert!(
        a.body.contains("<title>Tamerlane Chess explorer"),
        "{}",
        a.body
    );
}

// ----- The explorer's playable board: the legal moves sent with the page ------------------

/// The legal moves an explorer page carries for its script: from, to, SAN and label each.
fn embedded_moves(body: &str) -> Vec<(String, String, String, String)> {
    let open = "<div id=\"legal-moves\" hidden data-moves=\"";
    let start = body.find(open).expect("the page carries its legal moves") + open.len();
    let len = body[start..].find('"').unwrap();
    let text = body[start..start + len]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap().to_string();
            (s("from"), s("to"), s("san"), s("label"))
        })
        .collect()
}

/// `kabir perft --divide 1` at a position: each legal move's coordinates, sorted.
fn perft_divide(variant: &str, fen: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["perft", "--variant", variant, "--fen", fen, "--divide", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (total, moves) = lines.split_last().unwrap();
    let mut moves: Vec<String> = moves
        .iter()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    moves.sort();
    assert_eq!(total.trim().parse::<usize>().unwrap(), moves.len());
    moves
}

/// The pairs of squares of the moves, as the coordinates of `perft --divide` begin.
fn pairs(moves: &[(String, String, String, String)]) -> Vec<String> {
    let mut p: Vec<String> = moves.iter().map(|(f, t, _, _)| format!("{f}{t}")).collect();
    p.sort();
    p
}

#[test]
fn serve_explorer_carries_every_legal_move_with_citadel_swap_and_promotion() {
    let s = Served::start(db(), &[]);
    // White's king on a8 beside Black's citadel, attacked by the rook on h8 but with a
    // prince on k1 (two royals: no check rule), so it may enter the citadel, swap with the
    // pawn of rooks on b9 (an attacked king may swap), and the pawn may promote on b10.
    let fen = "5k5/2PR9/K6r3/11/11/11/11/11/12/10S w K - 0 1";
    let page = s.get(&params_url(
        "/explore",
        &[("variant", "tamerlane"), ("fen", fen)],
    ));
    assert_eq!(page.status, 200, "{}", page.body);
    let moves = embedded_moves(&page.body);
    let divide = perft_divide("tamerlane", fen);
    assert_eq!(moves.len(), divide.len(), "{moves:?} against {divide:?}");
    // Tamerlane's promotions are forced, so each pair of squares is one move and its
    // coordinates are the pair, with the promotion's letter after a rank (`b9b10r`).
    let mut uci_pairs: Vec<String> = divide
        .iter()
        .map(|m| {
            let b = m.as_bytes();
            let promotes = b.len() > 1
                && b[b.len() - 1].is_ascii_lowercase()
                && b[b.len() - 2].is_ascii_digit();
            m[..m.len() - usize::from(promotes)].to_string()
        })
        .collect();
    uci_pairs.sort();
    assert_eq!(pairs(&moves), uci_pairs);
    let find = |from: &str, to: &str| {
        moves
            .iter()
            .find(|m| m.0 == from && m.1 == to)
            .unwrap_or_else(|| panic!("{from}-{to} in {moves:?}"))
            .clone()
    };
    assert_eq!(find("a8", "bc").2, "Kbc", "the citadel entry");
    let swap = find("a8", "b9");
    assert_eq!((swap.2.as_str(), swap.3.as_str()), ("K:b9", "King swap"));
    let promotion = find("b9", "b10");
    assert_eq!(
        (promotion.2.as_str(), promotion.3.as_str()),
        ("b10=R", "Rook")
    );
    // Every move the page offers is one the explorer takes in `moves`, and leads to a page
    // of its own: no game played any of them.
    for (_, _, san, _) in &moves {
        let next = s.get(&params_url(
            "/explore",
            &[("variant", "tamerlane"), ("fen", fen), ("moves", san)],
        ));
        assert_eq!(next.status, 200, "{san}: {}", next.body);
        assert!(
            next.body.contains("No game in the database reached"),
            "{san}"
        );
    }
    // The citadel entry ends the game: the page after it offers no move.
    let after = s.get(&params_url(
        "/explore",
        &[("variant", "tamerlane"), ("fen", fen), ("moves", "Kbc")],
    ));
    assert!(embedded_moves(&after.body).is_empty());
    // The start position: the 24 moves of perft 1, and the hint the script shows.
    let start = s.get("/explore?variant=tamerlane");
    assert_eq!(embedded_moves(&start.body).len(), 24);
    assert!(start.body.contains("class=\"play-hint\" hidden"));
}

#[test]
fn serve_explorer_offers_each_promotion_of_a_choice() {
    let s = Served::start(db(), &[]);
    // Grand Shatranj N W: White has lost every piece, so the pawn on c9 may become any.
    let fen = "4k5/2P7/10/10/10/10/10/10/10/4K5 w - - 0 1";
    let page = s.get(&params_url(
        "/explore",
        &[("variant", "grand-shatranj-nw"), ("fen", fen)],
    ));
    assert_eq!(page.status, 200, "{}", page.body);
    let moves = embedded_moves(&page.body);
    let divide = perft_divide("grand-shatranj-nw", fen);
    assert_eq!(moves.len(), divide.len(), "{moves:?} against {divide:?}");
    let promotions: Vec<_> = moves
        .iter()
        .filter(|m| m.0 == "c9" && m.1 == "c10")
        .collect();
    assert_eq!(
        promotions.len(),
        divide.iter().filter(|m| m.starts_with("c9c10")).count()
    );
    assert!(promotions.len() > 1);
    // Each names the piece the pawn becomes, all different, with a SAN of its own.
    let mut labels: Vec<&str> = promotions.iter().map(|m| m.3.as_str()).collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), promotions.len(), "{promotions:?}");
    assert!(labels.contains(&"Knight"), "{labels:?}");
    for m in &promotions {
        assert!(m.2.starts_with("c10="), "{m:?}");
        assert!(!m.3.contains('='), "{m:?}");
    }
}

#[test]
fn serve_viewer_offers_the_variations_as_next_moves() {
    let s = Served::start(db(), &[]);
    let v = json(db(), &["search", "--player", "Timur", "--limit", "1"]);
    let id = v["games"][0]["id"].as_u64().unwrap();
    let game = s.get(&format!("/api/game/{id}")).json();
    // The sample game's first variation: the main line's move and the variation's first
    // move follow the same position.
    let moves = game["moves"].as_array().unwrap();
    let branch = moves
        .iter()
        .find(|m| m["variations"].as_array().is_some_and(|vs| !vs.is_empty()))
        .expect("a move with a variation");
    let ply = branch["ply"].as_u64().unwrap();
    let page = s.get(&format!("/game/{id}?ply={}", ply - 1));
    assert_eq!(page.status, 200);
    let choice_at = page
        .body
        .find("id=\"next-choice\"")
        .expect("a choice of next moves");
    let choice = &page.body[choice_at..];
    let choice = &choice[..choice.find("</div>").unwrap()];
    let options = choice.matches("class=\"choice").count();
    assert_eq!(
        options,
        1 + branch["variations"].as_array().unwrap().len(),
        "{choice}"
    );
    assert_eq!(choice.matches("chosen").count(), 1, "{choice}");
    let main_san = branch["san"].as_str().unwrap();
    let alt_san = branch["variations"][0]["moves"][0]["san"].as_str().unwrap();
    assert!(
        choice.contains(main_san) && choice.contains(alt_san),
        "{choice}"
    );
    // Where no variation branches off, there is nothing to choose.
    let plain = s.get(&format!("/game/{id}?ply={}", ply));
    let next = moves[ply as usize]["variations"]
        .as_array()
        .is_some_and(|vs| !vs.is_empty());
    assert_eq!(plain.body.contains("id=\"next-choice\""), next);
}

// ----- downloads of game text ----------------------------------------------------------

/// Saves a download and checks it with `kabir validate`: every game valid; their number.
fn validated_games(text: &str, name: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kabir"))
        .args(["validate", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "kabir validate {name}: {report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A line per game, then the summary.
    let lines: Vec<serde_json::Value> = report
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, games) = lines.split_last().unwrap();
    let summary = &summary["summary"];
    assert!(games.iter().all(|g| g["valid"] == true), "{report}");
    assert_eq!(summary["invalid"], 0, "{report}");
    assert_eq!(summary["games"], games.len(), "{report}");
    games.len()
}

/// What `kabir export ARGS` writes.
fn exported(db: &Path, args: &[&str]) -> String {
    crate::queries_common::ok(db, &[&["export"][..], args].concat())
}

/// The number of games `kabir search ARGS` finds, on all pages.
fn found(db: &Path, args: &[&str]) -> usize {
    let v = json(db, &[&["search", "--limit", "1"][..], args].concat());
    v["total"].as_u64().unwrap() as usize
}

fn assert_pgn_download(a: &Answer, file: &str) {
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.header("content-type"),
        Some("application/x-chess-pgn; charset=utf-8")
    );
    assert_eq!(
        a.header("content-disposition"),
        Some(format!("attachment; filename=\"{file}\"").as_str())
    );
    assert_eq!(a.header("x-content-type-options"), Some("nosniff"));
}

#[test]
fn downloads_give_the_text_kabir_export_gives() {
    let s = Served::start(db(), &[]);

    // One game: the hostile one, the only game of its player.
    let id = hostile_id();
    let a = s.get(&format!("/pgn/game/{id}"));
    assert_pgn_download(&a, &format!("kabir-game-{id}.pgn"));
    assert_eq!(a.body, exported(db(), &["--player", "script"]));
    assert!(a.body.contains("[White \"<script>alert(1)</script>\"]"));
    assert_eq!(validated_games(&a.body, "one.pgn"), 1);

    // A search of more games than a page (50) shows: all of them, as the export has them.
    let a = s.get("/pgn/search");
    assert_pgn_download(&a, "kabir-search.pgn");
    let n = found(db(), &[]);
    assert!(n > 50, "{n} games");
    assert_eq!(a.body, exported(db(), &[]));
    assert_eq!(validated_games(&a.body, "search.pgn"), n);
    let a = s.get("/pgn/search?variant=tamerlane");
    assert_pgn_download(&a, "kabir-search.pgn");
    assert_eq!(a.body, exported(db(), &["--variant", "tamerlane"]));
    assert_eq!(
        validated_games(&a.body, "tamerlane.pgn"),
        found(db(), &["--variant", "tamerlane"])
    );

    // Conditions, an order and empty fields, as the search form sends them.
    let a = s.get("/pgn/search?variant=shatranj&result=1-0&sort=plies&reverse=1&player=&fen=");
    assert_pgn_download(&a, "kabir-search.pgn");
    let listed = crate::queries_common::ok(
        db(),
        &[
            "search",
            "--variant",
            "shatranj",
            "--result",
            "1-0",
            "--sort",
            "plies",
            "--reverse",
            "--limit",
            "0",
            "--format",
            "pgn",
        ],
    );
    assert_eq!(a.body, listed);
    assert_eq!(
        validated_games(&a.body, "sorted.pgn"),
        found(db(), &["--variant", "shatranj", "--result", "1-0"])
    );

    // A position's games, as the explorer's link asks for them.
    let first = json(db(), &["explore", "--variant", "tamerlane"])["moves"][0]["san"]
        .as_str()
        .unwrap()
        .to_string();
    let a = s.get(&params_url(
        "/pgn/search",
        &[("variant", "tamerlane"), ("moves", &first)],
    ));
    assert_pgn_download(&a, "kabir-position.pgn");
    assert_eq!(
        a.body,
        exported(db(), &["--variant", "tamerlane", "--moves", &first])
    );
    assert_eq!(
        validated_games(&a.body, "position.pgn"),
        found(db(), &["--variant", "tamerlane", "--moves", &first])
    );

    // No game found: an empty file, not an error.
    let a = s.get("/pgn/search?player=nobody-plays-here");
    assert_pgn_download(&a, "kabir-search.pgn");
    assert_eq!(a.body, "");

    // The pages link to the downloads.
    let page = s.get(&format!("/game/{id}")).body;
    assert!(page.contains(&format!("href=\"/pgn/game/{id}\"")), "{page}");
    let page = s.get("/search?variant=tamerlane&limit=25&offset=25").body;
    assert!(
        page.contains("href=\"/pgn/search?variant=tamerlane\""),
        "{page}"
    );
    let page = s
        .get(&params_url(
            "/explore",
            &[("variant", "tamerlane"), ("moves", &first)],
        ))
        .body;
    // As the page writes it: `&` escaped.
    let link = params_url(
        "/pgn/search",
        &[("variant", "tamerlane"), ("moves", &first)],
    )
    .replace('&', "&amp;");
    assert!(
        page.contains(&format!("href=\"{link}\"")),
        "{link} in {page}"
    );
}

#[test]
fn download_parameters_are_checked_and_named_in_words() {
    let s = Served::start(db(), &[]);
    let id = tamerlane_game();
    // The request, and what the message must name.
    let bad = [
        ("/pgn/search?limit=10".to_string(), "limit"),
        ("/pgn/search?offset=50".to_string(), "offset"),
        ("/pgn/search?sort=elo".to_string(), "sort"),
        ("/pgn/search?reverse=maybe".to_string(), "reverse"),
        ("/pgn/search?variant=chess".to_string(), "variant"),
        ("/pgn/search?color=white".to_string(), "color"),
        ("/pgn/search?result=won".to_string(), "result"),
        ("/pgn/search?player=a%00b".to_string(), "player"),
        ("/pgn/search?moves=e4".to_string(), "moves"),
        (
            "/pgn/search?variant=shatranj&moves=e3+e9".to_string(),
            "moves",
        ),
        (
            "/pgn/search?variant=shatranj&fen=nonsense".to_string(),
            "fen",
        ),
        ("/pgn/search?exact-order=1".to_string(), "exact-order"),
        (
            "/pgn/search?variant=tamerlane&variant=shatranj".to_string(),
            "variant",
        ),
        (format!("/pgn/game/{id}?ply=3"), "ply"),
    ];
    for (target, name) in &bad {
        let a = s.get(target);
        assert_eq!(a.status, 400, "{target}: {}", a.body);
        assert!(
            a.header("content-type").unwrap().starts_with("text/html"),
            "{target}"
        );
        assert!(a.header("content-disposition").is_none(), "{target}");
        let message = page_message(&a.body);
        assert!(message.contains(name), "{target}: {message}");
    }
    for target in [
        "/pgn/game/abc",
        "/pgn/game/99999999",
        "/pgn/game/-1",
        "/pgn/games",
    ] {
        let a = s.get(target);
        assert_eq!(a.status, 404, "{target}: {}", a.body);
    }
}

#[test]
fn a_long_download_is_streamed_and_a_stalled_client_holds_up_nothing() {
    use std::time::Instant;

    let db = heavy_db();
    let s = Served::start(db, &["--timeout", "20"]);
    // 2000 long games: many pieces of 200 games and megabytes, more than a socket's buffers
    // take while its reader sleeps.
    let target = "/pgn/search?variant=tamerlane";
    let a = get_up_to(&format!("{}{target}", s.url), 1 << 30);
    assert_pgn_download(&a, "kabir-search.pgn");
    assert_eq!(a.header("transfer-encoding"), Some("chunked"));
    assert!(a.header("content-length").is_none());
    assert_eq!(a.body, exported(db, &["--variant", "tamerlane"]));
    assert_eq!(validated_games(&a.body, "long.pgn"), 2000);

    // Clients that ask and then read nothing: as many as downloads may run at once.
    let stalled: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut c = TcpStream::connect(("127.0.0.1", s.port())).unwrap();
            c.write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
                .unwrap();
            c
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // They hold no database thread and no heavy permit: pages and heavy calls still answer.
    let start = Instant::now();
    let page = s.get("/explore?variant=tamerlane&moves=f4");
    assert_eq!(page.status, 200);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    let heavy = s.get("/api/games?variant=tamerlane&limit=1000");
    assert_eq!(heavy.status, 200, "{}", heavy.body);
    // The stalled clients read on: each gets the whole text.
    for mut c in stalled {
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut raw = Vec::new();
        // The chunked body ends with a chunk of size 0.
        let mut buf = [0u8; 1 << 16];
        while !raw.ends_with(b"\r\n0\r\n\r\n") {
            let n = c.read(&mut buf).unwrap();
            assert!(n > 0, "the download stopped early");
            raw.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&raw);
        assert!(text.starts_with("HTTP/1.1 200"), "{}", &text[..200]);
        assert_eq!(text.matches("[Event ").count(), 2000);
    }
}

#[test]
fn the_explorer_filter_narrows_the_api_and_the_page_as_the_command_line() {
    let s = Served::start(db(), &[]);
    let cases: [(&str, &[&str]); 4] = [
        (
            "player=player+3&color=white",
            &["--player", "player 3", "--color", "white"],
        ),
        (
            "event=cup+1&result=1-0",
            &["--event", "cup 1", "--result", "1-0"],
        ),
        (
            "from=1985&to=1990.06",
            &["--from", "1985", "--to", "1990.06"],
        ),
        (
            "site=TOWN+0&result=draw",
            &["--site", "TOWN 0", "--result", "draw"],
        ),
    ];
    let all = json(db(), &["explore", "--variant", "tamerlane"]);
    for (q, args) in cases {
        let cli = [&["explore", "--variant", "tamerlane"][..], args].concat();
        same(&s, &format!("/api/explore?variant=tamerlane&{q}"), &cli);
        let first = all["moves"][0]["san"].as_str().unwrap();
        let deeper = [&cli[..], &["--moves", first, "--depth", "2"]].concat();
        same(
            &s,
            &format!("/api/explore?variant=tamerlane&moves={first}&depth=2&{q}"),
            &deeper,
        );
        // The page shows the filtered count, and every link it builds keeps the filter.
        let want = json(db(), &cli);
        assert!(want["games"].as_u64().unwrap() < all["games"].as_u64().unwrap());
        let a = s.get(&format!("/explore?variant=tamerlane&{q}"));
        assert_eq!(a.status, 200, "{}", a.body);
        let games = want["games"].as_u64().unwrap();
        let heading = format!("{games} game{}", if games == 1 { "" } else { "s" });
        assert!(a.body.contains(&heading), "{heading}: {}", a.body);
        let kept = q.split('&').next().unwrap();
        for m in want["moves"].as_array().unwrap() {
            let san = m["san"].as_str().unwrap().replace('+', "%2B");
            let link = format!("moves={san}&amp;{kept}");
            assert!(a.body.contains(&link), "{link}: {}", a.body);
        }
        assert!(
            a.body.contains("<details class=\"explore-filter\" open"),
            "{}",
            a.body
        );
    }
    // The game lists: newest first, and the shortest decisive games.
    let a = s.get("/explore?variant=tamerlane&player=player+3");
    assert!(a.body.contains("Recent games"), "{}", a.body);
    assert!(a.body.contains("Shortest decisive games"), "{}", a.body);
    // Empty fields are left out; a bad value names its parameter and keeps the form.
    let a = s.get("/explore?variant=tamerlane&player=&event=&result=");
    assert_eq!(a.status, 200, "{}", a.body);
    for (t, said, filled) in [
        (
            "/explore?variant=tamerlane&from=2021.02.30&player=Ali",
            "parameter from",
            "value=\"Ali\"",
        ),
        (
            "/explore?variant=tamerlane&result=won&event=Cup",
            "parameter result",
            "value=\"Cup\"",
        ),
        (
            "/explore?variant=tamerlane&color=black&site=Town",
            "color needs player",
            "value=\"Town\"",
        ),
    ] {
        let a = s.get(t);
        assert_eq!(a.status, 400, "{t}: {}", a.body);
        assert!(page_message(&a.body).contains(said), "{t}: {}", a.body);
        assert!(
            a.body.contains("<form") && a.body.contains(filled),
            "{t}: {}",
            a.body
        );
        let api = s.get(&t.replace("/explore", "/api/explore"));
        assert_eq!(api.status, 400, "{t}");
        assert!(
            api.json()["error"]
                .as_str()
                .unwrap()
                .contains(said.split(' ').next_back().unwrap())
        );
    }
    let a = s.get("/api/explore?variant=tamerlane&termination=checkmate");
    assert_eq!(a.status, 400, "{}", a.body);
}
