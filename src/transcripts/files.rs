//! Where the CLI keeps a directory's transcripts, and reading them line by line.

use std::{
    fs,
    io::{self, BufRead, BufReader},
    path::{Path, PathBuf},
    time::SystemTime,
};

use super::TranscriptError;

/// Lines longer than this (a pasted file, a huge tool result) are skipped whole rather than
/// held in memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Keys longer than this are cut and given a hash suffix by the CLI.
const MAX_KEY_LEN: usize = 200;

/// The CLI's name for a working directory under `projects/` (as Claude Code 2.1.197 computes
/// it): every UTF-16 code unit that is not an ASCII letter or digit becomes `-`
/// (`/home/j/.ollim-bot` → `-home-j--ollim-bot`); a key over 200 characters is cut to 200
/// and followed by `-` and the base-36 absolute value of the path's 32-bit string hash.
pub fn project_key(cwd: &Path) -> String {
    let path = cwd.to_string_lossy();
    let key: String = path
        .chars()
        .flat_map(|c| {
            let (keep, units) = (c.is_ascii_alphanumeric(), c.len_utf16());
            std::iter::repeat_n(if keep { c } else { '-' }, if keep { 1 } else { units })
        })
        .collect();
    if key.len() <= MAX_KEY_LEN {
        return key;
    }
    format!(
        "{}-{}",
        &key[..MAX_KEY_LEN],
        base36(string_hash(&path).unsigned_abs())
    )
}

/// JavaScript's `h = (h << 5) - h + charCode | 0` over the UTF-16 code units.
fn string_hash(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |hash, unit| {
        hash.wrapping_shl(5)
            .wrapping_sub(hash)
            .wrapping_add(i32::from(unit))
    })
}

fn base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// One session's transcript file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The session id (the file stem).
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// Its last modification, if the filesystem reports one.
    pub modified: Option<SystemTime>,
}

/// The transcripts of sessions started in one working directory, in one CLI config dir or
/// several (each container has its own, issue 39).
#[derive(Debug, Clone)]
pub struct TranscriptDir {
    dir: PathBuf,
    more: Vec<PathBuf>,
}

impl TranscriptDir {
    /// The transcripts of sessions run with `cwd` as working directory, under the CLI's
    /// config dir (`CLAUDE_CONFIG_DIR`, else `~/.claude`). If `cwd` as given has no
    /// directory but its canonical form (symlinks resolved) has, that one is used.
    pub fn for_cwd(claude_config_dir: &Path, cwd: &Path) -> Self {
        let projects = claude_config_dir.join("projects");
        let dir = projects.join(project_key(cwd));
        if !dir.is_dir()
            && let Ok(real) = fs::canonicalize(cwd)
            && projects.join(project_key(&real)).is_dir()
        {
            return Self {
                dir: projects.join(project_key(&real)),
                more: Vec::new(),
            };
        }
        Self {
            dir,
            more: Vec::new(),
        }
    }

    /// [`Self::for_cwd`] over several config dirs: the first, then each of `others`. A
    /// session found in more than one (a transcript copied into a resumed session's home) is
    /// read from its most recently written copy.
    pub fn for_cwd_in(claude_config_dir: &Path, others: &[PathBuf], cwd: &Path) -> Self {
        let mut all = Self::for_cwd(claude_config_dir, cwd);
        all.more = others
            .iter()
            .map(|dir| Self::for_cwd(dir, cwd).dir)
            .collect();
        all
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Every `<id>.jsonl` directly in the directory (sub-agent transcripts live in
    /// subdirectories and are not sessions), sorted by id. No directory means no sessions.
    pub fn sessions(&self) -> Result<Vec<SessionFile>, TranscriptError> {
        let mut files: Vec<SessionFile> = Vec::new();
        for dir in std::iter::once(&self.dir).chain(&self.more) {
            for file in sessions_in(dir)? {
                match files.iter_mut().find(|known| known.id == file.id) {
                    Some(known) if known.modified < file.modified => *known = file,
                    Some(_) => {}
                    None => files.push(file),
                }
            }
        }
        files.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(files)
    }
}

/// The `<id>.jsonl` files directly in `dir`.
fn sessions_in(dir: &Path) -> Result<Vec<SessionFile>, TranscriptError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TranscriptError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    Ok(entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            if path.extension()? != "jsonl" {
                return None;
            }
            let metadata = entry.metadata().ok()?;
            if !metadata.is_file() {
                return None;
            }
            Some(SessionFile {
                id: path.file_stem()?.to_str()?.to_owned(),
                modified: metadata.modified().ok(),
                path,
            })
        })
        .collect())
}

/// What reading a file skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Lines handed to the callback.
    pub lines: usize,
    /// Lines longer than the cap, or not UTF-8.
    pub skipped: usize,
}

/// Streams `reader` line by line into `each` (without the line break), holding at most
/// `max_line` bytes of one line: longer lines and lines that are not UTF-8 are skipped and
/// counted. A last line without a line break is still delivered.
pub fn read_lines(
    reader: impl io::Read,
    max_line: usize,
    mut each: impl FnMut(&str),
) -> io::Result<ReadStats> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut stats = ReadStats::default();
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            if oversized || !line.is_empty() {
                deliver(&mut line, oversized, &mut stats, &mut each);
            }
            return Ok(stats);
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !oversized {
            if line.len() + chunk.len() > max_line {
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = newline.map_or(available.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            deliver(&mut line, oversized, &mut stats, &mut each);
            oversized = false;
        }
    }
}

fn deliver(
    line: &mut Vec<u8>,
    oversized: bool,
    stats: &mut ReadStats,
    each: &mut impl FnMut(&str),
) {
    if oversized {
        stats.skipped += 1;
    } else {
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        match std::str::from_utf8(text) {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => {
                stats.lines += 1;
                each(text);
            }
            Err(_) => stats.skipped += 1,
        }
    }
    line.clear();
}

/// Opens `path` and streams it through [`read_lines`] with [`MAX_LINE_BYTES`].
pub fn read_file(path: &Path, each: impl FnMut(&str)) -> Result<ReadStats, TranscriptError> {
    let io_error = |source| TranscriptError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = fs::File::open(path).map_err(io_error)?;
    read_lines(file, MAX_LINE_BYTES, each).map_err(io_error)
}
