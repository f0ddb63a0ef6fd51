//! The `discord` MCP server: tools declared from Rust types with generated JSON schemas.
//!
//! Each CLI client gets its own [`DiscordTools`] instance bound to its [`ToolContext`], so a
//! tool always acts for the session that called it. Only tools whose domain has landed are
//! declared; the router is then narrowed to what the session's scope is offered
//! ([`super::availability`]). Tool failures are ordinary text results starting with `Error:`,
//! so the agent can read and react to them.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{Implementation, ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;

use super::{
    availability::{ToolScope, is_offered},
    embed::{
        ButtonStyle, Embed, EmbedButton, EmbedColor, EmbedField, MAX_BUTTONS, strip_emoji,
        unescape_newlines,
    },
};
use crate::agent::frontend::FrontEnd;

/// What a tool call acts on: the calling session's scope and its front end.
pub struct ToolContext {
    /// The kind of session the client serves.
    pub scope: ToolScope,
    /// Where visible output goes.
    pub front_end: Arc<dyn FrontEnd>,
}

/// The in-process `discord` MCP server for one session.
#[derive(Clone)]
pub struct DiscordTools {
    router: ToolRouter<Self>,
    context: Arc<ToolContext>,
}

/// The tools this build implements (the rest land with their domains).
pub const IMPLEMENTED_TOOLS: &[&str] = &["discord_embed"];

/// One embed field as the agent writes it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FieldArgs {
    /// Field name.
    pub name: String,
    /// Field value.
    pub value: String,
    /// Show side by side with neighbouring fields (default true).
    pub inline: Option<bool>,
}

/// One button as the agent writes it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ButtonArgs {
    /// Short button text (about 30 characters).
    pub label: String,
    /// `task_done:<task_id>`, `task_del:<task_id>`, `event_del:<event_id>`,
    /// `agent:<prompt to send back to you>`, or `dismiss`.
    pub action: String,
    /// `primary`, `secondary` (default), `success` or `danger`.
    pub style: Option<String>,
}

/// Arguments of `discord_embed`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EmbedArgs {
    /// Embed title.
    pub title: String,
    /// Body text.
    pub description: Option<String>,
    /// `blue` (info, default), `green` (success), `red` (urgent), `yellow` (warning), `purple`.
    pub color: Option<String>,
    /// Fields shown in the embed.
    pub fields: Option<Vec<FieldArgs>>,
    /// Up to 5 action buttons.
    pub buttons: Option<Vec<ButtonArgs>>,
    /// Only for background runs: bypasses the ping budget for things the owner must not miss.
    pub critical: Option<bool>,
}

#[tool_router]
impl DiscordTools {
    /// A server for one session; tools not offered in `context.scope` are not listed.
    pub fn new(context: ToolContext) -> Self {
        let mut router = Self::tool_router();
        let names: Vec<String> = router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        for name in names {
            if !is_offered(&name, context.scope) {
                router.remove_route(&name);
            }
        }
        Self {
            router,
            context: Arc::new(context),
        }
    }

    /// Names of the tools this instance lists.
    pub fn listed_tools(&self) -> Vec<String> {
        self.router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    #[tool(
        description = "Send the owner a rich embed: a title, optional description, coloured \
                       accent, fields and up to 5 action buttons. Use it for structured data \
                       (task lists, schedules, digests); use plain text for conversation."
    )]
    async fn discord_embed(&self, Parameters(args): Parameters<EmbedArgs>) -> String {
        let embed = match build_embed(args, self.context.scope) {
            Ok(embed) => embed,
            Err(message) => return message,
        };
        match self.context.front_end.send_embed(embed).await {
            Ok(_) => "Embed sent.".to_owned(),
            Err(error) => format!("Error: could not send the embed: {error}"),
        }
    }
}

#[tool_handler(router = self.router)]
impl ServerHandler for DiscordTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("discord", env!("CARGO_PKG_VERSION")))
    }
}

/// Validates and normalises `discord_embed` arguments (MCP-1, MCP-2).
fn build_embed(args: EmbedArgs, scope: ToolScope) -> Result<Embed, String> {
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
