//! The conversation's slash commands (SLC-1…10): `/fork`, `/interrupt`, `/ping-budget`, and the
//! session commands (`/clear`, `/compact`, `/cost` with its chart, `/model`, `/thinking`,
//! `/permissions`, `/config`, …) through the parser and executor the terminal shares, each for
//! the conversation it was given in (issue 41 §1): in a fork's thread that fork's, elsewhere
//! main's.

use serenity::{
    all::{CommandInteraction, ResolvedValue},
    builder::{CreateAttachment, EditInteractionResponse},
};

use super::Conversations;
use crate::{
    agent::{
        ForkCommandError, NoRoom,
        command::{self as session_command, CommandArgs},
    },
    discord::{
        commands::{integer_option, option, reply_ephemeral},
        rate_limit::with_rate_limit_retries,
    },
    domain::fork_control::MAX_FORKS,
    front_end::{ReplyPlace, TurnPlace},
    usage::chart::ledger_chart,
};

/// The file name of `/cost`'s chart (USE-5).
pub const SPEND_CHART: &str = "spend.png";
/// The days `/cost`'s chart covers.
const CHART_DAYS: u32 = 30;
/// How long a quick command may take before its answer is deferred (Discord drops an
/// interaction not answered within 3 s).
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

impl Conversations {
    /// Runs one of the conversation's commands through the shared parser and executor
    /// ([`session_command`]), for the conversation it was given in.
    pub(crate) async fn command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        match command.data.name.as_str() {
            "fork" => return self.fork_command(command).await,
            "interrupt" => {
                self.reach
                    .session
                    .interrupt_in(self.reach.addressed_in(command.channel_id));
                with_rate_limit_retries(|| command.defer_ephemeral(&self.reach.http)).await?;
                return with_rate_limit_retries(|| command.delete_response(&self.reach.http)).await;
            }
            "ping-budget" => {
                let text = self.ping_budget_command(
                    integer_option(command, "capacity"),
                    integer_option(command, "refill_rate"),
                );
                return reply_ephemeral(&self.reach.http, command, text).await;
            }
            _ => {}
        }
        let options = command.data.options();
        let args = CommandArgs::named(options.iter().filter_map(|option| match option.value {
            ResolvedValue::String(value) => Some((option.name, value)),
            _ => None,
        }));
        let parsed = session_command::parse(&command.data.name, &args);
        // For the conversation it was given in: in the channel beside a fork's thread, main's.
        let branch = self.reach.addressed_in(command.channel_id);
        match parsed {
            Ok(parsed) if parsed.is_slow() => {
                let charted = matches!(parsed, session_command::Command::Cost);
                with_rate_limit_retries(|| command.defer(&self.reach.http)).await?;
                let reply = self.reach.session.run_command_in(parsed, branch).await;
                let mut edit = EditInteractionResponse::new().content(reply.text());
                if charted && let Some(png) = self.spend_chart().await {
                    edit = edit.new_attachment(CreateAttachment::bytes(png, SPEND_CHART));
                }
                with_rate_limit_retries(|| command.edit_response(&self.reach.http, edit.clone()))
                    .await
                    .map(drop)
            }
            Ok(parsed) => {
                let caveat = self.config_caveat(&parsed);
                // Quick, but it may wait for its conversation's turn: past Discord's answer
                // time it is deferred and the answer follows.
                let mut reply = Box::pin(self.reach.session.run_command_in(parsed, branch));
                if let Ok(reply) = tokio::time::timeout(ANSWER_WITHIN, &mut reply).await {
                    let text = format!("{}{caveat}", reply.text());
                    return reply_ephemeral(&self.reach.http, command, text).await;
                }
                with_rate_limit_retries(|| command.defer_ephemeral(&self.reach.http)).await?;
                let text = format!("{}{caveat}", reply.await.text());
                let edit = EditInteractionResponse::new().content(text);
                with_rate_limit_retries(|| command.edit_response(&self.reach.http, edit.clone()))
                    .await
                    .map(drop)
            }
            Err(error) => reply_ephemeral(&self.reach.http, command, error.to_string()).await,
        }
    }

    /// What `/config` adds in Discord when it shows `home_channel` and the bot found at
    /// start-up that it can't use it (CHN-10): that it isn't in use, and why.
    fn config_caveat(&self, parsed: &session_command::Command) -> String {
        let shows_home = match parsed {
            session_command::Command::Config(session_command::ConfigRequest::ShowAll) => true,
            session_command::Command::Config(session_command::ConfigRequest::Show(key)) => {
                *key == crate::config::runtime::ConfigKey::HomeChannel
            }
            _ => false,
        };
        match self.reach.places.unusable_home() {
            Some((home, why)) if shows_home => format!(
                "\n-# home_channel <#{home}> is not in use: I can't use it ({why}), so I \
                 answer in our DM only. `/home` in a channel of your server chooses one again."
            ),
            _ => String::new(),
        }
    }

    /// `/cost`'s chart of the last 30 days (USE-5), drawn off the async threads; `None`
    /// when nothing was spent or it can't be drawn (the text still answers).
    async fn spend_chart(&self) -> Option<Vec<u8>> {
        let dir = self.reach.services.data_dir.usage_dir();
        let tz = self.reach.services.config.timezone;
        let now = self.reach.services.clock.now();
        let drawn =
            tokio::task::spawn_blocking(move || ledger_chart(&dir, now, tz, CHART_DAYS)).await;
        match drawn {
            Ok(Ok(png)) => png,
            Ok(Err(error)) => {
                tracing::warn!(%error, "could not draw the spend chart");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "the spend chart's drawing stopped");
                None
            }
        }
    }

    /// `/fork [topic]` (IFK-2): the deferred reply is removed; the entry embed and the fork's
    /// first reply follow in the DM.
    async fn fork_command(&self, command: &CommandInteraction) -> Result<(), serenity::Error> {
        // Beside an open fork only in a thread of its own, which only the home channel (or a
        // fork's thread there) gives.
        let here = command.channel_id;
        let threadless =
            Some(here) != self.reach.places.home() && self.reach.places.fork_in(here).is_none();
        let room = match self.reach.session.fork_room() {
            Ok(()) if threadless && self.reach.session.in_fork() => Err(NoRoom::NeedsThread),
            other => other,
        };
        if let Err(no_room) = room {
            let text = self.no_room(no_room);
            return reply_ephemeral(&self.reach.http, command, &text).await;
        }
        with_rate_limit_retries(|| command.defer_ephemeral(&self.reach.http)).await?;
        let topic = option(command, "topic")
            .map(str::trim)
            .filter(|topic| !topic.is_empty())
            .map(str::to_owned);
        with_rate_limit_retries(|| command.delete_response(&self.reach.http)).await?;
        let here = TurnPlace::AskedIn(ReplyPlace(command.channel_id.get()));
        if let Err(error) = self.reach.session.open_fork_command(topic, here).await {
            tracing::warn!(%error, "/fork failed");
            let text = match error {
                ForkCommandError::NoRoom(no_room) => self.no_room(no_room),
                other => format!("could not open the fork: {other}"),
            };
            self.reach.command_followup(command, &text).await?;
        }
        Ok(())
    }

    /// Why `/fork` opened nothing (issue 41 §1), with where the open forks are.
    fn no_room(&self, no_room: NoRoom) -> String {
        let threads = self.reach.places.open_threads();
        let listed = threads
            .iter()
            .map(|thread| format!("<#{thread}>"))
            .collect::<Vec<_>>()
            .join(", ");
        match no_room {
            NoRoom::Full => format!(
                "{MAX_FORKS} forks are open already ({listed}): end one there (Save, Report or \
                 Exit, or archive its thread) to open another."
            ),
            NoRoom::NeedsThread if !threads.is_empty() => format!(
                "a fork is open in {listed}; another beside it needs a thread of its own: run \
                 `/fork` in the home channel."
            ),
            other => other.owner_text().to_owned(),
        }
    }

    /// `/ping-budget [capacity] [refill_rate]` (PNG-8, PNG-9).
    fn ping_budget_command(&self, capacity: Option<i64>, refill_rate: Option<i64>) -> String {
        let budget = &self.reach.services.ping_budget;
        if capacity.is_none() && refill_rate.is_none() {
            return match budget.snapshot() {
                Ok(snapshot) => format!("ping budget: {}", snapshot.extended_status()),
                Err(error) => format!("could not read the ping budget: {error}"),
            };
        }
        let positive = |value: Option<i64>| match value {
            None => Ok(None),
            Some(v) if v > 0 => u32::try_from(v).map(Some).map_err(|_| ()),
            Some(_) => Err(()),
        };
        let (Ok(capacity), Ok(refill_rate)) = (positive(capacity), positive(refill_rate)) else {
            return "capacity and refill_rate must be positive whole numbers.".to_owned();
        };
        match budget.configure(capacity, refill_rate) {
            Ok(snapshot) => format!("ping budget updated: {}.", snapshot.compact_status()),
            Err(error) => format!("could not update the ping budget: {error}"),
        }
    }
}
