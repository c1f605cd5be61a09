//! PNG output: the SVG rasterised in pure Rust with the embedded font.

use std::sync::OnceLock;

/// DejaVu Sans Bold, cut down to the characters diagrams and charts use (see `font/README.md`).
/// The embedded font (a subset of DejaVu Sans Bold) that PNG rendering uses, also served
/// to browsers so that pictures look the same there.
pub const FONT: &[u8] = include_bytes!("font/DejaVuSans-Bold-subset.ttf");

/// Why an SVG could not be turned into a PNG.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The text is not an SVG document the renderer can read; the renderer's message.
    #[error("cannot read the SVG: {0}")]
    Svg(String),
    /// At this scale the image would have a side under 1 pixel or over [`MAX_PNG_SIDE`], or
    /// the scale is not a finite number.
    #[error("a {width}x{height} image at scale {scale} is too large or empty")]
    Size {
        /// The SVG document's width, in user units.
        width: u32,
        /// The SVG document's height, in user units.
        height: u32,
        /// The pixels per user unit asked for.
        scale: f32,
    },
    /// The PNG encoder failed; its message.
    #[error("cannot encode the PNG: {0}")]
    Png(String),
}

/// The largest side a PNG may have, in pixels.
pub const MAX_PNG_SIDE: u32 = 16_384;

fn options() -> &'static resvg::usvg::Options<'static> {
    static OPTIONS: OnceLock<resvg::usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut opt = resvg::usvg::Options::default();
        let db = opt.fontdb_mut();
        db.load_font_data(FONT.to_vec());
        // Whatever family a document asks for, the embedded font is the only one there is;
        // no system font is looked up.
        let family = db
            .faces()
            .next()
            .and_then(|f| f.families.first())
            .map(|f| f.0.clone());
        if let Some(family) = family {
            db.set_sans_serif_family(family.clone());
            db.set_serif_family(family.clone());
            db.set_monospace_family(family.clone());
            opt.font_family = family;
        }
        opt
    })
}

/// Renders an SVG document to PNG bytes, `scale` pixels per user unit.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, RenderError> {
    let tree =
        resvg::usvg::Tree::from_str(svg, options()).map_err(|e| RenderError::Svg(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil(),
        (size.height() * scale).ceil(),
    );
    let too_big = |w: f32, h: f32| {
        !(w >= 1.0 && h >= 1.0 && w <= MAX_PNG_SIDE as f32 && h <= MAX_PNG_SIDE as f32)
    };
    if !scale.is_finite() || too_big(w, h) {
        return Err(RenderError::Size {
            width: size.width() as u32,
            height: size.height() as u32,
            scale,
        });
    }
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(w as u32, h as u32).ok_or(RenderError::Size {
            width: size.width() as u32,
            height: size.height() as u32,
            scale,
        })?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| RenderError::Png(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_font_is_found_for_any_family() {
        let opt = options();
        assert_eq!(opt.fontdb.len(), 1);
        assert!(
            opt.font_family.starts_with("DejaVu Sans"),
            "{}",
            opt.font_family
        );
    }

    #[test]
    fn text_is_drawn_without_system_fonts() {
        let doc = |text: &str| {
            format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"20\">\
                 <text x=\"2\" y=\"16\" font-family=\"Nonexistent\" font-size=\"16\">{text}</text></svg>"
            )
        };
        let blank = svg_to_png(&doc(""), 1.0).unwrap();
        let lettered = svg_to_png(&doc("Rk"), 1.0).unwrap();
        assert_ne!(blank, lettered, "the letters left no mark");
    }

    #[test]
    fn bad_input_and_sizes_are_errors() {
        assert!(matches!(
            svg_to_png("not svg", 1.0),
            Err(RenderError::Svg(_))
        ));
        let doc = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"20\"/>";
        assert!(matches!(
            svg_to_png(doc, 0.0),
            Err(RenderError::Size { .. })
        ));
        assert!(matches!(
            svg_to_png(doc, f32::NAN),
            Err(RenderError::Size { .. })
        ));
        assert!(matches!(
            svg_to_png(doc, 1e6),
            Err(RenderError::Size { .. })
        ));
        assert!(svg_to_png(doc, 2.0).is_ok());
    }
}
