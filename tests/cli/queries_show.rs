//! `kabir show --format json` (the object `kabir serve` answers for a game): the move tree
//! against the stored games, and each move's special moves against the importer's counts.

use crate::queries_common::{all_games, build_db, json};
use kabir::db::{GameAnswer, Special};
use kabir::variants::Registry;

#[test]
fn the_game_answer_agrees_with_the_stored_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let registry = Registry::builtin();
    let games = all_games(&db);
    let mut with_variations = 0;
    for g in &games {
        let a = GameAnswer::new(g, &registry, None).unwrap();
        // The main line is the stored moves, each with the position after it.
        assert_eq!(a.moves.len(), g.moves.len(), "game {}", g.id);
        for (i, m) in a.moves.iter().enumerate() {
            assert_eq!(m.ply, i + 1);
            let after = g.position_at(&registry, i + 1).unwrap();
            assert_eq!(
                m.fen.as_deref(),
                Some(after.to_fen().as_str()),
                "game {}",
                g.id
            );
        }
        assert_eq!(
            a.fen,
            g.position_at(&registry, g.moves.len()).unwrap().to_fen()
        );
        // Move by move, the special moves add up to what the importer counted.
        let n = |name: &str| a.moves.iter().filter(|m| m.special.contains(&name)).count() as u64;
        let s = &g.special;
        assert_eq!(
            [
                n("swap"),
                n("lift"),
                n("relocation"),
                n("promotion"),
                n("arrival"),
                n("adventitious-king"),
                n("citadel-draw"),
            ],
            [
                s.count[Special::Swap],
                s.count[Special::Lift],
                s.count[Special::Relocation],
                s.count[Special::Promotion],
                s.count[Special::Arrival],
                s.count[Special::AdventitiousKing],
                s.count[Special::CitadelEntry],
            ],
            "game {}",
            g.id
        );
        with_variations += usize::from(a.moves.iter().any(|m| !m.variations.is_empty()));
    }
    assert!(with_variations > 0, "the samples have variations");

    // The first sample of Tamerlane: its comment before the moves, its variation with its
    // comment, and its glyph.
    let id = games
        .iter()
        .find(|g| g.tag("White") == Some("Timur"))
        .unwrap()
        .id
        .to_string();
    let v = json(&db, &["show", &id, "--ply", "4"]);
    assert_eq!(v["ply"], 4);
    assert!(
        v["comments"][0]
            .as_str()
            .unwrap()
            .starts_with("Both sides open")
    );
    let m13 = &v["moves"][12];
    assert_eq!(m13["san"], "Ng6");
    assert_eq!(m13["nags"][0], 5, "!? is $5");
    let alt = &v["moves"][13]["variations"][0];
    assert_eq!(alt["moves"][0]["san"], "fxg6");
    assert_eq!(alt["moves"][0]["ply"], 14);
    assert!(
        alt["moves"][0]["comments"][0]
            .as_str()
            .unwrap()
            .contains("pawn of kings")
    );
    assert_eq!(v["moves"][3]["fen"], v["fen"]);
}

/// The text form keeps the glyphs written on the moves (al-Suli's diamond, Averbakh's line with
/// `9. Fd2!!`), as the JSON form and `kabir export` do.
#[test]
fn the_text_form_keeps_the_glyphs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("glyphs.db");
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/cli/as-suli-diamond.pgn"
    );
    let import = crate::queries_common::kabir()
        .args(["import", "--db"])
        .arg(&db)
        .arg(file)
        .output()
        .unwrap();
    assert!(import.status.success());
    let text = crate::queries_common::ok(&db, &["show", "1"]);
    assert!(
        text.contains("8. Kg6 Kg8 9. Qd2!! Kf8 10. Qc1 Ke7 11. [Kf5] *"),
        "{text}"
    );
    let at = crate::queries_common::ok(&db, &["show", "1", "--ply", "17"]);
    assert!(at.contains("9. [Qd2!!] Kf8"), "{at}");
    assert!(at.contains("board after ply 17 (9. Qd2!!)"), "{at}");
    let answer = json(&db, &["show", "1"]);
    assert_eq!(answer["moves"][16]["nags"], serde_json::json!([3]));
    let export = crate::queries_common::ok(&db, &["export"]);
    assert!(export.contains("Qd2!!"), "{export}");
}
