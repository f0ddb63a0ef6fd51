use std::{io, path::Path};

use super::{DiskNews, SpaceWatch, is_out_of_space};
use crate::state::StateError;

fn full() -> Result<(), StateError> {
    Err(StateError::io(
        Path::new("state/x.json"),
        io::Error::from_raw_os_error(28),
    ))
}

#[test]
fn the_owner_hears_once_that_it_is_full_and_once_that_it_works_again() {
    let watch = SpaceWatch::new();
    let note_write =
        |path: &Path, outcome: &Result<(), StateError>| watch.note_write(path, outcome);
    let take_news = || watch.take_news();
    let untell = |news| watch.untell(news);
    let path = Path::new("state/x.json");
    assert_eq!(take_news(), None);
    note_write(path, &Ok(()));
    assert_eq!(take_news(), None, "nothing to say while writes work");

    note_write(path, &full());
    note_write(path, &full());
    let news = take_news();
    assert!(
        matches!(&news, Some(DiskNews::Full { path, error }) if path.ends_with("x.json") && error.contains("space")),
        "{news:?}"
    );
    // Telling failed: the news comes back.
    untell(news.unwrap());
    assert!(matches!(take_news(), Some(DiskNews::Full { .. })));
    note_write(path, &full());
    assert_eq!(take_news(), None, "told once");
    // A small write that fitted proves nothing: the disk may still be full.
    note_write(path, &Ok(()));
    assert_eq!(take_news(), None);
    assert!(watch.is_full());

    watch.note_room();
    assert_eq!(take_news(), Some(DiskNews::Recovered));
    assert_eq!(take_news(), None);

    // Full and back before anyone was told: nothing to say.
    note_write(path, &full());
    watch.note_room();
    assert_eq!(take_news(), None);

    // Other errors are not about space.
    let denied = Err(StateError::io(
        path,
        io::Error::from(io::ErrorKind::PermissionDenied),
    ));
    note_write(path, &denied);
    assert_eq!(take_news(), None);
}

#[test]
fn space_errors_are_recognised() {
    assert!(is_out_of_space(&io::Error::from_raw_os_error(28)));
    assert!(is_out_of_space(&io::Error::from_raw_os_error(122)));
    assert!(is_out_of_space(&io::Error::from_raw_os_error(27)));
    assert!(!is_out_of_space(&io::Error::from_raw_os_error(13)));
}
