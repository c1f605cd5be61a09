//! The crate's layers, read from the paths its source files name (`crate::x`, `super::x`,
//! and `kabir::x` in the binary): the binary's modules are used by no library module, the
//! drawing does not read the database, the layers built without default features name none
//! of the optional ones, and no two top-level modules name each other (in either direction,
//! through other modules or not). Unit tests (`#[cfg(test)]` items) are left out: they may use
//! any module to build their cases.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules built without default features.
const LEAN: &[&str] = &[
    "generate", "limits", "notation", "render", "replay", "rules", "variants",
];
/// The modules of optional features.
const OPTIONAL: &[&str] = &["cli", "columnar", "db", "diagram", "serve"];

/// A source file: where it is, its module path below the crate root, and its code.
struct Source {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&root).unwrap();
                let mut module: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                out.push(Source {
                    path,
                    module,
                    code: without_tests(&without_comments(&text)),
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// `text` without its `//` comments (doc comments show paths of examples, not of the code).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `code` without the items marked `#[cfg(test)]`: up to the `;` that ends the item, or to
/// the brace that closes its block.
fn without_tests(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first names of the paths in `group`, the inside of `{...}` after `prefix::`.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => start = true,
            c if start && !c.is_whitespace() => {
                heads.push(ident(&group[i..]).to_string());
                start = false;
            }
            _ => {}
        }
    }
    heads
}

/// The inside of the braces opening `s`, up to its closing brace.
fn braced(s: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &s[1..i];
                }
            }
            _ => {}
        }
    }
    &s[1..]
}

/// The top-level modules of the library that `code`, the code of module `module`, names.
/// In the binary (`main.rs` and `cli/`), `crate` is the binary and the library is `kabir`.
fn names(module: &[String], code: &str) -> BTreeSet<String> {
    let binary = module.first().is_some_and(|m| m == "main" || m == "cli");
    let mut out = BTreeSet::new();
    let heads_after = |prefix: &str, out: &mut BTreeSet<String>| {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let after = &code[at + prefix.len()..];
            if after.starts_with('{') {
                out.extend(group_heads(braced(after)));
            } else {
                out.insert(ident(after).to_string());
            }
        }
    };
    heads_after(if binary { "kabir::" } else { "crate::" }, &mut out);
    if binary {
        // `crate::x` in the binary is its own module `x`: only `cli` is declared in main.rs.
        let mut own = BTreeSet::new();
        heads_after("crate::", &mut own);
        out.extend(own.into_iter().filter(|m| m == "cli"));
    }
    // `super::` as many times as the file is deep reaches the root: the name after it is a
    // top-level module. Fewer stay inside the file's own top-level module.
    if !binary {
        let up = "super::".repeat(module.len());
        heads_after(&up, &mut out);
    }
    // `mod x;` in lib.rs declares rather than uses; anywhere else it would make the file's
    // folder hold another top-level module's code.
    if module.len() == 1 {
        for line in code.lines() {
            let line = line.trim_start().trim_start_matches("pub ");
            if let Some(m) = line.strip_prefix("mod ") {
                let m = ident(m);
                if m == "cli" {
                    out.insert(m.to_string());
                }
            }
        }
    }
    out.retain(|m| !m.is_empty() && m != "self" && m != "super" && *m != module[0]);
    out
}

/// Which top-level modules each top-level module names (`lib` and `main` left out).
fn graph(sources: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in sources {
        let top = s.module[0].clone();
        if top == "lib" {
            continue;
        }
        g.entry(top).or_default().extend(names(&s.module, &s.code));
    }
    g
}

/// Every file of module `top` that names `other`, for the message of a broken rule.
fn naming(sources: &[Source], top: &str, other: &str) -> Vec<String> {
    sources
        .iter()
        .filter(|s| s.module[0] == top && names(&s.module, &s.code).contains(other))
        .map(|s| s.path.display().to_string())
        .collect()
}

#[test]
fn the_reading_of_paths_finds_groups_nested_paths_and_skips_tests_and_comments() {
    let code = "use crate::{db::{Database, GameFilter}, rules::Position};\n\
                use super::grammar;\n\
                fn f() { crate::diagram::chart::stats_svg(x); }\n\
                // crate::serve is only in this comment\n\
                #[cfg(test)]\n\
                mod tests { use crate::columnar; }\n\
                #[cfg(test)]\n\
                use crate::cli;\n";
    let code = without_tests(&without_comments(code));
    let found = names(&["notation".to_string()], &code);
    let expected: BTreeSet<String> = ["db", "diagram", "grammar", "rules"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
    // In the binary, the library is `kabir`.
    let found = names(
        &["cli".to_string(), "stats".to_string()],
        "use kabir::db::Report; use crate::cli::args; use super::diagram::save;",
    );
    assert_eq!(found, ["db".to_string()].into_iter().collect());
}

#[test]
fn the_layers_are_read_from_the_source() {
    let sources = sources();
    let g = graph(&sources);
    // The reading finds edges that exist, so that the rules below are not met by reading
    // nothing.
    for (from, to) in [
        ("db", "rules"),
        ("replay", "notation"),
        ("serve", "db"),
        ("diagram", "rules"),
        ("cli", "db"),
    ] {
        assert!(
            g[from].contains(to),
            "{from} -> {to} not found: {:?}",
            g[from]
        );
    }
}

#[test]
fn only_the_binary_uses_the_command_line() {
    let sources = sources();
    for (top, names) in graph(&sources) {
        if top != "cli" && top != "main" {
            assert!(
                !names.contains("cli"),
                "{top} uses the binary's cli module: {:?}",
                naming(&sources, &top, "cli")
            );
        }
    }
    let lib = sources
        .iter()
        .find(|s| s.module == ["lib"])
        .expect("src/lib.rs");
    assert!(
        !lib.code.lines().any(|l| ident(
            l.trim_start()
                .trim_start_matches("pub ")
                .strip_prefix("mod ")
                .unwrap_or("")
        ) == "cli"),
        "src/lib.rs declares the cli module"
    );
}

#[test]
fn the_diagram_does_not_read_the_database() {
    let sources = sources();
    let g = graph(&sources);
    assert!(
        !g["diagram"].contains("db"),
        "diagram uses db: {:?}",
        naming(&sources, "diagram", "db")
    );
}

#[test]
fn the_lean_layers_use_no_optional_module() {
    let sources = sources();
    let g = graph(&sources);
    for top in LEAN {
        for optional in OPTIONAL {
            assert!(
                !g[*top].contains(*optional),
                "{top} uses {optional}, which is not built without default features: {:?}",
                naming(&sources, top, optional)
            );
        }
    }
}

#[test]
fn no_two_top_level_modules_use_each_other() {
    let g = graph(&sources());
    // The modules each one reaches, through any number of others.
    for start in g.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.clone()];
        while let Some(m) = todo.pop() {
            for next in g.get(&m).into_iter().flatten() {
                assert!(
                    next != start,
                    "{start} reaches itself again through {m} -> {start} (reached: {seen:?})"
                );
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
    }
}
