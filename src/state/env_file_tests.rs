use super::*;

#[test]
fn replaces_existing_lines_and_keeps_the_rest() {
    let before = "DISCORD_TOKEN=abc\nexport OLLIM_USER_NAME=Old\n# note\nOLLIM_USER_NAME=dup\n";
    let after = with_vars(
        before,
        &[
            ("OLLIM_USER_NAME", "Julia"),
            ("OLLIM_BOT_NAME", "Ollim Bot"),
        ],
    );
    assert_eq!(
        after,
        "DISCORD_TOKEN=abc\nOLLIM_USER_NAME=Julia\n# note\nOLLIM_BOT_NAME=\"Ollim Bot\"\n"
    );
}

#[test]
fn writes_a_missing_file_owner_only_and_dotenv_reads_it_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".env");
    let tricky = "say \"hi\" \\ # not a comment";
    set_vars(
        &path,
        &[
            ("OLLIM_TIMEZONE", "America/New_York"),
            ("OLLIM_USER_NAME", tricky),
        ],
    )
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("OLLIM_TIMEZONE=America/New_York\n"),
        "{text}"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let read: Vec<(String, String)> = dotenvy::from_path_iter(&path)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(read[1], ("OLLIM_USER_NAME".to_owned(), tricky.to_owned()));
}

#[test]
fn a_variable_reference_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".env");
    std::fs::write(&path, "DISCORD_TOKEN=secret-token\n").unwrap();
    for name in ["${DISCORD_TOKEN}", "$DISCORD_TOKEN", "a$DISCORD_TOKEN b"] {
        set_vars(&path, &[("OLLIM_BOT_NAME", name)]).unwrap();
        let read: Vec<(String, String)> = dotenvy::from_path_iter(&path)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read[1], ("OLLIM_BOT_NAME".to_owned(), name.to_owned()));
    }
}
