//! How much one agent session's container may use (issue 39 §1): memory, processes, the
//! largest file it writes, and the free space it must leave where the bot's state lives.
//! `OLLIM_SESSION_MEMORY_MB`, `OLLIM_SESSION_PROCESSES`, `OLLIM_SESSION_FILE_MB`,
//! `OLLIM_DISK_FLOOR_MB`.

use super::ConfigError;

/// The limits every container gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Memory of everything in the container, in bytes (enforced where the bot can make
    /// cgroups).
    pub memory_bytes: u64,
    /// Processes and threads in the container.
    pub processes: u64,
    /// The largest file anything in it may write, in bytes.
    pub file_bytes: u64,
    /// Below this many bytes free where the bot's state lives, every container is stopped.
    pub disk_floor_bytes: u64,
}

const MIB: u64 = 1024 * 1024;

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            memory_bytes: 2048 * MIB,
            processes: 1024,
            file_bytes: 2048 * MIB,
            disk_floor_bytes: 256 * MIB,
        }
    }
}

impl SessionLimits {
    /// Reads the three variables through `get` (trimmed, blank as unset).
    pub(super) fn read(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let defaults = Self::default();
        let number = |name: &'static str, floor: u64, default: u64| -> Result<u64, ConfigError> {
            let Some(raw) = get(name) else {
                return Ok(default);
            };
            match raw.parse::<u64>() {
                Ok(value) if value >= floor => Ok(value),
                _ => Err(ConfigError::Invalid {
                    name,
                    value: raw,
                    reason: "must be a whole number, not too small for the Claude CLI to run",
                    example: "2048",
                }),
            }
        };
        Ok(Self {
            memory_bytes: number("OLLIM_SESSION_MEMORY_MB", 128, defaults.memory_bytes / MIB)?
                * MIB,
            processes: number("OLLIM_SESSION_PROCESSES", 32, defaults.processes)?,
            file_bytes: number("OLLIM_SESSION_FILE_MB", 16, defaults.file_bytes / MIB)? * MIB,
            disk_floor_bytes: number("OLLIM_DISK_FLOOR_MB", 0, defaults.disk_floor_bytes / MIB)?
                * MIB,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_their_variables_or_keep_the_defaults_and_refuse_nonsense() {
        let none = SessionLimits::read(|_| None).unwrap();
        assert_eq!(none, SessionLimits::default());
        let set = SessionLimits::read(|name| match name {
            "OLLIM_SESSION_MEMORY_MB" => Some("512".to_owned()),
            "OLLIM_SESSION_PROCESSES" => Some("64".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(set.memory_bytes, 512 * MIB);
        assert_eq!(set.processes, 64);
        for bad in ["lots", "-1", "3"] {
            let error = SessionLimits::read(|name| {
                (name == "OLLIM_SESSION_MEMORY_MB").then(|| bad.to_owned())
            })
            .unwrap_err();
            assert!(
                error.to_string().contains("OLLIM_SESSION_MEMORY_MB"),
                "{error}"
            );
        }
    }
}
