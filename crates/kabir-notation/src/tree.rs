//! A game record's moves as a tree: the main line, the variations that branch off it (and off
//! each other), and the comments and annotation glyphs written at each move, every move
//! resolved against the rules. What a game viewer shows.

use kabir_rules::{Move, Position};

use super::game::{RawGame, TokenKind};
use super::resolve::resolve;
use super::write::san_plus;

/// A line of play: the main line or a variation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// Comments written before the line's first move.
    pub comments: Vec<String>,
    /// The line's moves in order, each with its own variations.
    pub moves: Vec<TreeMove>,
}

/// A move of a [`Line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeMove {
    /// The move; `None` when its text names no legal move in its position (a variation
    /// written wrongly), and then for every later move of its line.
    pub mv: Option<Move>,
    /// Canonical SAN with check mark for a resolved move, else the text as written.
    pub san: String,
    /// Its ply: 1 for the first move from the start position.
    pub ply: usize,
    /// Numeric annotation glyphs, a glyph written on the move (`!?`) included as its number.
    pub nags: Vec<u8>,
    /// Comments written after the move, white space runs made single spaces.
    pub comments: Vec<String>,
    /// Variations: other moves instead of this one, from the position before it.
    pub variations: Vec<Line>,
}

/// A line being read, with the position before its next move and before its last one.
struct Frame {
    line: Line,
    pos: Position,
    before_last: Position,
    /// A move of this line could not be resolved; the rest is kept as text.
    broken: bool,
}

impl Frame {
    fn new(pos: Position) -> Frame {
        Frame {
            line: Line::default(),
            before_last: pos.clone(),
            pos,
            broken: false,
        }
    }
}

/// Reads the move tree of a game from its tokens, starting at `start` (its start position).
/// Reading never fails: a variation move that names no legal move is kept as written (`mv`
/// `None`), as is the rest of its line; a `)` without its `(` is ignored and an open `(`
/// closed at the end.
pub fn read_tree(raw: &RawGame, start: &Position) -> Line {
    let mut stack = vec![Frame::new(start.clone())];
    let mut legal = Vec::new();
    // The ply before each frame's first move.
    let mut base_ply = vec![0usize];
    for tok in &raw.tokens {
        match tok.kind {
            TokenKind::Move(_) => {
                let (Some(frame), Some(&base)) = (stack.last_mut(), base_ply.last()) else {
                    continue;
                };
                let ply = base + frame.line.moves.len() + 1;
                let Some(parsed) = raw.san(tok) else {
                    continue;
                };
                let mut nags = Vec::new();
                if let Some(g) = parsed.glyph {
                    nags.push(g.nag());
                }
                let resolved = if frame.broken {
                    None
                } else {
                    frame.pos.legal_moves_into(&mut legal);
                    resolve(&parsed.san, &frame.pos, &legal).ok()
                };
                let (mv, san) = match resolved {
                    Some(m) => {
                        let text = san_plus(&frame.pos, m, &legal);
                        frame.before_last = frame.pos.clone();
                        frame.pos.play_unchecked(m);
                        (Some(m), text)
                    }
                    None => {
                        frame.broken = true;
                        (None, raw.text(tok.span).into_owned())
                    }
                };
                frame.line.moves.push(TreeMove {
                    mv,
                    san,
                    ply,
                    nags,
                    comments: Vec::new(),
                    variations: Vec::new(),
                });
            }
            TokenKind::Nag(n) => {
                if let Some(m) = stack.last_mut().and_then(|f| f.line.moves.last_mut()) {
                    m.nags.push(n);
                }
            }
            TokenKind::Comment | TokenKind::LineComment => {
                // The canonical writer wraps long comments: their line breaks are not the
                // author's.
                let text = raw
                    .comment_text(tok)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if text.is_empty() {
                    continue;
                }
                if let Some(frame) = stack.last_mut() {
                    match frame.line.moves.last_mut() {
                        Some(m) => m.comments.push(text),
                        None => frame.line.comments.push(text),
                    }
                }
            }
            TokenKind::VariationStart => {
                let Some(parent) = stack.last() else { continue };
                // A variation replaces the line's last move: it starts where that move was
                // played. One before any move has nothing to replace; it is read and dropped.
                let base = base_ply.last().copied().unwrap_or(0)
                    + parent.line.moves.len().saturating_sub(1);
                let mut frame = Frame::new(parent.before_last.clone());
                // After a move that was not resolved the position is unknown.
                frame.broken = parent.line.moves.last().is_none_or(|m| m.mv.is_none());
                stack.push(frame);
                base_ply.push(base);
            }
            TokenKind::VariationEnd => close_variation(&mut stack, &mut base_ply),
            TokenKind::Result(_) | TokenKind::MoveNumber { .. } | TokenKind::Escape => {}
        }
    }
    while stack.len() > 1 {
        close_variation(&mut stack, &mut base_ply);
    }
    stack.pop().map(|f| f.line).unwrap_or_default()
}

fn close_variation(stack: &mut Vec<Frame>, base_ply: &mut Vec<usize>) {
    if stack.len() < 2 {
        return;
    }
    let (Some(done), Some(_)) = (stack.pop(), base_ply.pop()) else {
        return;
    };
    if let Some(last) = stack.last_mut().and_then(|f| f.line.moves.last_mut())
        && (!done.line.moves.is_empty() || !done.line.comments.is_empty())
    {
        last.variations.push(done.line);
    }
}

/// A line of moves (`mv` of each) as long as every one is resolved.
pub fn resolved_moves(line: &Line) -> Vec<Move> {
    line.moves.iter().map_while(|m| m.mv).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::Reader;

    fn read(text: &str) -> RawGame {
        let mut r = Reader::new(text.as_bytes());
        let mut g = RawGame::default();
        assert!(r.read_game_into(&mut g).unwrap());
        g
    }

    fn shatranj() -> Position {
        Position::start(&kabir_rules::variants::builtin("shatranj").unwrap())
    }

    #[test]
    fn comments_nags_and_variations_find_their_moves() {
        let g = read(
            "[Variant \"Shatranj\"]\n\n{ before } 1. e3 $1 { after e3 } e6!? \
             (1... f6 { instead } 2. Nf3 (2. d3) f5) 2. Nf3 *",
        );
        let tree = read_tree(&g, &shatranj());
        assert_eq!(tree.comments, ["before"]);
        let sans: Vec<&str> = tree.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e3", "e6", "Nf3"]);
        assert_eq!(tree.moves[0].nags, [1]);
        assert_eq!(tree.moves[0].comments, ["after e3"]);
        assert_eq!(tree.moves[1].nags, [5]);
        let v = &tree.moves[1].variations;
        assert_eq!(v.len(), 1);
        let plies: Vec<(usize, &str)> =
            v[0].moves.iter().map(|m| (m.ply, m.san.as_str())).collect();
        assert_eq!(plies, [(2, "f6"), (3, "Nf3"), (4, "f5")]);
        assert_eq!(v[0].moves[0].comments, ["instead"]);
        assert_eq!(v[0].moves[1].variations[0].moves[0].san, "d3");
        assert_eq!(v[0].moves[1].variations[0].moves[0].ply, 3);
        assert!(tree.moves.iter().all(|m| m.mv.is_some()));
    }

    #[test]
    fn a_wrong_variation_move_is_kept_as_text_with_the_rest_of_its_line() {
        let g = read("[Variant \"Shatranj\"]\n\n1. e3 (1. e5 e6) e6 *");
        let tree = read_tree(&g, &shatranj());
        assert_eq!(tree.moves.len(), 2);
        let v = &tree.moves[0].variations[0];
        assert_eq!(v.moves[0].mv, None);
        assert_eq!(v.moves[0].san, "e5");
        assert_eq!(v.moves[1].mv, None);
        assert!(tree.moves[1].mv.is_some());
    }
}
