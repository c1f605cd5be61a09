//! Writing games as text.

use crate::rules::{Game, Position};

/// Writes a game with the given tag pairs (in order) and its moves in coordinate notation,
/// with move numbers, wrapped at 80 columns.
pub fn write_game(game: &Game, tags: &[(String, String)]) -> String {
    let mut s = String::new();
    for (k, v) in tags {
        s.push('[');
        s.push_str(k);
        s.push_str(" \"");
        for ch in v.chars() {
            if ch == '"' || ch == '\\' {
                s.push('\\');
            }
            s.push(ch);
        }
        s.push_str("\"]\n");
    }
    s.push('\n');
    let mut pos: Position = game.start().clone();
    let mut line = String::new();
    let push = |token: &str, s: &mut String, line: &mut String| {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            s.push_str(line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    };
    for (i, &m) in game.moves().iter().enumerate() {
        let white = pos.turn() == crate::rules::Color::White;
        if white || i == 0 {
            let n = pos.fullmove_number();
            let number = if white {
                format!("{n}.")
            } else {
                format!("{n}...")
            };
            push(&number, &mut s, &mut line);
        }
        push(&m.to_uci(&pos), &mut s, &mut line);
        pos.play_unchecked(m);
    }
    let result = game.status().outcome().map_or("*", |o| o.as_pgn());
    push(result, &mut s, &mut line);
    s.push_str(&line);
    s.push_str("\n\n");
    s
}
