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
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix(mix(h))
}

impl Zobrist {
    pub fn new(geometry: &Geometry, kinds: &[KindInfo]) -> Zobrist {
        let nsq = geometry.len();
        let mut pieces = vec![0u64; (1 + 2 * kinds.len()) * nsq];
        for (k, info) in kinds.iter().enumerate() {
            for color in Color::ALL {
                let code = 1 + 2 * k + color.index();
                for sq in geometry.squares() {
                    let (f, r) = geometry.coords(sq);
                    pieces[code * nsq + sq.index()] =
                        key(&format!("piece {} {} {f} {r}", info.id, color.name()));
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
