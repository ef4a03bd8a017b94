//! Embed a TrueType font for the plots' text at build time.
//!
//! plotters lays out text with ab_glyph (no fontconfig or freetype at build
//! or run time), and draws it into PNG files with the same font. The font is
//! found here once: `$PARIO_REPORT_FONT`, else DejaVu Sans where Debian
//! (`fonts-dejavu-core`, in scripts/setup.sh), Fedora or Arch put it, and
//! copied into OUT_DIR. Without one the crate still builds; rendering a
//! plot then returns an error naming the package to install.

use std::path::{Path, PathBuf};

const CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

fn main() {
    println!("cargo:rerun-if-env-changed=PARIO_REPORT_FONT");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"))
        .join("plot-font.ttf");
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PARIO_REPORT_FONT") {
        candidates.push(PathBuf::from(p));
    }
    candidates.extend(CANDIDATES.iter().map(PathBuf::from));
    for c in &candidates {
        if let Ok(bytes) = std::fs::read(c) {
            if bytes.len() > 1024 {
                println!("cargo:rerun-if-changed={}", c.display());
                write(&out, &bytes);
                return;
            }
        }
    }
    println!(
        "cargo:warning=pario-report: no TrueType font found (install fonts-dejavu-core or set \
         PARIO_REPORT_FONT); plots will not render"
    );
    write(&out, &[]);
}

fn write(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() != Some(bytes) {
        std::fs::write(path, bytes).expect("write the font into OUT_DIR");
    }
}
