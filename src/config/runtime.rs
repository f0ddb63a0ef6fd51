//! Runtime settings stored in `state/config.json` (CFG-1): the parts the agent core reads.
//! Unknown keys are ignored; missing keys take their defaults; legacy boolean thinking values
//! load as `adaptive`/`off` (AGT-10).

use std::path::Path;

use serde_json::Value;

use crate::claude::{PermissionMode, Thinking};

/// The runtime settings the main session uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Main-session model (`opus`, `sonnet`, `haiku`); `None` = the CLI default.
    pub model_main: Option<String>,
    /// Main-session thinking (default `off`).
    pub thinking_main: Thinking,
    /// Permission mode (default `dontAsk`).
    pub permission_mode: PermissionMode,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            model_main: None,
            thinking_main: Thinking::Off,
            permission_mode: PermissionMode::DontAsk,
        }
    }
}

impl RuntimeConfig {
    /// Loads `path`; a missing file gives the defaults, a broken one the defaults plus a warning.
    pub fn load(path: &Path) -> Self {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Self::default(),
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "cannot read config.json; using defaults");
                return Self::default();
            }
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => Self::from_json(&value),
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "config.json is not valid JSON; using defaults");
                Self::default()
            }
        }
    }

    fn from_json(value: &Value) -> Self {
        let defaults = Self::default();
        let model_main = value
            .get("model_main")
            .and_then(Value::as_str)
            .map(|m| m.trim().to_ascii_lowercase())
            .filter(|m| matches!(m.as_str(), "opus" | "sonnet" | "haiku"));
        let thinking_main = match value.get("thinking_main") {
            Some(Value::Bool(true)) => Thinking::Adaptive,
            Some(Value::Bool(false)) => Thinking::Off,
            Some(Value::String(raw)) => Thinking::parse(raw).unwrap_or(defaults.thinking_main),
            Some(Value::Number(n)) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .and_then(|n| Thinking::parse(&n.to_string()))
                .unwrap_or(defaults.thinking_main),
            _ => defaults.thinking_main,
        };
        let permission_mode = value
            .get("permission_mode")
            .and_then(Value::as_str)
            .and_then(PermissionMode::parse)
            .filter(|mode| *mode != PermissionMode::Plan)
            .unwrap_or(defaults.permission_mode);
        Self {
            model_main,
            thinking_main,
            permission_mode,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn loads_values_and_legacy_booleans() {
        let config = RuntimeConfig::from_json(&json!({
            "model_main": "Sonnet", "thinking_main": true, "permission_mode": "default",
            "unknown": 1
        }));
        assert_eq!(config.model_main.as_deref(), Some("sonnet"));
        assert_eq!(config.thinking_main, Thinking::Adaptive);
        assert_eq!(config.permission_mode, PermissionMode::Default);
    }

    #[test]
    fn bad_values_fall_back_to_defaults() {
        let config = RuntimeConfig::from_json(&json!({
            "model_main": "gpt", "thinking_main": "lots", "permission_mode": "yolo"
        }));
        assert_eq!(config, RuntimeConfig::default());
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            RuntimeConfig::load(&dir.path().join("none.json")),
            RuntimeConfig::default()
        );
        std::fs::write(dir.path().join("bad.json"), "{oops").unwrap();
        assert_eq!(
            RuntimeConfig::load(&dir.path().join("bad.json")),
            RuntimeConfig::default()
        );
    }
}
