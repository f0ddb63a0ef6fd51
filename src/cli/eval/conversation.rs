//! One scenario's conversation (CMD-9): the bot's real main session — its prompt, tools, MCP
//! server and sandbox — in a throw-away data dir, talking with a simulated owner (an
//! answer-only session on a small model, playing the scenario's persona). A `file_created`
//! scenario stops once the bot writes a routine or reminder; the others run to `max_turns`.

use std::{collections::BTreeSet, path::Path, sync::Arc, time::Duration};

use super::{
    front_end::RecordingFrontEnd,
    scenario::{Fire, GoalType, Scenario},
};
use crate::{
    agent::{
        MainSession, MainSettings, Prompt,
        answer_only::{Question, ask},
    },
    front_end::FrontEnd,
    scheduling::{
        files::{parse_reminder, parse_routine},
        job_sink::ForegroundJob,
        jobs::{reminder_prompt, routine_prompt},
    },
    services::Services,
    usage::UsageKind,
};

/// The simulated owner's model.
pub(super) const PROXY_MODEL: &str = "haiku";
/// How long the simulated owner may take to answer.
const PROXY_LIMIT: Duration = Duration::from_secs(120);

const PROXY_SYSTEM_PROMPT: &str = "\
You stand in for a real person in a rehearsal of a personal assistant built for people with \
ADHD. You are given who that person is and the chat so far, and you write that person's next \
direct message to the assistant, and nothing else: no quotes, no name, no stage directions. \
Stay in character: write the way the person texts (short, informal, typos are fine), react \
honestly to what the assistant last said, and don't make the assistant's job easier than the \
person would. Never mention that this is a rehearsal or that you are a model. If the person \
would simply stop replying now, answer with an empty message.";

/// Who said a line of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Speaker {
    /// The simulated owner.
    Owner,
    /// The bot.
    Bot,
}

/// The conversation as it went.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    /// Each line, in order.
    pub lines: Vec<(Speaker, String)>,
    /// How many messages the simulated owner sent (the opening on).
    pub turns: u32,
    /// For `file_created`: whether a file was made.
    pub goal_met: Option<bool>,
    /// The routine and reminder files the bot made (data-dir relative) and their text.
    pub files: Vec<(String, String)>,
    /// Why it stopped early, if it did.
    pub error: Option<String>,
}

impl Conversation {
    /// The conversation as plain text, `Sam:` and `Bot:` lines.
    pub(super) fn text(&self, owner: &str) -> String {
        self.lines
            .iter()
            .map(|(speaker, text)| match speaker {
                Speaker::Owner => format!("{owner}: {text}"),
                Speaker::Bot => format!("Bot: {text}"),
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// What a conversation needs.
pub(super) struct Stage<'a> {
    /// The throw-away data dir's services.
    pub services: &'a Arc<Services>,
    /// The bot's model (`None`: the CLI's default).
    pub bot_model: Option<String>,
    /// Print each line as it comes.
    pub verbose: bool,
}

/// Runs `scenario`'s conversation on `stage`.
pub(super) async fn converse(stage: &Stage<'_>, scenario: &Scenario) -> Conversation {
    let recorder = Arc::new(RecordingFrontEnd::default());
    let front_end: Arc<dyn FrontEnd> = recorder.clone();
    let runtime = stage.services.runtime.current();
    let settings = MainSettings {
        model: stage.bot_model.clone(),
        thinking: runtime.thinking_main,
        permission_mode: runtime.permission_mode,
    };
    let session = MainSession::new(Arc::clone(stage.services), front_end.clone(), settings);
    let root = stage.services.data_dir.root().to_path_buf();
    let mut talk = Talk {
        stage,
        session: &session,
        recorder: &recorder,
        owner: &stage.services.config.user_name,
        conversation: Conversation::default(),
    };
    if let Err(error) = talk.run(scenario, &front_end, &root).await {
        talk.conversation.error = Some(error);
    }
    session.shutdown().await;
    talk.conversation
}

struct Talk<'a> {
    stage: &'a Stage<'a>,
    session: &'a MainSession,
    recorder: &'a RecordingFrontEnd,
    owner: &'a str,
    conversation: Conversation,
}

impl Talk<'_> {
    async fn run(
        &mut self,
        scenario: &Scenario,
        front_end: &Arc<dyn FrontEnd>,
        root: &Path,
    ) -> Result<(), String> {
        if let (Some(fire), Some(body)) = (scenario.setup.fire, &scenario.setup.job) {
            let job = fired_job(fire, &scenario.id, body, self.stage.services)?;
            let report = self
                .session
                .scheduled(job)
                .await
                .map_err(|e| e.to_string())?;
            self.bot_said(&report.text);
        }
        for prior in &scenario.setup.prior {
            self.owner_says(prior.clone()).await?;
        }
        let before = job_files(root);
        let file_goal = scenario.goal_type == GoalType::FileCreated;
        let mut message = scenario.opening.clone();
        loop {
            self.conversation.turns += 1;
            self.owner_says(message).await?;
            let made: Vec<String> = job_files(root).difference(&before).cloned().collect();
            if file_goal && !made.is_empty() {
                self.conversation.files = made
                    .into_iter()
                    .map(|name| {
                        let text = std::fs::read_to_string(root.join(&name)).unwrap_or_default();
                        (name, text)
                    })
                    .collect();
                self.conversation.goal_met = Some(true);
                return Ok(());
            }
            if self.conversation.turns >= scenario.max_turns {
                break;
            }
            message = self.next_message(scenario, front_end).await?;
            if message.is_empty() {
                break;
            }
        }
        if file_goal {
            self.conversation.goal_met = Some(false);
        }
        Ok(())
    }

    async fn owner_says(&mut self, message: String) -> Result<(), String> {
        self.show(Speaker::Owner, &message);
        self.conversation
            .lines
            .push((Speaker::Owner, message.clone()));
        let report = self
            .session
            .exchange(Prompt::text(message))
            .await
            .map_err(|error| format!("the bot's turn failed: {error}"))?;
        if report.result.is_error && report.text.is_empty() {
            return Err(format!(
                "the bot's turn failed: {}",
                report.result.error_summary()
            ));
        }
        self.bot_said(&report.text);
        Ok(())
    }

    fn bot_said(&mut self, text: &str) {
        let mut parts = self.recorder.take();
        if !text.trim().is_empty() {
            parts.push(text.trim().to_owned());
        }
        let said = parts.join("\n");
        self.show(Speaker::Bot, &said);
        self.conversation.lines.push((Speaker::Bot, said));
    }

    fn show(&self, speaker: Speaker, text: &str) {
        if self.stage.verbose {
            let who = match speaker {
                Speaker::Owner => "user>",
                Speaker::Bot => "bot>",
            };
            println!("{who} {text}");
        }
    }

    async fn next_message(
        &self,
        scenario: &Scenario,
        front_end: &Arc<dyn FrontEnd>,
    ) -> Result<String, String> {
        let prompt = format!(
            "The person you are ({}):\n{}\n\nThe chat so far:\n\n{}\n\nWrite {}'s next message.",
            self.owner,
            scenario.personality.trim(),
            self.conversation.text(self.owner),
            self.owner,
        );
        let question = Question {
            system_prompt: PROXY_SYSTEM_PROMPT,
            model: PROXY_MODEL,
            usage: (UsageKind::Main, Some(format!("eval:{}", scenario.id))),
            prompt,
            limit: PROXY_LIMIT,
        };
        let answer = ask(self.stage.services, front_end, question)
            .await
            .map_err(|error| format!("the simulated owner gave no message: {error}"))?;
        Ok(answer.trim().trim_matches('"').trim().to_owned())
    }
}

/// The foreground job a scenario's setup fires, its file written and read back and its prompt
/// built as the scheduler builds them.
fn fired_job(
    fire: Fire,
    id: &str,
    body: &str,
    services: &Services,
) -> Result<ForegroundJob, String> {
    let (dir, when) = match fire {
        Fire::Routine => ("routines", "cron: \"30 8 * * 1-5\""),
        Fire::Reminder => ("reminders", "run-at: \"2026-01-01T09:00:00+00:00\""),
    };
    let text = format!("---\nid: {id}\n{when}\n---\n{}\n", body.trim());
    let path = services.data_dir.root().join(dir).join(format!("{id}.md"));
    std::fs::write(&path, &text).map_err(|e| format!("setup: {e}"))?;
    let prompt = match fire {
        Fire::Routine => routine_prompt(
            &parse_routine(&text).map_err(|e| format!("setup: {e}"))?,
            false,
        ),
        Fire::Reminder => {
            let reminder = parse_reminder(&text, services.config.timezone)
                .map_err(|e| format!("setup: {e}"))?;
            // A fired reminder's file is gone, as after any fire.
            let _ = std::fs::remove_file(&path);
            reminder_prompt(&reminder, None, false)
        }
    };
    Ok(ForegroundJob {
        prompt,
        chain: None,
        granted: Vec::new(),
    })
}

/// The routine and reminder files under `root`, data-dir relative.
fn job_files(root: &Path) -> BTreeSet<String> {
    ["routines", "reminders"]
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(root.join(dir))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "md"))
                .map(move |entry| format!("{dir}/{}", entry.file_name().to_string_lossy()))
        })
        .collect()
}
