//! The process environment is read in `src/config/environment.rs` only (issue 25 §3), so every
//! variable the bot reads is listed there, with what it is for. The CLI driver's
//! hand-over of an allow-listed copy to the CLI child is the one exception (it reads no
//! setting).

use crate::source_tree::{repo, rust_files};

/// The files allowed to touch the environment: the one that reads it, and the CLI driver's
/// hand-over to the CLI child (it reads no setting).
const ALLOWED: &[&str] = &["src/config/environment.rs", "src/claude/process.rs"];

#[test]
fn only_config_reads_the_environment() {
    let root = repo();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut offenders = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        let name = relative.to_string_lossy().replace('\\', "/");
        if ALLOWED.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("]
                .iter()
                .any(|call| code.contains(call))
            {
                offenders.push(format!("{name}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "the environment is read outside src/config/environment.rs (add a function there \
         and call it instead):\n{}",
        offenders.join("\n")
    );
}
