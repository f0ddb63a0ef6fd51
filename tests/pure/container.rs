//! The container image's files (BOOT-11) against the code and each other, without an engine:
//! the Containerfile pins the CLI the tests run and the toolchain the crate asks for, runs as
//! a user that is not root, keeps its volumes where the bot looks; compose.yaml gives the
//! sandbox what it needs, publishes nothing beyond the host's loopback and makes Ollama
//! opt-in; the scripts parse.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::source_tree::repo;

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// The Containerfile's instructions, `(KEYWORD, arguments)`, continuation lines joined and
/// comments left out, cut into stages at each `FROM`.
fn stages() -> Vec<Vec<(String, String)>> {
    let mut stages: Vec<Vec<(String, String)>> = Vec::new();
    let mut logical = String::new();
    let mut lines = Vec::new();
    for line in read("Containerfile").lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && logical.is_empty()) {
            continue;
        }
        if let Some(part) = trimmed.strip_suffix('\\') {
            logical.push_str(part);
            logical.push(' ');
        } else {
            logical.push_str(trimmed);
            lines.push(std::mem::take(&mut logical));
        }
    }
    stages.push(Vec::new());
    for line in lines {
        let (keyword, rest) = line.split_once(' ').unwrap_or((&line, ""));
        let keyword = keyword.to_ascii_uppercase();
        if keyword == "FROM" {
            stages.push(Vec::new());
        }
        let stage = stages.last_mut().expect("a stage");
        stage.push((keyword, rest.trim().to_owned()));
    }
    stages
}

/// The arguments of every `keyword` instruction of `stage`.
fn all<'a>(stage: &'a [(String, String)], keyword: &str) -> Vec<&'a str> {
    stage
        .iter()
        .filter(|(k, _)| k == keyword)
        .map(|(_, rest)| rest.as_str())
        .collect()
}

/// The stage that runs: the last one.
fn runtime() -> Vec<(String, String)> {
    stages().pop().expect("a runtime stage")
}

/// The runtime's `ENV` variables (`NAME=value` pairs).
fn image_env() -> BTreeMap<String, String> {
    all(&runtime(), "ENV")
        .iter()
        .flat_map(|rest| rest.split_whitespace())
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn image_volumes() -> Vec<String> {
    let runtime = runtime();
    let volumes = all(&runtime, "VOLUME");
    assert_eq!(volumes.len(), 1, "one VOLUME line: {volumes:?}");
    serde_json::from_str(volumes[0]).expect("VOLUME in its JSON form")
}

/// BOOT-11: the image's CLI is the release the tests run.
#[test]
fn the_image_pins_the_cli_the_tests_run() {
    let test_sh = read(".ci/test.sh");
    let tested = test_sh
        .split("OLLIM_TEST_CLI_VERSION:-")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("the default version in .ci/test.sh");
    let stages = stages();
    let args = all(&stages[0], "ARG");
    assert_eq!(args, [format!("CLAUDE_CLI_VERSION={tested}")]);
}

#[test]
fn the_build_stage_uses_the_crates_rust_version() {
    let stages = stages();
    let from = all(&stages[1], "FROM");
    assert!(
        from[0].starts_with(&format!(
            "docker.io/library/rust:{}-slim-bookworm ",
            rust_version()
        )),
        "{from:?}"
    );
    let runtime_from = all(stages.last().expect("runtime"), "FROM");
    assert!(
        runtime_from[0].contains("debian:bookworm"),
        "the runtime is the build's Debian release: {runtime_from:?}"
    );
}

/// Cargo.toml's `rust-version`.
fn rust_version() -> String {
    let manifest = read("Cargo.toml");
    let line = manifest
        .lines()
        .find(|line| line.starts_with("rust-version"))
        .expect("rust-version in Cargo.toml");
    line.split('"').nth(1).expect("a quoted version").to_owned()
}

#[test]
fn the_runtime_has_what_the_bot_and_the_entrypoint_run() {
    let runtime = runtime();
    let run = all(&runtime, "RUN").join(" ");
    let install = run
        .split("apt-get install -y --no-install-recommends")
        .nth(1)
        .and_then(|rest| rest.split("&&").next())
        .expect("an apt-get install");
    let packages: Vec<&str> = install.split_whitespace().collect();
    for needed in [
        "bubblewrap",
        "ca-certificates",
        "curl",
        "git",
        "tini",
        "tzdata",
    ] {
        assert!(packages.contains(&needed), "{needed} in {packages:?}");
    }
    assert!(
        !packages.iter().any(|p| p.starts_with("nodejs")),
        "the CLI is native: no Node.js at run time"
    );
    assert!(run.contains("ln -s /opt/claude-code/bin/claude.exe /usr/local/bin/claude"));
    let entrypoint = all(&runtime, "ENTRYPOINT");
    assert_eq!(
        entrypoint,
        [r#"["/usr/bin/tini", "--", "/usr/local/bin/ollim-entrypoint"]"#]
    );
    let copies = all(&runtime, "COPY");
    assert!(copies.contains(&"container/entrypoint.sh /usr/local/bin/ollim-entrypoint"));
    assert!(copies.contains(&"container/healthcheck.sh /usr/local/bin/ollim-healthcheck"));
}

#[test]
fn the_bot_runs_as_a_user_that_is_not_root() {
    let runtime = runtime();
    assert_eq!(all(&runtime, "USER"), ["bot"]);
    let run = all(&runtime, "RUN").join(" ");
    assert!(run.contains("useradd --create-home --uid 10001"), "{run}");
    let last_user = runtime
        .iter()
        .rposition(|(k, _)| k == "USER")
        .expect("USER");
    assert!(
        runtime[last_user..].iter().all(|(k, _)| k != "RUN"),
        "nothing runs as root after USER"
    );
}

#[test]
fn the_volumes_are_where_the_bot_keeps_its_data_and_the_clis_config() {
    let env = image_env();
    assert_eq!(env.get("HOME").map(String::as_str), Some("/home/bot"));
    assert!(
        !env.contains_key("OLLIM_DATA_DIR"),
        "HOME's default is used"
    );
    let data_dir = ollim_bot::config::data_dir_from(|name| env.get(name).cloned())
        .expect("a data dir from the image's environment");
    let cli_config = env.get("CLAUDE_CONFIG_DIR").expect("CLAUDE_CONFIG_DIR");
    let volumes = image_volumes();
    assert_eq!(
        volumes,
        [data_dir.display().to_string(), cli_config.clone()]
    );
    // The dirs exist, owned by `bot`, so a fresh named volume starts out the bot's.
    let run = all(&runtime(), "RUN").join(" ");
    assert!(
        run.contains(&format!(
            "install -d -o bot -g bot -m 0700 {}",
            volumes.join(" ")
        )),
        "{run}"
    );
}

fn compose() -> Value {
    serde_yaml::from_str(&read("compose.yaml")).expect("compose.yaml parses")
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_sequence()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_rootfs_trial_makes_the_user_and_dirs_as_the_image_does() {
    let trial = read(".ci/container-rootfs.sh");
    let run = all(&runtime(), "RUN").join(" && ");
    for step in ["useradd ", "install -d "] {
        let command = run
            .split("&&")
            .map(str::trim)
            .find(|command| command.starts_with(step))
            .unwrap_or_else(|| panic!("{step} in the Containerfile"));
        assert!(
            trial.contains(&format!("chroot \"$root\" {command}\n")),
            "the trial runs `{command}` as the Containerfile does"
        );
    }
}

#[test]
fn compose_gives_the_sandbox_what_it_needs_and_no_privilege() {
    let compose = compose();
    let bot = &compose["services"]["ollim-bot"];
    assert_eq!(bot["build"]["dockerfile"].as_str(), Some("Containerfile"));
    assert_eq!(
        strings(&bot["security_opt"]),
        [
            "seccomp=unconfined",
            "apparmor=unconfined",
            "systempaths=unconfined",
            "no-new-privileges"
        ]
    );
    assert_eq!(strings(&bot["cap_drop"]), ["ALL"]);
    assert!(bot["cap_add"].is_null() && bot["privileged"].is_null());
    assert!(bot["mem_limit"].as_str().is_some(), "a memory bound");
    assert!(bot["profiles"].is_null(), "the bot runs by default");
    // Time for a turn in progress to finish after SIGTERM, then for the CLIs to stop (10 s).
    let grace: u64 = bot["stop_grace_period"]
        .as_str()
        .and_then(|g| g.strip_suffix('s')?.parse().ok())
        .expect("stop_grace_period in seconds");
    assert!(
        grace >= ollim_bot::app::TURN_DEADLINE.as_secs() + 10,
        "{grace}s"
    );
    let targets: Vec<String> = strings(&bot["volumes"])
        .iter()
        .filter_map(|v| v.split(':').nth(1).map(str::to_owned))
        .collect();
    assert_eq!(targets, image_volumes());
}

/// BOOT-11: Ollama only with `--profile ollama`, published on the host's loopback only.
#[test]
fn ollama_is_opt_in_and_only_on_the_hosts_loopback() {
    let compose = compose();
    let services = compose["services"].as_mapping().expect("services");
    assert_eq!(
        strings(&compose["services"]["ollama"]["profiles"]),
        ["ollama"]
    );
    assert!(
        compose["services"]["ollim-bot"]["depends_on"].is_null(),
        "the bot alone must start without the ollama profile; the entrypoint waits instead"
    );
    let mut published = 0;
    for (name, service) in services {
        for port in strings(&service["ports"]) {
            published += 1;
            assert!(port.starts_with("127.0.0.1:"), "{name:?} publishes {port}");
        }
    }
    assert!(published > 0);
    for volume in ["bot_data", "cli_config", "ollama_models"] {
        assert!(
            compose["volumes"]
                .as_mapping()
                .expect("volumes")
                .contains_key(volume),
            "{volume}"
        );
    }
}

#[test]
fn the_scripts_parse_and_the_ignore_files_agree() {
    for script in ["container/entrypoint.sh", "container/healthcheck.sh"] {
        let status = std::process::Command::new("sh")
            .arg("-n")
            .arg(repo().join(script))
            .status()
            .expect("run sh -n");
        assert!(status.success(), "sh -n {script}");
    }
    let link = std::fs::read_link(repo().join(".dockerignore")).expect(".dockerignore is a link");
    assert_eq!(link, std::path::Path::new(".containerignore"));
    let ignored: Vec<String> = read(".containerignore")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(str::to_owned)
        .collect();
    for needed in [
        "src",
        "docs",
        "benches",
        "tests",
        "test-support",
        "Cargo.lock",
    ] {
        assert!(
            !ignored.iter().any(|line| line == needed),
            "{needed} is needed by the build"
        );
    }
    for secret in [".env", "target", ".git"] {
        assert!(
            ignored.iter().any(|line| line == secret),
            "{secret} left out"
        );
    }
}
