//! Focus sessions, body doubling (issue 28 §3): `/focus [minutes] [task]` starts one — quiet
//! while it lasts (background pings wait for the digest, FOC-1), the agent restates the task
//! and proposes a first two-minute step (FOC-2), a halfway check-in for sessions of 20 minutes
//! or more, and at the end (time's up or **End focus**, FOC-3) the main conversation hears it
//! as a pending update and asks what got done, without judging (FOC-4).

use chrono::{DateTime, Utc};
use serenity::{
    all::{ChannelId, CommandInteraction, ComponentInteraction},
    builder::{
        CreateActionRow, CreateButton, CreateInteractionResponse, CreateInteractionResponseMessage,
        CreateMessage,
    },
};

use super::QuietTime;
use crate::discord::{
    buttons::ButtonAction,
    commands::{option as command_option, reply_ephemeral},
    rate_limit::with_rate_limit_retries,
};
use crate::{
    agent::Prompt,
    front_end::{ReplyPlace, TurnPlace},
    state::quiet::FocusSession,
};

/// Minutes when `/focus` names none: one pomodoro.
const DEFAULT_MINUTES: i64 = 25;
/// The longest session `/focus` starts.
const LONGEST_MINUTES: i64 = 240;
/// Sessions at least this long get a halfway check-in.
const CHECK_IN_FROM_MINUTES: i64 = 20;

/// The minutes the owner asked for, or why not.
fn minutes(raw: Option<&str>) -> Result<i64, String> {
    let Some(raw) = raw.map(str::trim).filter(|raw| !raw.is_empty()) else {
        return Ok(DEFAULT_MINUTES);
    };
    let lower = raw.to_ascii_lowercase();
    let digits = ["minutes", "minute", "mins", "min", "m"]
        .iter()
        .find_map(|unit| lower.strip_suffix(unit))
        .unwrap_or(&lower)
        .trim();
    match digits.parse::<i64>() {
        Ok(minutes) if (1..=LONGEST_MINUTES).contains(&minutes) => Ok(minutes),
        _ => Err(format!(
            "focus for 1 to {LONGEST_MINUTES} minutes, like `/focus 25 write the report`"
        )),
    }
}

impl QuietTime {
    /// `/focus [minutes] [task]` (FOC-1, FOC-2).
    pub(crate) async fn focus_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        let minutes = match minutes(command_option(command, "minutes")) {
            Ok(minutes) => minutes,
            Err(text) => return reply_ephemeral(&self.reach.http, command, text).await,
        };
        let task = command_option(command, "task")
            .map(str::trim)
            .filter(|task| !task.is_empty())
            .map(str::to_owned);
        let now = self.reach.services.clock.now();
        let focus = FocusSession {
            task: task.clone().unwrap_or_else(|| "(not named yet)".to_owned()),
            started: now,
            until: now + chrono::Duration::minutes(minutes),
            halfway_told: false,
        };
        let until = self.reach.services.hh_mm(focus.until);
        match self.reach.services.quiet.start_focus(focus) {
            Ok(true) => {}
            Ok(false) => {
                let text = "A focus session is already under way; **End focus** on it first.";
                return reply_ephemeral(&self.reach.http, command, text).await;
            }
            Err(error) => {
                let text = format!("couldn't start the focus session: {error}");
                return reply_ephemeral(&self.reach.http, command, text).await;
            }
        }
        let shown = task.as_deref().unwrap_or("your next thing");
        let response = CreateInteractionResponse::Message(
            CreateInteractionResponseMessage::new()
                .content(format!(
                    "Focus: **{shown}**, {minutes} min, until {until}. Pings wait until then."
                ))
                .components(vec![end_button()]),
        );
        with_rate_limit_retries(|| command.create_response(&self.reach.http, response.clone()))
            .await?;
        let user = &self.reach.services.config.user_name;
        let ask = match &task {
            Some(task) => format!(
                "[focus] {user} starts a {minutes}-minute focus session on: {task}. Restate \
                 the task in one short line and propose the first step, something doable in \
                 two minutes. Be brief and warm; no pep talk."
            ),
            None => format!(
                "[focus] {user} starts a {minutes}-minute focus session and hasn't said on \
                 what. Ask in one short line what they'll work on and offer a first two-minute \
                 step once they say."
            ),
        };
        self.focus_turn(
            ask,
            TurnPlace::AskedIn(ReplyPlace(command.channel_id.get())),
        )
        .await;
        Ok(())
    }

    /// **End focus** (FOC-3).
    pub(crate) async fn end_click(
        &self,
        component: &ComponentInteraction,
    ) -> Result<(), serenity::Error> {
        let ended = match self.reach.services.quiet.end_focus() {
            Ok(Some(focus)) => focus,
            Ok(None) => {
                return self
                    .reach
                    .ephemeral(component, "no focus session is under way")
                    .await;
            }
            Err(error) => {
                let text = format!("couldn't end the focus session: {error}");
                return self.reach.ephemeral(component, &text).await;
            }
        };
        with_rate_limit_retries(|| component.defer(&self.reach.http)).await?;
        self.focus_ended(&ended, true, Some(component.channel_id))
            .await;
        Ok(())
    }

    /// The timer's part, at each tick: the halfway check-in, then the end (FOC-3).
    pub(crate) async fn tick_focus(&self) {
        let Some(focus) = self.reach.services.quiet.focus() else {
            return;
        };
        match focus_step(&focus, self.reach.services.clock.now()) {
            FocusStep::Wait => {}
            FocusStep::End => {
                if let Ok(Some(ended)) = self.reach.services.quiet.end_focus() {
                    self.focus_ended(&ended, false, None).await;
                }
            }
            FocusStep::CheckIn => self.focus_check_in(&focus).await,
        }
    }

    /// The halfway check-in, once (FOC-3).
    async fn focus_check_in(&self, focus: &FocusSession) {
        if let Err(error) = self.reach.services.quiet.focus_halfway_told() {
            tracing::warn!(%error, "could not note the focus check-in");
            return;
        }
        let text = format!(
            "Halfway through **{}**, until {}. Still on it? No need to answer.",
            focus.task,
            self.reach.services.hh_mm(focus.until)
        );
        self.reach
            .tell(
                "the focus check-in",
                CreateMessage::new()
                    .content(text)
                    .components(vec![end_button()]),
            )
            .await;
    }

    /// A session ended (`early`: by the owner): the main conversation hears it as a pending
    /// update and asks what got done (FOC-4).
    async fn focus_ended(&self, focus: &FocusSession, early: bool, here: Option<ChannelId>) {
        let ended = self.reach.services.clock.now().min(focus.until);
        let minutes = (ended - focus.started).num_minutes().max(1);
        let how = if early { "ended early" } else { "ended" };
        let note = format!(
            "Focus session on {}: {minutes} min, {how} at {}.",
            focus.task,
            self.reach.services.hh_mm(ended)
        );
        if let Err(error) = self.reach.services.pending.append(&note) {
            tracing::warn!(%error, "could not note the focus session");
        }
        let user = &self.reach.services.config.user_name;
        let ask = format!(
            "[focus-end] {user}'s focus session on {} {how} after {minutes} minutes. Ask in \
             one short line what got done; whatever they say is fine — no judging, no \
             streaks. If they want, note the next step.",
            focus.task
        );
        let place = here.map_or(TurnPlace::Unasked, |channel| {
            TurnPlace::AskedIn(ReplyPlace(channel.get()))
        });
        self.focus_turn(ask, place).await;
    }

    async fn focus_turn(&self, text: String, place: TurnPlace) {
        if let Err(error) = self
            .reach
            .session
            .exchange(Prompt::text(text).answered_in(place))
            .await
        {
            tracing::warn!(%error, "the focus session's turn failed");
        }
    }
}

/// What a focus session needs at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FocusStep {
    /// Nothing yet.
    Wait,
    /// The halfway check-in is due.
    CheckIn,
    /// Its time is up.
    End,
}

/// What `focus` needs at `now` (FOC-3): the end once its time is up; the check-in once half
/// of a session of [`CHECK_IN_FROM_MINUTES`] or more has passed.
fn focus_step(focus: &FocusSession, now: DateTime<Utc>) -> FocusStep {
    let length = focus.until - focus.started;
    if now >= focus.until {
        FocusStep::End
    } else if !focus.halfway_told
        && length >= chrono::Duration::minutes(CHECK_IN_FROM_MINUTES)
        && now >= focus.started + length / 2
    {
        FocusStep::CheckIn
    } else {
        FocusStep::Wait
    }
}

/// The **End focus** button.
fn end_button() -> CreateActionRow {
    let id = ButtonAction::FocusEnd
        .custom_id()
        .unwrap_or_else(|_| "act:focus_end:_".to_owned());
    CreateActionRow::Buttons(vec![
        CreateButton::new(id)
            .label("End focus")
            .style(serenity::all::ButtonStyle::Secondary),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FOC-3: the check-in once, halfway, only for longer sessions; the end at its time.
    #[test]
    fn a_session_checks_in_halfway_and_ends_on_time() {
        let started: DateTime<Utc> = "2026-11-28T09:00:00Z".parse().unwrap();
        let at = |minutes| started + chrono::Duration::minutes(minutes);
        let mut focus = FocusSession {
            task: "report".into(),
            started,
            until: at(30),
            halfway_told: false,
        };
        assert_eq!(focus_step(&focus, at(14)), FocusStep::Wait);
        assert_eq!(focus_step(&focus, at(15)), FocusStep::CheckIn);
        focus.halfway_told = true;
        assert_eq!(focus_step(&focus, at(20)), FocusStep::Wait);
        assert_eq!(focus_step(&focus, at(30)), FocusStep::End);
        let short = FocusSession {
            until: at(10),
            halfway_told: false,
            ..focus
        };
        assert_eq!(focus_step(&short, at(6)), FocusStep::Wait);
        assert_eq!(focus_step(&short, at(11)), FocusStep::End);
    }

    /// FOC-1.
    #[test]
    fn minutes_default_to_a_pomodoro_and_stay_in_bounds() {
        assert_eq!(minutes(None), Ok(25));
        assert_eq!(minutes(Some(" 45 ")), Ok(45));
        assert_eq!(minutes(Some("50min")), Ok(50));
        assert_eq!(minutes(Some("10m")), Ok(10));
        assert!(minutes(Some("0")).is_err());
        assert!(minutes(Some("500")).is_err());
        assert!(minutes(Some("soon")).unwrap_err().contains("/focus 25"));
    }
}
