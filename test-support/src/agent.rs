//! A main session wired to the real CLI and the mock Messages API, for end-to-end tests.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
    time::Duration,
};

use ollim_bot::{
    agent::{MainSession, MainSettings, Prompt, TurnReport, open_services},
    claude::{BoxFuture, PermissionMode, Thinking},
    config::Config,
    domain::embed::Embed,
    front_end::{Approval, FrontEnd, FrontEndError, TurnEvent},
    services::Services,
    state::{git::GitWorker, history::SessionEvent},
};
use tokio::sync::mpsc;

use super::{
    cli::{CliSandbox, claude_cli_path},
    mock_api::MockApi,
};

/// Words from the bundled `history-reviewer` subagent's instructions: its requests carry them.
pub const HISTORY_REVIEWER_MARK: &str = "find what was left hanging";

/// A front end that records what it is asked to show and answers approvals from a script.
/// Every sent message gets a fresh id (starting at 1000).
#[derive(Default)]
pub struct RecordingFrontEnd {
    /// Embeds sent so far.
    pub embeds: Mutex<Vec<Embed>>,
    /// Plain texts sent so far (pings, notes).
    pub texts: Mutex<Vec<String>>,
    /// Files sent so far, with their messages.
    pub files: Mutex<Vec<(std::path::PathBuf, Option<String>)>>,
    /// The events of every rendered turn, in order.
    pub rendered: Mutex<Vec<Vec<TurnEvent>>>,
    /// Labels of approval requests so far.
    pub approvals_asked: Mutex<Vec<String>>,
    /// Answers to give, in order (then `Deny`).
    pub approval_answers: Mutex<VecDeque<Approval>>,
    /// Make sends fail (like Discord being unreachable).
    pub fail_sends: std::sync::atomic::AtomicBool,
    next_id: std::sync::atomic::AtomicU64,
}

impl RecordingFrontEnd {
    fn sent(&self) -> Result<Option<u64>, FrontEndError> {
        use std::sync::atomic::Ordering;
        if self.fail_sends.load(Ordering::Relaxed) {
            return Err(FrontEndError("discord is unreachable".into()));
        }
        Ok(Some(1000 + self.next_id.fetch_add(1, Ordering::Relaxed)))
    }

    /// Titles of the embeds sent so far.
    pub fn embed_titles(&self) -> Vec<String> {
        self.embeds
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.title.clone())
            .collect()
    }
}

impl FrontEnd for RecordingFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let sent = self.sent();
        if sent.is_ok() {
            self.embeds.lock().unwrap().push(embed);
        }
        Box::pin(async move { sent })
    }

    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let sent = self.sent();
        if sent.is_ok() {
            self.texts.lock().unwrap().push(text);
        }
        Box::pin(async move { sent })
    }

    fn send_file(
        &self,
        path: std::path::PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        let sent = self.sent();
        if sent.is_ok() {
            self.files.lock().unwrap().push((path, message));
        }
        Box::pin(async move { sent })
    }

    fn render_turn(
        &self,
        mut events: mpsc::UnboundedReceiver<TurnEvent>,
    ) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            let mut seen = Vec::new();
            while let Some(event) = events.recv().await {
                seen.push(event);
            }
            self.rendered.lock().unwrap().push(seen);
            vec![self.sent().ok().flatten().unwrap_or(0)]
        })
    }

    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval> {
        self.approvals_asked.lock().unwrap().push(label);
        let answer = self
            .approval_answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Approval::Deny);
        Box::pin(async move { answer })
    }
}

/// The real CLI + mock model + a main session over a temp data dir.
pub struct AgentHarness {
    pub mock: MockApi,
    pub sandbox: CliSandbox,
    pub services: Arc<Services>,
    pub front_end: Arc<RecordingFrontEnd>,
    pub session: MainSession,
    git_worker: Option<GitWorker>,
}

/// A turn's outcome and the events it emitted.
pub struct Turn {
    pub report: TurnReport,
    pub events: Vec<TurnEvent>,
}

impl Turn {
    /// The streamed text deltas.
    pub fn deltas(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                TurnEvent::TextDelta(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

impl AgentHarness {
    /// A fresh harness in `dontAsk` mode.
    pub async fn new() -> Self {
        Self::with_mode(PermissionMode::DontAsk).await
    }

    /// A fresh harness with the given permission mode.
    pub async fn with_mode(mode: PermissionMode) -> Self {
        let mock = MockApi::start().await;
        let sandbox = CliSandbox::new();
        Self::build(mock, sandbox, mode)
    }

    fn build(mock: MockApi, sandbox: CliSandbox, mode: PermissionMode) -> Self {
        let config = test_config(&sandbox, &mock);
        Self::build_with(mock, sandbox, config, mode)
    }

    fn build_with(
        mock: MockApi,
        sandbox: CliSandbox,
        config: Config,
        mode: PermissionMode,
    ) -> Self {
        let opened = open_services(config).expect("open services");
        let front_end = Arc::new(RecordingFrontEnd::default());
        let session = MainSession::new(opened.services.clone(), front_end.clone(), settings(mode));
        Self {
            mock,
            sandbox,
            services: opened.services,
            front_end,
            session,
            git_worker: Some(opened.git_worker),
        }
    }

    /// Stops this session's CLI and starts a new session object on the same data dir and
    /// configuration, as a restarted process would.
    pub async fn restart(mut self) -> Self {
        self.session.shutdown().await;
        if let Some(worker) = self.git_worker.take() {
            worker.shutdown().await;
        }
        let mode = PermissionMode::DontAsk;
        let config = self.services.config.clone();
        let AgentHarness { mock, sandbox, .. } = self;
        Self::build_with(mock, sandbox, config, mode)
    }

    /// Sends `text` and collects the turn.
    pub async fn send(&self, text: &str) -> Result<Turn, ollim_bot::agent::AgentError> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let report = self.session.send(Prompt::text(text), tx).await?;
        let mut events = Vec::new();
        while let Ok(event) = rx.try_recv() {
            events.push(event);
        }
        Ok(Turn { report, events })
    }

    /// Runs a whole owner exchange (turn, rendering, fork transitions); returns the text the
    /// owner saw in that turn.
    pub async fn exchange(&self, text: &str) -> Result<String, ollim_bot::agent::AgentError> {
        let report = self.session.exchange(Prompt::text(text)).await?;
        Ok(report.text)
    }

    /// Has the main session call the bundled `history-reviewer` subagent through `Agent`
    /// (the model's script: the call, the subagent's answer, the final reply) and returns the
    /// subagent's own model requests, told apart by [`HISTORY_REVIEWER_MARK`] in their system
    /// prompt.
    pub async fn call_history_reviewer(&self) -> Vec<super::mock_api::RecordedRequest> {
        self.mock.add_rule(|request| {
            request
                .system_text()
                .contains(HISTORY_REVIEWER_MARK)
                .then(|| super::mock_api::Reply::text("Follow-ups from recent sessions: none."))
        });
        self.mock.push(super::mock_api::Reply::tool_use(
            "Agent",
            serde_json::json!({
                "description": "review history",
                "prompt": "What did we leave open?",
                "subagent_type": "history-reviewer"
            }),
        ));
        self.mock
            .push(super::mock_api::Reply::text("Nothing left open."));
        self.exchange("what did we leave open?")
            .await
            .expect("a main turn");
        self.mock
            .main_requests()
            .into_iter()
            .filter(|r| r.system_text().contains(HISTORY_REVIEWER_MARK))
            .collect()
    }

    /// Runs `prompt` as the background routine `id` (forked from the main session) with this
    /// harness's services and front end.
    pub async fn run_routine_bg(
        &self,
        id: &str,
        prompt: &str,
    ) -> Result<ollim_bot::background::BgOutcome, ollim_bot::background::BgError> {
        let runner = ollim_bot::background::BgRunner::new(
            Arc::clone(&self.services),
            self.front_end.clone(),
            Arc::new(|| false),
        );
        let tag = ollim_bot::domain::prompt_tag::PromptTag::RoutineBg(id.to_owned());
        runner
            .run(ollim_bot::scheduling::bg_job::BgJob::new(tag, prompt))
            .await
    }

    /// Plain texts the front end was asked to send.
    pub fn texts_sent(&self) -> Vec<String> {
        self.front_end.texts.lock().unwrap().clone()
    }

    /// The session history log.
    pub fn history(&self) -> Vec<SessionEvent> {
        self.services.sessions.history().read_all()
    }

    /// The stored main session id.
    pub fn stored_session(&self) -> Option<String> {
        self.services.sessions.load().map(|id| id.to_string())
    }

    /// Waits until queued git commits are done.
    pub async fn flush_git(&self) {
        self.services.git.flush().await;
    }

    /// Shuts everything down cleanly.
    pub async fn close(mut self) {
        tokio::time::timeout(Duration::from_secs(20), self.session.shutdown())
            .await
            .expect("shutdown in time");
        if let Some(worker) = self.git_worker.take() {
            worker.shutdown().await;
        }
    }
}

/// Configuration pointing at the sandbox, the pinned CLI and the mock.
pub fn test_config(sandbox: &CliSandbox, mock: &MockApi) -> Config {
    Config {
        user_name: "Julia".into(),
        bot_name: "Ollim".into(),
        timezone: chrono_tz::Tz::America__Los_Angeles,
        data_dir: sandbox.data_dir.clone(),
        claude_cli: claude_cli_path(),
        docs_mcp_url: None,
        cli_env: sandbox.env(mock).into_iter().collect(),
        env_file: sandbox.data_dir.join("project.env"),
        scheduler_sync: ollim_bot::config::DEFAULT_SCHEDULER_SYNC,
        fs_events: ollim_bot::config::FsEvents::On,
        turn_idle_limit: ollim_bot::config::DEFAULT_TURN_IDLE_LIMIT,
        test_clock: None,
        webhook: ollim_bot::config::WebhookSetting::Off,
        webhook_bind: ollim_bot::config::DEFAULT_WEBHOOK_BIND,
        sandbox_read: Vec::new(),
        network_allow: Vec::new(),
        session_limits: ollim_bot::config::SessionLimits::default(),
        upstream_proxy: None,
        sandbox_launcher: Some(crate::paths::ollim_bot_exe()),
        google_api_url: None,
        home_channel: None,
    }
}

fn settings(mode: PermissionMode) -> MainSettings {
    MainSettings {
        model: None,
        thinking: Thinking::Off,
        permission_mode: mode,
    }
}

impl AgentHarness {
    /// A fresh `dontAsk` harness whose CLI children get `extra` on top of the sandbox
    /// environment (e.g. `CLAUDE_CODE_AUTO_COMPACT_WINDOW`), read when a client starts.
    pub async fn with_cli_env(extra: &[(&str, &str)]) -> Self {
        Self::with_mode_and_cli_env(PermissionMode::DontAsk, extra).await
    }

    /// A fresh `dontAsk` harness whose configuration `edit` adjusts first (e.g. the Google API
    /// base, for a fake Google).
    pub async fn with_config(edit: impl FnOnce(&mut Config)) -> Self {
        let mock = MockApi::start().await;
        let sandbox = CliSandbox::new();
        let mut config = test_config(&sandbox, &mock);
        edit(&mut config);
        Self::build_with(mock, sandbox, config, PermissionMode::DontAsk)
    }

    /// A fresh harness with the given permission mode and extra CLI environment.
    pub async fn with_mode_and_cli_env(mode: PermissionMode, extra: &[(&str, &str)]) -> Self {
        let mock = MockApi::start().await;
        let sandbox = CliSandbox::new();
        let mut config = test_config(&sandbox, &mock);
        config.cli_env.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        Self::build_with(mock, sandbox, config, mode)
    }

    /// Queues answers for the next approval requests, in order.
    pub fn script_approvals(&self, answers: &[Approval]) {
        self.front_end
            .approval_answers
            .lock()
            .unwrap()
            .extend(answers.iter().copied());
    }

    /// How many approval requests the front end has seen.
    pub fn approvals_asked(&self) -> usize {
        self.front_end.approvals_asked.lock().unwrap().len()
    }

    /// `<data dir>/state/sessions.json`.
    pub fn sessions_file(&self) -> std::path::PathBuf {
        self.services.data_dir.sessions_file()
    }

    /// `git log --format=%s` in the data dir (after flushing queued commits).
    pub async fn git_log(&self) -> String {
        self.flush_git().await;
        let output = std::process::Command::new("git")
            .args(["log", "--format=%s"])
            .current_dir(&self.sandbox.data_dir)
            .output()
            .expect("run git log");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}
