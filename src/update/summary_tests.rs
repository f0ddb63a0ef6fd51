use super::*;

fn subjects(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("change {i}")).collect()
}

#[test]
fn a_few_commits_are_all_listed() {
    assert_eq!(
        restart_message(&subjects(2)),
        "updating and restarting...\n```\nchange 1\nchange 2\n```"
    );
}

#[test]
fn five_are_shown_and_the_rest_counted() {
    assert_eq!(
        restart_message(&subjects(5)),
        "updating and restarting...\n```\nchange 1\nchange 2\nchange 3\nchange 4\nchange 5\n```"
    );
    assert_eq!(
        restart_message(&subjects(8)),
        "updating and restarting...\n```\nchange 1\nchange 2\nchange 3\nchange 4\nchange 5\n\
         ... and 3 more\n```"
    );
}

#[test]
fn no_new_commits_no_block() {
    assert_eq!(restart_message(&[]), "updating and restarting...");
}

#[test]
fn subjects_cannot_break_the_fence_or_the_length() {
    let text = restart_message(&["use ```code``` here".to_owned(), "x".repeat(500)]);
    assert!(text.contains("use '''code''' here"), "{text}");
    assert!(
        text.contains(&format!("{}...\n", "x".repeat(200))),
        "{text}"
    );
    assert!(!text.contains(&"x".repeat(201)), "{text}");
}
