//! Handing the CLI what may be loaded: skills and commands as a plugin under
//! `state/approved/`, subagents as `initialize.agents`, the settings as `--settings`.

use std::{
    fmt::Write as _,
    fs, io,
    path::{Path, PathBuf},
};

use serde_json::{Map, Value, json};

use super::{ContentItem, ContentKind};

/// The plugin's name: the CLI lists its skills and commands as `ollim:<name>` (a skill is
/// found by its bare name too).
pub const PLUGIN_NAME: &str = "ollim";

/// What one CLI start gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The plugin folder with the loadable skills and commands (`--plugin-dir`).
    pub plugin_dir: PathBuf,
    /// The loadable subagents, as the `initialize` request's `agents` (`None`: none).
    pub agents: Option<Value>,
    /// The settings (`--settings`): the approved project settings, with auto-memory off
    /// unless they say otherwise (AGT-20).
    pub settings: String,
    /// Items that could not be handed over (a subagent without a description…), one line
    /// each, for the log.
    pub problems: Vec<String>,
}

/// Writes `loadable` skills and commands into `approved_dir/plugin` (replaced whole, and
/// only when they changed) and builds the rest of the [`Delivery`].
pub fn install(approved_dir: &Path, loadable: &[&ContentItem]) -> io::Result<Delivery> {
    let plugin_dir = approved_dir.join("plugin");
    let in_plugin: Vec<&ContentItem> = loadable
        .iter()
        .copied()
        .filter(|item| matches!(item.kind, ContentKind::Skill | ContentKind::Command))
        .collect();
    let manifest = in_plugin.iter().fold(String::new(), |mut manifest, item| {
        let _ = writeln!(manifest, "{} {}", item.key(), item.hash);
        manifest
    });
    let manifest_file = plugin_dir.join(".ollim-manifest");
    if fs::read_to_string(&manifest_file).ok().as_deref() != Some(manifest.as_str()) {
        write_plugin(approved_dir, &plugin_dir, &in_plugin, &manifest)?;
    }
    let mut problems = Vec::new();
    let mut agents = Map::new();
    let mut settings = Map::new();
    for item in loadable {
        match item.kind {
            ContentKind::Subagent => match subagent(item) {
                Ok(definition) => {
                    agents.insert(item.name.clone(), definition);
                }
                Err(problem) => problems.push(format!("{}: {problem}", item.path.display())),
            },
            ContentKind::Settings => match serde_json::from_slice::<Value>(&item.files[0].bytes) {
                Ok(Value::Object(object)) => settings = object,
                Ok(_) => problems.push(format!("{}: not a JSON object", item.path.display())),
                Err(e) => problems.push(format!("{}: {e}", item.path.display())),
            },
            ContentKind::Skill | ContentKind::Command => {}
        }
    }
    settings
        .entry("autoMemoryEnabled")
        .or_insert(Value::Bool(false));
    Ok(Delivery {
        plugin_dir,
        agents: (!agents.is_empty()).then_some(Value::Object(agents)),
        settings: Value::Object(settings).to_string(),
        problems,
    })
}

/// Builds the plugin beside the old one and swaps it in, so a CLI starting meanwhile sees
/// one whole version or the other.
fn write_plugin(
    approved_dir: &Path,
    plugin_dir: &Path,
    items: &[&ContentItem],
    manifest: &str,
) -> io::Result<()> {
    let staging = approved_dir.join(format!("plugin.new-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(staging.join(".claude-plugin"))?;
    fs::write(
        staging.join(".claude-plugin/plugin.json"),
        json!({
            "name": PLUGIN_NAME,
            "version": "1.0.0",
            "description": "The skills and commands the owner approved"
        })
        .to_string(),
    )?;
    for item in items {
        let base = match item.kind {
            ContentKind::Skill => staging.join("skills").join(&item.name),
            _ => staging.join("commands"),
        };
        for file in &item.files {
            let target = base.join(&file.relative);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&target, &file.bytes)?;
        }
    }
    fs::write(staging.join(".ollim-manifest"), manifest)?;
    let old = approved_dir.join("plugin.old");
    let _ = fs::remove_dir_all(&old);
    match fs::rename(plugin_dir, &old) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    fs::rename(&staging, plugin_dir)?;
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

/// A subagent spec as an `initialize.agents` entry.
fn subagent(item: &ContentItem) -> Result<Value, String> {
    let text = item.main_text();
    let fields = crate::subagents::parse_spec(&text)?;
    let prompt = crate::subagents::spec_body(&text)?;
    let description = fields
        .description
        .ok_or_else(|| "no `description:`".to_owned())?;
    let mut entry = json!({"description": description, "prompt": prompt});
    if !fields.tools.is_empty() {
        entry["tools"] = json!(fields.tools);
    }
    if let Some(model) = fields.model {
        entry["model"] = json!(model);
    }
    Ok(entry)
}
