//! CMD-10: naming a session by age, title, slug or id prefix.

use std::{
    path::{Path, PathBuf},
    time::{Duration, SystemTime},
};

use super::*;

fn session(id: &str, age_secs: u64) -> SessionFile {
    SessionFile {
        id: id.to_owned(),
        path: PathBuf::from(format!("/p/{id}.jsonl")),
        modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(10_000 - age_secs)),
    }
}

fn sessions() -> Vec<SessionFile> {
    vec![
        session("1111aaaa", 30),
        session("2222bbbb", 10),
        session("2223cccc", 20),
    ]
}

fn titles_for(file: &SessionFile) -> Titles {
    match file.id.as_str() {
        "1111aaaa" => Titles {
            custom: vec![],
            slugs: vec!["plan-day".into()],
        },
        "2222bbbb" => Titles {
            custom: vec!["plan-day".into()],
            slugs: vec!["tidy-room".into()],
        },
        _ => Titles::default(),
    }
}

fn resolve(raw: &str) -> Result<String, SessionRefError> {
    let all = sessions();
    let dirs = (Path::new("/data"), Path::new("/p"));
    resolve_session(&all, &SessionRef::parse(raw), |f| Ok(titles_for(f)), dirs)
        .map(|s| s.id.clone())
}

#[test]
fn references_parse_by_shape() {
    assert_eq!(SessionRef::parse("latest"), SessionRef::Back(0));
    assert_eq!(SessionRef::parse("prev"), SessionRef::Back(1));
    assert_eq!(SessionRef::parse("prev-3"), SessionRef::Back(3));
    assert_eq!(
        SessionRef::parse("2222b:4"),
        SessionRef::IdPrefix("2222b".into())
    );
    assert_eq!(
        SessionRef::parse("plan-day"),
        SessionRef::Title("plan-day".into())
    );
    assert_eq!(
        SessionRef::parse("prev-0"),
        SessionRef::Title("prev-0".into())
    );
}

#[test]
fn latest_and_prev_count_back_by_modification() {
    assert_eq!(resolve("latest").unwrap(), "2222bbbb");
    assert_eq!(resolve("prev").unwrap(), "2223cccc");
    assert_eq!(resolve("prev-2").unwrap(), "1111aaaa");
    assert_eq!(
        resolve("prev-3").unwrap_err().to_string(),
        "Only 3 sessions found, cannot resolve prev-3."
    );
}

#[test]
fn a_custom_title_wins_over_an_earlier_slug() {
    assert_eq!(resolve("plan-day").unwrap(), "2222bbbb");
    assert_eq!(resolve("tidy-room").unwrap(), "2222bbbb");
    assert_eq!(
        resolve("nope").unwrap_err().to_string(),
        "No session found with slug 'nope'"
    );
}

#[test]
fn an_id_prefix_must_name_one_session() {
    assert_eq!(resolve("2223").unwrap(), "2223cccc");
    assert_eq!(resolve("1111aaaa").unwrap(), "1111aaaa");
    assert!(
        resolve("222")
            .unwrap_err()
            .to_string()
            .starts_with("Session prefix '222' matches 2 sessions")
    );
    assert!(
        resolve("9")
            .unwrap_err()
            .to_string()
            .starts_with("No session file matching '9*' in /p")
    );
    let none = resolve_session(
        &[],
        &SessionRef::Back(0),
        |f| Ok(titles_for(f)),
        (Path::new("/data"), Path::new("/p")),
    );
    assert!(
        none.unwrap_err()
            .to_string()
            .starts_with("No sessions found for /data")
    );
}

#[test]
fn titles_are_read_from_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"custom-title\",\"customTitle\":\"Big day\"}\n{\"slug\":\"big-day\"}\n{\"slug\":\"big-day\"}\nbroken \"slug\"\n",
    )
    .unwrap();
    let found = titles_of(&path).unwrap();
    assert_eq!(found.custom, ["Big day"]);
    assert_eq!(found.slugs, ["big-day"]);
}
