//! `ollim-bot approve`: the owner approves executable content from their own shell (issue 23
//! §2). Without arguments it lists what waits; with files it approves their current bytes.
//! Run by the agent it approves nothing: the bot marks its CLI children's environment, and
//! inside the box the approval store can't even be read.

use std::path::{Path, PathBuf};

use crate::{
    cli::tool_approval::Invoker,
    content_approval::{ContentItem, ScanLimits, Trust, loadable, scan},
    state::{content_approvals::ContentApprovals, paths::DataDir},
};

/// The command's arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ApproveArgs {
    /// Skill folders or files to approve as they are now (e.g. `skills/weekly-plan`,
    /// `.claude/agents/helper.md`); relative to the data dir or the current directory.
    pub files: Vec<PathBuf>,
    /// Approve everything that waits (listed first).
    #[arg(long, conflicts_with = "files")]
    pub all: bool,
}

/// Runs the command; returns the exit code.
pub fn run(data_dir: &DataDir, names: (&str, &str), args: &ApproveArgs) -> i32 {
    run_as(Invoker::from_env(), data_dir, names, args)
}

/// [`run`] for a given invoker.
pub fn run_as(
    invoker: Invoker,
    data_dir: &DataDir,
    names: (&str, &str),
    args: &ApproveArgs,
) -> i32 {
    let store = ContentApprovals::new(data_dir.content_approvals_file());
    let (items, problems) = scan(data_dir.root(), ScanLimits::default());
    for problem in &problems {
        eprintln!("skipped: {problem}");
    }
    let decisions = store.decisions();
    let waiting: Vec<(&ContentItem, Trust)> = items
        .iter()
        .map(|item| (item, loadable(item, &decisions, names.0, names.1)))
        .filter(|(_, trust)| !trust.loads())
        .collect();
    if args.files.is_empty() && !args.all {
        if waiting.is_empty() {
            println!("Nothing waits for approval.");
        }
        for (item, trust) in &waiting {
            print_item(item, *trust);
        }
        if !waiting.is_empty() {
            println!("\nApprove with: ollim-bot approve <file> (or --all)");
        }
        return 0;
    }
    if invoker == Invoker::Agent {
        eprintln!(
            "error: only the owner approves, from their own shell (or the buttons in Discord)"
        );
        return 1;
    }
    let chosen: Vec<&ContentItem> = if args.all {
        waiting.iter().map(|(item, _)| *item).collect()
    } else {
        let mut chosen = Vec::new();
        for file in &args.files {
            let Some(item) = find(data_dir.root(), &items, file) else {
                eprintln!(
                    "error: {} is not a skill, command, subagent or settings file of {}",
                    file.display(),
                    data_dir.root().display()
                );
                return 1;
            };
            chosen.push(item);
        }
        chosen
    };
    for item in chosen {
        if args.all {
            print_item(item, Trust::Pending);
        }
        if let Err(error) = store.approve(&item.key(), &item.hash) {
            eprintln!("error: {error}");
            return 1;
        }
        println!(
            "approved {} ({}, {}): loads from the next session (/clear, /restart)",
            item.key(),
            item.path.display(),
            item.short_hash()
        );
    }
    0
}

fn print_item(item: &ContentItem, trust: Trust) {
    let state = if trust == Trust::Denied {
        "denied"
    } else {
        "waiting"
    };
    println!(
        "{} {} — {} [{}]",
        state,
        item.key(),
        item.path.display(),
        item.short_hash()
    );
    for line in item.capabilities() {
        println!("    {line}");
    }
}

/// The item `file` names: its path, or a file inside a skill folder.
fn find<'a>(data_dir: &Path, items: &'a [ContentItem], file: &Path) -> Option<&'a ContentItem> {
    let candidates = [
        file.to_path_buf(),
        std::env::current_dir()
            .map(|cwd| cwd.join(file))
            .unwrap_or_default(),
    ];
    candidates.iter().find_map(|candidate| {
        let absolute = crate::state::paths::absolute_normalized(&data_dir.join(candidate));
        let root = crate::state::paths::absolute_normalized(data_dir);
        let relative = absolute.strip_prefix(&root).ok()?;
        items
            .iter()
            .find(|item| relative == item.path || relative.starts_with(&item.path))
    })
}
