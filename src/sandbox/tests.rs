use std::{ffi::OsStr, path::PathBuf};

use super::*;

#[test]
fn private_children_are_never_granted() {
    for name in [
        "state",
        "State",
        ".env",
        ".env.local",
        "credentials.json",
        "token.json",
        "server.pem",
        "id_ed25519",
    ] {
        assert_eq!(
            classify_child(OsStr::new(name)),
            ChildKind::Private,
            "{name}"
        );
    }
}

#[test]
fn skills_are_drafts() {
    for name in ["skills", "Skills"] {
        assert_eq!(
            classify_child(OsStr::new(name)),
            ChildKind::Drafts,
            "{name}"
        );
    }
}

#[test]
fn trust_roots_are_read_only() {
    for name in [
        ".git",
        ".claude",
        ".mcp.json",
        ".gitignore",
        "webhooks",
        "tool-policy.yaml",
        "CLAUDE.md",
        "Claude.local.md",
    ] {
        assert_eq!(
            classify_child(OsStr::new(name)),
            ChildKind::ReadOnly,
            "{name}"
        );
    }
}

#[test]
fn agent_files_are_writable() {
    for name in [
        "routines",
        "reminders",
        "notes",
        "downloads",
        "USER.md",
        "IDENTITY.md",
    ] {
        assert_eq!(
            classify_child(OsStr::new(name)),
            ChildKind::Writable,
            "{name}"
        );
    }
}

fn layout(root: &std::path::Path) -> Layout {
    Layout {
        workspace: root.join("data"),
        cli_config_dir: root.join("data/state/claude"),
        temp_dir: root.join("data/state/tmp"),
        approved_dir: Some(root.join("data/state/approved")),
        read_exec: vec![
            root.to_path_buf(),
            root.join("data"),
            root.join("data/routines"),
            root.join("bin"),
            PathBuf::from("/"),
        ],
        home: Some(root.to_path_buf()),
        secrets: vec![root.join("data/project.env")],
    }
}

#[test]
fn grants_follow_the_data_dirs_entries() {
    let tmp = tempfile::tempdir().unwrap();
    let layout = layout(tmp.path());
    for dir in ["state", "routines", "skills", ".git"] {
        std::fs::create_dir_all(layout.workspace.join(dir)).unwrap();
    }
    std::fs::write(layout.workspace.join("USER.md"), "me").unwrap();
    std::fs::write(layout.workspace.join(".env"), "DISCORD_TOKEN=x").unwrap();
    std::fs::write(layout.workspace.join("project.env"), "DISCORD_TOKEN=x").unwrap();
    let grants = grants(&layout, Confinement::Owner);
    let access = |path: PathBuf| {
        grants
            .iter()
            .filter(|g| g.path == path)
            .map(|g| g.access)
            .collect::<Vec<_>>()
    };
    let ws = &layout.workspace;
    assert_eq!(access(ws.clone()), [Access::List]);
    assert_eq!(access(ws.join("routines")), [Access::ReadWriteFlat]);
    assert_eq!(access(ws.join("USER.md")), [Access::ReadWriteFile]);
    assert_eq!(access(ws.join("skills")), [Access::ReadWriteTree]);
    assert_eq!(
        access(layout.approved_dir.clone().unwrap()),
        [Access::Read],
        "the approved content: read, never written"
    );
    assert_eq!(access(ws.join(".git")), [Access::Read]);
    assert!(access(ws.join("state")).is_empty());
    assert!(access(ws.join(".env")).is_empty());
    assert!(access(ws.join("project.env")).is_empty());
    assert_eq!(access(layout.cli_config_dir.clone()), [Access::Full]);
    // Broad paths from PATH never cover the home, the root or the data dir.
    assert!(access(tmp.path().to_path_buf()).is_empty());
    assert!(access(PathBuf::from("/")).is_empty());
    assert_eq!(access(tmp.path().join("bin")), [Access::ReadExec]);
    // A background run reads the job folders but can't write a job (issue 23 §4).
    let background = super::grants(&layout, Confinement::Background);
    let routines: Vec<Access> = background
        .iter()
        .filter(|g| g.path == ws.join("routines"))
        .map(|g| g.access)
        .collect();
    assert_eq!(routines, [Access::Read]);
    assert!(background.contains(&Grant {
        path: ws.join("USER.md"),
        access: Access::ReadWriteFile
    }));
}

/// The kernel boundary on its own: a shell confined by the box can't read a secret in the data
/// dir or write `state/`, whatever it is told, and can still do its own work.
#[tokio::test]
async fn a_confined_shell_cannot_reach_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let layout = layout(tmp.path());
    let ws = layout.workspace.clone();
    std::fs::create_dir_all(ws.join("state")).unwrap();
    std::fs::create_dir_all(ws.join("notes")).unwrap();
    std::fs::write(ws.join("state/token.json"), "SECRET-TOKEN").unwrap();
    std::fs::write(ws.join(".env"), "DISCORD_TOKEN=SECRET").unwrap();
    let sandbox = Sandbox::new(layout);
    sandbox.create_dirs().unwrap();
    if let Support::Unavailable { reason } = sandbox.support() {
        eprintln!("skipped: {reason}");
        return;
    }
    let script = "cat state/token.json; cat .env; echo forged > state/sessions.json; \
                  echo note > notes/a.md; cat notes/a.md; echo made > new.md; true";
    let mut command = tokio::process::Command::new("/bin/sh");
    command.args(["-c", script]).current_dir(&ws);
    sandbox.confine(&mut command, Confinement::Owner).unwrap();
    let output = command.output().await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("SECRET"), "{stdout}");
    assert!(stdout.contains("note"), "{stdout}");
    assert!(!ws.join("state/sessions.json").exists());
    assert!(!ws.join("new.md").exists());
}
