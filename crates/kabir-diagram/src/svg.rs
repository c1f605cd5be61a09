//! A small SVG writer: elements with escaped attributes, appended to a string.

use std::fmt::Write;

/// The font family every text element asks for. PNG output embeds this font, so it renders the
/// same everywhere; a browser without it falls back to its own sans-serif.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans, Verdana, sans-serif";

/// Escapes text for an attribute value or element content.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number as SVG wants it: at most two decimals, no trailing zeros.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// An SVG document being written.
pub(crate) struct Svg {
    out: String,
}

/// An attribute value: text or a number.
pub(crate) enum Value<'a> {
    Text(&'a str),
    Owned(String),
    Number(f64),
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(s: &'a str) -> Self {
        Value::Text(s)
    }
}

impl<'a> From<&'a String> for Value<'a> {
    fn from(s: &'a String) -> Self {
        Value::Text(s)
    }
}

impl From<String> for Value<'_> {
    fn from(s: String) -> Self {
        Value::Owned(s)
    }
}

impl From<f64> for Value<'_> {
    fn from(x: f64) -> Self {
        Value::Number(x)
    }
}

impl From<u64> for Value<'_> {
    fn from(x: u64) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<u32> for Value<'_> {
    fn from(x: u32) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<i64> for Value<'_> {
    fn from(x: i64) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<i32> for Value<'_> {
    fn from(x: i32) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<usize> for Value<'_> {
    fn from(x: usize) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<i8> for Value<'_> {
    fn from(x: i8) -> Self {
        Value::Owned(x.to_string())
    }
}

impl From<u8> for Value<'_> {
    fn from(x: u8) -> Self {
        Value::Owned(x.to_string())
    }
}

fn write_attrs(out: &mut String, attrs: &[(&str, Value<'_>)]) {
    for (name, value) in attrs {
        let v = match value {
            Value::Text(s) => escape(s),
            Value::Owned(s) => escape(s),
            Value::Number(x) => num(*x),
        };
        let _ = write!(out, " {name}=\"{v}\"");
    }
}

impl Svg {
    /// Starts a document `width` x `height` user units, with its own extra root attributes.
    pub(crate) fn new(width: f64, height: f64, attrs: &[(&str, Value<'_>)]) -> Svg {
        let mut out = String::with_capacity(16 * 1024);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\"",
            w = num(width),
            h = num(height)
        );
        write_attrs(&mut out, attrs);
        out.push_str(">\n");
        Svg { out }
    }

    /// A piece of a document, to be put into one with [`Svg::raw`].
    pub(crate) fn fragment() -> Svg {
        Svg {
            out: String::with_capacity(16 * 1024),
        }
    }

    /// The text written so far (of a fragment).
    pub(crate) fn into_inner(self) -> String {
        self.out
    }

    /// Appends markup written elsewhere.
    pub(crate) fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// An empty element.
    pub(crate) fn leaf(&mut self, name: &str, attrs: &[(&str, Value<'_>)]) {
        self.out.push('<');
        self.out.push_str(name);
        write_attrs(&mut self.out, attrs);
        self.out.push_str("/>\n");
    }

    /// An element with text content.
    pub(crate) fn text(&mut self, name: &str, attrs: &[(&str, Value<'_>)], text: &str) {
        self.out.push('<');
        self.out.push_str(name);
        write_attrs(&mut self.out, attrs);
        self.out.push('>');
        self.out.push_str(&escape(text));
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
    }

    /// Opens an element; [`Svg::close`] ends it.
    pub(crate) fn open(&mut self, name: &str, attrs: &[(&str, Value<'_>)]) {
        self.out.push('<');
        self.out.push_str(name);
        write_attrs(&mut self.out, attrs);
        self.out.push_str(">\n");
    }

    pub(crate) fn close(&mut self, name: &str) {
        let _ = writeln!(self.out, "</{name}>");
    }

    /// Ends the document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(64.0), "64");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot; ");
        let mut s = Svg::new(10.0, 20.0, &[("data-x", "<>".into())]);
        s.text("text", &[("x", 1.0.into())], "R&D");
        let doc = s.finish();
        assert!(doc.contains("viewBox=\"0 0 10 20\""));
        assert!(doc.contains("data-x=\"&lt;&gt;\""));
        assert!(doc.contains(">R&amp;D</text>"));
    }
}
