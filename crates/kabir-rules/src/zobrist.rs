//! Zobrist keys for position hashes.
//!
//! Databases store these hashes, so they must never change: each key is derived from stable
//! names (the piece id, the colour, the square's coordinates) through FNV-1a and the SplitMix64
//! finaliser, not from the order of anything in a definition file. `tests/zobrist.rs` pins them.

use super::color::Color;
use super::geometry::Geometry;
use super::square::Square;
use super::variant::KindInfo;

/// The keys of one variant.
#[derive(Debug, Clone)]
pub(crate) struct Zobrist {
    nsq: usize,
    /// Indexed by `piece code * nsq + square`.
    pieces: Vec<u64>,
    pub side: u64,
    pub swap: [u64; 2],
}

/// SplitMix64's output function: a bijective mixer.
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key for a text label.
pub(crate) fn key(label: &str) -> u64 {
    let mut h = Fnv::new();
    h.write(label.as_bytes());
    h.finish()
}

/// FNV-1a over a label given in pieces; [`Fnv::finish`] gives the label's [`key`].
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Writes `n` in decimal, as `format!("{n}")` would.
    fn write_int(&mut self, n: i8) {
        let (text, len) = decimal(n);
        self.write(text.get(..len).unwrap_or(&[]));
    }

    fn finish(self) -> u64 {
        mix(mix(self.0))
    }
}

/// `n` in decimal, as `format!("{n}")` writes it: the bytes and how many are used.
fn decimal(n: i8) -> ([u8; 4], usize) {
    let mut digits = [0u8; 4];
    let mut len = 0;
    let mut m = n.unsigned_abs();
    loop {
        digits[len] = b'0' + m % 10;
        len += 1;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        digits[len] = b'-';
        len += 1;
    }
    digits[..len].reverse();
    (digits, len)
}

impl Zobrist {
    pub fn new(geometry: &Geometry, kinds: &[KindInfo]) -> Zobrist {
        let nsq = geometry.len();
        // Laid out in the order of `piece code * nsq + square`, code 0 (no piece) first.
        let mut pieces = Vec::with_capacity((1 + 2 * kinds.len()) * nsq);
        pieces.resize(nsq, 0);
        // Every query process builds these keys, thousands per variant: the label's common
        // prefix is hashed once, and so is its continuation with each file of the board;
        // no label is ever allocated.
        let files = i8::try_from(geometry.files()).unwrap_or(i8::MAX);
        let ranks = i8::try_from(geometry.ranks()).unwrap_or(i8::MAX);
        // Each rank's text is written thousands of times: it is made once.
        let rank_text: Vec<([u8; 4], usize)> = (1..=ranks).map(decimal).collect();
        let mut after_file = Vec::with_capacity(usize::from(geometry.files()));
        for info in kinds {
            for color in Color::ALL {
                let mut prefix = Fnv::new();
                prefix.write(b"piece ");
                prefix.write(info.id.as_bytes());
                prefix.write(b" ");
                prefix.write(color.name().as_bytes());
                prefix.write(b" ");
                after_file.clear();
                after_file.extend((1..=files).map(|f| {
                    let mut h = prefix;
                    h.write_int(f);
                    h.write(b" ");
                    h
                }));
                for sq in geometry.squares() {
                    let (f, r) = geometry.coords(sq);
                    let mut h = match after_file.get((f as usize).wrapping_sub(1)) {
                        Some(&h) => h,
                        None => {
                            let mut h = prefix;
                            h.write_int(f);
                            h.write(b" ");
                            h
                        }
                    };
                    match rank_text.get((r as usize).wrapping_sub(1)) {
                        Some((text, len)) => h.write(text.get(..*len).unwrap_or(&[])),
                        None => h.write_int(r),
                    }
                    pieces.push(h.finish());
                }
            }
        }
        Zobrist {
            nsq,
            pieces,
            side: key("black to move"),
            swap: [key("swap white"), key("swap black")],
        }
    }

    /// The key of a piece (board code) on a square; 0 for an empty square.
    #[inline]
    pub fn piece(&self, code: u8, sq: Square) -> u64 {
        self.pieces
            .get(code as usize * self.nsq + sq.index())
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod fnv_tests {
    use super::{Fnv, key};

    #[test]
    fn pieces_hash_as_the_whole_label() {
        for n in [i8::MIN, -100, -10, -9, -1, 0, 1, 9, 10, 99, 100, i8::MAX] {
            let mut h = Fnv::new();
            h.write(b"piece x white ");
            h.write_int(n);
            h.write(b" ");
            h.write_int(-n.saturating_add(1));
            let label = format!("piece x white {n} {}", -n.saturating_add(1));
            assert_eq!(h.finish(), key(&label), "{label}");
        }
    }
}
