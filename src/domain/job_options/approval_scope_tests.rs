use chrono::{DateTime, FixedOffset};

use super::*;
use crate::domain::job_options::UpdateMode;

fn at(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

fn tools(patterns: &[&str]) -> RunOptions {
    RunOptions {
        tools: ToolRestriction::Allowed(patterns.iter().map(|p| (*p).to_owned()).collect()),
        ..RunOptions::default()
    }
}

fn scope(run: RunMode, schedule: Schedule<'_>, options: &RunOptions) -> ApprovalScope {
    ApprovalScope::new("Check the build.", (run, schedule), options, Vec::new())
}

const BACKGROUND: RunMode = RunMode::Background(BgSession::Forked);

/// Issue 39 §4, BOX-7: every setting of how, when and with what a job runs is part of its
/// version, so an approval of one doesn't hold for a job rewritten in any of them.
#[test]
fn every_setting_of_the_job_is_another_version() {
    let options = tools(&["Bash(git status)"]);
    let cron = Schedule::Cron("0 9 * * *");
    let base = scope(BACKGROUND, cron, &options);
    let mut variants = vec![
        ("foreground", scope(RunMode::Foreground, cron, &options)),
        (
            "isolated",
            scope(RunMode::Background(BgSession::Isolated), cron, &options),
        ),
        (
            "persistent",
            scope(RunMode::Background(BgSession::Persistent), cron, &options),
        ),
        (
            "cron",
            scope(BACKGROUND, Schedule::Cron("* * * * *"), &options),
        ),
        (
            "run-at",
            scope(
                BACKGROUND,
                Schedule::At(at("2026-12-01T09:00:00Z")),
                &options,
            ),
        ),
        ("webhook", scope(BACKGROUND, Schedule::OnRequest, &options)),
        (
            "body",
            ApprovalScope::new(
                "Check the build, then mail it.",
                (BACKGROUND, cron),
                &options,
                Vec::new(),
            ),
        ),
        (
            "chain",
            ApprovalScope::new(
                "Check the build.",
                (BACKGROUND, cron),
                &options,
                chain_settings(0, 3, None),
            ),
        ),
    ];
    let edited = |name: &'static str, edit: &dyn Fn(&mut RunOptions)| {
        let mut edited = options.clone();
        edit(&mut edited);
        (name, scope(BACKGROUND, cron, &edited))
    };
    variants.extend([
        edited("allow-ping", &|o| o.allow_ping = false),
        edited("update-main-session", &|o| {
            o.update_mode = UpdateMode::Blocked;
        }),
        edited("model", &|o| o.model = Some("opus".into())),
        edited("thinking", &|o| o.thinking = false),
        edited("reflect", &|o| o.reflect = false),
        edited("skills", &|o| o.skills = vec!["plan".into()]),
        edited("subagent", &|o| o.subagent = Some("helper".into())),
        edited("tools", &|o| {
            o.tools = ToolRestriction::Allowed(vec!["Bash(git log)".into()]);
        }),
        edited("tool kind", &|o| {
            o.tools = ToolRestriction::Disallowed(vec!["Bash(git status)".into()]);
        }),
    ]);
    for (name, variant) in &variants {
        assert_ne!(variant.version(), base.version(), "{name} kept the version");
    }
    let mut versions: Vec<&str> = variants.iter().map(|(_, v)| v.version()).collect();
    versions.sort_unstable();
    versions.dedup();
    assert_eq!(
        versions.len(),
        variants.len(),
        "two variants share a version"
    );
    // The same job is the same version, and it is of the new format.
    assert_eq!(scope(BACKGROUND, cron, &options), base);
    assert!(
        base.version().starts_with(VERSION_PREFIX),
        "{}",
        base.version()
    );
    assert_eq!(base.version().len(), VERSION_PREFIX.len() + 16);
}

/// A reminder's time is the instant it names, however the offset is spelt; chain settings
/// that differ only in depth or parent are other versions too.
#[test]
fn a_time_is_its_instant_and_chain_links_differ() {
    let options = RunOptions::default();
    let utc = scope(
        BACKGROUND,
        Schedule::At(at("2026-12-01T09:00:00Z")),
        &options,
    );
    let offset = scope(
        BACKGROUND,
        Schedule::At(at("2026-12-01T10:00:00+01:00")),
        &options,
    );
    assert_eq!(utc.version(), offset.version());
    let link = |depth, parent| {
        ApprovalScope::new(
            "x",
            (BACKGROUND, Schedule::OnRequest),
            &options,
            chain_settings(depth, 2, parent),
        )
    };
    assert_ne!(link(0, None).version(), link(1, None).version());
    assert_ne!(link(1, None).version(), link(1, Some("a1")).version());
}

/// No two different jobs hash alike by moving text between settings.
#[test]
fn parts_are_kept_apart() {
    let options = RunOptions::default();
    let one = ApprovalScope::new(
        "ab",
        (BACKGROUND, Schedule::OnRequest),
        &options,
        vec![Setting::new("fields", "c", false)],
    );
    let two = ApprovalScope::new(
        "a",
        (BACKGROUND, Schedule::OnRequest),
        &options,
        vec![Setting::new("fields", "bc", false)],
    );
    assert_ne!(one.version(), two.version());
}

/// The embed's summary names how and when the job runs, its pings and reporting always, and
/// other options only when they differ from their defaults.
#[test]
fn the_summary_names_run_mode_schedule_and_flags() {
    let mut options = tools(&["Bash(git status)"]);
    options.allow_ping = false;
    let plain = scope(BACKGROUND, Schedule::Cron("0 9 * * 1"), &options);
    assert_eq!(
        plain.summary(),
        "run: background, forked · cron: `0 9 * * 1` · allow-ping: false · \
         update-main-session: on_ping"
    );
    options.model = Some("haiku".into());
    let chained = ApprovalScope::new(
        "x",
        (
            RunMode::Foreground,
            Schedule::At(at("2026-12-01T10:00:00+01:00")),
        ),
        &options,
        chain_settings(1, 3, Some("root")),
    );
    assert_eq!(
        chained.summary(),
        "run: foreground (in the main conversation) · run-at: 2026-12-01 09:00:00 UTC · \
         allow-ping: false · update-main-session: on_ping · max-chain: 3 · chain-depth: 1 · \
         model: haiku"
    );
}
