//! The judge (CMD-9): an answer-only session on a stronger model reads the goal, the criteria
//! with their anchors and the whole conversation, and answers one JSON object of scores. An
//! answer that isn't that is asked again once; a second miss makes the scenario an error.

use std::{fmt::Write, sync::Arc, time::Duration};

use super::{
    conversation::Conversation,
    scenario::Scenario,
    verdict::{Verdict, parse_verdict},
};
use crate::{
    agent::answer_only::{Question, ask},
    front_end::FrontEnd,
    services::Services,
    usage::UsageKind,
};

/// The judge's model.
pub(super) const JUDGE_MODEL: &str = "sonnet";
/// How long the judge may take.
const JUDGE_LIMIT: Duration = Duration::from_secs(180);

const JUDGE_SYSTEM_PROMPT: &str = "\
You rate how well a personal assistant for people with ADHD handled one conversation. Judge \
only what the assistant actually said and did in the transcript (lines starting [tool], \
[embed], [message] or [file] are things it did), against each criterion's anchors: 1, 3 and 5 \
are described, 2 and 4 fall between. Quote or point to the evidence in each reason. Answer \
with one JSON object and nothing else: {\"scores\": {\"<criterion>\": <integer 1-5>, ...}, \
\"reasons\": {\"<criterion>\": \"<one sentence>\", ...}, \"summary\": \"<one line>\"}, with \
every criterion scored exactly once.";

/// Asks the judge about `conversation`.
pub(super) async fn judge(
    services: &Arc<Services>,
    front_end: &Arc<dyn FrontEnd>,
    scenario: &Scenario,
    conversation: &Conversation,
) -> Result<Verdict, String> {
    let prompt = judge_prompt(scenario, conversation, &services.config.user_name);
    let mut last_error = String::new();
    for _attempt in 0..2 {
        let question = Question {
            system_prompt: JUDGE_SYSTEM_PROMPT,
            model: JUDGE_MODEL,
            usage: (UsageKind::Main, Some(format!("eval:{}", scenario.id))),
            prompt: prompt.clone(),
            limit: JUDGE_LIMIT,
        };
        match ask(services, front_end, question).await {
            Ok(answer) => match parse_verdict(&answer, &scenario.criteria) {
                Ok(verdict) => return Ok(verdict),
                Err(error) => last_error = error,
            },
            Err(error) => last_error = format!("the judge gave no answer: {error}"),
        }
    }
    Err(last_error)
}

/// What the judge reads.
pub(super) fn judge_prompt(
    scenario: &Scenario,
    conversation: &Conversation,
    owner: &str,
) -> String {
    let mut prompt = format!(
        "The assistant's goal in this conversation: {}\n\nAbout the scenario: {}\n\nCriteria:\n",
        scenario.goal.trim(),
        scenario.notes
    );
    for criterion in &scenario.criteria {
        let _ = writeln!(prompt, "- {}: {}", criterion.id, criterion.what.trim());
        for (score, anchor) in &criterion.anchors {
            let _ = writeln!(prompt, "    {score}: {}", anchor.trim());
        }
    }
    let _ = write!(
        prompt,
        "\nThe conversation ({owner} is the person, Bot the assistant):\n\n{}\n",
        conversation.text(owner)
    );
    if let Some(met) = conversation.goal_met {
        let made = if met { "was" } else { "was not" };
        let _ = writeln!(prompt, "\nA routine or reminder file {made} created.");
    }
    for (name, text) in &conversation.files {
        let _ = write!(prompt, "\nFile {name}:\n{text}\n");
    }
    prompt
}
