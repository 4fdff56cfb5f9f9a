//! The guide's concept pictures in `guide/chapters/img/` are what the renderer draws now, and
//! no picture of the guide needs a CJK font. After changing the drawing code, rewrite them with
//! `cargo xtask banks --concepts guide/chapters/img` (or run this test with
//! `BANKWISE_BLESS=1`).

use std::path::PathBuf;

fn img_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../guide/chapters/img")
}

#[test]
fn the_checked_in_concept_pictures_are_what_the_renderer_draws() {
    let dir = img_dir();
    let bless = std::env::var_os("BANKWISE_BLESS").is_some();
    for picture in bankwise_banks::concept_pictures() {
        let path = dir.join(picture.file);
        if bless {
            std::fs::write(&path, &picture.svg).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == picture.svg,
            "{} differs from what the renderer draws; rewrite it with \
             `cargo xtask banks --concepts guide/chapters/img`",
            path.display()
        );
    }
}

#[test]
fn no_picture_in_the_guide_needs_a_cjk_font() {
    let mut seen = 0;
    for entry in std::fs::read_dir(img_dir()).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            // CJK symbols, kana and ideographs, and the full-width forms, begin at U+2E80.
            let cjk = svg.chars().find(|&c| ('\u{2e80}'..='\u{ffef}').contains(&c));
            assert_eq!(cjk, None, "{} has a character that needs a CJK font", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 14, "only {seen} pictures");
}
