//! Message attachments (MSG-4, MSG-5): image sniffing by magic bytes, and saving everything
//! else under `DATA_DIR/downloads/` so the agent can `Read` it.
//!
//! Transport-free: the Discord handler downloads the bytes, then asks [`image_media_type`]
//! whether they are an image (sent as an image block, AGT-17) or calls [`save_download`] and
//! [`append_saved_paths`] to mention the saved files in the prompt text.

use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// File name used when the Discord-provided name sanitises to nothing.
const FALLBACK_NAME: &str = "attachment";

/// Longest file name (in bytes) we produce, leaving room for a `-N` suffix under the usual
/// 255-byte limit of Linux file systems.
const MAX_NAME_BYTES: usize = 200;

/// How many `-N` suffixes [`save_download`] tries before giving up.
const MAX_COLLISION_ATTEMPTS: u32 = 10_000;

/// The image media type of `bytes`, judged only by their magic bytes (MSG-4).
///
/// The declared content type and the file extension are deliberately ignored, so a PNG
/// renamed to `.txt` is still an image and a `.png` holding text is not.
pub fn image_media_type(bytes: &[u8]) -> Option<&'static str> {
    const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(PNG) {
        Some("image/png")
    } else if bytes.starts_with(b"GIF8") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Reduces a Discord-provided file name to a safe single path component.
///
/// Keeps only the part after the last `/` or `\`, replaces control characters with `_`,
/// strips surrounding whitespace and leading dots (no hidden files, no `.`/`..`), caps the
/// length, and falls back to `attachment` when nothing is left.
fn sanitize_file_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = base
        .chars()
        .map(|c| if c.is_control() { '_' } else { c })
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.').trim_start();
    if trimmed.is_empty() {
        return FALLBACK_NAME.to_owned();
    }
    truncate_name(trimmed)
}

/// Caps a sanitised name at [`MAX_NAME_BYTES`], keeping a short extension intact.
fn truncate_name(name: &str) -> String {
    if name.len() <= MAX_NAME_BYTES {
        return name.to_owned();
    }
    let (stem, ext) = split_extension(name);
    let ext = ext.filter(|e| e.len() <= 16);
    let budget = MAX_NAME_BYTES - ext.map_or(0, |e| e.len() + 1);
    let mut cut = budget.min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    match ext {
        Some(ext) => format!("{}.{ext}", &stem[..cut]),
        None => stem[..cut].to_owned(),
    }
}

/// Splits `name` into stem and extension at the last dot (`report.pdf` → `report`, `pdf`).
/// A name without a dot, or ending in one, has no extension.
fn split_extension(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() => (stem, Some(ext)),
        _ => (name, None),
    }
}

/// The `n`-th candidate path: `name.ext` for 1, then `name-2.ext`, `name-3.ext`, …
fn candidate(dir: &Path, safe_name: &str, n: u32) -> PathBuf {
    if n <= 1 {
        return dir.join(safe_name);
    }
    match split_extension(safe_name) {
        (stem, Some(ext)) => dir.join(format!("{stem}-{n}.{ext}")),
        (stem, None) => dir.join(format!("{stem}-{n}")),
    }
}

/// The first free path for `file_name` in `dir` (MSG-5): `name.ext`, then `name-2.ext`,
/// `name-3.ext`, … The name is sanitised first, as described on [`save_download`].
///
/// Only a snapshot: another writer may take the path before it is used. [`save_download`]
/// does not rely on it and claims its path with `create_new` instead.
pub fn download_target(dir: &Path, file_name: &str) -> PathBuf {
    let safe = sanitize_file_name(file_name);
    (1..=MAX_COLLISION_ATTEMPTS)
        .map(|n| candidate(dir, &safe, n))
        .find(|path| !path.exists())
        .unwrap_or_else(|| candidate(dir, &safe, MAX_COLLISION_ATTEMPTS + 1))
}

/// Saves `bytes` as a new file in `dir` named after `file_name`, never overwriting anything
/// (MSG-5). Returns the path written.
///
/// `dir` is created on demand. The Discord-provided name is reduced to one safe path
/// component (no separators, no leading dots, `attachment` if nothing is left); collisions get
/// `-2`, `-3`, … before the extension. Each candidate is claimed with `create_new`, so two
/// concurrent saves of the same name end up in different files. A failed write removes the
/// partial file.
pub fn save_download(dir: &Path, file_name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let safe = sanitize_file_name(file_name);
    for n in 1..=MAX_COLLISION_ATTEMPTS {
        let path = candidate(dir, &safe, n);
        let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        if let Err(e) = file.write_all(bytes).and_then(|()| file.sync_all()) {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        return Ok(path);
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "no free file name for {safe:?} in {} after {MAX_COLLISION_ATTEMPTS} attempts",
            dir.display()
        ),
    ))
}

/// Appends one `[attached file saved to <path>]` line per saved file to the message text, so
/// the agent knows where to `Read` them (MSG-5). Text without saved files is returned as is.
pub fn append_saved_paths(text: &str, paths: &[PathBuf]) -> String {
    let mut out = text.to_owned();
    for path in paths {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "[attached file saved to {}]", path.display());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_images_by_magic_bytes_only() {
        assert_eq!(
            image_media_type(&[0xFF, 0xD8, 0xFF, 0xE0, 0]),
            Some("image/jpeg")
        );
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0];
        assert_eq!(image_media_type(&png), Some("image/png"));
        assert_eq!(image_media_type(b"GIF89a..."), Some("image/gif"));
        assert_eq!(image_media_type(b"GIF87a"), Some("image/gif"));
        assert_eq!(
            image_media_type(b"RIFF\x10\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
    }

    #[test]
    fn rejects_non_images_and_truncated_headers() {
        assert_eq!(image_media_type(b""), None);
        assert_eq!(image_media_type(&[0xFF, 0xD8]), None);
        assert_eq!(
            image_media_type(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A]),
            None
        );
        assert_eq!(image_media_type(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(image_media_type(b"RIFF\0\0\0\0WEB"), None);
        assert_eq!(image_media_type(b"%PDF-1.7"), None);
        assert_eq!(image_media_type(b"hello, this is a .png"), None);
    }

    #[test]
    fn sanitizes_hostile_names() {
        assert_eq!(sanitize_file_name("report.pdf"), "report.pdf");
        assert_eq!(sanitize_file_name("../../etc/passwd"), "passwd");
        assert_eq!(sanitize_file_name("..\\..\\win.ini"), "win.ini");
        assert_eq!(sanitize_file_name(".."), "attachment");
        assert_eq!(sanitize_file_name("."), "attachment");
        assert_eq!(sanitize_file_name("dir/"), "attachment");
        assert_eq!(sanitize_file_name(""), "attachment");
        assert_eq!(sanitize_file_name("   "), "attachment");
        assert_eq!(sanitize_file_name(".bashrc"), "bashrc");
        assert_eq!(sanitize_file_name("...hidden.txt"), "hidden.txt");
        assert_eq!(sanitize_file_name("a\0b\nc.txt"), "a_b_c.txt");
        assert_eq!(sanitize_file_name("résumé 2024.docx"), "résumé 2024.docx");
    }

    #[test]
    fn long_names_are_capped_on_a_char_boundary_keeping_the_extension() {
        let long = format!("{}.pdf", "é".repeat(300));
        let safe = sanitize_file_name(&long);
        assert!(safe.len() <= MAX_NAME_BYTES, "{}", safe.len());
        assert!(Path::new(&safe).extension().is_some_and(|ext| ext == "pdf"));
        assert!(safe.starts_with('é'));
    }

    #[test]
    fn target_counts_up_before_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(download_target(d, "report.pdf"), d.join("report.pdf"));
        fs::write(d.join("report.pdf"), b"1").unwrap();
        assert_eq!(download_target(d, "report.pdf"), d.join("report-2.pdf"));
        fs::write(d.join("report-2.pdf"), b"2").unwrap();
        assert_eq!(download_target(d, "report.pdf"), d.join("report-3.pdf"));
        assert_eq!(
            download_target(d, "archive.tar.gz"),
            d.join("archive.tar.gz")
        );
        fs::write(d.join("notes"), b"n").unwrap();
        assert_eq!(download_target(d, "notes"), d.join("notes-2"));
    }

    #[test]
    fn save_creates_the_dir_and_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("downloads");
        let first = save_download(&dir, "report.pdf", b"one").unwrap();
        let second = save_download(&dir, "report.pdf", b"two").unwrap();
        let third = save_download(&dir, "../report.pdf", b"three").unwrap();
        assert_eq!(first, dir.join("report.pdf"));
        assert_eq!(second, dir.join("report-2.pdf"));
        assert_eq!(third, dir.join("report-3.pdf"));
        assert_eq!(fs::read(&first).unwrap(), b"one");
        assert_eq!(fs::read(&second).unwrap(), b"two");
        assert_eq!(fs::read(&third).unwrap(), b"three");
        assert!(!tmp.path().join("report.pdf").exists());
    }

    #[test]
    fn concurrent_saves_of_one_name_get_distinct_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("downloads");
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let dir = dir.clone();
                std::thread::spawn(move || save_download(&dir, "same.txt", &[i]).unwrap())
            })
            .collect();
        let mut paths: Vec<PathBuf> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 8);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 8);
    }

    #[test]
    fn saved_paths_are_listed_after_the_text() {
        let paths = [
            PathBuf::from("/d/downloads/a.pdf"),
            PathBuf::from("/d/downloads/b.csv"),
        ];
        assert_eq!(
            append_saved_paths("look at these", &paths),
            "look at these\n[attached file saved to /d/downloads/a.pdf]\n\
             [attached file saved to /d/downloads/b.csv]"
        );
        assert_eq!(
            append_saved_paths("", &paths[..1]),
            "[attached file saved to /d/downloads/a.pdf]"
        );
        assert_eq!(append_saved_paths("just text", &[]), "just text");
    }
}
