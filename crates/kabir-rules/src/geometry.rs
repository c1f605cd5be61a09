//! Board shapes: a rectangle of files and ranks plus extra squares such as citadels.

use super::color::Color;
use super::square::{Bitboard, Square};

/// The most squares a board may have (squares are bits of a `u128`).
pub const MAX_SQUARES: usize = 128;

/// A square outside the rectangle that belongs to one side, such as a Tamerlane citadel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citadel {
    /// Its name in notation, usable wherever a square is (`wc`, `bc`).
    pub name: String,
    /// Its square, numbered after every square of the main board.
    pub square: Square,
    /// The side whose citadel it is.
    pub owner: Color,
}

/// The shape of a board: which squares exist, what they are called and where they lie.
///
/// Coordinates are 1-based: file 1 is `a` (White's left), rank 1 is White's first rank. Extra
/// squares lie just outside the rectangle (file 0 or `files + 1`) and continue a rank by one
/// square. They are only ever the end of a move: no line passes through them.
#[derive(Debug, Clone)]
pub struct Geometry {
    files: u8,
    ranks: u8,
    coords: Vec<(i8, i8)>,
    names: Vec<String>,
    citadels: Vec<Citadel>,
    main: Bitboard,
    rank_masks: Vec<Bitboard>,
}

impl Geometry {
    /// A `files` x `ranks` board plus extra squares given as `(name, owner, file, rank)`.
    ///
    /// Fails with a message if the shape is impossible (too many squares, an extra square on the
    /// board or not next to it, two squares in one place, a name that is not unique).
    pub fn new(
        files: u8,
        ranks: u8,
        extra: &[(String, Color, i8, i8)],
    ) -> Result<Geometry, String> {
        if !(1..=26).contains(&files) || !(1..=99).contains(&ranks) {
            return Err(format!(
                "a board needs 1-26 files and 1-99 ranks, not {files}x{ranks}"
            ));
        }
        let total = files as usize * ranks as usize + extra.len();
        if total > MAX_SQUARES {
            return Err(format!(
                "the board has {total} squares; at most {MAX_SQUARES} are supported"
            ));
        }
        let mut coords = Vec::with_capacity(total);
        let mut names = Vec::with_capacity(total);
        for r in 1..=ranks as i8 {
            for f in 1..=files as i8 {
                coords.push((f, r));
                names.push(format!("{}{}", (b'a' + (f - 1) as u8) as char, r));
            }
        }
        let mut citadels = Vec::new();
        for (name, owner, f, r) in extra {
            let (f, r) = (*f, *r);
            let inside = (1..=files as i8).contains(&f) && (1..=ranks as i8).contains(&r);
            let beside = (f == 0 || f == files as i8 + 1) && (1..=ranks as i8).contains(&r);
            if inside || !beside {
                return Err(format!(
                    "extra square {name} at file {f}, rank {r} must lie just left (file 0) or right (file {}) of a rank",
                    files as i32 + 1
                ));
            }
            if coords.contains(&(f, r)) {
                return Err(format!("two extra squares at file {f}, rank {r}"));
            }
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_lowercase())
                || names.iter().any(|n| n == name)
            {
                return Err(format!(
                    "extra square name {name:?} must be unique lowercase letters without digits"
                ));
            }
            citadels.push(Citadel {
                name: name.clone(),
                square: Square(coords.len() as u8),
                owner: *owner,
            });
            coords.push((f, r));
            names.push(name.clone());
        }
        let mut main = Bitboard::EMPTY;
        for i in 0..files as usize * ranks as usize {
            main |= Square(i as u8).bit();
        }
        let mut rank_masks = vec![Bitboard::EMPTY; ranks as usize + 1];
        for (i, &(_, r)) in coords.iter().enumerate() {
            if i < files as usize * ranks as usize {
                rank_masks[r as usize] |= Square(i as u8).bit();
            }
        }
        Ok(Geometry {
            files,
            ranks,
            coords,
            names,
            citadels,
            main,
            rank_masks,
        })
    }

    /// Number of files of the main board (the rectangle; citadels not counted).
    pub fn files(&self) -> u8 {
        self.files
    }

    /// Number of ranks of the main board.
    pub fn ranks(&self) -> u8 {
        self.ranks
    }

    /// Number of squares, extra squares included.
    pub fn len(&self) -> usize {
        self.coords.len()
    }

    /// Whether there are no squares at all (never so for a variant's board).
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// All squares in number order.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.coords.len()).map(|i| Square(i as u8))
    }

    /// The square of the rectangle at 0-based `(file, rank)`: squares are numbered rank by
    /// rank, so this is arithmetic, with no look-up to wait on.
    #[inline]
    pub fn main_square(&self, file: u8, rank: u8) -> Option<Square> {
        (file < self.files && rank < self.ranks).then(|| {
            Square((usize::from(rank) * usize::from(self.files) + usize::from(file)) as u8)
        })
    }

    /// The square at 1-based `(file, rank)`, extra squares included.
    #[inline]
    pub fn at(&self, file: i8, rank: i8) -> Option<Square> {
        if file >= 1
            && rank >= 1
            && let Some(sq) = self.main_square((file - 1) as u8, (rank - 1) as u8)
        {
            return Some(sq);
        }
        self.citadels
            .iter()
            .find(|c| self.coords[c.square.index()] == (file, rank))
            .map(|c| c.square)
    }

    /// 1-based `(file, rank)` of a square.
    pub fn coords(&self, sq: Square) -> (i8, i8) {
        self.coords.get(sq.index()).copied().unwrap_or((0, 0))
    }

    /// The rank of a square (1-based).
    pub fn rank(&self, sq: Square) -> i8 {
        self.coords(sq).1
    }

    /// The square's name (`e4`, `k10`, `wc`).
    pub fn name(&self, sq: Square) -> &str {
        self.names
            .get(sq.index())
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Looks a square up by name, citadel names included.
    pub fn parse(&self, name: &str) -> Option<Square> {
        let bytes = name.as_bytes();
        let split = bytes.iter().position(|b| b.is_ascii_digit());
        match split {
            Some(1) if bytes.len() <= 3 => {
                let f = bytes[0].wrapping_sub(b'a') as i8 + 1;
                let r: i8 = name[1..].parse().ok()?;
                if name[1..].starts_with('0') {
                    return None;
                }
                if (1..=self.files as i8).contains(&f) && (1..=self.ranks as i8).contains(&r) {
                    self.at(f, r)
                } else {
                    None
                }
            }
            None => self
                .citadels
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.square),
            _ => None,
        }
    }

    /// Whether the square is on the rectangle (not an extra square).
    #[inline]
    pub fn is_main(&self, sq: Square) -> bool {
        self.main.contains(sq)
    }

    /// The squares of the rectangle.
    pub fn main_squares(&self) -> Bitboard {
        self.main
    }

    /// The rectangle's squares on a rank (1-based), extra squares excluded.
    pub fn rank_mask(&self, rank: i8) -> Bitboard {
        self.rank_masks
            .get(rank.max(0) as usize)
            .copied()
            .unwrap_or(Bitboard::EMPTY)
    }

    /// A rank counted from a side's own edge: `relative_rank(White, 1)` is rank 1,
    /// `relative_rank(Black, 1)` the top rank.
    pub fn relative_rank(&self, color: Color, n: i8) -> i8 {
        match color {
            Color::White => n,
            Color::Black => self.ranks as i8 + 1 - n,
        }
    }

    /// The citadels (extra squares).
    pub fn citadels(&self) -> &[Citadel] {
        &self.citadels
    }

    /// The citadel on a square, if it is one.
    pub fn citadel(&self, sq: Square) -> Option<&Citadel> {
        self.citadels.iter().find(|c| c.square == sq)
    }

    /// The cells of a rank from left to right, extra squares included, as a position string
    /// writes them.
    pub fn row(&self, rank: i8) -> Vec<Square> {
        let mut cells: Vec<(i8, Square)> = self
            .squares()
            .filter(|&s| self.coords(s).1 == rank)
            .map(|s| (self.coords(s).0, s))
            .collect();
        cells.sort_unstable();
        cells.into_iter().map(|(_, s)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tamerlane() -> Geometry {
        Geometry::new(
            11,
            10,
            &[
                ("wc".into(), Color::White, 12, 2),
                ("bc".into(), Color::Black, 0, 9),
            ],
        )
        .unwrap()
    }

    #[test]
    fn tamerlane_has_112_squares_and_named_citadels() {
        let g = tamerlane();
        assert_eq!(g.len(), 112);
        assert_eq!(g.name(g.parse("k10").unwrap()), "k10");
        assert_eq!(g.parse("wc"), g.at(12, 2));
        assert_eq!(g.parse("bc"), g.at(0, 9));
        assert_eq!(g.parse("l2"), None);
        assert_eq!(g.parse("a11"), None);
        assert_eq!(g.parse("a0"), None);
        assert_eq!(g.parse("a01"), None);
        assert_eq!(g.row(2).len(), 12);
        assert_eq!(g.name(*g.row(9).first().unwrap()), "bc");
        assert_eq!(g.name(*g.row(2).last().unwrap()), "wc");
    }

    /// The rectangle's squares by coordinates are those of `at` that `is_main` accepts; the
    /// citadels beside it are not among them.
    #[test]
    fn main_square_is_at_on_the_rectangle() {
        for g in [tamerlane(), Geometry::new(8, 8, &[]).unwrap()] {
            let mut found = 0;
            for rank in 0..20u8 {
                for file in 0..20u8 {
                    let want = g
                        .at(file as i8 + 1, rank as i8 + 1)
                        .filter(|&s| g.is_main(s));
                    assert_eq!(g.main_square(file, rank), want, "{file} {rank}");
                    found += usize::from(want.is_some());
                }
            }
            assert_eq!(found, g.files() as usize * g.ranks() as usize);
        }
        let g = tamerlane();
        assert_eq!(g.main_square(10, 9).map(|s| g.name(s)), Some("k10"));
        assert_eq!(g.main_square(11, 1), None, "the white citadel's place");
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(Geometry::new(12, 11, &[]).is_err());
        assert!(Geometry::new(8, 8, &[("x".into(), Color::White, 3, 3)]).is_err());
        assert!(Geometry::new(8, 8, &[("x".into(), Color::White, 10, 3)]).is_err());
        assert!(Geometry::new(8, 8, &[("x1".into(), Color::White, 9, 3)]).is_err());
    }
}
