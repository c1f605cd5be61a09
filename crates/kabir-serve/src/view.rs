//! Pieces of HTML every page uses: the frame, result bars, numbers. maud escapes every string
//! it is given; only the diagrams, which escape their own text, go in unescaped.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use kabir_db::{Results, percent};
use kabir_rules::{Color, Position};

use super::assets::href;

/// The pages of the navigation bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nav {
    Explore,
    Game,
    Search,
    Stats,
    None,
}

/// A whole page: the header with the navigation, then `body` as the page's `main`.
pub(crate) fn layout(
    title: &str,
    nav: Nav,
    db_name: &str,
    main_attrs: MainAttrs,
    body: Markup,
) -> Markup {
    let item = |n: Nav, url: &str, label: &str| {
        html! {
            a href=(url) class=@if n == nav { "current" } { (label) }
        }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " \u{b7} kabir" }
                link rel="stylesheet" href=(href("style.css"));
                link rel="icon" href=(href("favicon.svg")) type="image/svg+xml";
                script src=(href("app.js")) defer {}
            }
            body {
                header.top {
                    a.brand href="/explore" { span.logo { "\u{265a}" } "kabir" }
                    nav {
                        (item(Nav::Explore, "/explore", "Explorer"))
                        (item(Nav::Search, "/search", "Games"))
                        (item(Nav::Stats, "/stats", "Statistics"))
                    }
                    span.db title="The database, read-only" { (db_name) }
                }
                main #main class=[matches!(main_attrs.page, "explore" | "game").then_some("board-page")]
                    data-page=(main_attrs.page) data-title=(title)
                    data-moves=[main_attrs.moves.as_deref()]
                    data-base=[main_attrs.base.as_deref()] {
                    (body)
                }
                footer.bottom {
                    "kabir " (super::assets::VERSION) " \u{b7} "
                    a href="/api/explore" { "JSON API" }
                    " \u{b7} keys: \u{2190} \u{2192} step, \u{2191} \u{2193} choose a variation, Home/End, f flips the board, Esc cancels a move"
                }
            }
        }
    }
}

/// Attributes of a page's `main` that its script reads.
#[derive(Debug, Default)]
pub(crate) struct MainAttrs {
    pub page: &'static str,
    /// The explorer's line, moves separated by spaces.
    pub moves: Option<String>,
    /// The explorer's URL without `moves`.
    pub base: Option<String>,
}

/// A number with thousands separated: `12,345`.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A percentage with one decimal.
pub(crate) fn pct(p: f64) -> String {
    format!("{p:.1}%")
}

/// White wins, draws, Black wins (and unfinished games) as one bar of three or four parts,
/// each as wide as its share, with the share written in the parts wide enough for it. The
/// widths are flex-grow classes of the style sheet (`g0` to `g100`): no inline style, which
/// the Content-Security-Policy forbids.
pub(crate) fn result_bar(r: &Results) -> Markup {
    let n = r.games();
    let parts = [
        ("w", r.white_wins, "White wins"),
        ("d", r.draws, "Draws"),
        ("b", r.black_wins, "Black wins"),
        ("u", r.unfinished, "Unfinished"),
    ];
    let title = parts
        .iter()
        .filter(|(k, v, _)| *v > 0 || *k != "u")
        .map(|(_, v, what)| format!("{what}: {} ({})", count(*v), pct(percent(*v, n))))
        .collect::<Vec<_>>()
        .join(" \u{b7} ");
    html! {
        div.rbar title=(title) {
            @if n == 0 {
                span.empty.g100 {}
            }
            @for (class, v, _) in parts {
                @if v > 0 {
                    @let p = percent(v, n);
                    span class=(format!("{class} g{}", p.round() as u32)) {
                        @if p >= 12.0 { (format!("{:.0}%", p)) }
                    }
                }
            }
        }
    }
}

/// A move's label in a line: `12. e3` for White, `12... e6` for Black.
pub(crate) fn move_label(before: &Position, san: &str) -> String {
    let n = before.fullmove_number();
    match before.turn() {
        Color::White => format!("{n}. {san}"),
        Color::Black => format!("{n}\u{2026} {san}"),
    }
}

/// An SVG document written by the library's diagram code, which escapes its own text.
pub(crate) fn svg(document: &str) -> Markup {
    // The XML declaration, if any, does not belong inside HTML.
    let body = match document.find("<svg") {
        Some(i) => &document[i..],
        None => document,
    };
    PreEscaped(body.to_string())
}

/// A board drawn by the library, its natural size half as large again. The style sheet
/// shrinks a board to fit the window; its natural size is the most it may grow to, which at
/// 72 units a square would leave an 8x8 board small on a large screen.
pub(crate) fn board_svg(document: &str) -> Markup {
    let body = match document.find("<svg") {
        Some(i) => &document[i..],
        None => document,
    };
    let Some(end) = body.find('>') else {
        return PreEscaped(body.to_string());
    };
    let (head, rest) = body.split_at(end);
    let head = scaled(&scaled(head, "width", 1.5), "height", 1.5);
    PreEscaped(format!("{head}{rest}"))
}

/// `tag` with its attribute `name` multiplied by `factor`, if it is a number.
fn scaled(tag: &str, name: &str, factor: f64) -> String {
    let key = format!(" {name}=\"");
    let Some(from) = tag.find(&key).map(|i| i + key.len()) else {
        return tag.to_string();
    };
    let Some(len) = tag[from..].find('"') else {
        return tag.to_string();
    };
    match tag[from..from + len].parse::<f64>() {
        Ok(v) => format!("{}{}{}", &tag[..from], v * factor, &tag[from + len..]),
        Err(_) => tag.to_string(),
    }
}

/// A link to a page, or the label alone when there is nowhere to go.
pub(crate) fn nav_link(id: &str, url: Option<&str>, label: &str, title: &str) -> Markup {
    html! {
        @match url {
            Some(u) => a.btn id=(id) href=(u) title=(title) { (label) },
            None => span.btn.disabled id=(id) title=(title) { (label) },
        }
    }
}

/// An optional text, or `?`.
pub(crate) fn or_unknown(v: &Option<String>) -> &str {
    v.as_deref().filter(|s| !s.is_empty()).unwrap_or("?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
    }

    #[test]
    fn boards_grow_to_half_again_their_natural_size() {
        let doc = "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 576 616\" width=\"576\" \
                   height=\"616\" class=\"kabir-diagram\"><rect stroke-width=\"2\" width=\"9\"/></svg>";
        let html = board_svg(doc).into_string();
        assert!(
            html.starts_with("<svg viewBox=\"0 0 576 616\" width=\"864\" height=\"924\""),
            "{html}"
        );
        assert!(
            html.contains("<rect stroke-width=\"2\" width=\"9\"/>"),
            "{html}"
        );
        // Anything unexpected is left as it is.
        assert_eq!(
            board_svg("<svg width=\"a\">").into_string(),
            "<svg width=\"a\">"
        );
    }

    #[test]
    fn bars_have_a_part_per_result() {
        let r = Results {
            white_wins: 6,
            draws: 1,
            black_wins: 3,
            unfinished: 0,
        };
        let html = result_bar(&r).into_string();
        assert!(html.contains("w g60") && html.contains(">60%<"), "{html}");
        assert!(html.contains("d g10") && !html.contains(">10%<"), "{html}");
        assert!(!html.contains("class=\"u"), "{html}");
    }
}
