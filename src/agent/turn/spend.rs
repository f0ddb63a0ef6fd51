//! A finished turn's usage record (USE-1): what the CLI's `result` says it used and cost,
//! with the kind of work and the job it was for.

use crate::{
    claude::{ResultMessage, SubagentReport},
    domain::prompt_tag::PromptTag,
    usage::{UsageKind, UsageRecord},
};

/// The record of a turn of `kind` (for `job`, background work) that ended with `result`.
pub fn usage_record(
    kind: UsageKind,
    job: Option<String>,
    result: &ResultMessage,
    at: chrono::DateTime<chrono::Utc>,
) -> UsageRecord {
    let usage = result.usage.unwrap_or_default();
    UsageRecord {
        at,
        kind,
        job,
        model: result.models.first().cloned(),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_tokens: usage.cache_read_input_tokens,
        cache_write_tokens: usage.cache_creation_input_tokens,
        cost_usd: result
            .turn_cost_usd
            .or(result.total_cost_usd)
            .unwrap_or_default(),
        duration_ms: result.duration_ms,
        turns: result.num_turns,
        ended: how_it_ended(result),
        within: None,
    }
}

/// `record` of a turn, then the records of the subagents that worked in it (USE-1).
pub fn with_subagents(record: UsageRecord, subagents: &[SubagentReport]) -> Vec<UsageRecord> {
    let helpers = subagent_records(subagents, &record);
    std::iter::once(record).chain(helpers).collect()
}

/// The records of the subagents that worked inside a turn whose record is `parent` (USE-1):
/// their type, model, tokens, tool uses and time, no cost (the CLI reports it only in the
/// parent's total).
fn subagent_records(subagents: &[SubagentReport], parent: &UsageRecord) -> Vec<UsageRecord> {
    let within = parent
        .job
        .clone()
        .unwrap_or_else(|| parent.kind.name().to_owned());
    subagents
        .iter()
        .map(|used| UsageRecord {
            at: parent.at,
            kind: UsageKind::Subagent,
            job: Some(format!("subagent:{}", used.agent_type)),
            model: used.model.clone(),
            input_tokens: used.usage.input_tokens,
            output_tokens: used.usage.output_tokens,
            cache_read_tokens: used.usage.cache_read_input_tokens,
            cache_write_tokens: used.usage.cache_creation_input_tokens,
            cost_usd: 0.0,
            duration_ms: used.duration_ms,
            // One model call to start, and one more after each of its tool uses.
            turns: used.tool_uses + 1,
            ended: "completed".to_owned(),
            within: Some(within.clone()),
        })
        .collect()
}

/// How a turn ended, from the result's subtype: `completed`, `error`, `max_turns`, … as the
/// CLI names them.
fn how_it_ended(result: &ResultMessage) -> String {
    match result.subtype.as_str() {
        "success" if !result.is_error => "completed".to_owned(),
        "success" => "error".to_owned(),
        other => other.strip_prefix("error_").unwrap_or(other).to_owned(),
    }
}

/// The record of a background run tagged `tag` that ended with `result` at `at` (USE-1).
pub fn background_record(
    tag: &PromptTag,
    result: &ResultMessage,
    at: chrono::DateTime<chrono::Utc>,
) -> UsageRecord {
    let (kind, job) = background_kind(tag);
    usage_record(kind, job, result, at)
}

/// The record of a background run tagged `tag` stopped at its time limit of `limit_secs`
/// (USE-7): the CLI never reported what it used, so only the time is known.
pub fn timed_out_record(
    tag: &PromptTag,
    limit_secs: u64,
    at: chrono::DateTime<chrono::Utc>,
) -> UsageRecord {
    let (kind, job) = background_kind(tag);
    UsageRecord {
        at,
        kind,
        job,
        model: None,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: 0.0,
        duration_ms: limit_secs.saturating_mul(1000),
        turns: 0,
        ended: "timed_out".to_owned(),
        within: None,
    }
}

/// The kind and job of a background run tagged `tag` (USE-1): `routine:<id>`,
/// `reminder:<id>`, `webhook:<id>`.
pub fn background_kind(tag: &PromptTag) -> (UsageKind, Option<String>) {
    let kind = match tag {
        PromptTag::Webhook(_) => UsageKind::Webhook,
        PromptTag::Reminder(_) | PromptTag::ReminderBg(_) => UsageKind::Reminder,
        _ => UsageKind::Routine,
    };
    let job = tag.id().map(|id| format!("{}:{id}", kind.name()));
    (kind, job)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::Usage;

    #[test]
    fn a_result_becomes_a_record_with_its_own_turns_cost() {
        let result = ResultMessage {
            subtype: "success".into(),
            num_turns: 3,
            duration_ms: 1200,
            total_cost_usd: Some(0.9),
            turn_cost_usd: Some(0.25),
            models: vec!["claude-sonnet-4-5".into()],
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 20,
                cache_read_input_tokens: 30,
                cache_creation_input_tokens: 40,
            }),
            ..ResultMessage::default()
        };
        let record = usage_record(UsageKind::Main, None, &result, chrono::Utc::now());
        assert!((record.cost_usd - 0.25).abs() < f64::EPSILON);
        assert_eq!((record.input_tokens, record.output_tokens), (10, 20));
        assert_eq!(
            (record.cache_read_tokens, record.cache_write_tokens),
            (30, 40)
        );
        assert_eq!((record.turns, record.duration_ms), (3, 1200));
        assert_eq!(record.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(record.ended, "completed");
        let capped = ResultMessage {
            subtype: "error_max_turns".into(),
            is_error: true,
            ..ResultMessage::default()
        };
        assert_eq!(
            usage_record(UsageKind::Main, None, &capped, chrono::Utc::now()).ended,
            "max_turns"
        );
    }

    #[test]
    fn a_run_stopped_at_its_time_limit_is_on_record() {
        let record = timed_out_record(&PromptTag::Webhook("ci".into()), 1800, chrono::Utc::now());
        assert_eq!(record.ended, "timed_out");
        assert_eq!(record.duration_ms, 1_800_000);
        assert_eq!(record.job.as_deref(), Some("webhook:ci"));
    }

    #[test]
    fn background_work_is_filed_under_its_job() {
        assert_eq!(
            background_kind(&PromptTag::RoutineBg("a1".into())),
            (UsageKind::Routine, Some("routine:a1".into()))
        );
        assert_eq!(
            background_kind(&PromptTag::ReminderBg("b2".into())),
            (UsageKind::Reminder, Some("reminder:b2".into()))
        );
        assert_eq!(
            background_kind(&PromptTag::Webhook("ci".into())),
            (UsageKind::Webhook, Some("webhook:ci".into()))
        );
    }
}
