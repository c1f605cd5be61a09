//! `kabir diagram` through the real binary: every built-in variant's start position, special
//! Tamerlane positions, moves, arrows, stored games, PNG output and bad input.

use std::path::Path;

use assert_cmd::Command;
use kabir::rules::{Geometry, Position};

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

const SQUARE: f64 = 64.0;
const MARGIN: f64 = 32.0;
const CAPTION: f64 = 40.0;

/// The SVG `kabir diagram` prints for these arguments.
fn diagram(args: &[&str]) -> String {
    let out = kabir().arg("diagram").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kabir diagram {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The variant ids `kabir variants` lists.
fn variant_ids() -> Vec<String> {
    let out = kabir().arg("variants").output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

fn class_has(n: &roxmltree::Node<'_, '_>, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

fn elements<'a, 'i>(
    doc: &'a roxmltree::Document<'i>,
    name: &str,
    class: &str,
) -> Vec<roxmltree::Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.has_tag_name(name) && class_has(n, class))
        .collect()
}

fn number(n: &roxmltree::Node<'_, '_>, attr: &str) -> f64 {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("no {attr}"))
        .parse()
        .unwrap()
}

/// The columns the board needs: files plus the columns of extra squares beside them, worked
/// out from the geometry alone.
fn columns(g: &Geometry) -> f64 {
    let files: Vec<i8> = g.squares().map(|s| g.coords(s).0).collect();
    let (lo, hi) = (*files.iter().min().unwrap(), *files.iter().max().unwrap());
    (hi - lo + 1) as f64
}

/// Checks a diagram of `pos` structurally; returns the parsed squares by name with their
/// top-left corners.
fn check_structure(svg: &str, pos: &Position) -> std::collections::HashMap<String, (f64, f64)> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert!(root.has_tag_name(("http://www.w3.org/2000/svg", "svg")));
    let v = pos.variant();
    let g = v.geometry();
    assert_eq!(root.attribute("data-variant"), Some(v.id()));

    // The viewBox follows the board's shape: a column per file and per side with extra
    // squares, a row per rank, plus the margins and the caption band.
    let cols = columns(g);
    let w = cols * SQUARE + 2.0 * MARGIN;
    let h = g.ranks() as f64 * SQUARE + 2.0 * MARGIN + CAPTION;
    assert_eq!(
        root.attribute("viewBox"),
        Some(format!("0 0 {w} {h}").as_str()),
        "{}",
        v.id()
    );

    // One element per square, each named once, the extra squares marked as citadels of
    // their owner.
    let squares = elements(&doc, "rect", "square");
    assert_eq!(squares.len(), g.len(), "{}", v.id());
    let mut at = std::collections::HashMap::new();
    for s in &squares {
        let name = s.attribute("data-square").unwrap().to_string();
        let sq = g
            .parse(&name)
            .unwrap_or_else(|| panic!("{name} is not a square"));
        assert_eq!(number(s, "width"), SQUARE);
        let x = number(s, "x");
        let y = number(s, "y");
        assert!(
            x >= MARGIN && x + SQUARE <= w - MARGIN + 0.01,
            "{name} at x {x}"
        );
        assert!(
            y >= MARGIN && y + SQUARE <= h - MARGIN - CAPTION + 0.01,
            "{name} at y {y}"
        );
        match g.citadel(sq) {
            Some(c) => {
                assert!(class_has(s, "citadel"), "{name}");
                assert_eq!(s.attribute("data-owner"), Some(c.owner.name()));
            }
            None => assert!(!class_has(s, "citadel"), "{name}"),
        }
        assert!(at.insert(name.clone(), (x, y)).is_none(), "{name} twice");
    }
    assert_eq!(elements(&doc, "rect", "citadel").len(), g.citadels().len());

    // One element per piece, on its square, of its colour and kind.
    let pieces = elements(&doc, "g", "piece");
    assert_eq!(pieces.len(), pos.occupied().count() as usize, "{}", v.id());
    for p in &pieces {
        let sq = g.parse(p.attribute("data-square").unwrap()).unwrap();
        let piece = pos.piece_at(sq).expect("a piece where the diagram has one");
        assert_eq!(p.attribute("data-color"), Some(piece.color.name()));
        assert_eq!(
            p.attribute("data-kind"),
            Some(v.kind(piece.kind).id.as_str())
        );
        assert!(p.children().any(|c| c.has_tag_name("circle")));
    }
    assert_eq!(
        elements(&doc, "circle", "turn")[0].attribute("data-color"),
        Some(pos.turn().name())
    );
    assert_eq!(elements(&doc, "text", "caption").len(), 1);
    at
}

#[test]
fn every_builtin_start_position_is_drawn_in_its_shape() {
    let ids = variant_ids();
    assert!(ids.len() >= 3, "{ids:?}");
    for id in &ids {
        let variant = kabir::variants::builtin(id).unwrap();
        let svg = diagram(&["--variant", id]);
        let pos = Position::start(&variant);
        let at = check_structure(&svg, &pos);
        // Files left to right, ranks bottom to top.
        let g = variant.geometry();
        let a1 = at["a1"];
        let last = format!("{}{}", (b'a' + g.files() - 1) as char, g.ranks());
        assert_eq!(
            at[&last],
            (
                a1.0 + (g.files() - 1) as f64 * SQUARE,
                a1.1 - (g.ranks() - 1) as f64 * SQUARE
            ),
            "{id}"
        );
        // Extra squares continue their rank by one square on their side of the board.
        for c in g.citadels() {
            let (f, r) = g.coords(c.square);
            let next_to = g.at(if f == 0 { 1 } else { f - 1 }, r).unwrap();
            let (x, y) = at[&c.name];
            let (nx, ny) = at[g.name(next_to)];
            assert_eq!(y, ny, "{id} {}", c.name);
            assert_eq!(
                x,
                if f == 0 { nx - SQUARE } else { nx + SQUARE },
                "{id} {}",
                c.name
            );
        }
    }
}

#[test]
fn tamerlane_citadels_stand_beside_the_board() {
    let svg = diagram(&["--variant", "tamerlane"]);
    let pos = Position::start(&kabir::variants::builtin("tamerlane").unwrap());
    let at = check_structure(&svg, &pos);
    // 11 files plus a column each side: White's citadel right of k2, Black's left of a9.
    assert!(svg.contains("viewBox=\"0 0 896 744\""));
    assert_eq!(at["wc"], (at["k2"].0 + SQUARE, at["k2"].1));
    assert_eq!(at["bc"], (at["a9"].0 - SQUARE, at["a9"].1));
    // Flipped, the citadels change sides.
    let flipped = diagram(&["--variant", "tamerlane", "--flip"]);
    let at = check_structure(&flipped, &pos);
    assert_eq!(at["wc"], (at["k2"].0 - SQUARE, at["k2"].1));
    assert!(at["a1"].1 < at["a10"].1);
}

#[test]
fn special_tamerlane_pieces_are_drawn_and_told_apart() {
    // Adventitious kings in both citadels, a waiting pawn of pawns (one arrival), one after
    // two arrivals, a prince, typed pawns.
    let fen = "k3PP'6/a11/11/11/11/11/4S6/2pp''1PRPN5/11A/K10 w - - 0 1";
    let variant = kabir::variants::builtin("tamerlane").unwrap();
    let pos = Position::from_fen(&variant, fen).unwrap();
    let svg = diagram(&["--variant", "tamerlane", "--fen", fen]);
    check_structure(&svg, &pos);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let piece = |sq: &str| {
        elements(&doc, "g", "piece")
            .into_iter()
            .find(|p| p.attribute("data-square") == Some(sq))
            .unwrap_or_else(|| panic!("no piece on {sq}"))
    };
    let label = |sq: &str| -> String {
        piece(sq)
            .descendants()
            .find(|n| n.has_tag_name("text"))
            .and_then(|t| t.text())
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(
        piece("wc").attribute("data-kind"),
        Some("adventitious-king")
    );
    assert_eq!(piece("bc").attribute("data-color"), Some("black"));
    assert_eq!(piece("e4").attribute("data-kind"), Some("prince"));
    assert_eq!(piece("e10").attribute("data-symbol"), Some("PP'"));
    assert_eq!(piece("c3").attribute("data-symbol"), Some("PP''"));
    assert_eq!(label("e10"), "p\u{2032}");
    assert_eq!(label("c3"), "p\u{2033}");
    assert_eq!(label("e3"), "r");
    assert_eq!(label("f3"), "n");
    assert_eq!(label("e4"), "S");
    assert_eq!(label("wc"), "A");
    // Every kind of the variant has its own label (with the disc size telling pawns from
    // pieces), so no two kinds look alike.
    let mut seen = std::collections::HashSet::new();
    for k in variant.kinds() {
        assert!(
            seen.insert((k.pawn, kabir::diagram::piece_label(k))),
            "{} looks like another kind",
            k.id
        );
    }
    // Royal pieces have a second ring.
    let rings = |sq: &str| {
        piece(sq)
            .children()
            .filter(|n| n.has_tag_name("circle"))
            .count()
    };
    assert_eq!(rings("wc"), 2);
    assert_eq!(rings("e4"), 2);
    assert_eq!(rings("e3"), 1);
}

#[test]
fn moves_highlight_the_last_one_and_arrows_are_drawn() {
    let svg = diagram(&[
        "--variant",
        "shatranj",
        "--moves",
        "1. e3 e6 2. Nf3",
        "--arrow",
        "g8f6",
        "--arrow",
        "E6E5",
    ]);
    let variant = kabir::variants::builtin("shatranj").unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let lit: Vec<&str> = elements(&doc, "rect", "highlight")
        .iter()
        .map(|n| n.attribute("data-square").unwrap())
        .collect();
    assert_eq!(lit, ["g1", "f3"]);
    let arrows: Vec<(&str, &str)> = elements(&doc, "path", "arrow")
        .iter()
        .map(|n| {
            (
                n.attribute("data-from").unwrap(),
                n.attribute("data-to").unwrap(),
            )
        })
        .collect();
    assert_eq!(arrows, [("g8", "f6"), ("e6", "e5")]);
    let caption = elements(&doc, "text", "caption")[0]
        .text()
        .unwrap()
        .to_string();
    assert!(
        caption.contains("Black to move") && caption.contains("2. Nf3"),
        "{caption}"
    );
    let (_, pos) = {
        let start = Position::start(&variant);
        let mut pos = start.clone();
        for m in ["e2e3", "e7e6", "g1f3"] {
            let mv = kabir::rules::Move::from_uci(m, &pos).unwrap();
            pos.play_unchecked(mv);
        }
        (start, pos)
    };
    check_structure(&svg, &pos);

    // A citadel in an arrow, and the caption given.
    let svg = diagram(&[
        "--variant",
        "tamerlane",
        "--arrow",
        "k2wc",
        "--caption",
        "Into the citadel <&>",
    ]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let arrow = &elements(&doc, "path", "arrow")[0];
    assert_eq!(arrow.attribute("data-to"), Some("wc"));
    assert_eq!(
        elements(&doc, "text", "caption")[0].text(),
        Some("Into the citadel <&>")
    );
}

#[test]
fn a_position_string_finds_its_variant() {
    let fen = "k3PP'6/a11/11/11/11/11/4S6/11/11A/K10 w - - 0 1";
    let svg = diagram(&["--fen", fen]);
    assert!(svg.contains("data-variant=\"tamerlane\""));
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    // Not a blank picture: the board's two square colours at least.
    let px = info.color_type.samples();
    let distinct: std::collections::HashSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    assert!(distinct.len() > 10, "{} colours", distinct.len());
    (info.width, info.height)
}

#[test]
fn png_output_decodes_to_the_board_size() {
    let dir = tempfile::tempdir().unwrap();
    for (variant, scale, size) in [
        ("shatranj", "1", (576, 616)),
        ("tamerlane", "1", (896, 744)),
        ("tamerlane", "0.5", (448, 372)),
    ] {
        let file = dir.path().join(format!("{variant}-{scale}.png"));
        kabir()
            .args(["diagram", "--variant", variant, "--scale", scale, "-o"])
            .arg(&file)
            .assert()
            .success()
            .stdout("");
        assert_eq!(png_size(&file), size, "{variant} at {scale}");
    }
    // SVG to a file, the same as on standard output.
    let file = dir.path().join("Board.SVG");
    kabir()
        .args(["diagram", "--variant", "tamerlane", "-o"])
        .arg(&file)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        diagram(&["--variant", "tamerlane"])
    );
}

#[test]
fn a_stored_game_is_drawn_at_a_ply() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/tamerlane.pgn"
        ))
        .assert()
        .success();
    let database = kabir::db::Database::open(&db).unwrap();
    let game = database.game(1).unwrap().unwrap();
    let variant = kabir::variants::builtin(&game.variant).unwrap();
    let mut pos = Position::from_fen(&variant, &game.start_fen).unwrap();
    for &m in &game.moves[..3] {
        pos.play_unchecked(m);
    }
    let db_arg = db.to_str().unwrap();
    let svg = diagram(&["--db", db_arg, "--db-game", "1", "--ply", "3"]);
    check_structure(&svg, &pos);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let g = variant.geometry();
    let lit: Vec<&str> = elements(&doc, "rect", "highlight")
        .iter()
        .map(|n| n.attribute("data-square").unwrap())
        .collect();
    assert_eq!(lit, [g.name(game.moves[2].from), g.name(game.moves[2].to)]);
    assert!(
        elements(&doc, "text", "caption")[0]
            .text()
            .unwrap()
            .starts_with("Game 1")
    );
    // Ply 0: the start, nothing highlighted.
    let svg = diagram(&["--db", db_arg, "--db-game", "1", "--ply", "0"]);
    assert!(!svg.contains("class=\"highlight\""));

    for (args, message) in [
        (vec!["--db-game", "1", "--ply", "100000"], "past its end"),
        (vec!["--db-game", "999"], "no game 999"),
    ] {
        let out = kabir()
            .args(["diagram", "--db", db_arg])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn bad_input_is_refused_clearly_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--variant", "shatranj", "--arrow", "e2z9"], "--arrow"),
        (
            &["--variant", "shatranj", "--moves", "e3 Ke5"],
            "move 2 \"Ke5\"",
        ),
        (
            &["--variant", "shatranj", "--fen", "8/8 w"],
            "position string",
        ),
        (&["--variant", "chess"], "unknown variant"),
        (
            &["--variant", "shatranj", "--scale", "0", "-o", "x.png"],
            "scale",
        ),
        (
            &["--variant", "shatranj", "-o", "board.jpg"],
            ".svg or .png",
        ),
        (
            &[
                "--variant",
                "shatranj",
                "--db",
                "missing.db",
                "--db-game",
                "1",
            ],
            "missing.db",
        ),
    ];
    for (args, message) in cases {
        let out = kabir()
            .current_dir(dir.path())
            .arg("diagram")
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn show_and_explore_save_the_position_they_talk_about() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/shatranj.pgn"))
        .assert()
        .success();
    let database = kabir::db::Database::open(&db).unwrap();
    let game = database.game(1).unwrap().unwrap();
    let variant = kabir::variants::builtin(&game.variant).unwrap();

    // show: the board at --ply, also as a picture.
    let file = dir.path().join("show.svg");
    kabir()
        .args(["show", "1", "--ply", "2", "--db"])
        .arg(&db)
        .arg("--diagram")
        .arg(&file)
        .assert()
        .success();
    let mut pos = Position::from_fen(&variant, &game.start_fen).unwrap();
    for &m in &game.moves[..2] {
        pos.play_unchecked(m);
    }
    let svg = std::fs::read_to_string(&file).unwrap();
    check_structure(&svg, &pos);
    let g = variant.geometry();
    assert!(svg.contains(&format!(
        "class=\"highlight\" data-square=\"{}\"",
        g.name(game.moves[1].to)
    )));
    let png = dir.path().join("show.png");
    kabir()
        .args(["show", "1", "--db"])
        .arg(&db)
        .arg("--diagram")
        .arg(&png)
        .assert()
        .success();
    assert!(png_size(&png).0 > 0);

    // explore: the position after the line, with arrows for the most played moves from it.
    let file = dir.path().join("explore.svg");
    kabir()
        .args(["explore", "--variant", "shatranj", "--db"])
        .arg(&db)
        .arg("--diagram")
        .arg(&file)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&file).unwrap();
    let start = Position::start(&variant);
    check_structure(&svg, &start);
    let explorer = database.explore(&start, 0).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let arrows: Vec<String> = elements(&doc, "path", "arrow")
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                a.attribute("data-from").unwrap(),
                a.attribute("data-to").unwrap()
            )
        })
        .collect();
    let expected: Vec<String> = explorer
        .moves
        .iter()
        .take(3)
        .map(|m| format!("{}{}", g.name(m.mv.from), g.name(m.mv.to)))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(arrows, expected);
    let caption = elements(&doc, "text", "caption")[0]
        .text()
        .unwrap()
        .to_string();
    assert!(
        caption.starts_with(&format!("{} game", explorer.games)),
        "{caption}"
    );
}
