//! Writing moves and games as text: canonical SAN and the game writer.

use kabir_rules::{Color, Game, Move, MoveKind, Position, Status, Termination};

/// The canonical SAN of a legal move, without check mark: the piece letter (none for pawns),
/// the least disambiguation that makes it unique (file, else rank, else both), `x` for a
/// capture, the destination, and `=X` for a promotion. Lifts and relocations of the pawn of
/// pawns are `PPe5` / `PPxe5`; a king swap is `K:e2` (`K:d9=R` when it promotes the partner).
///
/// `legal` is the position's legal moves (for disambiguation).
pub fn san(pos: &Position, m: Move, legal: &[Move]) -> String {
    let mut s = String::new();
    san_into(&mut s, pos, m, legal);
    s
}

/// [`san`] appended to `s`, for callers that reuse one buffer.
pub fn san_into(s: &mut String, pos: &Position, m: Move, legal: &[Move]) {
    let variant = pos.variant();
    let g = variant.geometry();
    let to = g.name(m.to);
    let capture = pos.is_capture(m);
    match m.kind {
        MoveKind::Lift | MoveKind::Relocation => {
            s.push_str("PP");
            if capture {
                s.push('x');
            }
            s.push_str(to);
            return;
        }
        MoveKind::Swap => {
            let letter = pos
                .kind_at(m.from)
                .map_or("K", |k| variant.kind(k).symbol.as_str());
            s.push_str(letter);
            s.push(':');
            s.push_str(to);
            // A pawn that the swap puts on its last rank promotes (`K:d9=R`).
            if let (Some(p), Some(partner)) = (m.promotion, pos.kind_at(m.to))
                && variant.kind(p).base != variant.kind(partner).base
            {
                s.push('=');
                s.push_str(variant.kind(p).symbol.trim_end_matches('\''));
            }
            return;
        }
        MoveKind::Normal => {}
    }
    let Some(kind) = pos.kind_at(m.from) else {
        s.push_str(&m.to_uci(pos));
        return;
    };
    let info = variant.kind(kind);
    let (file, rank) = g.coords(m.from);
    let file_char = (b'a' + (file.max(1) - 1) as u8) as char;
    if info.pawn {
        if capture {
            s.push(file_char);
            s.push('x');
        }
    } else {
        s.push_str(&info.symbol);
        let rival = |o: &&Move| {
            o.kind == MoveKind::Normal
                && o.to == m.to
                && o.from != m.from
                && pos.kind_at(o.from) == Some(kind)
        };
        if legal.iter().any(|o| rival(&o)) {
            let from_name = g.name(m.from);
            let mut rivals = legal.iter().filter(rival);
            if !g.is_main(m.from) {
                // A piece in a citadel is named by the citadel.
                s.push_str(from_name);
            } else if rivals.clone().all(|o| g.coords(o.from).0 != file) {
                s.push(file_char);
            } else if rivals.all(|o| g.coords(o.from).1 != rank) {
                use std::fmt::Write;
                let _ = write!(s, "{rank}");
            } else {
                s.push_str(from_name);
            }
        }
        if capture {
            s.push('x');
        }
    }
    s.push_str(to);
    if let Some(p) = m.promotion {
        // A pawn of pawns' arrivals keep it a pawn of pawns: no suffix.
        if variant.kind(p).base != info.base {
            s.push('=');
            s.push_str(variant.kind(p).symbol.trim_end_matches('\''));
        }
    }
    // A capture that promotes the opponent's waiting pawn says so (`Exe2_c10=E`).
    if let Some((at, kind)) = pos.waiting_promotion(m) {
        s.push('_');
        s.push_str(g.name(at));
        s.push('=');
        s.push_str(&variant.kind(kind).symbol);
    }
}

/// The check mark a move earns: `#` if it checkmates, `+` if it attacks an enemy royal piece.
pub fn check_mark(after: &Position) -> &'static str {
    if !after.is_check() {
        return "";
    }
    match after.status() {
        Status::Over {
            termination: Termination::Checkmate,
            ..
        } => "#",
        _ => "+",
    }
}

/// Canonical SAN with its check mark.
pub fn san_plus(pos: &Position, m: Move, legal: &[Move]) -> String {
    let mut s = san(pos, m, legal);
    s.push_str(check_mark(&pos.after(m)));
    s
}

/// Writes tag pairs (in the order given), escaping `"` and `\`.
pub fn write_tags(out: &mut String, tags: &[(String, String)]) {
    for (k, v) in tags {
        out.push('[');
        out.push_str(k);
        out.push_str(" \"");
        for ch in v.chars() {
            if ch == '"' || ch == '\\' {
                out.push('\\');
            }
            out.push(ch);
        }
        out.push_str("\"]\n");
    }
}

/// Collects movetext tokens into lines of at most 79 characters.
#[derive(Default)]
pub struct LineWriter {
    /// Bytes rather than a `String`: a byte is pushed without encoding a `char`, and only
    /// whole `str`s and ASCII go in, so the text is UTF-8.
    text: Vec<u8>,
    /// Bytes on the current line so far.
    line: usize,
    /// The next token follows the last one without a space (after `(`).
    glue: bool,
}

impl LineWriter {
    /// A writer with room for about `bytes` of text.
    pub fn with_capacity(bytes: usize) -> LineWriter {
        LineWriter {
            text: Vec::with_capacity(bytes),
            line: 0,
            glue: false,
        }
    }

    /// Adds a token, separated by a space (none after `(` or before `)`).
    pub fn push(&mut self, token: &str) {
        let glue = self.glue || token == ")";
        self.glue = token == "(";
        self.separate(token.len(), glue);
        self.text.extend_from_slice(token.as_bytes());
        self.line += token.len();
    }

    /// [`LineWriter::push`] for a token that is neither `(` nor `)`, such as a move: the same
    /// text, with less to decide for the writers of long games.
    #[inline(always)]
    pub fn push_word(&mut self, token: &str) {
        let glue = std::mem::take(&mut self.glue);
        self.separate(token.len(), glue);
        self.text.extend_from_slice(token.as_bytes());
        self.line += token.len();
    }

    /// [`LineWriter::push`] for a move number, `n.` or, for Black, `n...`: written straight
    /// into the text, with no string made for it.
    #[inline(always)]
    pub fn push_move_number(&mut self, n: u32, black: bool) {
        // Digits from the right, then the dots: ten digits for any `u32`.
        let mut token = [b'.'; 13];
        let mut i = 10;
        let mut rest = n;
        loop {
            i -= 1;
            token[i] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 || i == 0 {
                break;
            }
        }
        let end = if black { 13 } else { 11 };
        let token = token.get(i..end).unwrap_or_default();
        let glue = std::mem::take(&mut self.glue);
        self.separate(token.len(), glue);
        self.text.extend_from_slice(token);
        self.line += token.len();
    }

    /// What goes before a token of `len` bytes: a line break if it would not fit, else a space
    /// unless it is `glue`d to the one before (after `(`, or a `)`).
    #[inline(always)]
    fn separate(&mut self, len: usize, glue: bool) {
        if self.line > 0 {
            if self.line + usize::from(!glue) + len > 79 {
                self.text.push(b'\n');
                self.line = 0;
            } else if !glue {
                self.text.push(b' ');
                self.line += 1;
            }
        }
    }

    /// Adds a comment `{...}`, its words wrapped like tokens and its white space folded.
    pub fn push_comment(&mut self, text: &str) {
        // Word by word, with nothing kept per word: a comment may be any length.
        let mut words = text.split_whitespace().peekable();
        let Some(first) = words.next() else {
            self.push("{}");
            return;
        };
        if words.peek().is_none() {
            self.push(&format!("{{{first}}}"));
            return;
        }
        self.push(&format!("{{{first}"));
        while let Some(w) = words.next() {
            if words.peek().is_some() {
                self.push(w);
            } else {
                self.push(&format!("{w}}}"));
            }
        }
    }

    /// A writer of many moves and move numbers in a row, for the runs of moves that make up
    /// most game records: what [`LineWriter::push_move_number`] and
    /// [`LineWriter::push_word`] write, a line at a time instead of a token at a time. The
    /// text reaches this writer when the [`Words`] is dropped.
    pub(crate) fn words(&mut self) -> Words<'_> {
        Words {
            line: [0; WORDS_LINE],
            len: 0,
            column: self.line,
            glue: self.glue,
            number: (0, [0; 16], 0),
            writer: self,
        }
    }

    /// The text written, ended by a newline.
    pub fn finish(mut self) -> String {
        self.text.push(b'\n');
        // Always UTF-8 (see `text`); a lossy copy rather than a panic were it ever not.
        String::from_utf8(self.text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// The widest line a [`Words`] holds: 79 columns, one more token (at most 16 bytes are
/// copied for one) and room to spare.
const WORDS_LINE: usize = 128;

/// See [`LineWriter::words`]. Tokens are put together in a line of its own and copied to the
/// writer's text once the line is full: one copy of a line instead of one per token, and
/// each token copied as a whole 16 bytes from its source, with only its own length counted.
pub(crate) struct Words<'a> {
    writer: &'a mut LineWriter,
    /// The current line's bytes not yet in the writer's text (its first `column - len`
    /// bytes are there already).
    line: [u8; WORDS_LINE],
    len: usize,
    /// The current line's length, as [`LineWriter`]'s `line`.
    column: usize,
    glue: bool,
    /// The last move number written as a token: the number, its text (`n...`) and its
    /// digits' length.
    number: (u32, [u8; 16], usize),
}

impl Words<'_> {
    /// What [`LineWriter::separate`] does, for a token of `len` bytes.
    #[inline(always)]
    fn separate(&mut self, len: usize) {
        let glue = std::mem::take(&mut self.glue);
        if self.column > 0 {
            if self.column + usize::from(!glue) + len > 79 {
                self.flush();
                self.writer.text.push(b'\n');
                self.column = 0;
            } else if !glue {
                self.space();
            }
        }
    }

    /// Appends the first `len` bytes of `bytes` to the line.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8], len: usize) {
        let at = self.len;
        let whole = bytes.first_chunk::<16>();
        let room = self
            .line
            .get_mut(at..)
            .and_then(|rest| rest.first_chunk_mut::<16>());
        let len = match (whole, room) {
            // Most tokens: copied as 16 bytes, of which only `len` count.
            (Some(src), Some(dst)) if len <= 16 => {
                *dst = *src;
                len
            }
            // Near the end of the source, or a token longer than any move.
            _ => {
                let len = len.min(bytes.len());
                match self.line.get_mut(at..at + len) {
                    Some(dst) => dst.copy_from_slice(&bytes[..len]),
                    None => {
                        self.flush();
                        self.writer.text.extend_from_slice(&bytes[..len]);
                        self.column += len;
                        return;
                    }
                }
                len
            }
        };
        self.len += len;
        self.column += len;
    }

    /// Appends a space to the line.
    #[inline(always)]
    fn space(&mut self) {
        match self.line.get_mut(self.len) {
            Some(b) => {
                *b = b' ';
                self.len += 1;
            }
            None => {
                self.flush();
                self.writer.text.push(b' ');
            }
        }
        self.column += 1;
    }

    /// Writes a move number, `n.` or, for Black, `n...`, as
    /// [`LineWriter::push_move_number`].
    #[inline(always)]
    pub(crate) fn move_number(&mut self, n: u32, black: bool) {
        if self.number.2 == 0 || self.number.0 != n {
            // Numbers mostly go up by one: the last one's digits, counted up, unless a
            // carry would lengthen them.
            let (last, token, digits) = &mut self.number;
            if *digits > 0
                && last.checked_add(1) == Some(n)
                && count_up(token.get_mut(..*digits).unwrap_or_default())
            {
                *last = n;
            } else {
                let (mut fresh, len) = decimal(n);
                if let Some(dots) = fresh.get_mut(len..len + 3) {
                    dots.copy_from_slice(b"...");
                }
                self.number = (n, fresh, len);
            }
        }
        let (_, token, digits) = self.number;
        let len = if black { digits + 3 } else { digits + 1 };
        self.separate(len);
        self.put(&token, len);
    }

    /// Writes a token of `len` bytes, the first `len` of `source` (which may go on, so that
    /// the token is copied in one piece), as [`LineWriter::push_word`].
    #[inline(always)]
    pub(crate) fn word(&mut self, source: &[u8], len: usize) {
        self.separate(len);
        self.put(source, len);
    }

    fn flush(&mut self) {
        self.writer
            .text
            .extend_from_slice(self.line.get(..self.len).unwrap_or_default());
        self.len = 0;
    }
}

impl Drop for Words<'_> {
    fn drop(&mut self) {
        self.flush();
        self.writer.line = self.column;
        self.writer.glue = self.glue;
    }
}

/// Adds one to the decimal `digits`; false (the digits left all `0`) when that needs one
/// digit more.
fn count_up(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return true;
        }
    }
    false
}

/// The decimal digits of `n`, left-aligned in 16 bytes, and their count.
fn decimal(n: u32) -> ([u8; 16], usize) {
    let mut digits = [0u8; 16];
    let mut reversed = [0u8; 10];
    let mut len = 0;
    let mut rest = n;
    loop {
        reversed[len] = b'0' + (rest % 10) as u8;
        len += 1;
        rest /= 10;
        if rest == 0 || len == reversed.len() {
            break;
        }
    }
    for (d, r) in digits.iter_mut().zip(reversed[..len].iter().rev()) {
        *d = *r;
    }
    (digits, len)
}

/// Writes a game without annotations: tag pairs (in the order given), then the moves in
/// canonical SAN with move numbers, then the result.
pub fn write_game(game: &Game, tags: &[(String, String)]) -> String {
    let mut s = String::new();
    write_tags(&mut s, tags);
    s.push('\n');
    let mut pos: Position = game.start().clone();
    let mut w = LineWriter::default();
    let mut legal = Vec::new();
    for (i, &m) in game.moves().iter().enumerate() {
        let white = pos.turn() == Color::White;
        if white || i == 0 {
            let n = pos.fullmove_number();
            w.push(&if white {
                format!("{n}.")
            } else {
                format!("{n}...")
            });
        }
        pos.legal_moves_into(&mut legal);
        let mut text = san(&pos, m, &legal);
        pos.play_unchecked(m);
        // Only the last move can mate.
        let mate = i + 1 == game.moves().len()
            && matches!(
                game.status(),
                Status::Over {
                    termination: Termination::Checkmate,
                    ..
                }
            );
        let mark = match (pos.is_check(), mate) {
            (false, _) => "",
            (true, true) => "#",
            (true, false) => "+",
        };
        text.push_str(mark);
        w.push(&text);
    }
    w.push(game.status().outcome().map_or("*", |o| o.as_pgn()));
    s.push_str(&w.finish());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A token for the writers: a move number (White or Black) or a word.
    #[derive(Debug, Clone)]
    enum Piece {
        Number(u32, bool),
        Word(String),
    }

    fn piece() -> impl Strategy<Value = Piece> {
        prop_oneof![
            (1u32..2_000, any::<bool>()).prop_map(|(n, b)| Piece::Number(n, b)),
            (0u32..3).prop_map(|k| Piece::Number(9 + 90 * k, false)),
            "[A-Za-z0-9+#!?=]{1,20}".prop_map(Piece::Word),
        ]
    }

    proptest! {
        /// [`Words`] writes what [`LineWriter::push_move_number`] and
        /// [`LineWriter::push_word`] write, token by token, from any state of the line,
        /// whatever follows each word in its source.
        #[test]
        fn words_write_what_the_line_writer_writes(
            before in proptest::collection::vec("[a-z(]{1,12}", 0..4),
            pieces in proptest::collection::vec(piece(), 0..200),
            tail in "[ a-z]{0,20}",
        ) {
            let mut plain = LineWriter::default();
            let mut fast = LineWriter::default();
            for t in &before {
                plain.push(t);
                fast.push(t);
            }
            {
                let mut words = fast.words();
                for p in &pieces {
                    match p {
                        Piece::Number(n, black) => {
                            plain.push_move_number(*n, *black);
                            words.move_number(*n, *black);
                        }
                        Piece::Word(w) => {
                            plain.push_word(w);
                            let source = format!("{w}{tail}");
                            words.word(source.as_bytes(), w.len());
                        }
                    }
                }
            }
            plain.push("*");
            fast.push("*");
            prop_assert_eq!(plain.finish(), fast.finish());
        }
    }

    #[test]
    fn move_numbers_count_up_across_carries() {
        let mut plain = LineWriter::default();
        let mut fast = LineWriter::default();
        {
            let mut words = fast.words();
            for n in 1..=1_200 {
                plain.push_move_number(n, false);
                words.move_number(n, false);
                plain.push_move_number(n, true);
                words.move_number(n, true);
            }
        }
        let (plain, fast) = (plain.finish(), fast.finish());
        assert!(fast.contains("999. 999... 1000. 1000..."), "{fast}");
        assert_eq!(plain, fast);
    }
}
