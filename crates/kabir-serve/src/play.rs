//! Moves played on the pages' boards: the explorer's legal moves, sent with the page for its
//! script, and the viewer's choice of the next move where variations branch off.

use maud::{Markup, html};
use serde::Serialize;

use kabir_rules::{MoveKind, Position};

/// A legal move as the explorer's board offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Playable {
    /// The square the piece leaves, as the board's `data-square` names it.
    pub from: String,
    /// The square it goes to (a citadel by its name).
    pub to: String,
    /// The move as the explorer's `moves` parameter takes it.
    pub san: String,
    /// The move told apart from the others between the same two squares: the piece a pawn
    /// becomes, a king swap, or else the SAN.
    pub label: String,
}

/// The legal moves of `pos`, in the move generator's order.
pub(crate) fn playable(pos: &Position) -> Vec<Playable> {
    let mut scratch = pos.clone();
    let mut legal = Vec::new();
    scratch.legal_moves_into(&mut legal);
    let v = pos.variant();
    let g = v.geometry();
    legal
        .iter()
        .map(|&m| {
            let san = kabir_notation::san(pos, m, &legal);
            // A promotion that the SAN writes is a choice (or at least worth naming); an
            // arrival of the pawn of pawns keeps its kind and writes none.
            let promotes = m.promotion.filter(|_| san.contains('='));
            let label = match (m.kind, promotes) {
                (MoveKind::Swap, Some(k)) => format!("King swap, {}", v.kind(k).name),
                (MoveKind::Swap, None) => "King swap".to_string(),
                (_, Some(k)) => v.kind(k).name.clone(),
                _ => san.clone(),
            };
            Playable {
                from: g.name(m.from).to_string(),
                to: g.name(m.to).to_string(),
                san,
                label,
            }
        })
        .collect()
}

/// The moves as JSON in the `data-moves` attribute of an empty, hidden element with id
/// `legal-moves`: data for the script, in an attribute (which the template escapes) rather
/// than in an inline script element, so that the page has no script but the server's file.
pub(crate) fn legal_moves_data(moves: &[Playable]) -> Markup {
    let json = serde_json::to_string(moves).unwrap_or_else(|_| "[]".to_string());
    html! {
        div #legal-moves hidden data-moves=(json) {}
    }
}

/// A hint shown by the script, which is what makes the board playable.
pub(crate) fn explorer_hint() -> Markup {
    html! {
        p.play-hint hidden {
            "Click or drag a piece of the side to move to see its moves, then click one to play it "
            "(Esc cancels). Tab reaches the arrows; Enter plays one."
        }
    }
}

/// One possible next move in the game viewer.
pub(crate) struct NextMove {
    pub label: String,
    pub href: String,
    /// Whether it continues the line of the move shown (else it begins a variation).
    pub continues: bool,
}

/// The moves that may follow the one shown, when there are several: the line's next move
/// first, then the first moves of its variations. The first is chosen; `↑` `↓` choose
/// another and `→` (or the forward button, which the script points at it) plays it.
pub(crate) fn next_choice(choices: &[NextMove]) -> Markup {
    html! {
        @if choices.len() > 1 {
            div.next-choice #next-choice role="group" aria-label="Next move"
                title="\u{2191} \u{2193} choose the next move, \u{2192} plays it" {
                span.what { "Next:" }
                @for (i, c) in choices.iter().enumerate() {
                    a.choice .chosen[i == 0] .variation[!c.continues] href=(c.href)
                        aria-current=[(i == 0).then_some("true")] {
                        (c.label)
                    }
                }
                span.keys { "\u{2191} \u{2193} choose, \u{2192} plays" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabir_rules::variants::builtin;

    #[test]
    fn specials_are_labelled_and_counted_as_the_generator_counts() {
        let v = builtin("tamerlane").unwrap();
        let pos = Position::from_fen(&v, "5k5/2PR9/K6r3/11/11/11/11/11/12/10S w K - 0 1").unwrap();
        let moves = playable(&pos);
        assert_eq!(moves.len(), pos.legal_moves().len());
        let find = |from: &str, to: &str| {
            moves
                .iter()
                .find(|m| m.from == from && m.to == to)
                .unwrap_or_else(|| panic!("{from}-{to} in {moves:?}"))
        };
        assert_eq!(find("a8", "bc").san, "Kbc");
        assert_eq!(find("a8", "b9").label, "King swap");
        assert_eq!(find("b9", "b10").label, "Rook");
    }

    #[test]
    fn the_moves_are_escaped_in_their_attribute() {
        let m = Playable {
            from: "a1".into(),
            to: "a2".into(),
            san: "\"><script>".into(),
            label: "&".into(),
        };
        let html = legal_moves_data(&[m]).into_string();
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.starts_with("<div id=\"legal-moves\" hidden data-moves=\""),
            "{html}"
        );
        let value =
            &html[html.find("data-moves=\"").unwrap() + 12..html.rfind("\"></div>").unwrap()];
        assert!(!value.contains('"'), "{value}");
        let text = value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back[0]["san"], "\"><script>");
        assert_eq!(back[0]["label"], "&");
    }
}
