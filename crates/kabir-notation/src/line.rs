//! A line of moves written as text (`e3 e6 Nf3`, move numbers allowed), played from a
//! position: what opening explorers and searches take from people.

use kabir_rules::{Move, Position};

use super::resolve::{ResolveError, resolve};
use super::san::{SanError, SanPlus};
use super::write::san;

/// Why a line of moves could not be played. `number` counts the moves from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// A token is not the text of a move.
    #[error("move {number} {text:?} is not a move: {error}")]
    Syntax {
        /// Which move of the line, from 1 (move numbers are not counted).
        number: usize,
        /// The token, without a move number glued to it.
        text: String,
        /// What the move syntax could not read.
        error: SanError,
    },
    /// A move's text names no single legal move in the position the line has reached.
    #[error("move {number} {text:?}: {error}{}", legal_list(legal))]
    Unplayable {
        /// Which move of the line, from 1 (move numbers are not counted).
        number: usize,
        /// The move as written, without a move number glued to it.
        text: String,
        /// Whether it was illegal, ambiguous or named an unknown piece or square.
        error: ResolveError,
        /// The legal moves there, in SAN.
        legal: Vec<String>,
    },
}

fn legal_list(legal: &[String]) -> String {
    if legal.is_empty() {
        String::new()
    } else {
        format!(" (legal moves: {})", legal.join(" "))
    }
}

/// Whether a token is a move number (`12.`, `12...`) rather than a move.
fn is_move_number(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    digits.len() < token.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Plays the moves of `text` from `start`: moves separated by spaces, in SAN or coordinates,
/// move numbers (`1.`, `1...`, also glued on as in `1.e3`) and check marks allowed. Returns
/// the moves and the position they reach.
pub fn play_line(start: &Position, text: &str) -> Result<(Vec<Move>, Position), LineError> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut legal = Vec::new();
    for token in text.split_whitespace() {
        if is_move_number(token) {
            continue;
        }
        // `1.e3`, `12...Nf6`: the number glued to the move.
        let token = match token.find(|c: char| !c.is_ascii_digit()) {
            Some(i) if i > 0 && token[i..].starts_with('.') => token[i..].trim_start_matches('.'),
            _ => token,
        };
        let number = moves.len() + 1;
        let parsed = SanPlus::from_ascii(token.as_bytes()).map_err(|error| LineError::Syntax {
            number,
            text: token.to_string(),
            error,
        })?;
        pos.legal_moves_into(&mut legal);
        let m = resolve(&parsed.san, &pos, &legal).map_err(|error| LineError::Unplayable {
            number,
            text: token.to_string(),
            error,
            legal: {
                let mut all: Vec<String> = legal.iter().map(|&m| san(&pos, m, &legal)).collect();
                all.sort();
                all
            },
        })?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok((moves, pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_a_line_with_move_numbers() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let start = Position::start(&v);
        let (moves, pos) = play_line(&start, "1. e3 e6 2.Nf3").unwrap();
        assert_eq!(moves.len(), 3);
        let (same, pos2) = play_line(&start, "e3 e6 Nf3").unwrap();
        assert_eq!(moves, same);
        assert_eq!(pos, pos2);
        assert_eq!(play_line(&start, "").unwrap().1, start);
    }

    #[test]
    fn names_the_bad_move() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let start = Position::start(&v);
        let e = play_line(&start, "e3 e6 Nf5").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("move 3 \"Nf5\": illegal move"), "{text}");
        assert!(text.contains("Nf3"), "{text}");
        let e = play_line(&start, "e3 ++").unwrap_err();
        assert!(matches!(e, LineError::Syntax { number: 2, .. }), "{e}");
    }
}
