//! Reading the drafts of executable content from the data dir. Only regular files count: a
//! link is never followed (it could point the bot, which runs outside the box, at a secret
//! that would then be copied where the CLI reads).

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use super::{ContentFile, ContentItem, ContentKind};

/// Bounds on one item, so a huge folder is refused rather than copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Files in one skill folder.
    pub max_files: usize,
    /// Bytes in one item.
    pub max_bytes: u64,
}

impl Default for ScanLimits {
    fn default() -> Self {
        Self {
            max_files: 64,
            max_bytes: 1024 * 1024,
        }
    }
}

/// Every item in `data_dir`, sorted by kind and name, and one line per draft that can't be
/// an item (too large, unreadable, a bad name).
pub fn scan(data_dir: &Path, limits: ScanLimits) -> (Vec<ContentItem>, Vec<String>) {
    let mut items = Vec::new();
    let mut problems = Vec::new();
    let mut keep = |result: Result<ContentItem, String>| match result {
        Ok(item) => items.push(item),
        Err(problem) => problems.push(problem),
    };
    for (name, dir) in entries(&data_dir.join("skills"), EntryType::Dir) {
        keep(skill(data_dir, &name, &dir, limits));
    }
    let claude = data_dir.join(".claude");
    for (kind, folder) in [
        (ContentKind::Command, "commands"),
        (ContentKind::Subagent, "agents"),
    ] {
        for (name, file) in entries(&claude.join(folder), EntryType::MarkdownFile) {
            keep(single_file(data_dir, kind, &name, &file, limits));
        }
    }
    let settings = claude.join("settings.json");
    if fs::symlink_metadata(&settings).is_ok() {
        keep(single_file(
            data_dir,
            ContentKind::Settings,
            "project",
            &settings,
            limits,
        ));
    }
    items.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    (items, problems)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryType {
    Dir,
    MarkdownFile,
}

/// The entries of `dir` of `wanted` type with a usable name (lowercase letters, digits,
/// `-`, `_`), by name; links and everything else skipped.
fn entries(dir: &Path, wanted: EntryType) -> Vec<(String, PathBuf)> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = read
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file_name = entry.file_name().into_string().ok()?;
            let kind = entry.file_type().ok()?;
            let name = match wanted {
                EntryType::Dir if kind.is_dir() => file_name,
                EntryType::MarkdownFile if kind.is_file() => {
                    file_name.strip_suffix(".md")?.to_owned()
                }
                _ => return None,
            };
            let usable = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
            usable.then(|| (name, entry.path()))
        })
        .collect();
    out.sort();
    out
}

fn skill(
    data_dir: &Path,
    name: &str,
    dir: &Path,
    limits: ScanLimits,
) -> Result<ContentItem, String> {
    let relative_dir = relative(data_dir, dir);
    let mut files = Vec::new();
    let mut total = 0u64;
    for entry in walkdir::WalkDir::new(dir).follow_links(false).min_depth(1) {
        let entry = entry.map_err(|e| format!("{}: {e}", relative_dir.display()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        if files.len() == limits.max_files {
            return Err(format!(
                "{}: more than {} files",
                relative_dir.display(),
                limits.max_files
            ));
        }
        let bytes = read_bounded(entry.path(), limits.max_bytes.saturating_sub(total))
            .map_err(|e| format!("{}: {e}", relative(data_dir, entry.path()).display()))?;
        total += bytes.len() as u64;
        let inner = entry
            .path()
            .strip_prefix(dir)
            .map_or_else(|_| PathBuf::from(entry.file_name()), Path::to_path_buf);
        files.push(ContentFile {
            relative: inner,
            bytes,
        });
    }
    if !files
        .iter()
        .any(|f| f.relative.as_os_str() == crate::skills::SKILL_FILE)
    {
        return Err(format!(
            "{}: no {} file",
            relative_dir.display(),
            crate::skills::SKILL_FILE
        ));
    }
    Ok(item(ContentKind::Skill, name, relative_dir, files))
}

fn single_file(
    data_dir: &Path,
    kind: ContentKind,
    name: &str,
    path: &Path,
    limits: ScanLimits,
) -> Result<ContentItem, String> {
    let rel = relative(data_dir, path);
    let meta = fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", rel.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", rel.display()));
    }
    let bytes =
        read_bounded(path, limits.max_bytes).map_err(|e| format!("{}: {e}", rel.display()))?;
    let file_name = path.file_name().map(PathBuf::from).unwrap_or_default();
    Ok(item(
        kind,
        name,
        rel,
        vec![ContentFile {
            relative: file_name,
            bytes,
        }],
    ))
}

/// The file's bytes, or an error past `max` bytes.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let meta = fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    if meta.len() > max {
        return Err(format!("larger than {max} bytes"));
    }
    fs::read(path).map_err(|e| e.to_string())
}

fn relative(data_dir: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(data_dir)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

fn item(kind: ContentKind, name: &str, path: PathBuf, mut files: Vec<ContentFile>) -> ContentItem {
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    let mut hasher = Sha256::new();
    hasher.update(kind.as_str().as_bytes());
    for file in &files {
        hasher.update([0]);
        hasher.update(file.relative.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        hasher.update((file.bytes.len() as u64).to_le_bytes());
        hasher.update(&file.bytes);
    }
    let hash = hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
    ContentItem {
        kind,
        name: name.to_owned(),
        path,
        files,
        hash,
    }
}
