//! Game files as others write them, through the real binary: gzip padded with zero bytes or
//! followed by other bytes, compressed standard input, compressed files under any name, other
//! compressions named, and UTF-16 and UTF-32 text. Every input is made here.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli_common::{count, generated, integrity, kabir};

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

fn zstd(text: &[u8]) -> Vec<u8> {
    zstd::encode_all(text, 1).unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `games` random Shatranj games as text, split into two halves at a game's start.
fn games(dir: &Path, games: u32) -> (Vec<u8>, Vec<u8>) {
    let path = dir.join("generated.pgn");
    generated(&path, "shatranj", games, 7);
    let text = std::fs::read(&path).unwrap();
    let half = text.len() / 2;
    let cut = half + text[half..].windows(3).position(|w| w == b"\n\n[").unwrap() + 2;
    (text[..cut].to_vec(), text[cut..].to_vec())
}

/// What `kabir validate --format json` said: exit status, each game's object, the summary
/// (if it got that far) and standard error.
struct Validated {
    code: i32,
    games: Vec<Value>,
    summary: Option<Value>,
    stderr: String,
}

fn validate(args: &[&std::ffi::OsStr], stdin: Option<Vec<u8>>) -> Validated {
    let mut cmd = kabir();
    cmd.args(["validate", "--format", "json"]).args(args);
    if let Some(bytes) = stdin {
        cmd.write_stdin(bytes);
    }
    let out = cmd.output().unwrap();
    let mut games = Vec::new();
    let mut summary = None;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v.get("summary") {
            Some(s) => summary = Some(s.clone()),
            None => games.push(v),
        }
    }
    Validated {
        code: out.status.code().unwrap_or(-1),
        games,
        summary,
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn validate_file(path: &Path) -> Validated {
    validate(&[path.as_os_str()], None)
}

fn validate_stdin(bytes: Vec<u8>) -> Validated {
    validate(&["-".as_ref()], Some(bytes))
}

/// Imports `path` into a new database in `dir`: exit status, the summary line, standard
/// error, the games stored.
fn import(dir: &Path, path: &Path) -> (i32, String, String, i64) {
    let db = dir.join(format!(
        "{}.db",
        path.file_name().unwrap().to_string_lossy()
    ));
    let out = kabir()
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(path)
        .output()
        .unwrap();
    let stored = count(&db, "SELECT count(*) FROM game");
    assert_eq!(integrity(&db), "ok");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        stored,
    )
}

#[test]
fn gzip_padded_with_zero_bytes_reads_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = games(dir.path(), 2_000);
    // Two members, as `cat a.gz b.gz` makes, then a tape block's padding.
    let bytes = [gzip(&a), gzip(&b), vec![0; 10_240]].concat();
    let path = write(dir.path(), "padded.pgn.gz", &bytes);
    let v = validate_file(&path);
    assert_eq!((v.code, v.games.len()), (0, 2_000), "{}", v.stderr);
    assert_eq!(v.summary.unwrap()["valid"], 2_000);
    let (code, summary, stderr, stored) = import(dir.path(), &path);
    assert_eq!((code, stored), (0, 2_000), "{stderr}");
    assert!(
        summary.contains("games read: 2000, imported: 2000"),
        "{summary}"
    );
}

#[test]
fn bytes_after_the_gzip_data_stop_the_reading_after_the_games_before_them() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = games(dir.path(), 2_000);
    let data = [gzip(&a), gzip(&b)].concat();
    for (name, tail) in [
        ("text.pgn.gz", &b"<html>not found</html>\n"[..]),
        ("zeros-then-text.pgn.gz", b"\0\0\0\0garbage"),
        ("bad-member.pgn.gz", b"\x1f\x8b\x08\x00garbage"),
    ] {
        let path = write(dir.path(), name, &[&data[..], tail].concat());
        let said = format!("its gzip data ends at byte {}", data.len());
        // Every game before the bytes is reported, then the error.
        let v = validate_file(&path);
        assert_eq!((v.code, v.games.len()), (2, 2_000), "{name}: {}", v.stderr);
        assert!(
            v.stderr.contains(name) && v.stderr.contains(&said),
            "{name}: {}",
            v.stderr
        );
        // Every game before them is stored, and the import says it stopped.
        let (code, summary, stderr, stored) = import(dir.path(), &path);
        assert_eq!((code, stored), (2, 2_000), "{name}: {stderr}");
        assert!(stderr.contains(name) && stderr.contains(&said), "{stderr}");
        assert!(
            summary.contains("imported: 2000") && summary.contains("stopped by an error"),
            "{summary}"
        );
    }
    // The same bytes in the middle of a list of files: the files after it are not read.
    let bad = dir.path().join("text.pgn.gz");
    let good = write(dir.path(), "good.pgn", &a);
    let db = dir.path().join("two.db");
    let out = kabir()
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(&bad)
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.starts_with("files: 1, games read: 2000"),
        "{summary}"
    );
}

#[test]
fn a_gzip_file_cut_short_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = games(dir.path(), 200);
    let bytes = gzip(&a);
    let path = write(dir.path(), "cut.pgn.gz", &bytes[..bytes.len() - 20]);
    let v = validate_file(&path);
    assert_eq!(v.code, 2);
    assert!(v.stderr.contains("cut.pgn.gz"), "{}", v.stderr);
}

#[test]
fn compressed_standard_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = games(dir.path(), 300);
    let text = [a, b].concat();
    let plain = validate_stdin(text.clone());
    assert_eq!(
        (plain.code, plain.games.len()),
        (0, 300),
        "{}",
        plain.stderr
    );
    for (what, bytes) in [("gzip", gzip(&text)), ("zstd", zstd(&text))] {
        let v = validate_stdin(bytes);
        assert_eq!((v.code, v.games.len()), (0, 300), "{what}: {}", v.stderr);
        assert_eq!(v.games, plain.games, "{what}");
    }
}

#[test]
fn a_file_is_read_by_its_first_bytes_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = games(dir.path(), 100);
    let n = validate_file(&write(dir.path(), "plain.pgn", &a))
        .games
        .len();
    assert!(n > 10);
    for (name, bytes) in [
        ("gzip-without-extension", gzip(&a)),
        ("gzip.pgn", gzip(&a)),
        ("zstd.txt", zstd(&a)),
        ("zstd-named.gz", zstd(&a)),
        ("gzip-named.zst", gzip(&a)),
        // Decompressed on the way by a browser, under the name it was served with.
        ("text-named.pgn.gz", a.clone()),
    ] {
        let v = validate_file(&write(dir.path(), name, &bytes));
        assert_eq!((v.code, v.games.len()), (0, n), "{name}: {}", v.stderr);
    }
    // Neither gzip nor text, under a gzip name: its first bytes, not a syntax error a byte.
    let v = validate_file(&write(
        dir.path(),
        "damaged.pgn.gz",
        b"\x00\x01\x02\x03 games",
    ));
    assert_eq!((v.code, v.games.len()), (2, 0));
    assert!(
        v.stderr.contains("damaged.pgn.gz")
            && v.stderr.contains("neither gzip data nor text")
            && v.stderr.contains("00 01 02 03"),
        "{}",
        v.stderr
    );
}

#[test]
fn other_compressions_and_archives_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // Each format's magic number and some bytes: enough to be told, not to be decompressed.
    for (name, head, said) in [
        (
            "g.pgn.xz",
            &b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"[..],
            "xz-compressed",
        ),
        ("g.pgn.bz2", b"BZh91AY&SY\x12\x34", "bzip2-compressed"),
        ("g.pgn.lz4", b"\x04\x22\x4d\x18\x64\x40", "lz4-compressed"),
        ("g.pgn.Z", b"\x1f\x9d\x90\x5b", "compress (.Z)"),
        ("g.zip", b"PK\x03\x04\x14\x00\x00\x00", "zip archive"),
        ("g.7z", b"7z\xbc\xaf\x27\x1c\x00\x04", "7z archive"),
    ] {
        let bytes = [head, &[0xa5; 200][..]].concat();
        let v = validate_file(&write(dir.path(), name, &bytes));
        assert_eq!((v.code, v.games.len()), (2, 0), "{name}");
        assert!(
            v.stderr.contains(name) && v.stderr.contains(said),
            "{name}: {}",
            v.stderr
        );
        let v = validate_stdin(bytes);
        assert_eq!(v.code, 2, "{name} on standard input");
        assert!(v.stderr.contains(said), "{name}: {}", v.stderr);
    }
}

/// Games with text beyond ASCII before a problem on the same line (a character beyond the
/// Basic Multilingual Plane among them, two UTF-16 units), CRLF line ends.
const WORLDWIDE: &str = "[Event \"Ḥalab 𝄞 open\"]\r\n[White \"al-ʿAdlī\"]\r\n\
    [Black \"aṣ-Ṣūlī\"]\r\n[Variant \"Shatranj\"]\r\n\r\n1. e3 {é 𝄞 ü} e6 2. Ke5 *\r\n\r\n\
    [White \"ابن\"]\r\n[Variant \"Shatranj\"]\r\n\r\n1. e3 e6 {Schön} 2. Nf3 *\r\n";

/// (kind, line, column) of every problem.
fn problems(v: &Validated) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for g in &v.games {
        for k in ["errors", "warnings"] {
            for p in g[k].as_array().unwrap() {
                out.push((
                    p["kind"].as_str().unwrap().to_string(),
                    p["line"].as_u64().unwrap(),
                    p["column"].as_u64().unwrap(),
                ));
            }
        }
    }
    out
}

/// Each game's first line and White.
fn games_read(v: &Validated) -> Vec<(u64, Value)> {
    v.games
        .iter()
        .map(|g| (g["line"].as_u64().unwrap(), g["white"].clone()))
        .collect()
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    text.chars()
        .flat_map(|c| {
            if big_endian {
                u32::from(c).to_be_bytes()
            } else {
                u32::from(c).to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn utf16_and_utf32_read_as_their_text_with_the_same_lines_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let fix = |path: &Path| {
        let out = dir.path().join("fixed.pgn");
        kabir()
            .args(["validate", "-q", "--fix"])
            .arg(&out)
            .arg(path)
            .assert()
            .code(1);
        std::fs::read(out).unwrap()
    };
    let utf8 = write(dir.path(), "utf8.pgn", WORLDWIDE.as_bytes());
    let expected = validate_file(&utf8);
    assert_eq!(expected.code, 1);
    // Column 21 counts characters: in bytes the move stands at 26, in UTF-16 units at 22.
    assert_eq!(problems(&expected), [("illegal-move".to_string(), 6, 21)]);
    assert_eq!(
        games_read(&expected),
        [(1, "al-ʿAdlī".into()), (8, "ابن".into())]
    );
    let fixed = fix(&utf8);
    let marked = format!("\u{feff}{WORLDWIDE}");
    for (name, bytes) in [
        ("utf16le-bom.pgn", utf16(&marked, false)),
        ("utf16be-bom.pgn", utf16(&marked, true)),
        ("utf16le.pgn", utf16(WORLDWIDE, false)),
        ("utf16be.pgn", utf16(WORLDWIDE, true)),
        ("utf32le-bom.pgn", utf32(&marked, false)),
        ("utf32be-bom.pgn", utf32(&marked, true)),
        ("utf32le.pgn", utf32(WORLDWIDE, false)),
        ("utf32be.pgn", utf32(WORLDWIDE, true)),
    ] {
        let path = write(dir.path(), name, &bytes);
        let v = validate_file(&path);
        assert_eq!(v.code, 1, "{name}: {}", v.stderr);
        assert_eq!(problems(&v), problems(&expected), "{name}");
        assert_eq!(games_read(&v), games_read(&expected), "{name}");
        // The valid game written out is UTF-8, as from the UTF-8 file.
        assert_eq!(fix(&path), fixed, "{name}");
    }
    // Compressed, and stored with its names.
    let path = write(dir.path(), "utf16.pgn.gz", &gzip(&utf16(&marked, false)));
    let (code, _, stderr, stored) = import(dir.path(), &path);
    assert_eq!((code, stored), (1, 1), "{stderr}");
    let db = dir.path().join("utf16.pgn.gz.db");
    let conn = rusqlite::Connection::open(db).unwrap();
    let white: String = conn
        .query_row("SELECT white FROM game", [], |r| r.get(0))
        .unwrap();
    assert_eq!(white, "ابن");
}

#[test]
fn a_unit_that_is_no_character_is_reported_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    // A lone low surrogate after "1. e3 e6 " on line 3.
    let mut bytes = utf16("[Variant \"Shatranj\"]\n\n1. e3 e6 ", false);
    bytes.extend_from_slice(&0xdc00u16.to_le_bytes());
    bytes.extend(utf16(" 2. Nf3 *\n", false));
    let v = validate_file(&write(dir.path(), "lone.pgn", &bytes));
    assert_eq!(v.code, 1);
    assert_eq!(problems(&v), [("syntax".to_string(), 3, 10)]);
    assert!(
        v.games[0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8")
    );
}
