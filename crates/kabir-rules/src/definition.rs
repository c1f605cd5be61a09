//! The data form of a variant, as written in a definition file.
//!
//! These types mirror the file format one to one (see `docs/VARIANT-FORMAT.md`); they are checked
//! and compiled into a [`Variant`](super::Variant) by [`Variant::new`](super::Variant::new).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::color::Color;

/// A whole variant definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    /// The canonical name, lowercase with hyphens (`tamerlane`).
    pub id: String,
    /// The display name (`Tamerlane Chess`).
    pub name: String,
    /// Other names accepted in a `Variant` tag (matched case-insensitively).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The names other programs give the variant (`[names]`), all accepted in a `Variant`
    /// tag; empty for a variant no program is known to play.
    #[serde(default, skip_serializing_if = "OtherNames::is_empty")]
    pub names: OtherNames,
    /// One line for `kabir variants`.
    pub description: String,
    /// The start position as a position string.
    pub start: String,
    /// The board's size and its citadels (`[board]`).
    pub board: BoardDef,
    /// Named move sets that pieces can share (`moves = "king"`).
    #[serde(default)]
    pub movements: BTreeMap<String, Vec<MoveDef>>,
    /// The piece kinds, one `[[piece]]` table each; their order numbers the kinds.
    #[serde(rename = "piece")]
    pub pieces: Vec<PieceDef>,
    /// The end rules and the special rules switched on (`[rules]`); all off by default.
    #[serde(default)]
    pub rules: RulesDef,
}

/// The names other programs give a variant (`[names]` in a definition file). A field is left
/// out when no program is known to use it; each name is also accepted in a `Variant` tag.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherNames {
    /// The value of the UCI option `UCI_Variant` that selects it (Fairy-Stockfish).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uci: Option<String>,
    /// The name in the XBoard/CECP `variant` command (XBoard, Cute Chess, Sjaak II).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xboard: Option<String>,
    /// The variant's name on pychess-variants (pychess.org).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pychess: Option<String>,
    /// Fairy-Stockfish's built-in name or `variants.ini` section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairy_stockfish: Option<String>,
    /// Values of the `Variant` tag that game files in the wild carry, as they are written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

impl OtherNames {
    /// Whether no name is given.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// Every name given, the tags' values last.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        [
            &self.uci,
            &self.xboard,
            &self.pychess,
            &self.fairy_stockfish,
        ]
        .into_iter()
        .filter_map(|n| n.as_deref())
        .chain(self.tags.iter().map(String::as_str))
    }
}

/// The board: a rectangle of files and ranks (at most 128 squares in all, citadels included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardDef {
    /// Number of files, 1 to 26, lettered from `a` on White's left.
    pub files: u8,
    /// Number of ranks, 1 to 99, numbered from 1 on White's side.
    pub ranks: u8,
    /// Extra squares beside a rank (`[[board.citadel]]`); none by default.
    #[serde(default, rename = "citadel")]
    pub citadels: Vec<CitadelDef>,
}

/// A citadel: an extra square beside a rank that belongs to one side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CitadelDef {
    /// Its name in notation, usable wherever a square is: unique lowercase letters, no digits
    /// (`wc`).
    pub name: String,
    /// The side whose citadel it is; a royal piece of the other side entering it draws.
    pub owner: Color,
    /// 1-based file: 0 is left of file `a`, `files + 1` right of the last file.
    pub file: i8,
    /// 1-based rank that the citadel continues by one square.
    pub rank: i8,
    /// Piece ids of the owner that may stand in it; they cannot be captured there.
    #[serde(default)]
    pub allow_own: Vec<String>,
}

/// One piece kind (`[[piece]]`): its names, its moves and, for a pawn, what it may become.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceDef {
    /// Stable identifier, lowercase with hyphens. Position hashes are derived from it.
    pub id: String,
    /// The display name (`Giraffe`).
    pub name: String,
    /// The letter(s) in position strings and SAN; uppercase, lowercased for Black.
    pub symbol: String,
    /// Other letters accepted on input.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The chess piece whose name it takes in other languages' letters
    /// ([`letters`](crate::letters)): `king`, `queen`, `rook`, `bishop`, `knight` or `pawn`.
    /// Pawns play `pawn` without saying so. At most one piece per role, pawns apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<crate::letters::Role>,
    /// Royal pieces must be checkmated; a side with one royal may not leave it attacked.
    #[serde(default)]
    pub royal: bool,
    /// Pawns reset the move counter, and promote on the last rank.
    #[serde(default)]
    pub pawn: bool,
    /// The most a side may have of this piece in a position.
    #[serde(default)]
    pub max_count: Option<u32>,
    /// How the piece moves: a name from `[movements]` or a list of rules.
    pub moves: MovesRef,
    /// The piece ids a pawn may become on its last rank (one: automatic; several: the
    /// player's choice).
    #[serde(default)]
    pub promotion: Vec<String>,
}

/// A piece's moves: the name of an entry of `[movements]`, or a list written in place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MovesRef {
    /// The name of an entry of `[movements]` (`moves = "king"`).
    Named(String),
    /// The movement rules written in place.
    Inline(Vec<MoveDef>),
}

/// One movement rule: a leap, a slide, or a path of several legs.
///
/// A leg repeats its `step` vector between `min` and `max` times; every square visited on the
/// way, except the destination, must be empty (a single step never looks at the squares it
/// jumps over). The rule is repeated for every image of its vectors under `symmetry`, with
/// `+y` pointing forward for the mover.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveDef {
    /// A single step of this vector (a jump).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leap: Option<[i8; 2]>,
    /// Repeated steps of this vector, `min`..=`max` times (unlimited without `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide: Option<[i8; 2]>,
    /// For a `slide`: at least this many steps (default 1). Not allowed with `leap` or `legs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u8>,
    /// For a `slide`: at most this many steps (default unlimited). Not allowed with `leap` or
    /// `legs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u8>,
    /// A path of legs, each with its own vector and count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legs: Option<Vec<LegDef>>,
    /// Whether the rule moves to empty squares, captures, or both (the default).
    #[serde(default)]
    pub mode: MoveMode,
    /// Which rotations and reflections of the vectors are included (all eight by default).
    #[serde(default)]
    pub symmetry: Symmetry,
    /// Only from this rank, counted from the mover's side (a pawn's double step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_rank: Option<u8>,
}

/// One leg of a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegDef {
    /// The vector of each step, `[files, ranks]`, with `+ranks` forward for the mover.
    pub step: [i8; 2],
    /// At least this many steps (default 1). With `min` but no `max`, unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u8>,
    /// At most this many steps (default: `min`, or 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u8>,
}

/// Whether a movement rule may move to an empty square, capture, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveMode {
    /// To an empty square or capturing (the default).
    #[default]
    Both,
    /// Only to an empty square; never captures and never attacks.
    Move,
    /// Only captures.
    Capture,
}

/// Which images of a rule's vectors are included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symmetry {
    /// All eight rotations and reflections of the board.
    #[default]
    All,
    /// The vector and its left-right mirror image (forward stays forward).
    Mirror,
    /// Left-right and forward-backward mirror images, without swapping files and ranks.
    MirrorBoth,
    /// The vector as written.
    None,
}

/// What ends the game, and the special rules switched on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesDef {
    /// The result for the side that is stalemated.
    #[serde(default)]
    pub stalemate: StalemateRule,
    /// What happens to a side reduced to its royal pieces (off by default).
    #[serde(default)]
    pub bare_king: BareKingRule,
    /// Moves (by each side) without capture or pawn move after which a draw may be claimed;
    /// 0 for none.
    #[serde(default)]
    pub n_move_rule: u32,
    /// Occurrences of a position after which a draw may be claimed; 0 for none.
    #[serde(default)]
    pub repetition: u32,
    /// Whether a series of checks may repeat a position (allowed by default).
    #[serde(default)]
    pub permanent_check: PermanentCheckRule,
    /// Tamerlane's once-per-game king swap; `None` where the variant has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub king_swap: Option<KingSwapDef>,
    /// Tamerlane's pawn of pawns; `None` where the variant has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pawn_of_pawns: Option<PawnOfPawnsDef>,
    /// What a pawn may become on its last rank.
    #[serde(default, skip_serializing_if = "PromotionRule::is_listed")]
    pub promotion: PromotionRule,
}

/// How a pawn's promotion choices are limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromotionRule {
    /// Any kind of the pawn's `promotion` list.
    #[default]
    Listed,
    /// Only a kind of the list of which the side has fewer on the board than in the start
    /// position. With none, the pawn waits on its last rank, where it cannot be captured and
    /// makes no move, until its side loses a piece of the list: then the waiting pawn that
    /// arrived first becomes that kind at once, as part of the capturing move.
    LostPieces,
}

impl PromotionRule {
    fn is_listed(&self) -> bool {
        *self == PromotionRule::Listed
    }
}

/// The result of a stalemate: no legal move, when that is not checkmate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StalemateRule {
    /// The stalemated side loses.
    #[default]
    Loss,
    /// The game is drawn, as in chess (Grand Shatranj N W).
    Draw,
    /// The stalemated side wins.
    Win,
}

/// What happens to a side reduced to its royal pieces (a bare king).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BareKingRule {
    /// No bare-king rule: the game goes on.
    #[default]
    Off,
    /// A side reduced to royal pieces only loses at once (both bare: a draw).
    Loss,
    /// Shatranj: the bared side loses, but if the opponent has a single piece left and the
    /// bared side is to move, it plays one more move; capturing that piece draws.
    LossUnlessReply,
}

/// Whether perpetual checking that repeats a position is allowed (Knavish Shatranj forbids it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PermanentCheckRule {
    /// Checks may repeat positions like any other move.
    #[default]
    Allowed,
    /// A checking move that repeats a position, when every move of the checking side since
    /// that position also gave check, is illegal.
    Illegal,
}

/// Once per game a side may exchange its king with one of its own pieces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KingSwapDef {
    /// The piece id that swaps.
    pub piece: String,
}

/// Tamerlane's pawn of pawns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PawnOfPawnsDef {
    /// The piece id of the pawn of pawns (`pawn-of-pawns`).
    pub piece: String,
    /// Where it goes on its second arrival: White's square, Black's square.
    pub relocation: [String; 2],
    /// What it becomes on its third arrival.
    pub third_arrival: String,
    /// At the third arrival, the side's piece of the first id (if any) becomes the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub also_promote: Option<[String; 2]>,
}
