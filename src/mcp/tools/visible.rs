//! Tools that put something in front of the owner: `discord_embed`, `ping_user`, `send_file`
//! (MCP-1…5). In background runs each send passes the run's gate first (allow-ping, one ping
//! per run, busy owner, budget) and spends its budget token only once delivered (F-45).

use std::path::PathBuf;

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

use super::{
    DiscordTools,
    args::{EmbedArgs, PingArgs, SendFileArgs},
    file_guard::{SecretPlaces, check_file},
};
use crate::{
    claude::BoxFuture,
    domain::embed::{
        ButtonStyle, Embed, EmbedButton, EmbedColor, EmbedField, MAX_BUTTONS, strip_emoji,
        unescape_newlines,
    },
    front_end::FrontEndError,
    mcp::availability::ToolScope,
    services::Services,
    state::quiet::HeldShow,
};

type SendResult = Result<Option<u64>, FrontEndError>;

#[tool_router(router = visible_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "Send the owner a rich embed: a title, optional description, coloured \
                       accent, fields and up to 5 action buttons. Use it for structured data \
                       (task lists, schedules, digests); use plain text for conversation."
    )]
    async fn discord_embed(&self, Parameters(args): Parameters<EmbedArgs>) -> String {
        let critical = args.critical.unwrap_or(false);
        let embed = match build_embed(args, self.context.scope()) {
            Ok(embed) => embed,
            Err(message) => return message,
        };
        let item = HeldShow::Embed { embed };
        self.deliver(critical, item, ("Embed sent.", "the embed"))
            .await
    }

    #[tool(
        description = "Background runs only: send the owner a short plain-text alert. It costs \
                       a ping from the budget; at most one per run unless critical."
    )]
    async fn ping_user(&self, Parameters(args): Parameters<PingArgs>) -> String {
        if !self.context.scope().is_background() {
            return "Error: ping_user is only available in background forks".to_owned();
        }
        let critical = args.critical.unwrap_or(false);
        let text = format!("[bg] {}", args.message.trim());
        let item = HeldShow::Text { text };
        self.deliver(critical, item, ("Message sent.", "the message"))
            .await
    }

    #[tool(
        description = "Send the owner a file from the data dir (notes/, downloads/, …) as a \
                       Discord attachment (at most 25 MB), with an optional message. The bot's \
                       secrets (.env, state/) are never sent."
    )]
    async fn send_file(&self, Parameters(args): Parameters<SendFileArgs>) -> String {
        let path = match self.sendable_file(&args.file_path) {
            Ok(path) => path,
            Err(message) => return message,
        };
        let background = self.context.scope().is_background();
        let message = args
            .message
            .filter(|m| !m.trim().is_empty())
            .map(|m| if background { format!("[bg] {m}") } else { m });
        let critical = args.critical.unwrap_or(false);
        let item = HeldShow::File { path, message };
        self.deliver(critical, item, ("File sent.", "the file"))
            .await
    }
}

impl DiscordTools {
    /// The file `send_file` may send for `raw`, or the `Error: …` result (MCP-5): the file
    /// rules of [`check_file`] with this instance's secret places (none known without the
    /// shared services: then only the fixed rules apply).
    fn sendable_file(&self, raw: &str) -> Result<PathBuf, String> {
        let secrets = self
            .context
            .services()
            .map(|services| SecretPlaces::of(&services.config))
            .unwrap_or_default();
        let home = crate::config::environment::home_dir();
        check_file(raw, home.as_deref(), &secrets).map_err(|refusal| {
            tracing::info!(%refusal, "send_file refused");
            format!("Error: {refusal}")
        })
    }

    /// Shows `item` through the background gate when this client is a background run;
    /// otherwise directly (main and interactive forks are never gated, PNG-1). It is only
    /// sent once the gate let it through. In the owner's quiet time a background run's
    /// non-critical item is held for the digest instead (issue 28 §2, QUI-2).
    async fn deliver(
        &self,
        critical: bool,
        item: HeldShow,
        (success, what): (&str, &str),
    ) -> String {
        let bg_run = self
            .context
            .bg_run()
            .filter(|_| self.context.scope().is_background());
        let Some(run) = bg_run else {
            return match self.show(item).await {
                Ok(id) => {
                    self.context.note_sent(id);
                    success.to_owned()
                }
                Err(error) => format!("Error: could not send {what}: {error}"),
            };
        };
        let permit = match run.gate_visible(critical) {
            Ok(permit) => permit,
            Err(refusal) => return refusal,
        };
        if !critical && let Some((services, until)) = self.quiet_now() {
            return match services.quiet.hold(item, services.clock.now()) {
                Ok(()) => {
                    run.sent(permit, None);
                    format!(
                        "Held: the owner is in quiet time until {until}; {what} goes out in one \
                         digest then. Only a critical item goes through now."
                    )
                }
                Err(error) => {
                    run.not_sent(permit);
                    format!("Error: could not hold {what} for the quiet time: {error}")
                }
            };
        }
        match self.show(item).await {
            Ok(id) => {
                run.sent(permit, id);
                success.to_owned()
            }
            Err(error) => {
                run.not_sent(permit);
                format!("Error: could not send {what}: {error}")
            }
        }
    }

    /// Puts `item` in front of the owner.
    fn show(&self, item: HeldShow) -> BoxFuture<'_, SendResult> {
        let front_end = &self.context.front_end;
        match item {
            HeldShow::Text { text } => front_end.send_text(text),
            HeldShow::Embed { embed } => front_end.send_embed(embed),
            HeldShow::File { path, message } => front_end.send_file(path, message),
        }
    }

    /// While the owner is quiet: the services (where held items go, the clock), and the
    /// local time the quiet ends.
    fn quiet_now(&self) -> Option<(&Services, String)> {
        let services = self.context.services()?;
        let until = services.quiet_until(services.clock.now())?;
        Some((services, services.hh_mm(until)))
    }
}

/// Validates and normalises `discord_embed` arguments (MCP-1, MCP-2).
pub fn build_embed(args: EmbedArgs, scope: ToolScope) -> Result<Embed, String> {
    let title = strip_emoji(&args.title);
    if title.is_empty() {
        return Err("Error: the embed needs a title with some text in it.".to_owned());
    }
    let buttons = args.buttons.unwrap_or_default();
    if buttons.len() > MAX_BUTTONS {
        return Err(format!(
            "Error: at most {MAX_BUTTONS} buttons per embed ({} given).",
            buttons.len()
        ));
    }
    if let Some(bad) = buttons
        .iter()
        .find(|b| b.label.trim().is_empty() || b.action.trim().is_empty())
    {
        return Err(format!(
            "Error: every button needs a label and an action (got label {:?}, action {:?}).",
            bad.label, bad.action
        ));
    }
    Ok(Embed {
        title,
        description: args
            .description
            .filter(|text| !text.trim().is_empty())
            .map(|text| unescape_newlines(&text)),
        color: args
            .color
            .as_deref()
            .map(EmbedColor::parse)
            .unwrap_or_default(),
        fields: args
            .fields
            .unwrap_or_default()
            .into_iter()
            .map(|field| EmbedField {
                name: field.name,
                value: unescape_newlines(&field.value),
                inline: field.inline.unwrap_or(true),
            })
            .collect(),
        buttons: buttons
            .into_iter()
            .map(|button| EmbedButton {
                label: button.label,
                action: button.action,
                style: button
                    .style
                    .as_deref()
                    .map(ButtonStyle::parse)
                    .unwrap_or_default(),
            })
            .collect(),
        footer: match scope {
            ToolScope::Main => None,
            ToolScope::InteractiveFork => Some("fork".to_owned()),
            ToolScope::Background | ToolScope::PersistentRoutine => Some("bg".to_owned()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::tools::args::{ButtonArgs, FieldArgs};

    fn args(title: &str) -> EmbedArgs {
        EmbedArgs {
            title: title.into(),
            description: Some("line one\\nline two".into()),
            color: Some("green".into()),
            fields: Some(vec![FieldArgs {
                name: "Due".into(),
                value: "today".into(),
                inline: None,
            }]),
            buttons: None,
            critical: None,
        }
    }

    #[test]
    fn builds_a_normalised_embed() {
        let embed = build_embed(args("✅ Done"), ToolScope::Main).unwrap();
        assert_eq!(embed.title, "Done");
        assert_eq!(embed.description.as_deref(), Some("line one\nline two"));
        assert_eq!(embed.color, EmbedColor::Green);
        assert!(embed.fields[0].inline);
        assert_eq!(embed.footer, None);
        let bg = build_embed(args("x"), ToolScope::Background).unwrap();
        assert_eq!(bg.footer.as_deref(), Some("bg"));
        let fork = build_embed(args("x"), ToolScope::InteractiveFork).unwrap();
        assert_eq!(fork.footer.as_deref(), Some("fork"));
    }

    #[test]
    fn refuses_too_many_buttons_and_empty_titles() {
        let mut many = args("Plan");
        many.buttons = Some(
            (0..6)
                .map(|i| ButtonArgs {
                    label: format!("b{i}"),
                    action: "dismiss".into(),
                    style: None,
                })
                .collect(),
        );
        assert!(
            build_embed(many, ToolScope::Main)
                .unwrap_err()
                .starts_with("Error:")
        );
        assert!(
            build_embed(args("🎉"), ToolScope::Main)
                .unwrap_err()
                .starts_with("Error:")
        );
    }
}
