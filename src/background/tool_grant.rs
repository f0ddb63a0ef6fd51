//! The tools a job gets at fire time (BGF-6, BGF-23, PRM-8): its declared patterns checked,
//! refused ones stopping the job, and new ones held back until the owner approves them once
//! through an embed with Approve / Deny buttons.

use std::{fmt::Write as _, path::Path};

use crate::{
    domain::{
        embed::{Embed, EmbedButton, EmbedColor, MAX_DESCRIPTION_CHARS, clip},
        job_options::ApprovalScope,
        prompt_tag::PromptTag,
    },
    front_end::FrontEnd,
    services::Services,
    state::tool_approvals::Decisions,
    tool_policy::{Checked, Source, ToolPolicyFile, check_all, grant, log_findings},
};

/// Button action of an approval embed's Approve button (`act:tools_approve:<request id>`).
pub const APPROVE_ACTION: &str = "tools_approve";
/// Button action of an approval embed's Deny button.
pub const DENY_ACTION: &str = "tools_deny";

/// What a job may use, decided at fire time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobTools {
    /// A declared pattern is refused outright: the job does not run (BGF-23).
    Refused {
        /// Why, for the owner: the patterns and what is wrong with each.
        reason: String,
    },
    /// The job runs with `granted`; `held` waits for the owner, of which `undecided` is yet to
    /// be asked.
    Run {
        /// Declared patterns handed to the CLI.
        granted: Vec<String>,
        /// Declared patterns withheld (denied or not yet approved).
        held: Vec<String>,
        /// The withheld ones the owner has not answered.
        undecided: Vec<String>,
    },
}

/// The approval source of a job, from its prompt tag.
pub fn source_of(tag: &PromptTag) -> Option<Source> {
    Some(match tag {
        PromptTag::Routine(id) | PromptTag::RoutineBg(id) => Source::Routine(id.clone()),
        PromptTag::Reminder(id) | PromptTag::ReminderBg(id) => Source::Reminder(id.clone()),
        PromptTag::Webhook(id) => Source::Webhook(id.clone()),
        _ => return None,
    })
}

/// Checks `declared` for `version` of `source` and splits it by the owner's approvals of that
/// version (issue 23 §2). Findings are logged with the source (PRM-8).
pub fn judge(
    services: &Services,
    source: &Source,
    version: Option<&str>,
    declared: &[String],
) -> JobTools {
    let checked = check_all(declared);
    log_findings(source, &checked);
    let decisions = services
        .tool_approvals
        .decisions(&source.to_string())
        .at(version);
    split(&checked, &services.tool_policy.current(), &decisions)
}

/// [`judge`] without logging and against decisions already read, for the periodic re-check
/// of many unchanged files.
pub fn judge_quietly(
    policy: &ToolPolicyFile,
    decisions: &Decisions,
    declared: &[String],
) -> JobTools {
    split(&check_all(declared), policy, decisions)
}

fn split(checked: &Checked, policy: &ToolPolicyFile, decisions: &Decisions) -> JobTools {
    if !checked.errors.is_empty() {
        let problems: Vec<String> = checked.errors.iter().map(ToString::to_string).collect();
        return JobTools::Refused {
            reason: format!("refused tool pattern: {}", problems.join("; ")),
        };
    }
    let split = grant(&checked.usable, policy, |p| decisions.approval(p));
    JobTools::Run {
        granted: split.granted,
        held: split.held,
        undecided: split.undecided,
    }
}

/// Asks the owner once about `patterns` of `source` as `scope` has it (the job's settings and
/// version; `None` for skills and subagents): opens a request and posts the approval embed.
/// Nothing happens when an open request already covers them. Failures are logged: the job
/// still runs with its safe set, and the next fire asks again.
pub async fn ask_owner(
    services: &Services,
    front_end: &dyn FrontEnd,
    source: &Source,
    (file, scope): (Option<&Path>, Option<&ApprovalScope>),
    patterns: &[String],
) {
    let approvals = &services.tool_approvals;
    let file = file.map_or_else(|| source.to_string(), |f| f.display().to_string());
    let version = scope.map(ApprovalScope::version);
    let earlier = approvals.decisions(&source.to_string());
    let changed =
        version.is_some() && earlier.version.as_deref() != version && !earlier.approved.is_empty();
    let id = match approvals.open_request(&source.to_string(), &file, patterns, version) {
        Ok(Some(id)) => id,
        Ok(None) => return,
        Err(error) => {
            tracing::warn!(%error, %source, "could not record a tool approval request");
            return;
        }
    };
    tracing::info!(%source, ?patterns, "asking the owner to approve new tools");
    let asked = Asked {
        source,
        file: &file,
        scope,
        changed,
    };
    let posted = front_end
        .send_embed(approval_embed(&id, &asked, patterns))
        .await;
    let recorded = match posted {
        Ok(Some(message_id)) => approvals.set_message(&id, message_id),
        Ok(None) => approvals.withdraw(&id),
        Err(error) => {
            tracing::warn!(%error, %source, "could not post the tool approval request");
            approvals.withdraw(&id)
        }
    };
    if let Err(error) = recorded {
        tracing::warn!(%error, %source, "could not update a tool approval request");
    }
}

/// What an approval embed is about.
pub struct Asked<'a> {
    /// The job or content that declares the patterns.
    pub source: &'a Source,
    /// Its file, relative to the data dir.
    pub file: &'a str,
    /// The job's settings the approval covers; `None` for skills and subagents.
    pub scope: Option<&'a ApprovalScope>,
    /// Whether the owner approved tools for an earlier version of this job.
    pub changed: bool,
}

/// The embed asking the owner about new tool patterns: the patterns, and for a job, how and
/// when it runs, which the approval holds for too (issue 39 §4, BOX-7). Kept within Discord's
/// limit: a list too long for it is cut with a note.
pub fn approval_embed(id: &str, asked: &Asked<'_>, patterns: &[String]) -> Embed {
    // A pattern that allows more than it names says so (issue 23 §5).
    let list: Vec<String> = patterns
        .iter()
        .map(|p| match crate::tool_policy::check_pattern(p) {
            Some(finding) => format!("- `{p}` — ⚠ {}", finding.message),
            None => format!("- `{p}`"),
        })
        .collect();
    let (file, source) = (asked.file, asked.source);
    let mut tail = String::new();
    if asked.changed {
        tail.push_str(
            "\n**Changed since you approved it**: you approved tools for an earlier version of \
             this job (or before approvals covered how and when it runs), so it asks again.",
        );
    }
    match asked.scope {
        Some(scope) => {
            let _ = write!(
                tail,
                "\nUntil you approve, it runs without them. Approving lets this job use them as \
                 it is now — its instructions, tools and these settings:\n> {}\n\
                 Any change of them (run mode, schedule, isolation, pings, reporting, chain, \
                 model…) asks again.",
                scope.summary()
            );
        }
        None => tail.push_str(
            "\nUntil you approve, it runs without them. Approving lets it use them as it is \
             now; any edit of it asks again.",
        ),
    }
    let head = format!("`{file}` ({source}) declares tools outside the safe set:\n");
    let room = MAX_DESCRIPTION_CHARS.saturating_sub(head.chars().count() + tail.chars().count());
    let (list, _) = clip(&list.join("\n"), room, "\n… (more patterns: see the file)");
    Embed {
        title: "New tools need your approval".to_owned(),
        description: Some(format!("{head}{list}{tail}")),
        color: EmbedColor::Yellow,
        fields: Vec::new(),
        buttons: EmbedButton::approve_deny(APPROVE_ACTION, DENY_ACTION, id),
        footer: None,
    }
}
