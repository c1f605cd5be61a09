//! What a request may ask for, and what it costs: the bounds of the parameters that decide
//! how much work a query is (a value past its bound is a 400 before any database work), and
//! which requests are heavy. Heavy requests run under a smaller pool of permits than there
//! are database threads (`app::with_db_costing`), so that light ones, every explorer and game
//! page among them, never wait behind them. The bounds and the rule are in `docs/SERVE.md`.

use kabir_db::{GroupBy, OPENING_PLIES, ReportQuery, TREE_EXAMPLES};

/// The deepest explorer tree (`depth`) the API gives.
pub(crate) const MAX_DEPTH: usize = 20;
/// The most moves an explorer tree lists per position (`breadth`).
pub(crate) const MAX_BREADTH: usize = 100;
/// The most example games an explorer tree names per move (`examples`).
pub(crate) const MAX_EXAMPLES: usize = 100;
/// The most rows a statistics breakdown lists (`top`).
pub(crate) const MAX_TOP: usize = 100;
/// The longest opening a statistics breakdown groups by (`opening-plies`).
pub(crate) const MAX_OPENING_PLIES: usize = 8;
/// The most games a list gives at once and still counts as light: the search page's own
/// size by default.
pub(crate) const LIGHT_LIMIT: usize = 50;

/// How much work a request is, decided from its parameters before any is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cost {
    /// Bounded small: one explorer position, a game, a page of games, a report the summaries
    /// answer.
    Light,
    /// May take up to the query time bound: a deep explorer tree, a long list of games, a
    /// report that reads every game.
    Heavy,
}

/// An explorer tree: one position's moves (depth 1) with no more examples than the opening
/// tree keeps is what an explorer page reads; anything deeper walks many positions.
pub(crate) fn explore(depth: usize, examples: usize) -> Cost {
    if depth <= 1 && examples <= TREE_EXAMPLES {
        Cost::Light
    } else {
        Cost::Heavy
    }
}

/// A filtered explorer: heavy whatever its depth, as a filter the opening tree cannot answer
/// may read every game that reached the position, a million of them at the start.
pub(crate) fn explore_filtered(filtered: bool, depth: usize, examples: usize) -> Cost {
    if filtered {
        Cost::Heavy
    } else {
        explore(depth, examples)
    }
}

/// A list of games: light up to the search page's size.
pub(crate) fn games(limit: usize) -> Cost {
    if limit <= LIGHT_LIMIT {
        Cost::Light
    } else {
        Cost::Heavy
    }
}

/// A report: light when the statistics summaries answer it (all games or one variant's, not
/// by player, openings no longer than the summaries keep); else it reads the games.
pub(crate) fn report(q: &ReportQuery) -> Cost {
    let only_variant = kabir_db::GameFilter {
        variant: None,
        ..q.filter.clone()
    }
    .is_empty();
    let openings_wanted = q.top > 0 && q.opening_plies > 0;
    if only_variant
        && q.by != Some(GroupBy::Player)
        && !(openings_wanted && q.opening_plies > OPENING_PLIES)
    {
        Cost::Light
    } else {
        Cost::Heavy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_trees_long_lists_and_scanning_reports_are_heavy() {
        assert_eq!(explore(1, 3), Cost::Light);
        assert_eq!(explore(1, TREE_EXAMPLES), Cost::Light);
        assert_eq!(explore(1, TREE_EXAMPLES + 1), Cost::Heavy);
        assert_eq!(explore_filtered(false, 1, 3), Cost::Light);
        assert_eq!(explore_filtered(true, 1, 3), Cost::Heavy);
        assert_eq!(explore(2, 0), Cost::Heavy);
        assert_eq!(games(LIGHT_LIMIT), Cost::Light);
        assert_eq!(games(LIGHT_LIMIT + 1), Cost::Heavy);
        let mut q = ReportQuery {
            filter: kabir_db::GameFilter::default(),
            by: Some(GroupBy::Opening),
            opening_plies: OPENING_PLIES,
            top: 10,
        };
        assert_eq!(report(&q), Cost::Light);
        q.filter.variant = Some("tamerlane".into());
        assert_eq!(report(&q), Cost::Light);
        q.opening_plies = OPENING_PLIES + 1;
        assert_eq!(report(&q), Cost::Heavy);
        q.top = 0;
        assert_eq!(report(&q), Cost::Light);
        q.by = Some(GroupBy::Player);
        assert_eq!(report(&q), Cost::Heavy);
        q.by = None;
        q.filter.player = Some("timur".into());
        assert_eq!(report(&q), Cost::Heavy);
    }
}
