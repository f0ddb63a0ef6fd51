use std::{ffi::OsString, path::PathBuf};

use super::*;

fn grant(path: &str, access: Access) -> Grant {
    Grant {
        path: PathBuf::from(path),
        access,
    }
}

fn strings(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}

/// The position of `flag src dst` in `args`.
fn find(args: &[String], triple: [&str; 3]) -> Option<usize> {
    args.windows(3).position(|w| w == triple)
}

#[test]
fn a_container_gets_new_namespaces_its_own_proc_no_terminal_and_no_capabilities() {
    let args = strings(&container_args(&[], &[], std::path::Path::new("/w"), None));
    for flag in [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--new-session",
        "--die-with-parent",
    ] {
        assert!(args.iter().any(|arg| arg == flag), "{flag}: {args:?}");
    }
    assert!(args.windows(2).any(|w| w == ["--cap-drop", "ALL"]));
    assert!(args.windows(2).any(|w| w == ["--proc", "/proc"]));
    assert!(args.windows(2).any(|w| w == ["--dev", "/dev"]));
    assert!(args.windows(2).any(|w| w == ["--chdir", "/w"]));
    assert!(args.ends_with(&["--remount-ro".to_owned(), "/".to_owned()]));
    assert!(!args.iter().any(|arg| arg == "--unshare-net"));
    let socket = std::path::Path::new("/tmp/ollim-egress-x/proxy.sock");
    let args = strings(&container_args(
        &[],
        &[],
        std::path::Path::new("/w"),
        Some(socket),
    ));
    assert!(
        args.iter().any(|arg| arg == "--unshare-net"),
        "no network of its own"
    );
    assert!(
        find(
            &args,
            ["--ro-bind", "/tmp/ollim-egress-x/proxy.sock", PROXY_SOCKET]
        )
        .is_some()
    );
}

#[test]
fn grants_become_mounts_parents_first_and_nothing_else_is_there() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("data");
    std::fs::create_dir_all(ws.join("notes")).unwrap();
    std::fs::create_dir_all(ws.join("state/cli_homes/owner-1")).unwrap();
    std::fs::create_dir_all(tmp.path().join("tools/bin")).unwrap();
    let tools = tmp.path().join("tools");
    let grants = [
        grant(tools.join("bin").to_str().unwrap(), Access::ReadExec),
        grant(tools.to_str().unwrap(), Access::ReadExec),
        grant("/proc", Access::Read),
        grant("/dev/null", Access::Device),
        grant(ws.to_str().unwrap(), Access::List),
        grant(ws.join("notes").to_str().unwrap(), Access::ReadWriteFlat),
        grant(
            ws.join("state/cli_homes/owner-1").to_str().unwrap(),
            Access::Full,
        ),
    ];
    let args = strings(&container_args(&grants, &[], &ws, None));
    let tools = tools.display().to_string();
    let notes = ws.join("notes").display().to_string();
    let home = ws.join("state/cli_homes/owner-1").display().to_string();
    assert!(
        find(&args, ["--ro-bind-try", &tools, &tools]).is_some(),
        "{args:?}"
    );
    let nested = tmp.path().join("tools/bin").display().to_string();
    assert!(
        find(&args, ["--ro-bind-try", &nested, &nested]).is_none(),
        "a path inside a read-only mount comes with it"
    );
    assert!(find(&args, ["--bind-try", &notes, &notes]).is_some());
    assert!(find(&args, ["--bind-try", &home, &home]).is_some());
    let ws_text = ws.display().to_string();
    assert!(
        find(&args, ["--bind-try", &ws_text, &ws_text]).is_none()
            && find(&args, ["--ro-bind-try", &ws_text, &ws_text]).is_none(),
        "the data dir itself is not mounted: only its granted entries are there"
    );
    assert!(!args.iter().any(|arg| arg.ends_with("/state")));
}

#[test]
fn a_secret_a_mount_would_show_is_covered_by_an_empty_file() {
    let tmp = tempfile::tempdir().unwrap();
    let etc = tmp.path().join("etc");
    std::fs::create_dir_all(etc.join("ollim")).unwrap();
    let secret = etc.join("ollim/.env");
    std::fs::write(&secret, "DISCORD_TOKEN=x").unwrap();
    let elsewhere = tmp.path().join("private/.env");
    let grants = [grant(etc.to_str().unwrap(), Access::Read)];
    let args = strings(&container_args(
        &grants,
        &[secret.clone(), elsewhere.clone()],
        tmp.path(),
        None,
    ));
    let secret = secret.display().to_string();
    let mount = find(
        &args,
        [
            "--ro-bind-try",
            &etc.display().to_string(),
            &etc.display().to_string(),
        ],
    );
    let cover = find(&args, ["--ro-bind", "/dev/null", &secret]);
    assert!(mount.is_some() && cover.is_some(), "{args:?}");
    assert!(cover > mount, "covered after the tree is mounted");
    assert!(!args.contains(&elsewhere.display().to_string()));
}

#[test]
fn a_refused_proc_names_the_container_engines_setting() {
    let masked = refusal_reason(
        "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
        true,
    );
    assert!(masked.contains("systempaths=unconfined"), "{masked}");
    assert!(masked.ends_with("Operation not permitted"), "{masked}");
    let userns = refusal_reason("bwrap: No permissions to create new namespace", false);
    assert!(userns.contains("unprivileged_userns_clone"), "{userns}");
    assert!(!userns.contains("systempaths"), "{userns}");
}

/// Podman's default seccomp filter refuses the container's hostname (seen under Podman 4.3):
/// inside an engine the fix named is the engine's setting, not a host sysctl.
#[test]
fn another_refusal_inside_an_engine_names_its_seccomp_setting() {
    let refused = refusal_reason(
        "bwrap: Can't set hostname to ollim-agent: Operation not permitted",
        true,
    );
    assert!(refused.contains("seccomp=unconfined"), "{refused}");
    assert!(refused.contains("apparmor=unconfined"), "{refused}");
    assert!(!refused.contains("sysctl"), "{refused}");
}
