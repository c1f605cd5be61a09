//! The command line as people meet it: the diagnostic form of validate and import, escaped
//! control characters, quiet runs, completions and the man page, help texts, and the README's
//! first-run example run as written.

use assert_cmd::Command;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn variants_lists_every_builtin_with_its_start() {
    let text = stdout(kabir().args(["variants", "--verbose"]));
    for v in kabir::variants::builtins() {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(v.id()))
            .unwrap_or_else(|| panic!("{} not listed:\n{text}", v.id()));
        assert!(line.ends_with(v.description()), "{line}");
        assert!(
            text.contains(&format!("start: {}", v.start_fen())),
            "{} start missing",
            v.id()
        );
    }
    // The names other programs give a variant, where there are any.
    assert!(
        text.contains(
            "uci: shatranj; xboard: shatranj; pychess: shatranj; fairy-stockfish: shatranj; \
             tags seen: Shatranj, shatranj"
        ),
        "{text}"
    );
}

/// `kabir variants --format json` gives each variant's names, those of other programs
/// included (left out where no program uses them).
#[test]
fn variants_in_json_name_what_other_programs_call_them() {
    let text = stdout(kabir().args(["variants", "--format", "json"]));
    let list: serde_json::Value = serde_json::from_str(&text).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), kabir::variants::builtin_ids().len());
    let shatranj = list.iter().find(|v| v["id"] == "shatranj").unwrap();
    assert_eq!(
        shatranj["names"],
        serde_json::json!({
            "uci": "shatranj", "xboard": "shatranj", "pychess": "shatranj",
            "fairy_stockfish": "shatranj", "tags": ["Shatranj", "shatranj"]
        })
    );
    let tamerlane = list.iter().find(|v| v["id"] == "tamerlane").unwrap();
    assert_eq!(tamerlane["names"], serde_json::json!({}));
    assert!(tamerlane["aliases"].as_array().unwrap().len() > 1);
}

/// Where the golden files live; paths are given relative to the crate so that the reports
/// name them the same way on every machine.
const GOLDEN: &str = "tests/data/cli";

/// Compares `actual` with the golden file `name`; with `KABIR_BLESS=1`, writes it instead.
fn golden(name: &str, actual: &str) {
    let path = format!("{}/{GOLDEN}/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("KABIR_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        actual == expected,
        "{name} differs (KABIR_BLESS=1 rewrites it):\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

/// `kabir ARGS` run from the crate's directory, without a terminal and with the colour
/// variables of the environment cleared.
fn in_crate(args: &[&str]) -> Command {
    let mut cmd = kabir();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .args(args);
    cmd
}

#[test]
fn validate_reports_in_the_compiler_form() {
    for file in ["tamerlane-problems", "shatranj-problems"] {
        let path = format!("{GOLDEN}/{file}.pgn");
        let plain = in_crate(&["validate", &path]).output().unwrap();
        assert_eq!(plain.status.code(), Some(1), "{file}: an invalid game");
        let plain = String::from_utf8(plain.stdout).unwrap();
        assert!(
            !plain.contains('\u{1b}'),
            "{file}: colour without a terminal"
        );
        golden(&format!("{file}.txt"), &plain);
        let color = stdout(&mut in_crate(&["validate", "--color", "always", &path]));
        assert!(
            color.contains("\u{1b}["),
            "{file}: no colour with --color always"
        );
        golden(&format!("{file}.color.txt"), &color);
        // The colour variables of the environment, as other tools read them.
        let forced = stdout(in_crate(&["validate", &path]).env("CLICOLOR_FORCE", "1"));
        assert_eq!(forced, color, "{file}: CLICOLOR_FORCE");
        let refused = stdout(
            in_crate(&["validate", &path])
                .env("CLICOLOR_FORCE", "1")
                .env("NO_COLOR", "1"),
        );
        assert_eq!(refused, plain, "{file}: NO_COLOR");
        let never =
            stdout(in_crate(&["validate", "--color", "never", &path]).env("CLICOLOR_FORCE", "1"));
        assert_eq!(never, plain, "{file}: --color never");
    }
}

#[test]
fn a_tamerlane_position_is_never_cut() {
    let path = format!("{GOLDEN}/tamerlane-problems.pgn");
    let json = stdout(&mut in_crate(&["validate", "--format", "json", &path]));
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let fen = first["errors"][0]["position"].as_str().unwrap().to_string();
    assert!(fen.len() > 100, "a long position string: {fen}");
    for format in ["human", "table"] {
        let text = stdout(&mut in_crate(&["validate", "--format", format, &path]));
        assert!(
            text.contains(&fen),
            "--format {format} cuts the position:\n{text}"
        );
        if format == "table" {
            for label in [
                "where",
                "game",
                "error",
                "variant",
                "ply",
                "text",
                "problem",
                "position",
                "legal moves",
            ] {
                assert!(
                    text.lines().any(|l| l.starts_with(&format!("│ {label} "))),
                    "--format table lost the label {label}:\n{text}"
                );
            }
        }
    }
}

#[test]
fn import_reports_rejected_games_as_validate_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let path = format!("{GOLDEN}/shatranj-problems.pgn");
    let out = in_crate(&["import", "--db", db.to_str().unwrap(), &path])
        .output()
        .unwrap();
    let report: String = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("kabir import:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let validate = stdout(&mut in_crate(&["validate", &path]));
    let blocks = &validate[..validate.find('╭').unwrap()];
    assert_eq!(report, blocks);
    let color = in_crate(&[
        "import",
        "--color",
        "always",
        "--db",
        db.to_str().unwrap(),
        &path,
    ])
    .output()
    .unwrap();
    assert!(
        String::from_utf8(color.stderr)
            .unwrap()
            .contains("\u{1b}[1m")
    );
}

/// A tag holding an escape sequence: escaped in every table, exact in JSON and CSV.
#[test]
fn control_characters_reach_no_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("esc.pgn");
    std::fs::write(
        &file,
        "[Event \"Bell\u{7}\"]\n[White \"Eve\u{1b}[2J\"]\n[Black \"Nul\u{0}l\"]\n[Result \"*\"]\n\
         [Variant \"Shatranj\"]\n\n1. e3 e6 2. Nf3 Qe7 *\n\n\
         [Event \"Bell\u{7}\"]\n[White \"Eve\u{1b}[2J\"]\n[Black \"Nul\u{0}l\"]\n[Result \"1-0\"]\n\
         [Variant \"Shatranj\"]\n\n1. e3 e6 2. Nf3 Nf6 1-0\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let db = dir.path().join("esc.db");
    let db = db.to_str().unwrap();
    let raw = |s: &str| s.contains('\u{1b}') || s.contains('\u{7}') || s.contains('\u{0}');
    let human = [
        vec!["validate", file],
        vec!["validate", "--format", "table", file],
    ];
    for args in &human {
        let text = stdout(kabir().args(args));
        assert!(!raw(&text), "{args:?} shows a control character:\n{text}");
        assert!(text.contains("Eve\\u{1b}[2J"), "{args:?}:\n{text}");
    }
    let import = kabir().args(["import", "--db", db, file]).output().unwrap();
    assert!(!raw(&String::from_utf8_lossy(&import.stderr)));
    for args in [
        vec!["search", "--db", db],
        vec!["stats", "--db", db, "--by", "player"],
        vec!["show", "--db", db, "1"],
        vec!["explore", "--db", db, "--variant", "shatranj"],
    ] {
        let text = stdout(kabir().args(&args));
        assert!(!raw(&text), "{args:?} shows a control character:\n{text}");
    }
    let search = stdout(kabir().args(["search", "--db", db]));
    assert!(search.contains("Eve\\u{1b}[2J"), "{search}");
    let show = stdout(kabir().args(["show", "--db", db, "1"]));
    assert!(
        show.contains("Bell\\u{7}") && show.contains("Nul\\u{0}l"),
        "{show}"
    );
    // JSON and CSV keep the exact text.
    let json = stdout(kabir().args(["search", "--db", db, "--format", "json"]));
    let page: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(page["games"][0]["white"], "Eve\u{1b}[2J");
    let csv = stdout(kabir().args(["search", "--db", db, "--format", "csv"]));
    assert!(csv.contains("Eve\u{1b}[2J"));
    let json = stdout(kabir().args(["validate", "--format", "json", file]));
    let game: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(game["white"], "Eve\u{1b}[2J");
}

/// The warnings of each game of `validate --format json ARGS FILE`: (kind, message).
fn warnings_by_game(args: &[&str], file: &str) -> Vec<Vec<(String, String)>> {
    let mut cmd = in_crate(&["validate", "--format", "json"]);
    let json = stdout(cmd.args(args).arg(file));
    json.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|g| g.get("game").is_some())
        .map(|g| {
            g["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| {
                    (
                        w["kind"].as_str().unwrap().to_string(),
                        w["message"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_game_in_coordinate_form_gets_one_warning() {
    let file = format!("{GOLDEN}/coordinates.pgn");
    let games = warnings_by_game(&[], &file);
    assert_eq!(games.len(), 3);
    // UCI, its unmarked check folded in; long algebraic with a variation.
    for (game, opening) in [
        (&games[0], "canonical SAN is 1. e3 e6 2. Nf3 Ke7 3. Ne5"),
        (&games[1], "canonical SAN is 1. e3 e6 2. Nf3 Nf6 3. Nc3"),
    ] {
        assert_eq!(game.len(), 1, "{game:?}");
        assert_eq!(game[0].0, "non-canonical");
        assert!(
            game[0].1.starts_with("written in coordinate form") && game[0].1.contains(opening),
            "{game:?}"
        );
    }
    assert!(
        games[0][0]
            .1
            .contains("(10 moves, 1 check without its mark)")
    );
    assert!(games[1][0].1.contains("(7 moves)"));
    // Forms mixed: a warning per move written in coordinates.
    assert_eq!(games[2].len(), 2, "{:?}", games[2]);
    assert!(games[2].iter().all(|w| w.1.starts_with("written ")));
    // --strict: every move on its own, and the unmarked check.
    let strict = warnings_by_game(&["--strict"], &file);
    assert_eq!(strict[0].len(), 11, "{:?}", strict[0]);
    assert_eq!(strict[1].len(), 7, "{:?}", strict[1]);
    assert_eq!(strict[2], games[2]);
}

/// The moves of a game in coordinate form as its one warning gives them are the first moves
/// `--fix` writes: the same check and mate marks, glyphs and move numbers, cut after twelve
/// plies with `…`.
#[test]
fn the_coordinate_form_hint_is_what_fix_writes() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("fixed.pgn");
    let file = format!("{GOLDEN}/coordinates-marks.pgn");
    let mut cmd = in_crate(&["validate", "--format", "json", "--fix"]);
    let json = stdout(cmd.arg(&fixed).arg(&file));
    let hints: Vec<String> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|g| g.get("game").is_some())
        .map(|g| {
            let message = g["warnings"][0]["message"].as_str().unwrap().to_string();
            message
                .split_once("canonical SAN is ")
                .unwrap()
                .1
                .to_string()
        })
        .collect();
    let written = std::fs::read_to_string(&fixed).unwrap();
    let movetexts: Vec<Vec<&str>> = written
        .split("[Event ")
        .skip(1)
        .map(|game| {
            game.lines()
                .skip(1)
                .filter(|l| !l.starts_with('['))
                .flat_map(str::split_whitespace)
                .collect()
        })
        .collect();
    assert_eq!((hints.len(), movetexts.len()), (3, 3), "{json}\n{written}");
    for (hint, fix) in hints.iter().zip(&movetexts) {
        let hint: Vec<&str> = hint.split_whitespace().collect();
        let moves = &fix[..fix.len() - 1];
        let shown = match hint.last() {
            Some(&"…") => &hint[..hint.len() - 1],
            _ => &hint[..],
        };
        assert_eq!(shown, &moves[..shown.len()], "{hint:?} {fix:?}");
        assert_eq!(hint.last() == Some(&"…"), shown.len() < moves.len());
    }
    assert_eq!(
        hints[0],
        "1. Nxg7+ Kd8 2. Nxf7+ Kc7 3. Ne8+ Kb7 4. Nd8+ Ka6 5. Nc7+ Ka5 6. Nb7+ Ka4 …"
    );
    assert_eq!(hints[1], "1... Kd8 2. Nxg7!! Kc7 3. Nxf7");
    assert_eq!(hints[2], "7. Qb3+ Ka3 8. Bc1#");
}

/// A database of the samples and 200 random Shatranj games; returns its path.
fn sample_db(dir: &std::path::Path) -> String {
    let generated = dir.join("random.pgn");
    kabir()
        .args([
            "generate",
            "--variant",
            "shatranj",
            "--games",
            "200",
            "--seed",
            "7",
            "-o",
        ])
        .arg(&generated)
        .assert()
        .success();
    let db = dir.join("q.db");
    let samples = format!("{}/samples", env!("CARGO_MANIFEST_DIR"));
    let mut cmd = kabir();
    cmd.args(["import", "-q", "--db"]).arg(&db).arg(&generated);
    for f in std::fs::read_dir(samples).unwrap() {
        cmd.arg(f.unwrap().path());
    }
    cmd.assert().success();
    db.to_str().unwrap().to_string()
}

fn json(cmd: &mut Command) -> serde_json::Value {
    serde_json::from_str(&stdout(cmd)).unwrap()
}

#[test]
fn help_says_what_each_option_does_there() {
    let help = |cmd: &str| stdout(kabir().args([cmd, "--help"]));
    for cmd in ["search", "stats", "export", "explore", "show"] {
        let text = help(cmd);
        assert!(
            !text.contains("for game files") && !text.contains("without a `Variant` tag"),
            "{cmd} --help speaks of game files:\n{text}"
        );
    }
    for cmd in ["search", "stats", "export"] {
        assert!(help(cmd).contains("Only games of this variant"), "{cmd}");
    }
    assert!(help("explore").contains("The variant of the position"));
    assert!(!help("show").contains("--variant <NAME>"));
    for cmd in ["validate", "import"] {
        assert!(
            help(cmd).contains("The variant of games without a `Variant` tag"),
            "{cmd}"
        );
    }
    let search = help("search");
    let exact = &search[search.find("--exact-order").unwrap()..];
    let exact = &exact[..exact.find("\n\n").unwrap()];
    assert!(!exact.contains("transposition"), "{exact}");
}

#[test]
fn search_in_exact_order_does_not_claim_transpositions() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let line = [
        "search",
        "--db",
        &db,
        "--variant",
        "shatranj",
        "--moves",
        "e3",
    ];
    let any = stdout(kabir().args(line));
    assert!(
        any.lines()
            .next()
            .unwrap()
            .contains("transpositions included"),
        "{any}"
    );
    let exact = stdout(kabir().args(line).arg("--exact-order"));
    let first = exact.lines().next().unwrap();
    assert!(
        !first.contains("transpositions") && first.contains("exactly these moves"),
        "{first}"
    );
}

/// The moves listed at each node of an explorer tree, and the moves followed (`next`).
fn check_breadth(node: &serde_json::Value, breadth: usize, depth: usize) {
    let moves = node["moves"].as_array().unwrap();
    let followed: Vec<_> = moves.iter().filter(|m| m.get("next").is_some()).collect();
    if depth > 1 {
        assert_eq!(followed.len(), moves.len().min(breadth), "{node}");
        // The most played ones are followed.
        for (m, f) in moves.iter().zip(&followed) {
            assert_eq!(m["san"], f["san"]);
        }
    } else {
        assert!(followed.is_empty());
    }
    for m in followed {
        let next = &m["next"];
        for field in [
            "fen",
            "games",
            "results",
            "ended_here",
            "continued",
            "moves",
        ] {
            assert!(next.get(field).is_some(), "next has no {field}: {next}");
        }
        assert_eq!(
            next["continued"].as_u64().unwrap(),
            next["games"].as_u64().unwrap() - next["ended_here"].as_u64().unwrap()
        );
        check_breadth(next, breadth, depth - 1);
    }
}

#[test]
fn explorer_depth_lists_the_first_level_of_depth_one_and_follows_breadth() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let base = [
        "explore",
        "--db",
        &db,
        "--variant",
        "shatranj",
        "--format",
        "json",
    ];
    let one = json(kabir().args(base));
    let first: Vec<_> = one["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].clone())
        .collect();
    assert!(first.len() > 3, "enough moves to follow only some");
    for (depth, breadth) in [(2, 3), (3, 2), (2, 100)] {
        let tree = json(kabir().args(base).args([
            "--depth",
            &depth.to_string(),
            "--breadth",
            &breadth.to_string(),
        ]));
        let listed: Vec<_> = tree["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].clone())
            .collect();
        assert_eq!(listed, first, "--depth {depth} --breadth {breadth}");
        check_breadth(&tree, breadth, depth);
        // A child is the explorer of its position, as asked for on its own.
        let child = &tree["moves"][0]["next"];
        let alone = json(
            kabir()
                .args(base)
                .args(["--fen", child["fen"].as_str().unwrap()]),
        );
        assert_eq!(alone["games"], child["games"]);
        assert_eq!(
            alone["moves"].as_array().unwrap().len(),
            child["moves"].as_array().unwrap().len()
        );
    }
    // The table lists the same first level.
    let table = stdout(kabir().args([
        "explore",
        "--db",
        &db,
        "--variant",
        "shatranj",
        "--depth",
        "2",
    ]));
    let rows = table.lines().filter(|l| l.starts_with("│ 1. ")).count();
    assert_eq!(rows, first.len(), "{table}");
}

#[test]
fn an_openings_share_is_of_its_variants_games_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let starts: std::collections::HashMap<String, String> = kabir::variants::builtins()
        .iter()
        .map(|v| (v.id().to_string(), v.start_fen().to_string()))
        .collect();
    // Games from each variant's standard start, counted from the exported games.
    let mut from_start: std::collections::HashMap<String, u64> = Default::default();
    let mut all = 0;
    for line in stdout(kabir().args(["export", "--db", &db, "--format", "json"])).lines() {
        let g: serde_json::Value = serde_json::from_str(line).unwrap();
        all += 1;
        let variant = g["variant"].as_str().unwrap();
        if starts.get(variant).map(String::as_str) == g["start"].as_str() {
            *from_start.entry(variant.to_string()).or_default() += 1;
        }
    }
    let total: u64 = from_start.values().sum();
    assert!(
        total < all,
        "some sample game starts from a set-up position"
    );
    let report = json(kabir().args(["stats", "--db", &db, "--format", "json", "--top", "1000"]));
    let openings = report["openings"].as_array().unwrap();
    assert!(openings.iter().any(|o| o["variant"] != "shatranj"));
    for o in openings {
        let n = from_start[o["variant"].as_str().unwrap()] as f64;
        let share = o["share_pct"].as_f64().unwrap();
        let expected = o["games"].as_f64().unwrap() * 100.0 / n;
        assert!(
            (share - expected).abs() < 1e-9,
            "{o}: {share} against {expected}"
        );
    }
}

#[test]
fn quiet_import_prints_only_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.db");
    let out = in_crate(&["import", "-q", "--batch", "1", "--db", db.to_str().unwrap()])
        .arg(format!("{GOLDEN}/shatranj-problems.pgn"))
        .arg("samples/shatranj.pgn")
        .arg("samples/tamerlane.pgn")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "rejected games");
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("13"), "13 games read: {text}");
    // validate -q as well.
    let out = in_crate(&["validate", "-q", &format!("{GOLDEN}/shatranj-problems.pgn")])
        .output()
        .unwrap();
    assert!(out.stderr.is_empty());
    assert!(String::from_utf8(out.stdout).unwrap().starts_with('╭'));
}

#[test]
fn progress_without_a_terminal_is_not_a_line_per_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    // A batch per game: 20 commits, done in well under the few seconds between lines.
    let out = in_crate(&["import", "--batch", "1", "--db", db.to_str().unwrap()])
        .args(
            std::fs::read_dir(format!("{}/samples", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
                .map(|f| f.unwrap().path()),
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.lines().count() <= 1, "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "the summary: {stdout}");
}

/// Whether a program can be run here.
fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn completions_for_every_shell() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(kabir().args(["completions", shell]));
        for word in ["validate", "explore", "exact-order", "completions"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
        if shell == "bash" {
            let path = dir.path().join("kabir.bash");
            std::fs::write(&path, &script).unwrap();
            let check = std::process::Command::new("bash")
                .arg("-n")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                check.status.success(),
                "{}",
                String::from_utf8_lossy(&check.stderr)
            );
            // Loaded into a shell, it completes the commands.
            let complete = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!(
                    "source {}; COMP_WORDS=(kabir val); COMP_CWORD=1; COMP_LINE='kabir val'; \
                     COMP_POINT=9; _kabir kabir val kabir; echo \"${{COMPREPLY[@]}}\"",
                    path.display()
                ))
                .output()
                .unwrap();
            let words = String::from_utf8(complete.stdout).unwrap();
            assert!(words.split_whitespace().any(|w| w == "validate"), "{words}");
        }
    }
    let bad = kabir().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// Checks roff by its structure: a title, the sections a manual page has, and only requests
/// that man pages use.
fn check_roff(page: &str, name: &str) {
    assert!(
        page.lines()
            .any(|l| l.starts_with(&format!(".TH {name} 1"))),
        "{page}"
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS"] {
        assert!(page.lines().any(|l| l == section), "{name}: no {section}");
    }
    const REQUESTS: [&str; 17] = [
        "TH", "SH", "SS", "TP", "PP", "LP", "IP", "RS", "RE", "B", "I", "BR", "IR", "br", "sp",
        "ie", "el",
    ];
    for l in page.lines().filter(|l| l.starts_with('.')) {
        let request = l[1..].split([' ', '\t']).next().unwrap();
        assert!(REQUESTS.contains(&request), "{name}: unknown request {l:?}");
    }
}

#[test]
fn man_page_renders() {
    let page = stdout(kabir().arg("man"));
    check_roff(&page, "kabir");
    assert!(page.contains("kabir\\-validate(1)"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kabir.1");
    std::fs::write(&file, &page).unwrap();
    let rendered = if have("man") {
        let out = std::process::Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(&file)
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    } else if have("groff") {
        let out = std::process::Command::new("groff")
            .args(["-man", "-Tutf8"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success());
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        None
    };
    if let Some(text) = rendered {
        assert!(
            text.contains("SYNOPSIS") && text.contains("validate"),
            "{text}"
        );
    }
    // A page per command.
    let pages = dir.path().join("pages");
    kabir()
        .args(["man", "--dir"])
        .arg(&pages)
        .assert()
        .success();
    for name in [
        "kabir",
        "kabir-validate",
        "kabir-explore",
        "kabir-completions",
    ] {
        let page = std::fs::read_to_string(pages.join(format!("{name}.1"))).unwrap();
        check_roff(&page, name);
    }
}

/// The shell blocks of README.md in order, each with whether it is the first-run example.
fn readme_blocks() -> Vec<(bool, String)> {
    let readme =
        std::fs::read_to_string(format!("{}/README.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut blocks = Vec::new();
    let mut lines = readme.lines().peekable();
    let mut marked = false;
    while let Some(line) = lines.next() {
        if line.starts_with("<!-- first-run") {
            marked = true;
        } else if line == "```sh" {
            let mut block = String::new();
            for l in lines.by_ref() {
                if l == "```" {
                    break;
                }
                block.push_str(l);
                block.push('\n');
            }
            blocks.push((marked, block));
            marked = false;
        }
    }
    blocks
}

/// Runs a shell script as a newcomer would from a fresh clone: in a directory holding the
/// samples, with the built `kabir` on PATH and a home of its own. Returns its output.
fn run_as_newcomer(script: &str) -> (std::process::Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("clone");
    let home = dir.path().join("home");
    std::fs::create_dir_all(clone.join("samples")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    for f in std::fs::read_dir(format!("{}/samples", env!("CARGO_MANIFEST_DIR"))).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), clone.join("samples").join(f.file_name())).unwrap();
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kabir"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", script])
        .current_dir(&clone)
        .env("PATH", path)
        .env("HOME", &home)
        .env_remove("KABIR_DB")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the README's commands failed:\n{script}\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, dir)
}

#[test]
fn readme_first_run_example_runs_as_written() {
    let blocks = readme_blocks();
    let first: Vec<_> = blocks.iter().filter(|(m, _)| *m).collect();
    assert_eq!(first.len(), 1, "one block marked first-run in README.md");
    let script = &first[0].1;
    assert!(script.lines().all(|l| l.starts_with("kabir ")), "{script}");
    let (out, dir) = run_as_newcomer(script);
    let text = String::from_utf8(out.stdout).unwrap();
    // It ends in an explorer answer and a diagram.
    let answer = &text[text.rfind("position: ").expect("an explorer answer")..];
    assert!(
        answer.contains("counted: games that reached the position"),
        "{answer}"
    );
    assert!(answer.contains("│ 1... "), "moves after 1. e3:\n{answer}");
    let svg = std::fs::read_to_string(dir.path().join("clone/after-e3.svg")).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
}

/// Every shell command README.md shows, top to bottom, as a newcomer runs them after
/// `cargo install --path .`: `cargo run --release --` is the installed `kabir`; the lines
/// that build, install or test with cargo or rustup are left to the test run itself.
#[test]
fn readme_commands_run_top_to_bottom() {
    let mut script = String::new();
    for (_, block) in readme_blocks() {
        for line in block.lines() {
            let line = line.replace("cargo run --release -- ", "kabir ");
            // Building and installing (Rust, the Python package) is what CI's own steps do.
            if ["cargo ", "rustup ", "python3 -m pip "]
                .iter()
                .any(|tool| line.starts_with(tool))
            {
                continue;
            }
            script.push_str(&line);
            script.push('\n');
        }
    }
    assert!(script.contains("kabir show"), "{script}");
    let (_, dir) = run_as_newcomer(&script);
    let home = dir.path().join("home");
    assert!(
        home.join(".local/share/bash-completion/completions/kabir")
            .is_file()
    );
    assert!(
        home.join(".cargo/share/man/man1/kabir-validate.1")
            .is_file()
    );
}
