//! Who set a reminder (issue 39 §4, REM-15): the owner, or a background run acting for one of
//! the owner's jobs, some generations away from it. The bot writes the `set-by` and
//! `generation` keys when a background run sets a reminder; the owner's reminders have
//! neither. What a later background run may cancel, and how much further it may schedule,
//! is read from them ([`crate::scheduling::lineage`]).

use crate::domain::frontmatter::Fields;

/// Who set a reminder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SetBy {
    /// The owner: the main session, a fork, the command line or a file written by hand.
    /// Nothing is written for it.
    #[default]
    Owner,
    /// A background run (`set-by` and `generation`).
    Background {
        /// The job the run acted for: `routine:<id>`, `reminder:<id of the chain's first
        /// link>` or `webhook:<name>`.
        job: String,
        /// How many background runs lead from the owner's job to this reminder: 1 when a
        /// run of the owner's own job set it, 2 when a run of that reminder set it, and so on.
        generation: u32,
    },
}

impl SetBy {
    /// How many background runs lead from the owner to this reminder: 0 for the owner's.
    pub fn generation(&self) -> u32 {
        match self {
            Self::Owner => 0,
            Self::Background { generation, .. } => *generation,
        }
    }

    /// Whether a background run acting for `job` set it.
    pub fn is_job(&self, job: &str) -> bool {
        matches!(self, Self::Background { job: setter, .. } if setter == job)
    }

    /// Who set it, in words: `the owner` or `a background run of routine:abc`.
    pub fn describe(&self) -> String {
        match self {
            Self::Owner => "the owner".to_owned(),
            Self::Background { job, .. } => format!("a background run of {job}"),
        }
    }

    /// Reads `set-by` and `generation` from a reminder's frontmatter. Either both are there
    /// (a background run's reminder) or neither (the owner's); anything else is a problem
    /// the file is skipped for, so a damaged key never passes for the owner's.
    pub(super) fn read(fields: &Fields) -> Result<Self, String> {
        let job = fields.text("set-by")?;
        let generation = fields.count("generation")?;
        match job {
            None if generation == 0 => Ok(Self::Owner),
            None => Err("\"generation\" needs \"set-by\"".to_owned()),
            Some(job) if job.trim().is_empty() || job.chars().any(char::is_control) => {
                Err("\"set-by\" must name a job, e.g. \"routine:abc\", on one line".to_owned())
            }
            Some(_) if generation == 0 => {
                Err("\"set-by\" needs a \"generation\" of 1 or more".to_owned())
            }
            Some(job) => Ok(Self::Background { job, generation }),
        }
    }
}
