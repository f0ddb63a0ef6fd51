//! An [`Embed`] as a Discord message: the embed itself plus a row of persistent buttons whose
//! `custom_id`s carry everything needed to act on a click, even after a restart (BTN-1/2).

use serenity::{
    builder::{CreateActionRow, CreateButton, CreateEmbed, CreateEmbedFooter, CreateMessage},
    model::application::ButtonStyle as DiscordButtonStyle,
};

use super::buttons::{ButtonError, encode};
use crate::{
    domain::embed::{ButtonStyle, Embed},
    state::inquiries::InquiryStore,
};

/// Builds the message for `embed`; `agent:<prompt>` buttons register an inquiry.
pub fn embed_message(
    embed: &Embed,
    inquiries: &InquiryStore,
) -> Result<CreateMessage, ButtonError> {
    let mut message = CreateMessage::new().embed(create_embed(embed));
    if let Some(row) = button_row(embed, inquiries)? {
        message = message.components(vec![row]);
    }
    Ok(message)
}

/// The most embeds one digest message carries: one row of buttons each, and Discord allows
/// five rows a message.
pub const DIGEST_EMBEDS: usize = 5;

/// The messages of a quiet-hours digest (issue 28 §2): `text` first, then the embeds, at most
/// [`DIGEST_EMBEDS`] a message, each with its own row of working buttons.
pub fn digest_messages(
    text: &str,
    embeds: &[Embed],
    inquiries: &InquiryStore,
) -> Result<Vec<CreateMessage>, ButtonError> {
    let mut messages = Vec::new();
    let mut chunks = embeds.chunks(DIGEST_EMBEDS);
    let mut first = Some(CreateMessage::new().content(text));
    loop {
        let chunk = chunks.next();
        let Some(mut message) = first.take().or_else(|| chunk.map(|_| CreateMessage::new())) else {
            break;
        };
        let chunk = chunk.unwrap_or_default();
        let mut rows = Vec::new();
        for embed in chunk {
            message = message.add_embed(create_embed(embed));
            rows.extend(button_row(embed, inquiries)?);
        }
        if !rows.is_empty() {
            message = message.components(rows);
        }
        messages.push(message);
        if chunk.is_empty() {
            break;
        }
    }
    Ok(messages)
}

fn create_embed(embed: &Embed) -> CreateEmbed {
    let mut builder = CreateEmbed::new()
        .title(&embed.title)
        .colour(embed.color.rgb());
    if let Some(description) = &embed.description {
        builder = builder.description(description);
    }
    for field in &embed.fields {
        builder = builder.field(&field.name, &field.value, field.inline);
    }
    if let Some(footer) = &embed.footer {
        builder = builder.footer(CreateEmbedFooter::new(footer));
    }
    builder
}

/// The embed's buttons as one row, `None` without buttons.
fn button_row(
    embed: &Embed,
    inquiries: &InquiryStore,
) -> Result<Option<CreateActionRow>, ButtonError> {
    if embed.buttons.is_empty() {
        return Ok(None);
    }
    let mut buttons = Vec::with_capacity(embed.buttons.len());
    for button in &embed.buttons {
        let custom_id = encode(&button.action, |prompt| inquiries.register(prompt))?;
        buttons.push(
            CreateButton::new(custom_id)
                .label(&button.label)
                .style(discord_style(button.style)),
        );
    }
    Ok(Some(CreateActionRow::Buttons(buttons)))
}

fn discord_style(style: ButtonStyle) -> DiscordButtonStyle {
    match style {
        ButtonStyle::Primary => DiscordButtonStyle::Primary,
        ButtonStyle::Secondary => DiscordButtonStyle::Secondary,
        ButtonStyle::Success => DiscordButtonStyle::Success,
        ButtonStyle::Danger => DiscordButtonStyle::Danger,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::embed::EmbedButton;

    /// QUI-3: the digest's text comes first; past five embeds with buttons the rest go in a
    /// second message, each embed keeping its own row of buttons.
    #[test]
    fn a_digest_carries_five_embeds_with_their_buttons_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let inquiries = InquiryStore::new(dir.path().join("inquiries.json"));
        let embed = |n: usize| Embed {
            title: format!("item {n}"),
            buttons: vec![EmbedButton::new(
                "Summarise",
                "agent:go on",
                ButtonStyle::Primary,
            )],
            ..Embed::default()
        };
        let embeds: Vec<Embed> = (0..7).map(embed).collect();
        let messages = digest_messages("held:", &embeds, &inquiries).unwrap();
        let json: Vec<serde_json::Value> = messages
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect();
        assert_eq!(json.len(), 2);
        assert_eq!(json[0]["content"], "held:");
        assert_eq!(json[0]["embeds"].as_array().unwrap().len(), 5);
        assert_eq!(json[0]["components"].as_array().unwrap().len(), 5);
        assert_eq!(json[1]["embeds"].as_array().unwrap().len(), 2);
        assert!(
            json[1]
                .get("content")
                .is_none_or(serde_json::Value::is_null)
        );
        let only_text = digest_messages("held:", &[], &inquiries).unwrap();
        assert_eq!(only_text.len(), 1);
    }
}
