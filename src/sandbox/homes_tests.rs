use std::path::{Path, PathBuf};

use super::*;

struct Fixture {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    master: PathBuf,
    homes: CliHomes,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("data");
    let master = ws.join("state/claude");
    std::fs::create_dir_all(&master).unwrap();
    let homes = CliHomes::new(
        ws.join("state/cli_homes"),
        master.clone(),
        ws.clone(),
        CliHomeBook::new(ws.join("state/cli_homes.json")),
    );
    Fixture {
        _tmp: tmp,
        ws,
        master,
        homes,
    }
}

fn transcript_in(f: &Fixture, home: &Path, id: &str) -> PathBuf {
    home.join("projects")
        .join(crate::transcripts::project_key(&f.ws))
        .join(format!("{id}.jsonl"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_new_session_gets_a_home_of_its_own_with_a_private_temp_dir() {
    let f = fixture();
    let a = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    let b = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    let c = f
        .homes
        .prepare(Confinement::Background, None, false)
        .unwrap();
    assert_ne!(a, b);
    assert!(c.file_name().unwrap().to_string_lossy().starts_with("bg-"));
    assert!(a.join("tmp").is_dir());
}

#[test]
fn the_owners_session_wakes_in_its_own_home_and_a_fork_gets_a_copy_of_the_transcript_only() {
    let f = fixture();
    let main = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    f.homes.record("s-main", &main);
    write(&transcript_in(&f, &main, "s-main"), "{\"main\":1}\n");
    write(
        &main.join("shell-snapshots/snapshot-bash-1.sh"),
        "echo planted",
    );
    assert_eq!(
        f.homes
            .prepare(Confinement::Owner, Some("s-main"), false)
            .unwrap(),
        main,
        "the same conversation resumes where it was"
    );
    let fork = f
        .homes
        .prepare(Confinement::Owner, Some("s-main"), true)
        .unwrap();
    assert_ne!(fork, main);
    assert_eq!(
        std::fs::read_to_string(transcript_in(&f, &fork, "s-main")).unwrap(),
        "{\"main\":1}\n"
    );
    assert!(
        !fork.join("shell-snapshots").exists(),
        "nothing else comes along"
    );
}

#[test]
fn a_background_runs_home_is_never_reused_by_the_owner_and_its_forgery_is_never_read() {
    let f = fixture();
    let main = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    f.homes.record("s-main", &main);
    write(&transcript_in(&f, &main, "s-main"), "real\n");
    let run = f
        .homes
        .prepare(Confinement::Background, None, false)
        .unwrap();
    f.homes.record("s-run", &run);
    write(&transcript_in(&f, &run, "s-run"), "run\n");
    // The run writes a newer "main" transcript and a shell snapshot in its own home.
    write(&transcript_in(&f, &run, "s-main"), "forged\n");
    write(&run.join("shell-snapshots/snapshot-bash-1.sh"), "evil");
    assert_eq!(
        std::fs::read_to_string(f.homes.transcript("s-main").unwrap().unwrap()).unwrap(),
        "real\n"
    );
    // The owner resumes the run's session (a reply to its message): a fresh owner home
    // with the run's transcript, none of its other files.
    let resumed = f
        .homes
        .prepare(Confinement::Owner, Some("s-run"), false)
        .unwrap();
    assert_ne!(resumed, run);
    assert!(transcript_in(&f, &resumed, "s-run").is_file());
    assert!(!resumed.join("shell-snapshots").exists());
}

#[test]
fn a_session_from_before_the_homes_is_found_in_the_master_config_dir() {
    let f = fixture();
    write(&transcript_in(&f, &f.master, "s-old"), "old\n");
    let home = f
        .homes
        .prepare(Confinement::Owner, Some("s-old"), false)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(transcript_in(&f, &home, "s-old")).unwrap(),
        "old\n"
    );
}

#[test]
fn the_login_comes_in_and_only_the_owners_refreshed_login_goes_back() {
    let f = fixture();
    let master = f.master.join(CREDENTIALS);
    write(&master, "{\"token\":\"one\"}");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&master)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let main = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    f.homes.record("s-main", &main);
    assert_eq!(
        std::fs::read_to_string(main.join(CREDENTIALS)).unwrap(),
        "{\"token\":\"one\"}"
    );
    let run = f
        .homes
        .prepare(Confinement::Background, None, false)
        .unwrap();
    f.homes.record("s-run", &run);
    write(&run.join(CREDENTIALS), "{\"token\":\"attacker\"}");
    f.homes.prepare(Confinement::Owner, None, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(&master).unwrap(),
        "{\"token\":\"one\"}",
        "a run's login never goes back"
    );
    write(&main.join(CREDENTIALS), "{\"token\":\"two\"}");
    let next = f
        .homes
        .prepare(Confinement::Background, None, false)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&master).unwrap(),
        "{\"token\":\"two\"}"
    );
    assert_eq!(
        std::fs::read_to_string(next.join(CREDENTIALS)).unwrap(),
        "{\"token\":\"two\"}"
    );
}

/// CMD-10: a scratch home gets the login, every start is pinned to it, nothing is recorded,
/// and it is gone when dropped; one left over a day is swept.
#[test]
fn a_scratch_home_holds_every_start_records_nothing_and_is_removed() {
    let f = fixture();
    write(&f.master.join(CREDENTIALS), "{\"token\":1}");
    let scratch = f.homes.scratch().unwrap();
    let home = scratch.path().to_path_buf();
    assert!(
        home.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(SCRATCH_PREFIX)
    );
    assert!(home.join(CREDENTIALS).is_file() && home.join("tmp").is_dir());
    let pinned = f.homes.pinned_to(home.clone());
    assert_eq!(
        pinned
            .prepare(Confinement::Owner, Some("copy"), true)
            .unwrap(),
        home
    );
    pinned.record("branch", &home);
    assert_eq!(f.homes.book.home_of("branch").unwrap(), None);
    assert_eq!(
        pinned.transcripts_in(&home),
        transcript_in(&f, &home, "x").parent().unwrap()
    );
    drop(scratch);
    assert!(!home.exists());

    let old = f.homes.scratch().unwrap();
    let kept = old.path().to_path_buf();
    std::mem::forget(old);
    let owner = f.homes.prepare(Confinement::Owner, None, false).unwrap();
    f.homes
        .sweep_scratch(std::time::SystemTime::now() - std::time::Duration::from_secs(60));
    assert!(kept.is_dir(), "a fresh one stays");
    f.homes
        .sweep_scratch(std::time::SystemTime::now() + std::time::Duration::from_secs(60));
    assert!(!kept.exists());
    assert!(owner.is_dir(), "only scratch homes are swept");
}
