//! Text of the plots, laid out once for both renderings.
//!
//! plotters' own ab_glyph text drawing places each glyph at the pen
//! position without its left side bearing and rounds the pen to whole
//! pixels, so narrow letters ("i", "l", "1") crowd their neighbours and
//! words look unevenly spaced in PNG files; and it measures text about 6%
//! larger than the SVG it writes (`font-size` is the size / 1.24), so label
//! areas did not fit what a browser draws.
//!
//! [`Typeset`] wraps a plotters backend: it measures text with the same em
//! size the SVG backend writes, and on raster backends draws each glyph at
//! its exact (sub-pixel) pen position plus bearing, anchored and rotated the
//! way the SVG backend anchors and rotates `<text>`. Everything else is
//! passed through.

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A backend whose text is laid out by [`layout`] (see the module docs).
pub struct Typeset<B> {
    inner: B,
    font: FontRef<'static>,
    /// Draw text as pixels (PNG) rather than handing it to the backend (SVG).
    raster: bool,
}

impl<B> Typeset<B> {
    /// `font` must be a valid TrueType font (checked by the caller).
    pub fn new(inner: B, font: FontRef<'static>, raster: bool) -> Self {
        Typeset {
            inner,
            font,
            raster,
        }
    }
}

/// One glyph placed on a line: its id and pen position (x, baseline 0).
struct Placed {
    id: ab_glyph::GlyphId,
    x: f32,
}

/// The em size in pixels of a plotters text size, as the SVG backend
/// writes it (`font-size` = size / 1.24).
pub fn em_px(size: f64) -> f32 {
    (size / 1.24) as f32
}

/// Glyphs of `text` at `size` with advances and kerning; returns them and
/// the line's width.
fn layout(font: &FontRef<'static>, size: f64, text: &str) -> (Vec<Placed>, PxScale, f32) {
    let scale = scale_of(font, size);
    let f = font.as_scaled(scale);
    let mut pen = 0f32;
    let mut prev = None;
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            pen += f.kern(p, id);
        }
        out.push(Placed { id, x: pen });
        pen += f.h_advance(id);
        prev = Some(id);
    }
    (out, scale, pen)
}

fn scale_of(font: &FontRef<'static>, size: f64) -> PxScale {
    let upem = font.units_per_em().unwrap_or(2048.0);
    PxScale::from(em_px(size) * font.height_unscaled() / upem)
}

/// Width and height (pixels) of `text` at `size`: the advance width and
/// one em, as a browser lays out the SVG text.
pub fn measure(font: &FontRef<'static>, size: f64, text: &str) -> (u32, u32) {
    let (_, _, w) = layout(font, size, text);
    (w.ceil().max(0.0) as u32, em_px(size).ceil() as u32)
}

/// Where the baseline sits below the anchor point, in ems, for a vertical
/// anchor (the offsets the SVG backend writes: 0.76em, 0.5ex, -0.5ex).
fn baseline_em(v: VPos) -> f32 {
    match v {
        VPos::Top => 0.76,
        VPos::Center => 0.27,
        VPos::Bottom => -0.27,
    }
}

impl<B: DrawingBackend> Typeset<B> {
    fn raster_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        let (glyphs, scale, width) = layout(&self.font, style.size(), text);
        let em = em_px(style.size());
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        let base = baseline_em(style.anchor().v_pos) * em;
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        for g in glyphs {
            let glyph = g.id.with_scale_and_position(scale, point(dx + g.x, base));
            let Some(outline) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|x, y, c| pixels.push((x as i32, y as i32, c)));
            for (x, y, c) in pixels {
                if c <= 0.0 {
                    continue;
                }
                let (lx, ly) = (b.min.x as i32 + x, b.min.y as i32 + y);
                let (tx, ty) = trans.transform(lx, ly);
                let (px, py) = (pos.0 + tx, pos.1 + ty);
                if px >= 0 && py >= 0 && (px as u32) < w && (py as u32) < h {
                    let alpha = color.alpha * f64::from(c.min(1.0));
                    self.inner.draw_pixel(
                        (px, py),
                        BackendColor {
                            alpha,
                            rgb: color.rgb,
                        },
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl<B: DrawingBackend> DrawingBackend for Typeset<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }
    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if self.raster {
            self.raster_text(text, style, pos)
        } else {
            self.inner.draw_text(text, style, pos)
        }
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        Ok(measure(&self.font, style.size(), text))
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn font() -> Option<FontRef<'static>> {
        FontRef::try_from_slice(crate::charts::FONT).ok()
    }

    #[test]
    fn narrow_letters_take_less_room_and_widths_add_up() {
        let Some(f) = font() else {
            panic!("no font embedded: install fonts-dejavu-core and rebuild");
        };
        let (i, _) = measure(&f, 14.0, "iiii");
        let (m, _) = measure(&f, 14.0, "MMMM");
        assert!(i * 2 < m, "i {i} M {m}");
        let (one, h) = measure(&f, 14.0, "write");
        let (two, _) = measure(&f, 14.0, "writewrite");
        assert!((two as i32 - 2 * one as i32).abs() <= 1);
        assert_eq!(h, em_px(14.0).ceil() as u32);
    }
}
