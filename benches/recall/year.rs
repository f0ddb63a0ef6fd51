//! A synthetic year of an ADHD person's life with their assistant, from 2026-01-01 (UTC),
//! made deterministically (one seeded splitmix64): each day [`PER_DAY`] messages, the owner
//! and the assistant in turn, over a main session that lasts one to four days, a fork on some
//! days and a background run each weekday morning plus a reminder's on some days, each its own
//! session; and [`NOTES`] markdown notes under the data dir dated by their day (last change).
//! The planted facts of `facts` go in among them. One more day (2027-01-01) is made apart, for
//! the index's catch-up after a day is appended.

use std::{fs, io::Write as _, path::Path, time::SystemTime};

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};

use crate::chatter::{MORNING, REMINDERS};
use crate::facts::{self, Fact, Place, Planted};
use crate::notes::filler_note;
use crate::transcript::Session;
use crate::vocabulary::{Rng, fill};

/// Days in the year (the appended day is one more).
pub(crate) const DAYS: usize = 365;
/// Messages a day, owner and assistant in turn, over every session of the day.
pub(crate) const PER_DAY: usize = 40;
/// Notes in the year.
pub(crate) const NOTES: usize = 500;
const SEED: u64 = 0x0042_2026;

/// Where a file of the year goes.
pub(crate) enum Home {
    /// A transcript, by session id, in the CLI's folder for the data dir.
    Session(String),
    /// A file under the data dir, by its relative path.
    Data(String),
}

/// A file of the year, or the part of one that the appended day adds.
pub(crate) struct File {
    pub(crate) home: Home,
    pub(crate) text: String,
    pub(crate) modified: DateTime<Utc>,
}

/// What the year holds.
#[derive(Default, Clone)]
pub(crate) struct Counts {
    pub(crate) main: usize,
    pub(crate) forks: usize,
    pub(crate) background: usize,
    pub(crate) messages: usize,
    pub(crate) notes: usize,
}

/// The year made: its files, the appended day's, and the facts planted in it.
pub(crate) struct Year {
    pub(crate) facts: Vec<Fact>,
    pub(crate) files: Vec<File>,
    pub(crate) extra: Vec<File>,
    pub(crate) counts: Counts,
}

pub(crate) fn first_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date")
}

pub(crate) fn at(date: NaiveDate, minute: usize, second: usize) -> DateTime<Utc> {
    let seconds = i64::try_from(minute * 60 + second).expect("a day's seconds");
    date.and_hms_opt(0, 0, 0).expect("midnight").and_utc() + Duration::seconds(seconds)
}

/// The bot's stamp before each prompt (`[2026-02-24 Tue 02:30 PM UTC]`).
pub(crate) fn stamp(at: DateTime<Utc>) -> String {
    at.format("[%Y-%m-%d %a %I:%M %p UTC]").to_string()
}

/// Makes the year for a data dir at `cwd` (the transcripts name it).
pub(crate) fn generate(cwd: &Path) -> Year {
    let facts = facts::all();
    let planted: Vec<Planted> = facts
        .iter()
        .flat_map(|fact| std::iter::once(&fact.passage).chain(&fact.near))
        .cloned()
        .collect();
    let mut maker = Maker {
        rng: Rng::new(SEED),
        cwd: cwd.to_string_lossy().into_owned(),
        files: Vec::new(),
        extra: Vec::new(),
        corpus: Vec::new(),
        counts: Counts::default(),
        main: None,
        main_days: 0,
        main_span: 0,
    };
    let mut note_paths: Vec<&str> = Vec::new();
    for item in &planted {
        if let Place::Note(path) = &item.place {
            assert!(
                !note_paths.contains(&path.as_str()),
                "one planted passage per note"
            );
            note_paths.push(path);
        }
    }
    let fillers = NOTES - note_paths.len();
    let mut counts = Counts::default();
    for day in 0..=DAYS {
        if day == DAYS {
            counts = maker.counts.clone();
        }
        let here: Vec<Planted> = planted.iter().filter(|p| p.day == day).cloned().collect();
        maker.day(day, &here);
        let notes = if day == DAYS {
            1
        } else {
            (day + 1) * fillers / DAYS - day * fillers / DAYS
        };
        for _ in 0..notes {
            let n = maker.counts.notes;
            let (path, text) = filler_note(&mut maker.rng, date(day), n);
            maker.note(day, path, text);
        }
    }
    if let Some(main) = maker.main.take() {
        maker.close(main);
    }
    for fact in &facts {
        let answer = fact.answer.to_lowercase();
        let holders = maker.corpus.iter().filter(|t| t.contains(&answer)).count();
        assert!(
            fact.passage.text.to_lowercase().contains(&answer),
            "{answer} in its fact"
        );
        assert_eq!(
            holders, 1,
            "the answer {answer:?} is in its fact's passage only"
        );
        assert!(fact.passage.text.len() < 1000, "a fact is one passage");
        if matches!(fact.passage.place, Place::BgTool(_)) {
            assert!(
                fact.passage.text.len() < 280,
                "a tool's fact is inside its summary"
            );
        }
    }
    Year {
        facts,
        files: maker.files,
        extra: maker.extra,
        counts,
    }
}

fn date(day: usize) -> NaiveDate {
    first_day() + Duration::days(i64::try_from(day).expect("a day"))
}

/// The year being made (its days' sessions are made in `day.rs`).
pub(crate) struct Maker {
    pub(crate) rng: Rng,
    cwd: String,
    files: Vec<File>,
    extra: Vec<File>,
    /// Every text recall will index, lower-cased: each answer must be in one only.
    pub(crate) corpus: Vec<String>,
    pub(crate) counts: Counts,
    main: Option<Session>,
    main_days: usize,
    main_span: usize,
}

impl Maker {
    fn day(&mut self, day: usize, here: &[Planted]) {
        let date = date(day);
        let extra = day == DAYS;
        let mut texts = 0;
        if date.weekday().num_days_from_monday() < 5 {
            self.background(date, 9 * 60, MORNING, &[], extra);
            texts += 2;
        }
        let run: Vec<&Planted> = here
            .iter()
            .filter(|p| {
                matches!(
                    p.place,
                    Place::BgPrompt | Place::BgAnswer | Place::BgTool(_)
                )
            })
            .collect();
        if !run.is_empty() || self.rng.chance(30) {
            let minute = (10 + self.rng.below(9)) * 60 + self.rng.below(60);
            let prompt = fill(self.rng.pick(REMINDERS), &mut self.rng);
            self.background(date, minute, &prompt, &run, extra);
            texts += 2;
        }
        let fork: Vec<&Planted> = here
            .iter()
            .filter(|p| matches!(p.place, Place::Fork(_)))
            .collect();
        if !fork.is_empty() || self.rng.chance(20) {
            let start = 12 * 60 + self.rng.below(7 * 60);
            let mut session = self.session(at(date, start, 0), extra);
            self.exchanges(&mut session, date, (start, 4), 3, &fork);
            self.counts.forks += 1;
            self.close(session);
            texts += 6;
        }
        let main: Vec<&Planted> = here
            .iter()
            .filter(|p| matches!(p.place, Place::Main(_)))
            .collect();
        let fresh = self.main.is_none() || self.main_days >= self.main_span;
        let mut session = match self.main.take() {
            Some(session) if !fresh => session,
            old => {
                if let Some(old) = old {
                    self.close(old);
                }
                self.main_days = 0;
                self.main_span = 1 + self.rng.below(4);
                self.counts.main += 1;
                self.session(at(date, 8 * 60, 0), extra)
            }
        };
        if extra && session.kept.is_none() {
            session.kept = Some((session.lines.len(), session.last));
        }
        self.main_days += 1;
        let exchanges = (PER_DAY - texts) / 2;
        let step = 15 * 60 / exchanges;
        self.exchanges(&mut session, date, (8 * 60, step), exchanges, &main);
        self.main = Some(session);
        for item in here {
            if let Place::Note(path) = &item.place {
                let text = planted_note(path, &item.text, &mut self.rng);
                self.note(day, path.clone(), text);
            }
        }
    }

    pub(crate) fn session(&mut self, start: DateTime<Utc>, extra: bool) -> Session {
        let mut session = Session::new(&mut self.rng, &self.cwd, start);
        if extra {
            session.kept = Some((0, start));
        }
        session
    }

    fn note(&mut self, day: usize, path: String, text: String) {
        let minute = 19 * 60 + self.rng.below(180);
        let modified = at(date(day), minute, self.rng.below(60));
        self.corpus.push(text.to_lowercase());
        let file = File {
            home: Home::Data(path),
            text,
            modified,
        };
        if day == DAYS {
            self.extra.push(file);
        } else {
            self.counts.notes += 1;
            self.files.push(file);
        }
    }

    /// A finished session: the year's lines to the year, the appended day's to `extra`.
    pub(crate) fn close(&mut self, session: Session) {
        let text = |lines: &[String]| {
            lines
                .iter()
                .flat_map(|line| [line.as_str(), "\n"])
                .collect()
        };
        let (kept, kept_last) = session.kept.unwrap_or((session.lines.len(), session.last));
        if kept > 0 {
            self.files.push(File {
                home: Home::Session(session.id.clone()),
                text: text(&session.lines[..kept]),
                modified: kept_last,
            });
        }
        if kept < session.lines.len() {
            self.extra.push(File {
                home: Home::Session(session.id),
                text: text(&session.lines[kept..]),
                modified: session.last,
            });
        }
    }
}

/// A planted note's file: a title and a line before the planted section, or a routine's
/// frontmatter.
fn planted_note(path: &str, text: &str, rng: &mut Rng) -> String {
    if path.starts_with("routines/") || path.starts_with("reminders/") {
        let id = rng.next_u64() >> 32;
        return format!(
            "---\nid: \"{id:08x}\"\ncron: \"0 19 * * 0\"\ndescription: \"Bin day\"\n---\n{text}\n"
        );
    }
    let stem = Path::new(path)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("notes")
        .replace('-', " ");
    format!("# {stem}\n\nKept by the assistant, newest at the bottom.\n\n{text}\n")
}

/// Writes `files` (appending to any that exist) under the data dir and the CLI's folder for
/// it, each with its last change.
pub(crate) fn write(files: &[File], data_dir: &Path, claude_dir: &Path) -> std::io::Result<()> {
    let key = ollim_bot::transcripts::project_key(data_dir);
    let sessions = claude_dir.join("projects").join(key);
    for file in files {
        let path = match &file.home {
            Home::Session(id) => sessions.join(format!("{id}.jsonl")),
            Home::Data(rel) => data_dir.join(rel),
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut handle = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        handle.write_all(file.text.as_bytes())?;
        handle.set_modified(SystemTime::from(file.modified))?;
    }
    Ok(())
}
