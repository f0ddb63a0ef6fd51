//! An [`Embed`] as a Discord message: the embed itself plus a row of persistent buttons whose
//! `custom_id`s carry everything needed to act on a click, even after a restart (BTN-1/2).

use serenity::{
    builder::{CreateActionRow, CreateButton, CreateEmbed, CreateEmbedFooter, CreateMessage},
    model::application::ButtonStyle as DiscordButtonStyle,
};

use super::clicks::buttons::{ButtonError, encode};
use crate::{
    domain::embed::{ButtonStyle, Embed},
    state::inquiries::InquiryStore,
};

/// Builds the message for `embed`; `agent:<prompt>` buttons register an inquiry.
pub fn embed_message(
    embed: &Embed,
    inquiries: &InquiryStore,
) -> Result<CreateMessage, ButtonError> {
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
    let mut message = CreateMessage::new().embed(builder);
    if !embed.buttons.is_empty() {
        let mut buttons = Vec::with_capacity(embed.buttons.len());
        for button in &embed.buttons {
            let custom_id = encode(&button.action, |prompt| inquiries.register(prompt))?;
            buttons.push(
                CreateButton::new(custom_id)
                    .label(&button.label)
                    .style(discord_style(button.style)),
            );
        }
        message = message.components(vec![CreateActionRow::Buttons(buttons)]);
    }
    Ok(message)
}

fn discord_style(style: ButtonStyle) -> DiscordButtonStyle {
    match style {
        ButtonStyle::Primary => DiscordButtonStyle::Primary,
        ButtonStyle::Secondary => DiscordButtonStyle::Secondary,
        ButtonStyle::Success => DiscordButtonStyle::Success,
        ButtonStyle::Danger => DiscordButtonStyle::Danger,
    }
}
