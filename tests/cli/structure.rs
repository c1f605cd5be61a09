//! The workspace's architecture, where Cargo's graph does not enforce it by itself: which kabir
//! crate each library crate may depend on (data flows one way: rules, notation, the database,
//! then pictures, columnar files and the server), that the rules and the notation build with
//! no SQLite, terminal, compression, image, web or Parquet crate, and that the binary's own
//! source is the command line alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The kabir crates each library crate may name as a normal (non-dev) dependency.
const ALLOWED: &[(&str, &[&str])] = &[
    ("kabir-rules", &[]),
    ("kabir-input", &[]),
    ("kabir-notation", &["kabir-rules"]),
    ("kabir-db", &["kabir-rules", "kabir-notation"]),
    (
        "kabir-diagram",
        &["kabir-rules", "kabir-notation", "kabir-db"],
    ),
    (
        "kabir-columnar",
        &["kabir-rules", "kabir-notation", "kabir-db"],
    ),
    (
        "kabir-serve",
        &["kabir-rules", "kabir-notation", "kabir-db", "kabir-diagram"],
    ),
    (
        "kabir-py",
        &[
            "kabir-rules",
            "kabir-input",
            "kabir-notation",
            "kabir-db",
            "kabir-diagram",
        ],
    ),
];

/// Crates the lean libraries must not pull in, even through another crate.
const HEAVY: &[&str] = &[
    "rusqlite",
    "libsqlite3-sys",
    "clap",
    "tabled",
    "indicatif",
    "anstream",
    "csv",
    "flate2",
    "zstd",
    "resvg",
    "mimalloc",
    "axum",
    "tokio",
    "maud",
    "parquet",
    "arrow-array",
    "pyo3",
];

fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Each workspace package's kabir crates among its normal dependencies.
fn kabir_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let metadata: serde_json::Value = serde_json::from_str(&cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]))
    .unwrap();
    let mut out = BTreeMap::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap().to_string();
        let deps = package["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .filter(|d| d.starts_with("kabir"))
            .collect();
        out.insert(name, deps);
    }
    out
}

#[test]
fn library_crates_depend_only_on_the_layers_before_them() {
    let deps = kabir_dependencies();
    for (krate, allowed) in ALLOWED {
        let have = deps
            .get(*krate)
            .unwrap_or_else(|| panic!("{krate} is not in the workspace"));
        let extra: Vec<&String> = have
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        assert!(extra.is_empty(), "{krate} depends on {extra:?}");
    }
    // Every library crate of the workspace is placed in the order above.
    let placed: BTreeSet<&str> = ALLOWED.iter().map(|(k, _)| *k).collect();
    for krate in deps.keys().filter(|k| k.as_str() != "kabir") {
        assert!(
            placed.contains(krate.as_str()),
            "{krate} has no place in ALLOWED"
        );
    }
}

#[test]
fn rules_and_notation_build_without_heavy_crates() {
    for args in [
        &["-p", "kabir-rules"][..],
        &["-p", "kabir-notation"][..],
        &["-p", "kabir", "--no-default-features"][..],
    ] {
        let mut command = vec!["tree", "--offline", "-e", "normal", "--prefix", "none"];
        command.extend_from_slice(args);
        let tree = cargo(&command);
        let names: BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(names.contains("nom"), "{args:?}: {tree}");
        let heavy: Vec<&&str> = HEAVY.iter().filter(|h| names.contains(**h)).collect();
        assert!(heavy.is_empty(), "{args:?} pulls in {heavy:?}");
    }
}

/// `src/` holds the facade (`lib.rs`), `main.rs` and the command line (`src/cli/`): the
/// libraries' code lives in their crates.
#[test]
fn the_binary_source_is_the_command_line() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut top: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, ["cli", "lib.rs", "main.rs"]);
    let facade = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let code: Vec<&str> = facade
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("#["))
        .collect();
    assert!(!code.is_empty());
    for line in code {
        assert!(
            line.starts_with("pub use kabir_") || line.starts_with("pub use {kabir_"),
            "src/lib.rs has more than re-exports: {line}"
        );
    }
}
