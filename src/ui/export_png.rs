//! A screen's SVG rasterised to PNG with resvg, at twice the SVG's size, in the bundled DejaVu
//! Sans Mono (`assets/fonts`, its licence beside it) and no system font, so a PNG looks the same
//! on every machine.

use resvg::{tiny_skia, usvg};

const REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
const BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono-Bold.ttf");

/// Pixels per SVG unit.
pub const SCALE: f32 = 2.0;

/// The PNG of `svg`, or why not.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    let mut opt = usvg::Options {
        font_family: "DejaVu Sans Mono".into(),
        ..usvg::Options::default()
    };
    opt.fontdb_mut().load_font_data(REGULAR.to_vec());
    opt.fontdb_mut().load_font_data(BOLD.to_vec());
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("the SVG: {e}"))?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * SCALE).round() as u32,
        (size.height() * SCALE).round() as u32,
    );
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| format!("a {w}×{h} image is too large"))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("PNG encoding: {e}"))
}
