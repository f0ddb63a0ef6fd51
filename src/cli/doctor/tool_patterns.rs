//! TOOL POLICY (CMD-7): the tool patterns routines, reminders, webhook specs and
//! `tool-policy.yaml` declare, judged by the same check the runtime applies (PRM-8): an error
//! pattern stops the job that declares it (BGF-23), so it is a failure here.

use chrono_tz::Tz;

use super::{Check, Group};
use crate::{
    scheduling::files::{load_reminders, load_routines},
    state::paths::DataDir,
    tool_policy::{ToolPolicyFile, check_all},
    webhooks::SpecStore,
};

/// The file a pattern list comes from (relative to the data dir) and the list.
pub(super) type Declared = (String, Vec<String>);

/// Every declared `allowed-tools` list in the data dir, and a failure for a `tool-policy.yaml`
/// that can't be read.
fn declared_lists(data_dir: &DataDir, tz: Tz) -> (Vec<Declared>, Option<Check>) {
    let mut lists: Vec<Declared> = Vec::new();
    let (routines, _) = load_routines(data_dir);
    lists.extend(routines.into_iter().filter_map(|file| {
        let tools = file.item.options.tools.allowed()?.to_vec();
        Some((file.path.display().to_string(), tools))
    }));
    let (reminders, _) = load_reminders(data_dir, tz);
    lists.extend(reminders.into_iter().filter_map(|file| {
        let tools = file.item.options.tools.allowed()?.to_vec();
        Some((file.path.display().to_string(), tools))
    }));
    for spec in SpecStore::new(data_dir.webhooks_dir())
        .scan()
        .into_iter()
        .flatten()
    {
        if let Some(tools) = spec.options.tools.allowed() {
            lists.push((format!("webhooks/{}", spec.file_name()), tools.to_vec()));
        }
    }
    let policy = data_dir.tool_policy_file();
    let broken_policy = match std::fs::read_to_string(&policy) {
        Ok(text) => match ToolPolicyFile::declared_patterns(&text) {
            Ok(patterns) => {
                lists.push(("tool-policy.yaml".to_owned(), patterns));
                None
            }
            Err(reason) => Some(Check::fail(
                Group::ToolPolicy,
                format!(
                    "tool-policy.yaml is not a valid tool policy ({reason}): fix it; until then \
                     the bot ignores it"
                ),
            )),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => Some(Check::fail(
            Group::ToolPolicy,
            format!("tool-policy.yaml can't be read ({error}): fix its permissions"),
        )),
    };
    (lists, broken_policy)
}

/// The TOOL POLICY group for `data_dir`.
pub(super) fn tool_pattern_checks(data_dir: &DataDir, tz: Tz) -> Vec<Check> {
    let (lists, broken_policy) = declared_lists(data_dir, tz);
    let mut checks: Vec<Check> = broken_policy.into_iter().collect();
    checks.extend(judge_lists(&lists));
    checks
}

/// A failure per refused pattern, a warning per doubtful one, naming file and pattern; one
/// pass line when everything declared is fine.
pub(super) fn judge_lists(lists: &[Declared]) -> Vec<Check> {
    let group = Group::ToolPolicy;
    let mut checks = Vec::new();
    let mut patterns = 0;
    for (file, declared) in lists {
        patterns += declared.len();
        let checked = check_all(declared);
        for finding in &checked.errors {
            checks.push(Check::fail(
                group,
                format!(
                    "{file}: tool pattern {:?} is refused: {} (a job declaring it does not run)",
                    finding.pattern, finding.message
                ),
            ));
        }
        for finding in &checked.warnings {
            checks.push(Check::warn(
                group,
                format!(
                    "{file}: tool pattern {:?}: {}",
                    finding.pattern, finding.message
                ),
            ));
        }
    }
    if checks.is_empty() {
        let text = if patterns == 0 {
            "no declared tool patterns".to_owned()
        } else {
            format!(
                "{patterns} declared tool pattern(s) in {} file(s) are well-formed",
                lists.len()
            )
        };
        checks.push(Check::pass(group, text));
    }
    checks
}
