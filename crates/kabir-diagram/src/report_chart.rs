//! A report's figures as the input of a statistics chart ([`crate::chart`]), which
//! knows nothing of the database.

use crate::chart::{ChartData, LengthBin, MAX_RESULT_ROWS, ResultCounts};

use kabir_db::{Group, Report, Results};

impl From<Results> for ResultCounts {
    fn from(r: Results) -> ResultCounts {
        ResultCounts {
            white_wins: r.white_wins,
            draws: r.draws,
            black_wins: r.black_wins,
            unfinished: r.unfinished,
        }
    }
}

impl ChartData {
    /// The figures of `report` for [`stats_svg`](crate::chart::stats_svg): results
    /// of all games and of its groups (if it has any, at most [`MAX_RESULT_ROWS`], those with
    /// the most games), its length histogram, terminations and special moves, and games per
    /// year from `years` (the groups of a report by year, in any order).
    pub fn from_report(report: &Report, years: &[Group]) -> ChartData {
        let mut results = vec![("all games".to_string(), report.results.into())];
        let mut groups: Vec<&Group> = report.groups.iter().collect();
        groups.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.key.cmp(&b.key)));
        results.extend(
            groups
                .into_iter()
                .take(MAX_RESULT_ROWS)
                .map(|g| (g.key.clone(), g.results.into())),
        );
        let (dated, undated): (Vec<&Group>, Vec<&Group>) = years
            .iter()
            .partition(|g| !g.key.is_empty() && g.key.bytes().all(|b| b.is_ascii_digit()));
        let mut years: Vec<(String, u64)> =
            dated.iter().map(|g| (g.key.clone(), g.games)).collect();
        years.sort_by_key(|(y, _)| y.parse::<u64>().unwrap_or(u64::MAX));
        let undated = undated.iter().map(|g| g.games).sum();
        ChartData {
            title: format!(
                "{} game{}",
                report.games,
                if report.games == 1 { "" } else { "s" }
            ),
            results,
            lengths: report
                .lengths
                .buckets
                .iter()
                .map(|b| LengthBin {
                    from: b.from,
                    to: b.to,
                    games: b.games,
                })
                .collect(),
            terminations: report
                .terminations
                .iter()
                .map(|e| (e.termination.as_str().to_string(), e.games))
                .collect(),
            special: report
                .special
                .iter()
                .map(|s| (s.name.clone(), s.moves))
                .collect(),
            years,
            undated,
        }
    }
}
