//! `eval run` (CMD-9): each scenario in a data dir of its own under the system's temp dir (set
//! up as the bot sets up any, the owner's Claude login reached as every CLI home reaches it),
//! conversation, judge, then one line in the owner's history and the conversation kept under
//! `state/evals/transcripts/`. The temp dir goes when the scenario ends.

use std::{collections::BTreeMap, fmt::Write, sync::Arc, time::Duration};

use chrono::{DateTime, SecondsFormat, Utc};

use super::{
    conversation::{Conversation, PROXY_MODEL, Stage, converse},
    front_end::RecordingFrontEnd,
    history::{EvalRecord, Models, append, history_path, transcript_path},
    judge::{JUDGE_MODEL, judge},
    scenario::Scenario,
    verdict::{Verdict, centi_text, overall_centi, passes},
};
use crate::{
    agent::open_services, claude::installed_cli_version, config::Config, front_end::FrontEnd,
    state::paths::DataDir, usage::UsageLedger,
};

/// The name the simulated owner goes by.
const OWNER_NAME: &str = "Sam";
/// How long one scenario may take, judge included.
const SCENARIO_LIMIT: Duration = Duration::from_secs(600);

/// What a scenario's run came to, before it is recorded.
struct Outcome {
    conversation: Conversation,
    verdict: Result<Verdict, String>,
    cost_usd: f64,
    seconds: f64,
    finished: DateTime<Utc>,
    bot_model: Option<String>,
}

/// Runs `scenarios` one after another against the owner's `config`, starting at `now`;
/// returns the exit code (0: all passed).
pub async fn run_scenarios(
    config: Config,
    scenarios: Vec<Scenario>,
    verbose: bool,
    now: DateTime<Utc>,
) -> anyhow::Result<i32> {
    let owner_data = DataDir::new(&config.data_dir);
    let run_id = now.format("%Y%m%dT%H%M%SZ").to_string();
    let cli_version = installed_cli_version(&config.claude_cli)
        .await
        .map_or_else(|_| "unknown".to_owned(), |version| version.to_string());
    let total = scenarios.len();
    let mut passed = 0;
    for scenario in &scenarios {
        println!("== {} ==", scenario.id);
        let outcome = tokio::select! {
            outcome = one(&config, scenario, verbose) => outcome?,
            _ = tokio::signal::ctrl_c() => {
                println!("interrupted: nothing recorded for {}", scenario.id);
                return Ok(130);
            }
        };
        let record = record_of(scenario, &outcome, &run_id, &cli_version, &owner_data);
        print_outcome(scenario, &outcome, &record);
        passed += usize::from(record.passed);
        let transcript = transcript_path(&owner_data, &run_id, &scenario.id);
        if let Some(parent) = transcript.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&transcript, transcript_text(scenario, &outcome))?;
        append(&history_path(&owner_data), &record)?;
    }
    println!("{passed}/{total} passed");
    Ok(i32::from(passed != total))
}

/// One scenario in its own data dir.
async fn one(config: &Config, scenario: &Scenario, verbose: bool) -> anyhow::Result<Outcome> {
    let scratch = tempfile::Builder::new()
        .prefix(&format!("ollim-eval-{}-", scenario.id))
        .tempdir()?;
    let mut own = config.clone();
    own.data_dir = scratch.path().join("data");
    OWNER_NAME.clone_into(&mut own.user_name);
    let opened = open_services(own)?;
    let services = Arc::clone(&opened.services);
    let started_at = services.clock.now();
    let started = services.clock.instant();
    let stage = Stage {
        services: &services,
        bot_model: services.runtime.current().model_main.clone(),
        verbose,
    };
    let judged = async {
        let conversation = converse(&stage, scenario).await;
        let verdict = if let Some(error) = &conversation.error {
            Err(error.clone())
        } else {
            let front_end: Arc<dyn FrontEnd> = Arc::new(RecordingFrontEnd::default());
            judge(&services, &front_end, scenario, &conversation).await
        };
        (conversation, verdict)
    };
    let (conversation, verdict) = match tokio::time::timeout(SCENARIO_LIMIT, judged).await {
        Ok(done) => done,
        Err(_) => (
            Conversation::default(),
            Err(format!("timed out after {} s", SCENARIO_LIMIT.as_secs())),
        ),
    };
    services.usage.flush().await;
    let cost_usd = UsageLedger::new(services.data_dir.usage_dir())
        .read_since(started_at)
        .map(|read| read.records.iter().map(|r| r.cost_usd).sum())
        .unwrap_or_default();
    let seconds = services
        .clock
        .instant()
        .saturating_duration_since(started)
        .as_secs_f64();
    let finished = services.clock.now();
    let bot_model = stage.bot_model.clone();
    drop(stage);
    drop(services);
    opened.usage_worker.shutdown().await;
    opened.git_worker.shutdown().await;
    Ok(Outcome {
        conversation,
        verdict,
        cost_usd,
        seconds,
        finished,
        bot_model,
    })
}

fn record_of(
    scenario: &Scenario,
    outcome: &Outcome,
    run_id: &str,
    cli_version: &str,
    owner_data: &DataDir,
) -> EvalRecord {
    let (scores, reasons, error) = match &outcome.verdict {
        Ok(verdict) => (verdict.scores.clone(), verdict.reasons.clone(), None),
        Err(error) => (BTreeMap::new(), BTreeMap::new(), Some(error.clone())),
    };
    let overall = overall_centi(&scores);
    let goal_met = outcome.conversation.goal_met;
    EvalRecord {
        run_id: run_id.to_owned(),
        timestamp: outcome.finished.to_rfc3339_opts(SecondsFormat::Secs, true),
        scenario: scenario.id.clone(),
        goal_type: scenario.goal_type.name().to_owned(),
        passed: error.is_none() && passes(&scores, goal_met),
        overall: f64::from(overall) / 100.0,
        scores,
        reasons,
        goal_met,
        turns: outcome.conversation.turns,
        files_created: outcome
            .conversation
            .files
            .iter()
            .map(|(name, _)| name.clone())
            .collect(),
        models: Models {
            bot: outcome
                .bot_model
                .clone()
                .unwrap_or_else(|| "default".to_owned()),
            proxy: PROXY_MODEL.to_owned(),
            judge: JUDGE_MODEL.to_owned(),
        },
        bot_version: env!("CARGO_PKG_VERSION").to_owned(),
        cli_version: cli_version.to_owned(),
        cost_usd: (outcome.cost_usd * 10_000.0).round() / 10_000.0,
        duration_s: (outcome.seconds * 10.0).round() / 10.0,
        error,
        transcript: transcript_path(owner_data, run_id, &scenario.id)
            .display()
            .to_string(),
    }
}

fn print_outcome(scenario: &Scenario, outcome: &Outcome, record: &EvalRecord) {
    if let Ok(verdict) = &outcome.verdict {
        for criterion in &scenario.criteria {
            let score = verdict.scores.get(&criterion.id).copied().unwrap_or(0);
            let reason = verdict
                .reasons
                .get(&criterion.id)
                .map_or("", String::as_str);
            println!("  {:<24} {score}/5  {reason}", criterion.id);
        }
    }
    let verdict = if record.passed { "PASS" } else { "FAIL" };
    let mut line = format!(
        "  overall {}  {verdict}",
        centi_text(record.overall_centi())
    );
    match record.goal_met {
        Some(true) => line.push_str("  goal met"),
        Some(false) => line.push_str("  goal not met"),
        None => {}
    }
    let _ = write!(line, "  {} turns  ${:.4}", record.turns, record.cost_usd);
    println!("{line}");
    if let Some(error) = &record.error {
        println!("  error: {error}");
    }
}

fn transcript_text(scenario: &Scenario, outcome: &Outcome) -> String {
    let mut text = format!(
        "# {}\n\n{}\n\n{}\n",
        scenario.id,
        scenario.goal.trim(),
        outcome.conversation.text(OWNER_NAME)
    );
    match &outcome.verdict {
        Ok(verdict) => {
            text.push_str("\n## Judge\n\n");
            for (id, score) in &verdict.scores {
                let reason = verdict.reasons.get(id).map_or("", String::as_str);
                let _ = writeln!(text, "- {id}: {score}/5 {reason}");
            }
            let _ = write!(text, "\n{}\n", verdict.summary);
        }
        Err(error) => {
            let _ = write!(text, "\nerror: {error}\n");
        }
    }
    text
}
