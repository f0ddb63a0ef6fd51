//! SKL-4 / F-6: `` !`command` `` expansion, its markers and limits.

use std::time::Duration;

use super::dynamic_context::{OUTPUT_CAP_CHARS, TRUNCATION_MARK, expand_dynamic_context_with};
use super::{Limits, expand_dynamic_context};

/// Limits small enough that timeout tests finish quickly.
const TINY: Limits = Limits {
    per_command: Duration::from_millis(300),
    total: Duration::from_millis(600),
};

#[tokio::test]
async fn skl4_echo_output_replaces_the_marker() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Today: !`echo hello world` and !` echo 'a  b' \"c d\" `.\n";
    assert_eq!(
        expand_dynamic_context(body, dir.path()).await,
        "Today: hello world and a  b c d.\n"
    );
}

#[tokio::test]
async fn skl4_commands_run_in_the_given_directory_without_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "found me\n\n").unwrap();
    let expanded = expand_dynamic_context("!`cat marker.txt` !`echo $HOME | wc`", dir.path()).await;
    assert_eq!(expanded, "found me $HOME | wc");
}

#[tokio::test]
async fn skl4_missing_command_gives_the_not_found_marker() {
    let dir = tempfile::tempdir().unwrap();
    let expanded = expand_dynamic_context("x !`no-such-command-ollim --flag` y", dir.path()).await;
    assert_eq!(
        expanded,
        "x [command not found: no-such-command-ollim --flag] y"
    );
}

#[tokio::test]
async fn skl4_failures_carry_the_exit_code_and_first_stderr_line() {
    let dir = tempfile::tempdir().unwrap();
    let expanded = expand_dynamic_context(
        "!`ls definitely-missing-file` | !`false` | !`echo 'unclosed`",
        dir.path(),
    )
    .await;
    let parts: Vec<&str> = expanded.split(" | ").collect();
    assert!(
        parts[0].starts_with("[command failed (exit 2): ls definitely-missing-file: ls: ")
            && parts[0].ends_with(']')
            && !parts[0].contains('\n'),
        "{}",
        parts[0]
    );
    assert_eq!(parts[1], "[command failed (exit 1): false]");
    assert_eq!(parts[2], "[command parse error: echo 'unclosed]");
}

#[tokio::test]
async fn skl4_long_output_is_cut_at_2000_characters() {
    let dir = tempfile::tempdir().unwrap();
    let long = "é".repeat(OUTPUT_CAP_CHARS + 5);
    let expanded = expand_dynamic_context(&format!("!`echo {long}`"), dir.path()).await;
    assert_eq!(
        expanded,
        format!("{}{TRUNCATION_MARK}", "é".repeat(OUTPUT_CAP_CHARS))
    );
    let exact = "z".repeat(OUTPUT_CAP_CHARS);
    assert_eq!(
        expand_dynamic_context(&format!("!`echo {exact}`"), dir.path()).await,
        exact
    );
}

#[tokio::test]
async fn skl4_identical_commands_run_once() {
    let dir = tempfile::tempdir().unwrap();
    // Each run appends a line to `count`; had the second marker run too, it would say run twice.
    let once =
        "!`sh -c \"echo run >> count; cat count\"` / !`sh -c \"echo run >> count; cat count\"`";
    let expanded = expand_dynamic_context(once, dir.path()).await;
    assert_eq!(expanded, "run / run");
}

#[tokio::test]
async fn skl4_slow_commands_time_out_and_the_rest_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let body = "!`sleep 5` !`sleep 6` !`sleep 7` !`echo late` !`sleep 5`";
    let expanded = expand_dynamic_context_with(body, dir.path(), TINY).await;
    assert_eq!(
        expanded,
        "[command timed out: sleep 5] [command timed out: sleep 6] \
         [command skipped (total timeout): sleep 7] [command skipped (total timeout): echo late] \
         [command timed out: sleep 5]"
    );
}

#[tokio::test]
async fn skl4_text_without_complete_markers_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Say `hi`! Not a marker: !`` or !`echo\nsplit` or a lone !` at the end";
    assert_eq!(expand_dynamic_context(body, dir.path()).await, body);
    assert_eq!(Limits::default().per_command, Duration::from_secs(10));
    assert_eq!(Limits::default().total, Duration::from_secs(30));
}

#[tokio::test]
async fn skl4_endless_output_is_cut_and_the_command_killed_at_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let expanded = expand_dynamic_context_with("!`yes`", dir.path(), TINY).await;
    assert_eq!(expanded, "[command timed out: yes]");
    let expanded =
        expand_dynamic_context_with("!`head -c 300000 /dev/zero`", dir.path(), Limits::default())
            .await;
    assert!(expanded.ends_with(TRUNCATION_MARK));
    assert_eq!(
        expanded.chars().count(),
        OUTPUT_CAP_CHARS + TRUNCATION_MARK.chars().count()
    );
}

#[tokio::test]
async fn skl4_a_timed_out_command_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let body = "!`sh -c \"sleep 1 && touch finished\"`";
    assert_eq!(
        expand_dynamic_context_with(body, dir.path(), TINY).await,
        "[command timed out: sh -c \"sleep 1 && touch finished\"]"
    );
    // Had the shell survived its timeout, it would have created the file by now.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!dir.path().join("finished").exists());
}
