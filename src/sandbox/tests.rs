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
        homes_dir: root.join("data/state/cli_homes"),
        launcher: root.join("bin/ollim-bot"),
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
    let home = layout.homes_dir.join("owner-1");
    let grants = grants(&layout, Confinement::Owner, &home);
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
    assert_eq!(
        access(home.clone()),
        [Access::Full],
        "the session's own CLI home"
    );
    assert!(
        access(layout.cli_config_dir.clone()).is_empty(),
        "never the shared CLI config dir"
    );
    // Broad paths from PATH never cover the home, the root or the data dir.
    assert!(access(tmp.path().to_path_buf()).is_empty());
    assert!(access(PathBuf::from("/")).is_empty());
    assert_eq!(access(tmp.path().join("bin")), [Access::ReadExec]);
    // A background run reads the job folders but can't write a job (issue 23 §4).
    let background = super::grants(&layout, Confinement::Background, &home);
    let routines: Vec<Access> = background
        .iter()
        .filter(|g| g.path == ws.join("routines"))
        .map(|g| g.access)
        .collect();
    assert_eq!(routines, [Access::Read]);
    // ... nor a file that goes into the main session's prompt (issue 39 §1).
    assert!(background.contains(&Grant {
        path: ws.join("USER.md"),
        access: Access::Read
    }));
}

#[test]
fn a_secret_inside_a_granted_tree_is_exposed_and_one_outside_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let mut layout = layout(tmp.path());
    std::fs::create_dir_all(tmp.path().join("bin")).unwrap();
    std::fs::create_dir_all(&layout.workspace).unwrap();
    let beside_binary = tmp.path().join("bin/.env");
    std::fs::write(&beside_binary, "DISCORD_TOKEN=x").unwrap();
    layout.secrets = vec![beside_binary.clone(), layout.workspace.join(".env")];
    std::fs::write(layout.workspace.join(".env"), "x").unwrap();
    let exposed = exposed_secrets(&layout);
    assert_eq!(exposed.len(), 1, "{exposed:?}");
    assert!(exposed[0].0.ends_with("bin/.env"));
    assert!(exposed[0].1.ends_with("bin"));
}
