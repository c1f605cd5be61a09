//! Charts of database statistics as one SVG document: results by colour (stacked bars), game
//! lengths (histogram), terminations and special moves (bars), activity per year (a line).
//!
//! Every drawn number is also in a `data-value` attribute of its element (with `data-label`,
//! `data-series` or `data-from`/`data-to` saying what it counts), so that programs and tests
//! can read the figures back.

use super::svg::{FONT_FAMILY, Svg, Value, num};

/// The width of a chart document.
pub const CHART_WIDTH: f64 = 800.0;
const PLOT_LEFT: f64 = 84.0;
const PLOT_RIGHT: f64 = CHART_WIDTH - 28.0;
const PANEL_GAP: f64 = 24.0;
/// The width of a character of a 12 px bold category label, a little over the widest average
/// of the embedded font, so that a label never runs off the left edge.
const LABEL_CHAR_WIDTH: f64 = 7.6;
/// Space left of the longest category label, and between it and its bar.
const LABEL_MARGIN: f64 = 24.0;
const INK: &str = "#1e1e1e";
const GRID: &str = "#d9d9d9";
const BAR: &str = "#4f7fa8";
const SPECIAL_BAR: &str = "#b5742f";
const END_BAR: &str = "#6a8f4e";
const LINE: &str = "#8a3b6b";

/// One range of game lengths: games of `from..=to` plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LengthBin {
    /// The shortest length in the range, in plies.
    pub from: u32,
    /// The longest length in the range, in plies (included).
    pub to: u32,
    /// How many games have a length in the range.
    pub games: u64,
}

/// The games of one row of the results panel, by result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultCounts {
    /// Games White won (`1-0`).
    pub white_wins: u64,
    /// Games drawn (`1/2-1/2`).
    pub draws: u64,
    /// Games Black won (`0-1`).
    pub black_wins: u64,
    /// Games not finished (recorded with `*`).
    pub unfinished: u64,
}

/// The figures a chart document draws: plain numbers, so that any source of statistics can be
/// drawn (the database fills it from a report with `Report::chart_data`). Empty lists draw a
/// panel that says there is no data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartData {
    /// The document's title.
    pub title: String,
    /// Results by colour, one stacked bar per row (all games, a variant, a player...).
    pub results: Vec<(String, ResultCounts)>,
    /// Games by length, in order.
    pub lengths: Vec<LengthBin>,
    /// Games by how they ended.
    pub terminations: Vec<(String, u64)>,
    /// Special moves by kind (how many were played).
    pub special: Vec<(String, u64)>,
    /// Games by year, in order.
    pub years: Vec<(String, u64)>,
    /// Games whose year is not known (not on the line).
    pub undated: u64,
}

/// The most group rows the results panel shows (the groups with the most games).
pub const MAX_RESULT_ROWS: usize = 12;

/// A round axis maximum and tick step for values up to `max` (about five ticks).
fn scale(max: u64) -> (u64, u64) {
    if max == 0 {
        return (1, 1);
    }
    let rough = (max as f64 / 5.0).max(1.0);
    let magnitude = 10f64.powi(rough.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude)
        .max(1.0) as u64;
    (max.div_ceil(step).saturating_mul(step), step)
}

fn text_attrs<'a>(x: f64, y: f64, size: f64, anchor: &'a str) -> Vec<(&'a str, Value<'a>)> {
    vec![
        ("x", x.into()),
        ("y", y.into()),
        ("font-size", size.into()),
        ("text-anchor", anchor.into()),
        ("fill", INK.into()),
    ]
}

/// A panel's title, and its legend (swatch colour, text) at the top right.
fn heading(svg: &mut Svg, top: f64, title: &str, legend: &[(&str, &str)]) {
    let mut attrs = text_attrs(PLOT_LEFT - 60.0, top + 22.0, 17.0, "start");
    attrs.push(("class", "chart-title".into()));
    attrs.push(("font-weight", "bold".into()));
    svg.text("text", &attrs, title);
    svg.open("g", &[("class", "legend".into())]);
    let mut x = PLOT_RIGHT;
    for (color, label) in legend.iter().rev() {
        // About 7.5 units per character at this size.
        let w = label.chars().count() as f64 * 7.5;
        x -= w;
        let mut attrs = text_attrs(x, top + 21.0, 13.0, "start");
        attrs.push(("class", "legend-label".into()));
        svg.text("text", &attrs, label);
        svg.leaf(
            "rect",
            &[
                ("class", "swatch".into()),
                ("x", (x - 18.0).into()),
                ("y", (top + 10.0).into()),
                ("width", 13.0.into()),
                ("height", 13.0.into()),
                ("fill", (*color).into()),
                ("stroke", INK.into()),
                ("stroke-width", 0.8.into()),
            ],
        );
        x -= 34.0;
    }
    svg.close("g");
}

/// A vertical count axis from `bottom` (0) up to `top_y` (`max`), with grid lines.
fn count_axis(svg: &mut Svg, top_y: f64, bottom: f64, max: u64, step: u64, title: &str) {
    svg.open("g", &[("class", "axis y-axis".into())]);
    let mut v = 0;
    while v <= max {
        let y = bottom - (bottom - top_y) * v as f64 / max as f64;
        svg.leaf(
            "line",
            &[
                ("x1", PLOT_LEFT.into()),
                ("x2", PLOT_RIGHT.into()),
                ("y1", y.into()),
                ("y2", y.into()),
                ("stroke", if v == 0 { INK } else { GRID }.into()),
                ("stroke-width", 1.0.into()),
            ],
        );
        let mut attrs = text_attrs(PLOT_LEFT - 8.0, y + 4.0, 12.0, "end");
        attrs.push(("class", "tick-label".into()));
        svg.text("text", &attrs, &v.to_string());
        match v.checked_add(step) {
            Some(next) => v = next,
            None => break,
        }
    }
    svg.leaf(
        "line",
        &[
            ("x1", PLOT_LEFT.into()),
            ("x2", PLOT_LEFT.into()),
            ("y1", top_y.into()),
            ("y2", bottom.into()),
            ("stroke", INK.into()),
            ("stroke-width", 1.0.into()),
        ],
    );
    let mid = (top_y + bottom) / 2.0;
    svg.text(
        "text",
        &[
            ("class", "axis-title".into()),
            ("x", 0.0.into()),
            ("y", 0.0.into()),
            ("font-size", 13.0.into()),
            ("text-anchor", "middle".into()),
            ("fill", INK.into()),
            (
                "transform",
                format!(
                    "translate({},{}) rotate(-90)",
                    num(PLOT_LEFT - 52.0),
                    num(mid)
                )
                .into(),
            ),
        ],
        title,
    );
    svg.close("g");
}

fn no_data(svg: &mut Svg, top: f64, bottom: f64) {
    let mut attrs = text_attrs(
        (PLOT_LEFT + PLOT_RIGHT) / 2.0,
        (top + bottom) / 2.0,
        14.0,
        "middle",
    );
    attrs.push(("class", "no-data".into()));
    svg.text("text", &attrs, "no data");
}

/// The height of a bar-chart panel.
const BAR_PANEL: f64 = 300.0;

/// A bar of a bar chart; `range` is a length histogram's `from..=to`.
struct BarItem {
    label: String,
    value: u64,
    range: Option<(u32, u32)>,
}

/// A bar chart panel: one bar per item.
#[allow(clippy::too_many_arguments)]
fn bar_panel(
    svg: &mut Svg,
    top: f64,
    kind: &str,
    title: &str,
    x_title: &str,
    y_title: &str,
    color: &str,
    items: &[BarItem],
) -> f64 {
    svg.open(
        "g",
        &[("class", "chart".into()), ("data-chart", kind.into())],
    );
    heading(svg, top, title, &[(color, y_title)]);
    // Many or long category labels are slanted and need more room under the axis.
    let slanted = items.len() > 8 || items.iter().any(|i| i.label.chars().count() > 12);
    let label_room = if slanted {
        let longest = items
            .iter()
            .map(|i| i.label.chars().count())
            .max()
            .unwrap_or(0);
        (longest as f64 * 6.5 * 0.6 + 40.0).clamp(74.0, 140.0)
    } else {
        62.0
    };
    let (plot_top, bottom) = (top + 48.0, top + BAR_PANEL - label_room);
    let max = items.iter().map(|i| i.value).max().unwrap_or(0);
    let (axis_max, step) = scale(max);
    count_axis(svg, plot_top, bottom, axis_max, step, y_title);
    if items.is_empty() {
        no_data(svg, plot_top, bottom);
    }
    let n = items.len().max(1) as f64;
    let slot = (PLOT_RIGHT - PLOT_LEFT) / n;
    let bar_w = (slot * 0.7).min(60.0);
    svg.open("g", &[("class", "bars".into())]);
    for (i, item) in items.iter().enumerate() {
        let (label, value) = (&item.label, &item.value);
        let cx = PLOT_LEFT + slot * (i as f64 + 0.5);
        let h = (bottom - plot_top) * *value as f64 / axis_max as f64;
        let mut attrs: Vec<(&str, Value<'_>)> = vec![
            ("class", "bar".into()),
            ("data-label", label.as_str().into()),
            ("data-value", (*value).into()),
        ];
        if let Some((from, to)) = item.range {
            attrs.push(("data-from", from.into()));
            attrs.push(("data-to", to.into()));
        }
        attrs.extend([
            ("x", (cx - bar_w / 2.0).into()),
            ("y", (bottom - h).into()),
            ("width", bar_w.into()),
            ("height", h.into()),
            ("fill", color.into()),
        ]);
        svg.open("g", &[("class", "item".into())]);
        svg.open("rect", &attrs);
        svg.text("title", &[], &format!("{label}: {value}"));
        svg.close("rect");
        if *value > 0 || items.len() <= 24 {
            let mut a = text_attrs(cx, bottom - h - 4.0, 11.0, "middle");
            a.push(("class", "value-label".into()));
            svg.text("text", &a, &value.to_string());
        }
        let mut a = if slanted {
            let mut a = text_attrs(0.0, 0.0, 11.0, "end");
            a.push((
                "transform",
                format!(
                    "translate({},{}) rotate(-35)",
                    num(cx + 4.0),
                    num(bottom + 14.0)
                )
                .into(),
            ));
            a
        } else {
            text_attrs(cx, bottom + 16.0, 12.0, "middle")
        };
        a.push(("class", "category-label".into()));
        svg.text("text", &a, label);
        svg.close("g");
    }
    svg.close("g");
    let mut a = text_attrs(
        (PLOT_LEFT + PLOT_RIGHT) / 2.0,
        top + BAR_PANEL - 6.0,
        13.0,
        "middle",
    );
    a.push(("class", "axis-title".into()));
    svg.text("text", &a, x_title);
    svg.close("g");
    top + BAR_PANEL + PANEL_GAP
}

const SERIES: [(&str, &str, &str); 4] = [
    ("white-wins", "White wins", "#f7f3e6"),
    ("draws", "Draws", "#a8a8a8"),
    ("black-wins", "Black wins", "#262626"),
    ("unfinished", "Unfinished", "#c9dbe8"),
];

fn series_values(r: &ResultCounts) -> [u64; 4] {
    [r.white_wins, r.draws, r.black_wins, r.unfinished]
}

/// Results by colour: a horizontal bar per row, stacked White wins, draws, Black wins,
/// unfinished, each row as shares of its own games (its total written at its right end): on a
/// common scale of games, a group of 57 games beside all 20,010 would be too thin to see.
fn results_panel(svg: &mut Svg, top: f64, rows: &[(String, ResultCounts)]) -> f64 {
    svg.open(
        "g",
        &[("class", "chart".into()), ("data-chart", "results".into())],
    );
    let legend: Vec<(&str, &str)> = SERIES.iter().map(|(_, l, c)| (*c, *l)).collect();
    heading(svg, top, "Results by colour", &legend);
    let row_h = 30.0;
    let plot_top = top + 44.0;
    let height = rows.len().max(1) as f64 * row_h;
    let bottom = plot_top + height;
    // The row labels (variant names, player names) decide where the bars start: room for the
    // longest, up to half the chart; a longer label is shortened with an ellipsis and stays
    // whole in its tooltip and `data-label`.
    let longest = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let fits = ((CHART_WIDTH / 2.0 - LABEL_MARGIN) / LABEL_CHAR_WIDTH) as usize;
    let left = (LABEL_MARGIN + longest.min(fits) as f64 * LABEL_CHAR_WIDTH).max(PLOT_LEFT + 40.0);
    // Room right of the bars for each row's number of games.
    let right = CHART_WIDTH - TOTAL_ROOM;
    let x_of = |share: f64| left + (right - left) * share;
    svg.open("g", &[("class", "axis x-axis".into())]);
    for tick in 0..=5u32 {
        let x = x_of(f64::from(tick) / 5.0);
        svg.leaf(
            "line",
            &[
                ("x1", x.into()),
                ("x2", x.into()),
                ("y1", plot_top.into()),
                ("y2", bottom.into()),
                ("stroke", if tick == 0 { INK } else { GRID }.into()),
                ("stroke-width", 1.0.into()),
            ],
        );
        let mut a = text_attrs(x, bottom + 15.0, 12.0, "middle");
        a.push(("class", "tick-label".into()));
        svg.text("text", &a, &format!("{}%", tick * 20));
    }
    svg.close("g");
    if rows.is_empty() {
        no_data(svg, plot_top, bottom);
    }
    for (i, (label, r)) in rows.iter().enumerate() {
        let y = plot_top + i as f64 * row_h + 4.0;
        let h = row_h - 8.0;
        let games: u64 = series_values(r).iter().sum();
        svg.open(
            "g",
            &[
                ("class", "row".into()),
                ("data-label", label.as_str().into()),
            ],
        );
        let mut a = text_attrs(left - 8.0, y + h / 2.0 + 4.0, 12.0, "end");
        a.push(("class", "category-label".into()));
        if label.chars().count() > fits {
            let short: String = label.chars().take(fits.saturating_sub(1)).collect();
            svg.open("text", &a);
            svg.text("title", &[], label);
            svg.raw(&super::svg::escape(&format!("{short}\u{2026}")));
            svg.close("text");
        } else {
            svg.text("text", &a, label);
        }
        let share = |v: u64| {
            if games == 0 {
                0.0
            } else {
                v as f64 / games as f64
            }
        };
        let mut acc = 0u64;
        for ((series, name, color), value) in SERIES.iter().zip(series_values(r)) {
            let (x0, x1) = (x_of(share(acc)), x_of(share(acc + value)));
            acc += value;
            let pct = 100.0 * share(value);
            svg.open(
                "rect",
                &[
                    ("class", "bar".into()),
                    ("data-label", label.as_str().into()),
                    ("data-series", (*series).into()),
                    ("data-value", value.into()),
                    ("x", x0.into()),
                    ("y", y.into()),
                    ("width", (x1 - x0).into()),
                    ("height", h.into()),
                    ("fill", (*color).into()),
                    ("stroke", INK.into()),
                    ("stroke-width", if value > 0 { 0.8 } else { 0.0 }.into()),
                ],
            );
            svg.text(
                "title",
                &[],
                &format!("{label}: {name} {value} of {games} ({pct:.1}%)"),
            );
            svg.close("rect");
            // The share inside its segment when there is room for it.
            let text = format!("{pct:.0}%");
            if value > 0 && x1 - x0 > text.len() as f64 * 7.0 + 6.0 {
                let ink = if *series == "black-wins" {
                    "#f7f3e6"
                } else {
                    INK
                };
                let mut a = text_attrs((x0 + x1) / 2.0, y + h / 2.0 + 4.0, 11.0, "middle");
                a.push(("class", "value-label".into()));
                a.retain(|(k, _)| *k != "fill");
                a.push(("fill", ink.into()));
                svg.text("text", &a, &text);
            }
        }
        let mut a = text_attrs(right + 6.0, y + h / 2.0 + 4.0, 11.0, "start");
        a.push(("class", "row-total".into()));
        svg.text("text", &a, &thousands(games));
        svg.close("g");
    }
    let mut a = text_attrs((left + right) / 2.0, bottom + 34.0, 13.0, "middle");
    a.push(("class", "axis-title".into()));
    svg.text("text", &a, "share of the row's games");
    let mut a = text_attrs(right + 6.0, plot_top - 6.0, 11.0, "start");
    a.push(("class", "axis-title".into()));
    svg.text("text", &a, "games");
    svg.close("g");
    bottom + 44.0 + PANEL_GAP
}

/// Room right of the results' bars for each row's number of games ("20,010").
const TOTAL_ROOM: f64 = 62.0;

/// A number with thousands separated: `20,010`.
fn thousands(n: u64) -> String {
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

/// Activity per year: games as a line over the years.
fn years_panel(svg: &mut Svg, top: f64, years: &[(String, u64)], undated: u64) -> f64 {
    svg.open(
        "g",
        &[("class", "chart".into()), ("data-chart", "years".into())],
    );
    heading(svg, top, "Games per year", &[(LINE, "games")]);
    let (plot_top, bottom) = (top + 48.0, top + BAR_PANEL - 62.0);
    let max = years.iter().map(|y| y.1).max().unwrap_or(0);
    let (axis_max, step) = scale(max);
    count_axis(svg, plot_top, bottom, axis_max, step, "games");
    if years.is_empty() {
        no_data(svg, plot_top, bottom);
    }
    let n = years.len().max(1) as f64;
    let slot = (PLOT_RIGHT - PLOT_LEFT) / n;
    let points: Vec<(f64, f64)> = years
        .iter()
        .enumerate()
        .map(|(i, (_, v))| {
            (
                PLOT_LEFT + slot * (i as f64 + 0.5),
                bottom - (bottom - plot_top) * *v as f64 / axis_max as f64,
            )
        })
        .collect();
    if points.len() > 1 {
        let list: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
            .collect();
        svg.leaf(
            "polyline",
            &[
                ("class", "line".into()),
                ("points", list.join(" ").into()),
                ("fill", "none".into()),
                ("stroke", LINE.into()),
                ("stroke-width", 2.5.into()),
            ],
        );
    }
    let every = (years.len() / 16).max(1);
    for (i, ((label, value), (x, y))) in years.iter().zip(&points).enumerate() {
        svg.open("g", &[("class", "item".into())]);
        svg.open(
            "circle",
            &[
                ("class", "point".into()),
                ("data-label", label.as_str().into()),
                ("data-value", (*value).into()),
                ("cx", (*x).into()),
                ("cy", (*y).into()),
                ("r", 4.0.into()),
                ("fill", LINE.into()),
            ],
        );
        svg.text("title", &[], &format!("{label}: {value}"));
        svg.close("circle");
        if i % every == 0 {
            let mut a = text_attrs(*x, y - 8.0, 11.0, "middle");
            a.push(("class", "value-label".into()));
            svg.text("text", &a, &value.to_string());
            let mut a = text_attrs(*x, bottom + 16.0, 12.0, "middle");
            a.push(("class", "category-label".into()));
            svg.text("text", &a, label);
        }
        svg.close("g");
    }
    let mut a = text_attrs(
        (PLOT_LEFT + PLOT_RIGHT) / 2.0,
        top + BAR_PANEL - 6.0,
        13.0,
        "middle",
    );
    a.push(("class", "axis-title".into()));
    let title = if undated > 0 {
        format!(
            "year of the Date tag ({undated} game{} without a year not shown)",
            if undated == 1 { "" } else { "s" }
        )
    } else {
        "year of the Date tag".to_string()
    };
    a.push(("data-undated", undated.into()));
    svg.text("text", &a, &title);
    svg.close("g");
    top + BAR_PANEL + PANEL_GAP
}

/// Draws every chart of `data` into one SVG document, one panel under the other. Each panel is
/// a `g` of class `chart` with `data-chart` = `results`, `lengths`, `terminations`, `special`
/// or `years`.
pub fn stats_svg(data: &ChartData) -> String {
    // Draw into a body first: the document's height is known only at the end.
    let mut body = Svg::fragment();
    let mut y = 48.0;
    y = results_panel(&mut body, y, &data.results);
    let lengths: Vec<BarItem> = data
        .lengths
        .iter()
        .map(|b| BarItem {
            label: if b.from == b.to {
                b.from.to_string()
            } else {
                format!("{}\u{2013}{}", b.from, b.to)
            },
            value: b.games,
            range: Some((b.from, b.to)),
        })
        .collect();
    y = bar_panel(
        &mut body,
        y,
        "lengths",
        "Game length",
        "plies",
        "games",
        BAR,
        &lengths,
    );
    let list = |l: &[(String, u64)]| -> Vec<BarItem> {
        l.iter()
            .map(|(k, v)| BarItem {
                label: k.clone(),
                value: *v,
                range: None,
            })
            .collect()
    };
    y = bar_panel(
        &mut body,
        y,
        "terminations",
        "How games ended",
        "termination",
        "games",
        END_BAR,
        &list(&data.terminations),
    );
    y = bar_panel(
        &mut body,
        y,
        "special",
        "Special moves",
        "move",
        "moves",
        SPECIAL_BAR,
        &list(&data.special),
    );
    y = years_panel(&mut body, y, &data.years, data.undated);
    let mut svg = Svg::new(
        CHART_WIDTH,
        y,
        &[
            ("class", "kabir-chart".into()),
            ("font-family", FONT_FAMILY.into()),
        ],
    );
    svg.text("title", &[], &data.title);
    svg.leaf(
        "rect",
        &[
            ("class", "background".into()),
            ("width", CHART_WIDTH.into()),
            ("height", y.into()),
            ("fill", "#ffffff".into()),
        ],
    );
    let mut attrs = text_attrs(CHART_WIDTH / 2.0, 30.0, 20.0, "middle");
    attrs.push(("class", "title".into()));
    attrs.push(("font-weight", "bold".into()));
    svg.text("text", &attrs, &data.title);
    svg.raw(&body.into_inner());
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_round_and_cover_the_maximum() {
        assert_eq!(scale(0), (1, 1));
        assert_eq!(scale(1), (1, 1));
        assert_eq!(scale(7), (8, 2));
        assert_eq!(scale(13), (15, 5));
        assert_eq!(scale(100), (100, 20));
        assert_eq!(scale(101), (150, 50));
        assert_eq!(scale(99_999), (100_000, 20_000));
        assert!(scale(u64::MAX / 2).0 >= u64::MAX / 2);
    }

    fn sample() -> ChartData {
        ChartData {
            title: "Sample".into(),
            results: vec![(
                "all games".into(),
                ResultCounts {
                    white_wins: 5,
                    draws: 2,
                    black_wins: 3,
                    unfinished: 0,
                },
            )],
            lengths: vec![
                LengthBin {
                    from: 0,
                    to: 9,
                    games: 4,
                },
                LengthBin {
                    from: 10,
                    to: 19,
                    games: 6,
                },
            ],
            terminations: vec![("checkmate".into(), 7), ("other".into(), 3)],
            special: vec![("king swap".into(), 2)],
            years: vec![("2024".into(), 4), ("2025".into(), 6)],
            undated: 3,
        }
    }

    #[test]
    fn long_row_labels_keep_their_room() {
        let mut data = sample();
        let long = "tamerlane-greenwood-5".to_string();
        data.results.push((long.clone(), data.results[0].1));
        let svg = stats_svg(&data);
        // Every row label ends where the bars start, and its left edge stays on the chart.
        let row = svg
            .split("<g class=\"row\"")
            .find(|g| g.contains(&format!("data-label=\"{long}\"")))
            .expect("the long row");
        let x: f64 = row
            .split("x=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|v| v.parse().ok())
            .expect("label x");
        assert!(
            x - long.chars().count() as f64 * LABEL_CHAR_WIDTH >= 0.0,
            "{x}"
        );
        assert!(row.contains(&format!(">{long}</text>")));

        // A label longer than half the chart is shortened, and whole in its tooltip.
        let huge = "x".repeat(200);
        data.results.push((huge.clone(), data.results[0].1));
        let svg = stats_svg(&data);
        let row = svg
            .split("<g class=\"row\"")
            .find(|g| g.contains(&format!("data-label=\"{huge}\"")))
            .expect("the huge row");
        assert!(row.contains(&format!("<title>{huge}</title>")));
        assert!(row.contains("\u{2026}"));
    }

    #[test]
    fn every_panel_is_drawn_once_with_its_numbers() {
        let svg = stats_svg(&sample());
        for kind in ["results", "lengths", "terminations", "special", "years"] {
            assert_eq!(
                svg.matches(&format!("data-chart=\"{kind}\"")).count(),
                1,
                "{kind}"
            );
        }
        assert!(svg.contains("data-series=\"white-wins\" data-value=\"5\""));
        assert!(svg.contains("data-series=\"unfinished\" data-value=\"0\""));
        assert!(svg.contains("data-value=\"6\" data-from=\"10\" data-to=\"19\""));
        assert!(svg.contains("data-label=\"2025\" data-value=\"6\""));
        assert_eq!(svg.matches("<svg").count(), 1);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(!svg.contains("no data"));
        assert!(svg.contains("data-undated=\"3\">year of the Date tag (3 games without"));
    }

    /// The drawn width of each results segment of a row, by series.
    fn row_widths(svg: &str, label: &str) -> Vec<(String, f64)> {
        let row = svg
            .split("<g class=\"row\"")
            .find(|g| g.starts_with(&format!(" data-label=\"{label}\"")))
            .unwrap_or_else(|| panic!("no row {label}"));
        let row = row.split("</g>").next().unwrap_or_default();
        row.split("<rect class=\"bar\"")
            .skip(1)
            .map(|r| {
                let attr = |name: &str| {
                    r.split(&format!(" {name}=\""))
                        .nth(1)
                        .and_then(|v| v.split('"').next())
                        .unwrap_or_default()
                        .to_string()
                };
                (attr("data-series"), attr("width").parse().unwrap_or(-1.0))
            })
            .collect()
    }

    #[test]
    fn small_rows_are_drawn_on_their_own_scale() {
        let mut data = sample();
        let counts = |w, d, b, u| ResultCounts {
            white_wins: w,
            draws: d,
            black_wins: b,
            unfinished: u,
        };
        data.results = vec![
            ("all games".into(), counts(9000, 2010, 8000, 1000)),
            ("f4 f7".into(), counts(30, 7, 20, 0)),
        ];
        let svg = stats_svg(&data);
        let all = row_widths(&svg, "all games");
        let small = row_widths(&svg, "f4 f7");
        let total = |w: &[(String, f64)]| w.iter().map(|(_, x)| x).sum::<f64>();
        // Both rows fill the same width: each is drawn as shares of its own games.
        assert!(total(&all) > 400.0, "{all:?}");
        assert!(
            (total(&all) - total(&small)).abs() < 0.5,
            "{all:?} {small:?}"
        );
        // 30 of 57 games is over half the bar, not a sliver of a 20,010-game axis.
        let white = small.iter().find(|(s, _)| s == "white-wins").map(|w| w.1);
        assert!(white.is_some_and(|w| w > total(&small) / 2.0), "{small:?}");
        assert!(
            svg.contains(">53%</text>"),
            "the share is written in the segment"
        );
        assert!(svg.contains("class=\"row-total\">20,010</text>"));
        assert!(svg.contains("class=\"row-total\">57</text>"));
        assert!(svg.contains(">100%</text>"), "the axis is in percent");
    }

    #[test]
    fn empty_figures_say_so() {
        let svg = stats_svg(&ChartData::default());
        assert_eq!(svg.matches(">no data<").count(), 5);
        assert!(!svg.contains("class=\"bar\""));
    }
}
