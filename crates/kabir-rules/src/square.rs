//! Squares and square sets.

/// A square of a variant's board, numbered `0..Geometry::len()`.
///
/// The main board comes first, rank by rank from White's side (`a1`, `b1`, ...); extra squares
/// such as citadels follow. A `Square` only means something together with its
/// [`Geometry`](super::Geometry), which names it and knows its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    /// The square's number, usable as an index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The single-square set.
    #[inline]
    pub const fn bit(self) -> Bitboard {
        // A table look-up is cheaper than a variable 128-bit shift.
        Bitboard(BITS[(self.0 & 127) as usize])
    }
}

/// `1 << n` for every square number `n`.
const BITS: [u128; 128] = {
    let mut t = [0u128; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = 1 << i;
        i += 1;
    }
    t
};

/// A set of squares (boards have at most 128 squares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

impl Bitboard {
    /// The set with no squares.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether the set holds no square.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds at least one square (the opposite of [`Bitboard::is_empty`]).
    #[inline]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        // One 64-bit half and a shift within it: cheaper than a 128-bit shift.
        let half = if sq.0 & 64 == 0 {
            self.0 as u64
        } else {
            (self.0 >> 64) as u64
        };
        (half >> (sq.0 & 63)) & 1 != 0
    }

    /// The number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set holds exactly one square: cheaper than [`Bitboard::count`] where the
    /// processor has no population count.
    #[inline]
    pub const fn is_single(self) -> bool {
        self.0 != 0 && self.0 & (self.0 - 1) == 0
    }

    /// Whether the two sets have a square in common.
    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square(self.0.trailing_zeros() as u8))
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl std::ops::$tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl std::ops::$atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_single_agrees_with_count() {
        let sets = [
            0u128,
            1,
            2,
            3,
            1 << 63,
            1 << 64,
            1 << 127,
            (1 << 64) | 1,
            u128::MAX,
        ];
        for s in sets {
            let b = Bitboard(s);
            assert_eq!(b.is_single(), b.count() == 1, "{s:#x}");
        }
    }
}
