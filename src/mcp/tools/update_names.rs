//! `update_names` (MCP-14): the owner's and the bot's names, written into the project `.env`;
//! they take effect after `/restart`.

use std::path::Path;

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

use super::{DiscordTools, args::NamesArgs};
use crate::{mcp::availability::ToolScope, state::env_file::set_vars};

#[tool_router(router = update_names_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "Main session only: change what you call the owner and your own name. \
                       Saved to .env; takes effect after /restart."
    )]
    async fn update_names(&self, Parameters(args): Parameters<NamesArgs>) -> String {
        if self.context.scope() != ToolScope::Main {
            return "Error: update_names is only available in the main session.".to_owned();
        }
        let user_name = args.user_name.trim();
        let bot_name = args.bot_name.trim();
        if user_name.is_empty() || bot_name.is_empty() {
            return "Error: both user_name and bot_name need some text.".to_owned();
        }
        if [user_name, bot_name]
            .iter()
            .any(|name| name.contains(['\n', '\r']))
        {
            return "Error: names must fit on one line.".to_owned();
        }
        let Some(services) = self.context.services() else {
            return "Error: names can't be changed from this session.".to_owned();
        };
        match write_names(&services.config.env_file, user_name, bot_name) {
            Ok(()) => format!(
                "Names saved: you will call the owner {user_name} and yourself {bot_name} after \
                 /restart."
            ),
            Err(error) => format!("Error: could not update .env: {error}"),
        }
    }
}

/// Replaces (or adds) the two name lines in `.env`, keeping every other line.
fn write_names(path: &Path, user_name: &str, bot_name: &str) -> Result<(), String> {
    set_vars(
        path,
        &[("OLLIM_USER_NAME", user_name), ("OLLIM_BOT_NAME", bot_name)],
    )
    .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".env");
        write_names(&path, "Julia", "Ollim").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "OLLIM_USER_NAME=Julia\nOLLIM_BOT_NAME=Ollim\n");
    }
}
