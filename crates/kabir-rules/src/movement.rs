//! Movement rules compiled into per-square tables.
//!
//! Every movement rule becomes, for each colour and start square, a list of *rays*: sequences
//! of targets, each with the set of squares that must be empty to reach it. Walking a ray stops
//! at the first blocked target, which is exact because the compiler only groups targets whose
//! blocking sets grow along the ray. Attack detection uses the same targets read backwards.

use super::color::Color;
use super::definition::{MoveDef, MoveMode, Symmetry};
use super::geometry::Geometry;
use super::square::{Bitboard, Square};

pub(crate) const MODE_MOVE: u8 = 1;
pub(crate) const MODE_CAPTURE: u8 = 2;

/// The most steps a leg may take: enough to cross any supported board.
const UNLIMITED: u8 = 127;

/// One destination of a ray.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    /// Squares that must be empty to reach `to`.
    pub mask: Bitboard,
    pub to: Square,
    /// `MODE_MOVE | MODE_CAPTURE` bits.
    pub mode: u8,
    /// An occupied `to` blocks every later target of the ray.
    pub stop: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Range {
    start: u32,
    end: u32,
}

/// A backward lookup for attacks on one square.
#[derive(Debug, Clone, Copy, Default)]
struct Reverse {
    start: u32,
    end: u32,
    /// Squares from which this movement can capture on the square.
    from: Bitboard,
    /// No entry needs empty squares: any piece on `from` attacks.
    pure: bool,
    /// Each origin has one entry, so an origin's entry is found by counting the origins
    /// below it (see [`entry_of`]).
    unique: bool,
}

/// The ways onto one square, sorted by origin.
#[derive(Debug, Clone, Copy, Default)]
struct Arrivals {
    start: u32,
    end: u32,
    /// Each origin has one entry (see [`Reverse::unique`]).
    unique: bool,
}

/// The index, among entries sorted by origin with one entry per origin, of the entry of
/// `from`, given the set of all origins: the number of origins below it.
#[inline(always)]
fn entry_of(origins: Bitboard, from: Square) -> usize {
    let below = (1u128 << from.0) - 1;
    (origins.0 & below).count_ones() as usize
}

/// One way onto a square: its origin, whether it moves or captures there (`MODE_*` bits) and
/// the squares that must be empty, as an index into [`MoveTable::masks`] (0 for none). Kept
/// small so that the tables a replay reads stay in cache.
#[derive(Debug, Clone, Copy)]
struct Way {
    from: u8,
    mode: u8,
    mask: u32,
}

/// The compiled moves of one movement class (all pieces that move alike share one).
#[derive(Debug, Clone)]
pub(crate) struct MoveTable {
    nsq: usize,
    targets: Vec<Target>,
    rays: Vec<Range>,
    /// Per `color * nsq + square`: the rays, and whether destinations may repeat.
    by_square: Vec<(Range, bool)>,
    reverse_entries: Vec<Way>,
    reverse: Vec<Reverse>,
    /// The distinct sets of squares that ways need empty; the first is the empty set.
    masks: Vec<Bitboard>,
    /// Per `color * nsq + square`: the squares from which any rule of the class (moving or
    /// capturing) can reach it, ignoring blockers.
    reach: Vec<Bitboard>,
    /// For each color and destination, every way there: `(from, mask, mode)`, so the pieces
    /// able to move to one square are found without generating their other moves.
    arrivals: Vec<Arrivals>,
    arrival_entries: Vec<Way>,
    /// Whether any rule of the class can capture (a move-only class never attacks).
    pub captures: bool,
    /// The class moves alike for both colours: Black's ways onto each square are White's.
    pub alike: bool,
    /// Every way is a leap (needs no empty squares): then `leap_reach` answers for a piece
    /// without a look-up of its way.
    leaps_only: bool,
    /// For a class of leaps only, per `color * nsq + square`: the squares from which it can
    /// move there (first) and capture there (second).
    leap_reach: Vec<(Bitboard, Bitboard)>,
}

/// A leg with resolved counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Leg {
    dx: i8,
    dy: i8,
    min: u8,
    max: u8,
}

fn legs_of(def: &MoveDef) -> Result<Vec<Leg>, String> {
    let given = [def.leap.is_some(), def.slide.is_some(), def.legs.is_some()]
        .iter()
        .filter(|&&b| b)
        .count();
    if given != 1 {
        return Err("a move needs exactly one of `leap`, `slide` or `legs`".into());
    }
    let legs = if let Some([dx, dy]) = def.leap {
        if def.min.is_some() || def.max.is_some() {
            return Err("`min`/`max` go with `slide`, not `leap`".into());
        }
        vec![Leg {
            dx,
            dy,
            min: 1,
            max: 1,
        }]
    } else if let Some([dx, dy]) = def.slide {
        let min = def.min.unwrap_or(1);
        let max = def.max.unwrap_or(UNLIMITED);
        vec![Leg { dx, dy, min, max }]
    } else {
        if def.min.is_some() || def.max.is_some() {
            return Err("`min`/`max` belong inside each leg of `legs`".into());
        }
        let list = def.legs.as_deref().unwrap_or(&[]);
        if list.is_empty() {
            return Err("`legs` is empty".into());
        }
        list.iter()
            .map(|l| {
                let (min, max) = match (l.min, l.max) {
                    (None, None) => (1, 1),
                    (Some(m), None) => (m, UNLIMITED),
                    (None, Some(m)) => (1, m),
                    (Some(a), Some(b)) => (a, b),
                };
                Leg {
                    dx: l.step[0],
                    dy: l.step[1],
                    min,
                    max,
                }
            })
            .collect()
    };
    for l in &legs {
        if l.dx == 0 && l.dy == 0 {
            return Err("a step of [0, 0] goes nowhere".into());
        }
        if l.min == 0 || l.min > l.max {
            return Err(format!(
                "a leg needs 1 <= min <= max, not min {} max {}",
                l.min, l.max
            ));
        }
    }
    if legs.iter().filter(|l| l.min != l.max).count() > 1 {
        return Err("at most one leg of a path may have a variable length".into());
    }
    if def.from_rank == Some(0) {
        return Err("`from_rank` counts from 1".into());
    }
    Ok(legs)
}

/// A rotation or reflection of a vector.
type Image = fn(i8, i8) -> (i8, i8);

fn images(sym: Symmetry) -> &'static [Image] {
    const ALL: [Image; 8] = [
        |x, y| (x, y),
        |x, y| (-x, y),
        |x, y| (x, -y),
        |x, y| (-x, -y),
        |x, y| (y, x),
        |x, y| (-y, x),
        |x, y| (y, -x),
        |x, y| (-y, -x),
    ];
    match sym {
        Symmetry::All => &ALL,
        Symmetry::Mirror => &ALL[..2],
        Symmetry::MirrorBoth => &ALL[..4],
        Symmetry::None => &ALL[..1],
    }
}

/// Checks a movement rule without a board.
pub(crate) fn check(def: &MoveDef) -> Result<(), String> {
    legs_of(def).map(|_| ())
}

/// The numbers of the distinct masks while a table is built: an open-addressed table of
/// numbers into [`MoveTable::masks`]. Number 0, the empty set, is never stored, so it marks a
/// free slot. A general hash map took a seventh of compiling a variant, which every command
/// pays; the masks come from the variant's own definition, never from an adversary.
struct MaskNumbers {
    slots: Vec<u32>,
    shift: u32,
}

impl MaskNumbers {
    /// Room for `ways` ways that need a mask: at least twice as many slots as masks, so that
    /// probes stay short and a free slot is always found.
    fn new(ways: usize) -> MaskNumbers {
        let len = (2 * ways).next_power_of_two().max(2);
        MaskNumbers {
            slots: vec![0; len],
            shift: 64 - len.trailing_zeros(),
        }
    }

    /// The number of `mask` in `masks`, which gets it if it is new.
    fn number(&mut self, masks: &mut Vec<Bitboard>, mask: Bitboard) -> u32 {
        if mask.is_empty() {
            return 0;
        }
        let folded = (mask.0 as u64) ^ ((mask.0 >> 64) as u64).rotate_left(29);
        let mut slot = (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        let wrap = self.slots.len() - 1;
        loop {
            match self.slots[slot] {
                0 => {
                    let n = masks.len() as u32;
                    masks.push(mask);
                    self.slots[slot] = n;
                    return n;
                }
                n if masks[n as usize] == mask => return n,
                _ => slot = (slot + 1) & wrap,
            }
        }
    }
}

/// For a class that moves alike for both colours, the White path each of Black's paths
/// walks as: the one turned over, with the same mode. `None` when one has no such twin, or
/// starts on a given rank (the ranks differ by colour).
fn mirror_paths(paths: &[(Vec<Leg>, u8, Option<u8>)]) -> Option<Vec<usize>> {
    let turned = |a: &[Leg], b: &[Leg]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(a, b)| {
                a.dx == b.dx
                    && i16::from(a.dy) == -i16::from(b.dy)
                    && a.min == b.min
                    && a.max == b.max
            })
    };
    paths
        .iter()
        .map(|(legs, mode, from_rank)| {
            if from_rank.is_some() {
                return None;
            }
            paths
                .iter()
                .position(|(other, m, r)| m == mode && r.is_none() && turned(other, legs))
        })
        .collect()
}

/// The most destinations one path can have from a square: one, or one per length of its
/// variable leg. Those lengths end on the board but for the last (a citadel), and a line
/// crosses the board on at most as many squares as the board is long or wide.
fn most_destinations(geometry: &Geometry, legs: &[Leg]) -> usize {
    legs.iter().find(|l| l.min != l.max).map_or(1, |v| {
        let across = usize::from(geometry.files().max(geometry.ranks())) + 1;
        (usize::from(v.max - v.min) + 1).min(across)
    })
}

impl MoveTable {
    /// Compiles the rules of one movement class for a board.
    /// `steps` is shared by the classes of a board: most directions serve several.
    pub fn new(
        geometry: &Geometry,
        defs: &[MoveDef],
        steps: &mut Steps,
    ) -> Result<MoveTable, String> {
        let nsq = geometry.len();
        let mut table = MoveTable {
            nsq,
            targets: Vec::new(),
            rays: Vec::new(),
            by_square: Vec::with_capacity(2 * nsq),
            reverse_entries: Vec::new(),
            reverse: Vec::with_capacity(2 * nsq),
            masks: vec![Bitboard::EMPTY],
            reach: Vec::with_capacity(2 * nsq),
            arrivals: Vec::with_capacity(2 * nsq),
            arrival_entries: Vec::new(),
            captures: defs.iter().any(|d| d.mode != MoveMode::Move),
            alike: false,
            leaps_only: false,
            leap_reach: Vec::new(),
        };
        // Every rule under every image, once each.
        let mut paths: Vec<(Vec<Leg>, u8, Option<u8>)> = Vec::new();
        for def in defs {
            let legs = legs_of(def)?;
            let mode = match def.mode {
                MoveMode::Both => MODE_MOVE | MODE_CAPTURE,
                MoveMode::Move => MODE_MOVE,
                MoveMode::Capture => MODE_CAPTURE,
            };
            for f in images(def.symmetry) {
                let image: Vec<Leg> = legs
                    .iter()
                    .map(|l| {
                        let (dx, dy) = f(l.dx, l.dy);
                        Leg { dx, dy, ..*l }
                    })
                    .collect();
                let entry = (image, mode, def.from_rank);
                if !paths.contains(&entry) {
                    paths.push(entry);
                }
            }
        }
        // Every command that reads a position compiles its variant first, so no list here
        // grows by copying: the targets and rays get room for the most each path can reach,
        // and the ways onto each square (`color * nsq + destination`) are counted while
        // walking, then laid out square by square from the targets, in the order found.
        let room = 2
            * nsq
            * paths
                .iter()
                .map(|(legs, _, _)| most_destinations(geometry, legs))
                .sum::<usize>();
        table.targets.reserve_exact(room);
        table.rays.reserve_exact(room);
        // Most classes move alike for both colours: Black's rays from a square are then
        // White's, path by path in Black's order, and are copied rather than walked again.
        let mirror = mirror_paths(&paths);
        table.alike = mirror.is_some();
        // The paths `extend` walks: fixed lengths but for the last leg.
        let direct: Vec<bool> = paths
            .iter()
            .map(|(legs, _, _)| legs.iter().rev().skip(1).all(|l| l.min == l.max))
            .collect();
        let mut spans: Vec<(Range, Range)> = Vec::new();
        if mirror.is_some() {
            spans.reserve_exact(nsq * paths.len());
        }
        let mut arrival_count = vec![0usize; 2 * nsq];
        let mut captures = 0;
        let mut masked = 0;
        let mut ray: Vec<(Square, Bitboard)> = Vec::new();
        let mut leaps: Vec<Option<(usize, u8)>> = Vec::new();
        for color in Color::ALL {
            if color == Color::Black
                && let Some(mirror) = &mirror
            {
                table.copy_white_rays(mirror, &spans, steps, &leaps);
                let (white, black) = arrival_count.split_at_mut(nsq);
                black.copy_from_slice(white);
                captures *= 2;
                masked *= 2;
                continue;
            }
            let offsets: Vec<Vec<usize>> = paths
                .iter()
                .map(|(legs, _, _)| {
                    legs.iter()
                        .map(|leg| steps.offset(geometry, leg, color))
                        .collect()
                })
                .collect();
            // Most paths are one leap: one look-up, with nothing to pass. Black's copies
            // use White's.
            leaps = paths
                .iter()
                .zip(&offsets)
                .map(
                    |((legs, mode, _), offsets)| match (legs.as_slice(), offsets.as_slice()) {
                        ([leg], [offset]) if leg.max == 1 => Some((*offset, *mode)),
                        _ => None,
                    },
                )
                .collect();
            for from in geometry.squares() {
                let start = table.rays.len() as u32;
                let square_start = table.targets.len();
                let mut seen = Bitboard::EMPTY;
                let mut repeats = false;
                for ((((legs, mode, from_rank), offsets), &direct), &leap) in
                    paths.iter().zip(&offsets).zip(&direct).zip(&leaps)
                {
                    if let Some(r) = from_rank
                        && (!geometry.is_main(from)
                            || geometry.rank(from) != geometry.relative_rank(color, *r as i8))
                    {
                        continue;
                    }
                    let first = table.targets.len();
                    let first_ray = table.rays.len();
                    if let Some((offset, _)) = leap {
                        if let Some(&to) = steps.next.get(offset + from.index())
                            && to != NOWHERE
                            && to != from.0
                        {
                            table.targets.push(Target {
                                mask: Bitboard::EMPTY,
                                to: Square(to),
                                mode: *mode,
                                stop: false,
                            });
                            table.rays.push(Range {
                                start: first as u32,
                                end: first as u32 + 1,
                            });
                        }
                    } else if direct {
                        extend(
                            steps,
                            offsets,
                            from,
                            legs,
                            *mode,
                            &mut table.targets,
                            &mut table.rays,
                        );
                    } else {
                        walk(steps, offsets, from, legs, &mut ray);
                        split(&ray, *mode, &mut table.targets, &mut table.rays);
                    }
                    // No path is left out where Black's are copied: one span per path that
                    // is not a leap.
                    if mirror.is_some() && leap.is_none() {
                        spans.push((
                            Range {
                                start: first as u32,
                                end: table.targets.len() as u32,
                            },
                            Range {
                                start: first_ray as u32,
                                end: table.rays.len() as u32,
                            },
                        ));
                    }
                    if mode & MODE_CAPTURE != 0 {
                        captures += table.targets.len() - first;
                    }
                }
                for target in &table.targets[square_start..] {
                    if seen.contains(target.to) {
                        repeats = true;
                    }
                    seen |= target.to.bit();
                    arrival_count[color.index() * nsq + target.to.index()] += 1;
                    masked += usize::from(target.mask.nonempty());
                }
                table.by_square.push((
                    Range {
                        start,
                        end: table.rays.len() as u32,
                    },
                    repeats,
                ));
            }
        }
        let arrival_bounds = bounds(&arrival_count);
        let none = Way {
            from: 0,
            mode: 0,
            mask: 0,
        };
        // Each colour's part is filled when laid out, or copied.
        let mut ways = Vec::with_capacity(arrival_bounds[2 * nsq]);
        let both = paths.iter().all(|p| p.1 == MODE_MOVE | MODE_CAPTURE);
        // Black's masks, where copied, are White's: only White's need room.
        let mut numbers = MaskNumbers::new(if mirror.is_some() { masked / 2 } else { masked });
        table.leaps_only = masked == 0;
        if table.leaps_only {
            table.leap_reach.reserve_exact(2 * nsq);
        }
        table.reverse_entries.reserve_exact(captures);
        for color in Color::ALL {
            // Where Black moves as White, each square has the same ways; in the same order
            // when each has one way from each origin.
            if color == Color::Black && mirror.is_some() && table.arrivals.iter().all(|a| a.unique)
            {
                table.copy_white_ways(&mut ways);
                continue;
            }
            ways.resize(arrival_bounds[(color.index() + 1) * nsq], none);
            table.lay_out(color, &arrival_bounds, &mut ways, &mut numbers, both);
        }
        table.arrival_entries = ways;
        Ok(table)
    }

    /// Black's rays, targets and squares copied from White's, for a class where Black's path
    /// `p` walks as White's path `mirror[p]`. `leaps` holds, per White path that is one leap,
    /// where its steps start in `steps` and its mode; `spans`, per White square and other
    /// path, its targets and rays.
    fn copy_white_rays(
        &mut self,
        mirror: &[usize],
        spans: &[(Range, Range)],
        steps: &Steps,
        leaps: &[Option<(usize, u8)>],
    ) {
        // The place of each path's span among those of a square.
        let mut span_of = vec![0; leaps.len()];
        let mut walked = 0;
        for (q, leap) in leaps.iter().enumerate() {
            if leap.is_none() {
                span_of[q] = walked;
                walked += 1;
            }
        }
        for from in 0..self.nsq {
            let start = self.rays.len() as u32;
            let row = spans.get(from * walked..(from + 1) * walked).unwrap_or(&[]);
            for &q in mirror {
                // A leap is one look-up: cheaper to take again than to copy.
                if let Some(&Some((offset, mode))) = leaps.get(q) {
                    if let Some(&to) = steps.next.get(offset + from)
                        && to != NOWHERE
                        && usize::from(to) != from
                    {
                        let start = self.targets.len() as u32;
                        self.targets.push(Target {
                            mask: Bitboard::EMPTY,
                            to: Square(to),
                            mode,
                            stop: false,
                        });
                        self.rays.push(Range {
                            start,
                            end: start + 1,
                        });
                    }
                    continue;
                }
                let Some(&(targets, rays)) = span_of.get(q).and_then(|&i| row.get(i)) else {
                    continue;
                };
                if targets.start == targets.end {
                    continue;
                }
                // The copies come after every White target.
                let moved_by = self.targets.len() as u32 - targets.start;
                self.targets
                    .extend_from_within(targets.start as usize..targets.end as usize);
                for i in rays.start as usize..rays.end as usize {
                    let r = self.rays[i];
                    self.rays.push(Range {
                        start: r.start + moved_by,
                        end: r.end + moved_by,
                    });
                }
            }
            let repeats = self.by_square.get(from).is_some_and(|&(_, r)| r);
            self.by_square.push((
                Range {
                    start,
                    end: self.rays.len() as u32,
                },
                repeats,
            ));
        }
    }

    /// Black's ways onto each square copied from White's, for a class where both move alike
    /// and each square has one way from each origin: the same ways in the same order.
    fn copy_white_ways(&mut self, ways: &mut Vec<Way>) {
        let nsq = self.nsq;
        let half = ways.len();
        ways.extend_from_within(..);
        let reverse_half = self.reverse_entries.len() as u32;
        self.reverse_entries.extend_from_within(..);
        for i in 0..nsq {
            let a = self.arrivals[i];
            self.arrivals.push(Arrivals {
                start: a.start + half as u32,
                end: a.end + half as u32,
                ..a
            });
            let r = self.reverse[i];
            self.reverse.push(Reverse {
                start: r.start + reverse_half,
                end: r.end + reverse_half,
                ..r
            });
        }
        if self.leaps_only {
            self.leap_reach.extend_from_within(..);
        }
        self.reach.extend_from_within(..);
    }

    /// Lays out the ways onto each square for one colour, in the order found: origins are
    /// walked in square order, so each square's list is sorted by origin. Then one pass over
    /// each square's ways numbers their masks in the order the ways list them, and gathers
    /// the origins that move and capture there, whether an origin repeats, and the ways that
    /// capture (in their order) for attacks. `both` says every way both moves and captures.
    fn lay_out(
        &mut self,
        color: Color,
        arrival_bounds: &[usize],
        ways: &mut [Way],
        numbers: &mut MaskNumbers,
        both: bool,
    ) {
        let nsq = self.nsq;
        let base = color.index() * nsq;
        // While laid out, a way's `mask` holds the index of its target.
        let mut next = arrival_bounds[base..base + nsq].to_vec();
        for (from, (rays, _)) in self.by_square[base..base + nsq].iter().enumerate() {
            let rays = &self.rays[rays.start as usize..rays.end as usize];
            let first = rays.first().map_or(0, |r| r.start as usize);
            let end = rays.last().map_or(0, |r| r.end as usize);
            for (t, target) in (first..end).zip(&self.targets[first..end]) {
                let key = target.to.index();
                ways[next[key]] = Way {
                    from: from as u8,
                    mode: target.mode,
                    mask: t as u32,
                };
                next[key] += 1;
            }
        }
        let ways = ways
            .get_mut(arrival_bounds[base]..arrival_bounds[base + nsq])
            .unwrap_or(&mut []);
        if self.leaps_only {
            for way in ways.iter_mut() {
                way.mask = 0;
            }
        } else {
            for way in ways.iter_mut() {
                let mask = self
                    .targets
                    .get(way.mask as usize)
                    .map_or(Bitboard::EMPTY, |t| t.mask);
                way.mask = numbers.number(&mut self.masks, mask);
            }
        }
        let first = arrival_bounds[base];
        for b in arrival_bounds[base..=base + nsq].windows(2) {
            let (start, end) = (b[0], b[1]);
            let reverse_start = self.reverse_entries.len() as u32;
            let (mut moves, mut takes) = (Bitboard::EMPTY, Bitboard::EMPTY);
            // No origin is below -1.
            let (mut last, mut last_take) = (-1i16, -1i16);
            let (mut unique, mut unique_takes, mut pure) = (true, true, true);
            let here = ways.get(start - first..end - first).unwrap_or(&[]);
            if both {
                // Every way both moves and captures: each is also a way to capture.
                for way in here {
                    let from = i16::from(way.from);
                    unique &= last < from;
                    last = from;
                    moves |= Square(way.from).bit();
                    pure &= way.mask == 0;
                }
                takes = moves;
                unique_takes = unique;
                self.reverse_entries.extend(here.iter().map(|w| Way {
                    mode: MODE_CAPTURE,
                    ..*w
                }));
            }
            for way in if both { &[] } else { here } {
                let from = i16::from(way.from);
                unique &= last < from;
                last = from;
                let origin = Square(way.from).bit();
                if way.mode & MODE_MOVE != 0 {
                    moves |= origin;
                }
                if way.mode & MODE_CAPTURE != 0 {
                    unique_takes &= last_take < from;
                    last_take = from;
                    takes |= origin;
                    pure &= way.mask == 0;
                    self.reverse_entries.push(Way {
                        from: way.from,
                        mode: MODE_CAPTURE,
                        mask: way.mask,
                    });
                }
            }
            self.arrivals.push(Arrivals {
                start: start as u32,
                end: end as u32,
                unique,
            });
            // Every way moves or captures.
            self.reach.push(moves | takes);
            if self.leaps_only {
                self.leap_reach.push((moves, takes));
            }
            self.reverse.push(Reverse {
                start: reverse_start,
                end: self.reverse_entries.len() as u32,
                from: takes,
                pure,
                unique: unique_takes,
            });
        }
    }

    /// The rays from a square, and whether a destination can be reached by several of them.
    #[inline]
    pub fn rays(&self, color: Color, from: Square) -> (impl Iterator<Item = &[Target]> + '_, bool) {
        let (range, repeats) = self.by_square[color.index() * self.nsq + from.index()];
        let rays = self.rays[range.start as usize..range.end as usize]
            .iter()
            .map(move |r| &self.targets[r.start as usize..r.end as usize]);
        (rays, repeats)
    }

    /// The squares from which a piece of this class and `color` could reach `to` on an empty
    /// board.
    #[inline]
    pub fn reach(&self, color: Color, to: Square) -> Bitboard {
        self.reach
            .get(color.index() * self.nsq + to.index())
            .copied()
            .unwrap_or(Bitboard::EMPTY)
    }

    /// The squares a way needs empty.
    #[inline(always)]
    fn mask(&self, way: &Way) -> Bitboard {
        if way.mask == 0 {
            return Bitboard::EMPTY;
        }
        self.masks
            .get(way.mask as usize)
            .copied()
            .unwrap_or(!Bitboard::EMPTY)
    }

    /// Every way a piece of this class and color can arrive on `to`: its origin, the squares
    /// that must be empty on the way, and whether it may move there, capture there or both.
    #[inline]
    pub fn arrivals(
        &self,
        color: Color,
        to: Square,
    ) -> impl Iterator<Item = (Square, Bitboard, u8)> + '_ {
        self.arrivals
            .get(color.index() * self.nsq + to.index())
            .and_then(|r| self.arrival_entries.get(r.start as usize..r.end as usize))
            .unwrap_or(&[])
            .iter()
            .map(|w| (Square(w.from), self.mask(w), w.mode))
    }

    /// For a class of leaps only: the squares from which a piece of `color` can go to `to` in
    /// one of the `need` modes, whatever stands between. `None` for a class that can be
    /// blocked.
    #[inline]
    pub fn leap_origins(&self, color: Color, to: Square, need: u8) -> Option<Bitboard> {
        if !self.leaps_only {
            return None;
        }
        let &(moves, captures) = self.leap_reach.get(color.index() * self.nsq + to.index())?;
        let mut origins = Bitboard::EMPTY;
        if need & MODE_MOVE != 0 {
            origins |= moves;
        }
        if need & MODE_CAPTURE != 0 {
            origins |= captures;
        }
        Some(origins)
    }

    /// Whether a piece of this class and `color` on `from` can go to `to` in one of the
    /// `need` modes (`MODE_MOVE`, `MODE_CAPTURE`), given the occupied squares. One table
    /// look-up when the square has one way from each origin (nearly always).
    // The leaps' answer, one look-up, is given inline; the ways that can be blocked are
    // looked at out of line.
    #[inline(always)]
    pub fn reaches(
        &self,
        color: Color,
        from: Square,
        to: Square,
        need: u8,
        occupied: Bitboard,
    ) -> bool {
        if self.leaps_only {
            return self
                .leap_origins(color, to, need)
                .is_some_and(|o| o.contains(from));
        }
        self.reaches_on_a_way(color, from, to, need, occupied)
    }

    /// [`MoveTable::reaches`] for a class with ways that can be blocked.
    #[inline(never)]
    fn reaches_on_a_way(
        &self,
        color: Color,
        from: Square,
        to: Square,
        need: u8,
        occupied: Bitboard,
    ) -> bool {
        let i = color.index() * self.nsq + to.index();
        let (Some(&reach), Some(r)) = (self.reach.get(i), self.arrivals.get(i)) else {
            return false;
        };
        if !reach.contains(from) {
            return false;
        }
        let fits = |w: &Way| w.mode & need != 0 && !self.mask(w).intersects(occupied);
        if r.unique {
            return self
                .arrival_entries
                .get(r.start as usize + entry_of(reach, from))
                .is_some_and(fits);
        }
        self.arrival_entries
            .get(r.start as usize..r.end as usize)
            .is_some_and(|list| list.iter().any(|w| w.from == from.0 && fits(w)))
    }

    /// Whether a piece of this class and `color` on one of `pieces` can capture on `to`, given
    /// the occupied squares.
    #[inline]
    pub fn attacks(&self, color: Color, to: Square, pieces: Bitboard, occupied: Bitboard) -> bool {
        let Some(rev) = self.reverse.get(color.index() * self.nsq + to.index()) else {
            return false;
        };
        let candidates = rev.from & pieces;
        if candidates.is_empty() {
            return false;
        }
        if rev.pure {
            return true;
        }
        let Some(entries) = self
            .reverse_entries
            .get(rev.start as usize..rev.end as usize)
        else {
            return false;
        };
        if rev.unique {
            return candidates.into_iter().any(|from| {
                entries
                    .get(entry_of(rev.from, from))
                    .is_some_and(|w| !self.mask(w).intersects(occupied))
            });
        }
        entries
            .iter()
            .any(|w| candidates.contains(Square(w.from)) && !self.mask(w).intersects(occupied))
    }

    /// The capture paths onto `to` for pieces of `color`: `(origin, squares that must be
    /// empty)`.
    pub(crate) fn capture_paths(
        &self,
        color: Color,
        to: Square,
    ) -> impl Iterator<Item = (Square, Bitboard)> + '_ {
        self.reverse
            .get(color.index() * self.nsq + to.index())
            .and_then(|r| self.reverse_entries.get(r.start as usize..r.end as usize))
            .unwrap_or(&[])
            .iter()
            .map(|w| (Square(w.from), self.mask(w)))
    }
}

impl MoveTable {
    /// The squares from which a piece of this class and `color` can capture on `to`, and
    /// every square one of those ways needs empty.
    pub(crate) fn captures_onto(&self, color: Color, to: Square) -> (Bitboard, Bitboard) {
        let Some(rev) = self.reverse.get(color.index() * self.nsq + to.index()) else {
            return (Bitboard::EMPTY, Bitboard::EMPTY);
        };
        if rev.pure {
            return (rev.from, Bitboard::EMPTY);
        }
        let passed = self
            .capture_paths(color, to)
            .fold(Bitboard::EMPTY, |all, (_, mask)| all | mask);
        (rev.from, passed)
    }

    /// The squares whose emptying could let a piece of this class on one of `pieces` capture
    /// on `to`: the union of the blocking sets of every way it could get there.
    #[inline]
    pub fn lines_to(&self, color: Color, to: Square, pieces: Bitboard) -> Bitboard {
        let Some(rev) = self.reverse.get(color.index() * self.nsq + to.index()) else {
            return Bitboard::EMPTY;
        };
        if rev.pure || (rev.from & pieces).is_empty() {
            return Bitboard::EMPTY;
        }
        let mut lines = Bitboard::EMPTY;
        for (from, mask) in self.capture_paths(color, to) {
            if pieces.contains(from) {
                lines |= mask;
            }
        }
        lines
    }
}

/// Where one step leads from each square, for each direction the legs of a class take for
/// either colour: walking a path is then a look-up per step, with no coordinates to check.
pub(crate) struct Steps {
    nsq: usize,
    /// The squares of the board's rectangle: a path may pass only these.
    main: Bitboard,
    /// The directions tabled so far, as they point for the colour that walks them.
    directions: Vec<(i16, i16)>,
    /// Per direction and square: the square one step leads to, or [`NOWHERE`].
    next: Vec<u8>,
}

/// A step off the board (square numbers stay below [`super::MAX_SQUARES`]).
const NOWHERE: u8 = u8::MAX;

impl Steps {
    /// No directions tabled yet, for the board `geometry`.
    pub(crate) fn new(geometry: &Geometry) -> Steps {
        Steps {
            nsq: geometry.len(),
            main: geometry.main_squares(),
            directions: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Where the steps of `leg` for `color` start in [`Steps::next`], tabled on first use.
    fn offset(&mut self, geometry: &Geometry, leg: &Leg, color: Color) -> usize {
        let flip: i16 = if color == Color::White { 1 } else { -1 };
        let direction = (i16::from(leg.dx), i16::from(leg.dy) * flip);
        if let Some(i) = self.directions.iter().position(|&d| d == direction) {
            return i * self.nsq;
        }
        self.directions.push(direction);
        let start = self.next.len();
        // Vectors in a definition file may be anything an i8 holds.
        let dy = i8::try_from(direction.1).ok();
        self.next.extend(geometry.squares().map(|sq| {
            let (f, r) = geometry.coords(sq);
            f.checked_add(leg.dx)
                .zip(dy.and_then(|dy| r.checked_add(dy)))
                .and_then(|(f, r)| geometry.at(f, r))
                .map_or(NOWHERE, |to| to.0)
        }));
        start
    }
}

/// The destinations of one path from `from`, in order of the variable leg's length, each with
/// the squares that must be empty on the way. `offsets` gives where each leg's steps start in
/// `steps`.
fn walk(
    steps: &Steps,
    offsets: &[usize],
    from: Square,
    legs: &[Leg],
    out: &mut Vec<(Square, Bitboard)>,
) {
    out.clear();
    // Most paths are one leap: one look-up, with nothing to pass.
    if let ([leg], [offset]) = (legs, offsets)
        && leg.min == 1
        && leg.max == 1
    {
        if let Some(&to) = steps.next.get(offset + from.index())
            && to != NOWHERE
            && to != from.0
        {
            out.push((Square(to), Bitboard::EMPTY));
        }
        return;
    }
    let mut walker = Walker {
        at: from,
        mask: Bitboard::EMPTY,
        moved: false,
    };
    let var = legs
        .iter()
        .position(|l| l.min != l.max)
        .unwrap_or(legs.len());
    for (leg, &offset) in legs.iter().zip(offsets).take(var) {
        for _ in 0..leg.min {
            if !walker.step(steps, offset) {
                return;
            }
        }
    }
    let (Some(variable), Some(&offset)) = (legs.get(var), offsets.get(var)) else {
        walker.finish(from, out);
        return;
    };
    let after = legs.iter().zip(offsets).skip(var + 1);
    // Each length of the variable leg extends the one before by a step, so a failure on the
    // way there ends every longer one too; the legs after it are walked for each length.
    for length in 1..=variable.max {
        if !walker.step(steps, offset) {
            return;
        }
        if length < variable.min {
            continue;
        }
        let mut end = walker;
        if after
            .clone()
            .all(|(leg, &offset)| (0..leg.min).all(|_| end.step(steps, offset)))
        {
            end.finish(from, out);
        }
    }
}

/// A path being walked: where it stands and the squares it has passed.
#[derive(Clone, Copy)]
struct Walker {
    at: Square,
    mask: Bitboard,
    /// Whether it has left its start.
    moved: bool,
}

impl Walker {
    /// One step from `offset` in `steps`; false if it leaves the board or passes a square off
    /// the main board (a citadel is a destination only).
    #[inline]
    fn step(&mut self, steps: &Steps, offset: usize) -> bool {
        if self.moved {
            if !steps.main.contains(self.at) {
                return false;
            }
            self.mask |= self.at.bit();
        }
        match steps.next.get(offset + self.at.index()) {
            Some(&to) if to != NOWHERE => {
                self.at = Square(to);
                self.moved = true;
                true
            }
            _ => false,
        }
    }

    /// Records the square reached, unless the path came back to `from` or passed it.
    fn finish(&self, from: Square, out: &mut Vec<(Square, Bitboard)>) {
        if self.moved && self.at != from && !self.mask.contains(from) {
            out.push((self.at, self.mask));
        }
    }
}

/// The rays of a path from `from` whose legs have fixed lengths but for the last, added to
/// `targets` and `rays`: what [`walk`] and [`split`] give, without the list between. Each
/// destination is then one step beyond the one before and passes it, so they form one ray
/// whose blocking sets grow, and each but the last stops it. `offsets` gives where each leg's
/// steps start in `steps`.
#[inline]
fn extend(
    steps: &Steps,
    offsets: &[usize],
    from: Square,
    legs: &[Leg],
    mode: u8,
    targets: &mut Vec<Target>,
    rays: &mut Vec<Range>,
) {
    let start = targets.len();
    // Most paths are one leap: one look-up, with nothing to pass.
    if let ([leg], [offset]) = (legs, offsets)
        && leg.max == 1
    {
        if let Some(&to) = steps.next.get(offset + from.index())
            && to != NOWHERE
            && to != from.0
        {
            targets.push(Target {
                mask: Bitboard::EMPTY,
                to: Square(to),
                mode,
                stop: false,
            });
            rays.push(Range {
                start: start as u32,
                end: start as u32 + 1,
            });
        }
        return;
    }
    let (Some((last, fixed)), Some((&offset, fixed_offsets))) =
        (legs.split_last(), offsets.split_last())
    else {
        return;
    };
    let mut walker = Walker {
        at: from,
        mask: Bitboard::EMPTY,
        moved: false,
    };
    for (leg, &offset) in fixed.iter().zip(fixed_offsets) {
        for _ in 0..leg.min {
            if !walker.step(steps, offset) {
                return;
            }
        }
    }
    for length in 1..=last.max {
        if !walker.step(steps, offset) {
            break;
        }
        if length < last.min {
            continue;
        }
        // Once a path comes back to its start, every longer one passes it.
        if walker.at == from || walker.mask.contains(from) {
            break;
        }
        targets.push(Target {
            mask: walker.mask,
            to: walker.at,
            mode,
            stop: true,
        });
    }
    if let Some(last) = targets.get_mut(start..).and_then(|t| t.last_mut()) {
        last.stop = false;
        rays.push(Range {
            start: start as u32,
            end: targets.len() as u32,
        });
    }
}

/// The destinations of a path, as [`walk`] gives them, split into rays along which blocking
/// sets only grow, added to `targets` and `rays`. A destination stops its ray when the next
/// one passes it.
fn split(ray: &[(Square, Bitboard)], mode: u8, targets: &mut Vec<Target>, rays: &mut Vec<Range>) {
    let mut group_start = 0;
    while group_start < ray.len() {
        let group = monotone_run(&ray[group_start..]);
        group_start += group.len();
        let start = targets.len() as u32;
        for (i, &(to, mask)) in group.iter().enumerate() {
            let stop = group.get(i + 1).is_some_and(|&(_, next)| next.contains(to));
            targets.push(Target {
                mask,
                to,
                mode,
                stop,
            });
        }
        rays.push(Range {
            start,
            end: targets.len() as u32,
        });
    }
}

/// The bounds of consecutive groups of the given sizes: group `k` is
/// `bounds[k]..bounds[k + 1]`.
fn bounds(counts: &[usize]) -> Vec<usize> {
    let mut bounds = Vec::with_capacity(counts.len() + 1);
    let mut total = 0;
    bounds.push(0);
    for &n in counts {
        total += n;
        bounds.push(total);
    }
    bounds
}

/// The first ray of a path's destinations (not empty): the longest start along which
/// blocking sets only grow. A path splits into such rays.
fn monotone_run(targets: &[(Square, Bitboard)]) -> &[(Square, Bitboard)] {
    let len = targets
        .windows(2)
        .take_while(|w| (w[0].1 & w[1].1) == w[0].1)
        .count()
        + 1;
    &targets[..len.min(targets.len())]
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        sq.bit()
    }
}

#[cfg(test)]
mod walk_tests {
    use proptest::prelude::*;

    use super::{Bitboard, Color, Geometry, Leg, Square, Steps, Target, extend, split, walk};

    /// The walk as the definition reads: each length of the variable leg from the start.
    fn walk_from_scratch(
        geometry: &Geometry,
        from: Square,
        color: Color,
        legs: &[Leg],
    ) -> Vec<(Square, Bitboard)> {
        let flip = if color == Color::White { 1 } else { -1 };
        let var = legs.iter().position(|l| l.min != l.max);
        let (lo, hi) = var.map_or((0, 0), |i| (legs[i].min, legs[i].max));
        let mut out = Vec::new();
        for length in lo..=hi {
            let (mut f, mut r) = geometry.coords(from);
            let mut mask = Bitboard::EMPTY;
            let mut last: Option<Square> = None;
            let mut ok = true;
            'legs: for (i, leg) in legs.iter().enumerate() {
                let count = if Some(i) == var { length } else { leg.min };
                for _ in 0..count {
                    if let Some(prev) = last {
                        if !geometry.is_main(prev) {
                            ok = false;
                            break 'legs;
                        }
                        mask |= prev.bit();
                    }
                    f += leg.dx;
                    r += leg.dy * flip;
                    match geometry.at(f, r) {
                        Some(sq) => last = Some(sq),
                        None => {
                            ok = false;
                            break 'legs;
                        }
                    }
                }
            }
            if let (true, Some(to)) = (ok, last)
                && to != from
                && !mask.contains(from)
            {
                out.push((to, mask));
            }
        }
        out
    }

    fn leg() -> impl Strategy<Value = Leg> {
        (-3i8..=3, -3i8..=3, 1u8..=3, 0u8..=12)
            .prop_filter("a step goes somewhere", |&(dx, dy, _, _)| {
                (dx, dy) != (0, 0)
            })
            .prop_map(|(dx, dy, min, extra)| Leg {
                dx,
                dy,
                min,
                max: min + extra,
            })
    }

    /// What walking `legs` from square number `square` takes on Tamerlane's board (11 files by
    /// 10 ranks and its two citadels): the board, its steps, the legs' offsets in them, the
    /// square and the colour.
    fn walking(
        legs: &[Leg],
        square: usize,
        white: bool,
    ) -> (Geometry, Steps, Vec<usize>, Square, Color) {
        let geometry = Geometry::new(
            11,
            10,
            &[
                ("wc".to_string(), Color::White, 12, 2),
                ("bc".to_string(), Color::Black, 0, 9),
            ],
        )
        .unwrap();
        let color = if white { Color::White } else { Color::Black };
        let mut steps = Steps::new(&geometry);
        let offsets = legs
            .iter()
            .map(|leg| steps.offset(&geometry, leg, color))
            .collect();
        (geometry, steps, offsets, Square(square as u8), color)
    }

    proptest! {
        // Paths through a citadel or back over the origin are rare among random ones.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn walk_is_the_walk_of_each_length_from_the_start(
            legs in proptest::collection::vec(leg(), 1..=3),
            variable in 0usize..3,
            square in 0usize..112,
            white in any::<bool>(),
        ) {
            // At most one leg has a variable length: the others are fixed at their minimum.
            let legs: Vec<Leg> = legs
                .iter()
                .enumerate()
                .map(|(i, l)| if i == variable { *l } else { Leg { max: l.min, ..*l } })
                .collect();
            let (geometry, steps, offsets, from, color) = walking(&legs, square, white);
            let mut out = Vec::new();
            walk(&steps, &offsets, from, &legs, &mut out);
            prop_assert_eq!(out, walk_from_scratch(&geometry, from, color, &legs));
        }

        #[test]
        fn extend_gives_the_rays_of_walk_and_split(
            legs in proptest::collection::vec(leg(), 1..=3),
            variable in any::<bool>(),
            square in 0usize..112,
            white in any::<bool>(),
            mode in 1u8..=3,
        ) {
            // The legs `extend` takes: fixed lengths but for the last.
            let last = legs.len() - 1;
            let legs: Vec<Leg> = legs
                .iter()
                .enumerate()
                .map(|(i, l)| if i == last && variable { *l } else { Leg { max: l.min, ..*l } })
                .collect();
            let (_, steps, offsets, from, _) = walking(&legs, square, white);
            let seen = |targets: &[Target], rays: &[super::Range]| {
                let targets: Vec<_> =
                    targets.iter().map(|t| (t.to, t.mask, t.mode, t.stop)).collect();
                let rays: Vec<_> = rays.iter().map(|r| (r.start, r.end)).collect();
                (targets, rays)
            };
            let (mut targets, mut rays) = (Vec::new(), Vec::new());
            extend(&steps, &offsets, from, &legs, mode, &mut targets, &mut rays);
            let mut out = Vec::new();
            walk(&steps, &offsets, from, &legs, &mut out);
            let (mut walked, mut walked_rays) = (Vec::new(), Vec::new());
            split(&out, mode, &mut walked, &mut walked_rays);
            prop_assert_eq!(seen(&targets, &rays), seen(&walked, &walked_rays));
        }
    }
}
