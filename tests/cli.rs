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
}
