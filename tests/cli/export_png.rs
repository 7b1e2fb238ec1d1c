//! A PNG export drawn as the screen is: braille cells (the history's lines) have ink where their
//! dots are raised and none where they are not (the bundled font has no braille glyph: an empty
//! box would be ink everywhere on its outline), and a light theme is drawn on a light page.
//! Decoded here from the file the binary wrote.

use std::process::Command;

use crate::common::tmux::BIN;

const CELL_W: f64 = 8.4 * 2.0;
const CELL_H: f64 = 17.0 * 2.0;

fn run(args: &[&str]) {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// RGB rows of a decoded PNG.
fn decode(path: &std::path::Path) -> (usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    (info.width as usize, buf)
}

fn pixel(img: &(usize, Vec<u8>), x: f64, y: f64) -> [u8; 3] {
    let i = ((y as usize) * img.0 + x as usize) * 4;
    [img.1[i], img.1[i + 1], img.1[i + 2]]
}

fn inked(p: [u8; 3], page: [u8; 3]) -> bool {
    p.iter().zip(page).any(|(a, b)| a.abs_diff(b) > 40)
}

/// The raised dots of a braille character, as (column, row).
fn dots(c: char) -> Vec<(u32, u32)> {
    let at = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 3),
        (1, 3),
    ];
    let bits = c as u32 - 0x2800;
    (0..8)
        .filter(|b| bits & (1 << b) != 0)
        .map(|b| at[b])
        .collect()
}

#[test]
fn braille_cells_of_the_history_have_ink_at_their_dots_only() {
    let dir = tempfile::tempdir().unwrap();
    let (txt, png) = (dir.path().join("h.txt"), dir.path().join("h.png"));
    for out in [&txt, &png] {
        let path = out.display().to_string();
        run(&[
            "sim", "drain", "--until", "40", "--export", &path, "--view", "history",
        ]);
    }
    let text = std::fs::read_to_string(&txt).unwrap();
    let img = decode(&png);
    let page = pixel(&img, 1.0, 1.0);
    let mut checked = 0;
    for (y, line) in text.lines().enumerate() {
        for (x, c) in line.chars().enumerate() {
            if !('\u{2801}'..='\u{28ff}').contains(&c) {
                continue;
            }
            let (left, top) = (x as f64 * CELL_W, y as f64 * CELL_H);
            let raised = dots(c);
            for col in 0..2 {
                for row in 0..4 {
                    let p = pixel(
                        &img,
                        left + (f64::from(col) + 0.5) * CELL_W / 2.0,
                        top + (f64::from(row) + 0.5) * CELL_H / 4.0,
                    );
                    let want = raised.contains(&(col, row));
                    assert_eq!(inked(p, page), want, "{c:?} at {x},{y}: dot {col},{row}");
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked > 10,
        "the history draws braille lines: {checked}\n{text}"
    );
}

#[test]
fn a_light_theme_is_exported_on_a_light_page() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("l.png");
    let path = png.display().to_string();
    run(&[
        "--theme",
        "light",
        "sim",
        "ascending",
        "--until",
        "10",
        "--export",
        &path,
    ]);
    let page = pixel(&decode(&png), 1.0, 1.0);
    assert!(page.iter().all(|&v| v > 200), "light: {page:?}");
    let svg = dir.path().join("d.svg");
    let path = svg.display().to_string();
    run(&["sim", "ascending", "--until", "10", "--export", &path]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("fill=\"#18181b\""), "dark by default");
}
