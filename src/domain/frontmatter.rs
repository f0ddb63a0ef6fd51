//! Splitting a job file into frontmatter and body, and reading typed fields out of the YAML
//! mapping with precise error reasons (E.0).
//!
//! Keys are matched after turning `_` into `-`, so `allow_ping` and `allow-ping` are the same
//! field; when both spellings are present the kebab-case one wins. String-typed fields take the
//! scalar exactly as written (an unquoted `id: 00123` stays `00123`, `id: 1e5` stays `1e5`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_yaml::Value;

/// Splits `text` into the YAML between the first two `---` lines and the trimmed body after
/// the second. Text before the first `---` line is ignored; a leading BOM is dropped.
pub fn split(text: &str) -> Result<(&str, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut offset = 0;
    let mut open: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let end = offset + line.len();
        if line.trim() == "---" {
            match open {
                None => open = Some(end),
                Some(start) => return Ok((&text[start..offset], text[end..].trim())),
            }
        }
        offset = end;
    }
    Err(match open {
        None => "no YAML frontmatter: the file must start with a --- line".to_owned(),
        Some(_) => "the frontmatter is not closed: missing the second --- line".to_owned(),
    })
}

/// The line of `text` (from 1) where `part`, a slice of it, starts; 1 when it isn't one.
pub fn line_of(text: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

/// `message` with every `line <n>` moved down by `by` lines.
fn shift_lines(message: &str, by: usize) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (before, after) = rest.split_at(at + "line ".len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(line) => out.push_str(&(line + by).to_string()),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The frontmatter mapping with keys normalised to kebab-case.
pub struct Fields {
    values: BTreeMap<String, Value>,
    /// Scalars as written in the file, for string-typed keys (best effort).
    raw: BTreeMap<String, Option<String>>,
}

impl Fields {
    /// Parses the frontmatter YAML. `text_keys` are the (kebab-case) keys read as strings.
    pub fn parse(yaml: &str, text_keys: &[&str]) -> Result<Self, String> {
        Self::parse_at(yaml, text_keys, 1)
    }

    /// [`Self::parse`] for YAML that starts at line `first_line` of its file, so the line
    /// numbers in a YAML error are the file's (issue 24 §4).
    pub fn parse_at(yaml: &str, text_keys: &[&str], first_line: usize) -> Result<Self, String> {
        let value: Value = serde_yaml::from_str(yaml).map_err(|e| {
            let reason = shift_lines(&e.to_string(), first_line.saturating_sub(1));
            format!("the frontmatter is not valid YAML: {reason}")
        })?;
        let Value::Mapping(mapping) = value else {
            return Err("the frontmatter is not a YAML mapping of key: value lines".to_owned());
        };
        let mut values = BTreeMap::new();
        let mut kebab_seen = Vec::new();
        for (key, value) in mapping {
            let Some(key) = key_text(&key) else { continue };
            let normal = key.replace('_', "-");
            let is_kebab = normal == key;
            if kebab_seen.contains(&normal) && !is_kebab {
                continue;
            }
            if is_kebab {
                kebab_seen.push(normal.clone());
            }
            values.insert(normal, value);
        }
        let raw = raw_texts(yaml, text_keys).unwrap_or_default();
        Ok(Self { values, raw })
    }

    /// The value under `key`, with YAML tags stripped; `None` when absent or null.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let mut value = self.values.get(key)?;
        while let Value::Tagged(tagged) = value {
            value = &tagged.value;
        }
        (!value.is_null()).then_some(value)
    }

    /// An optional string field; numbers and booleans are taken as written.
    pub fn text(&self, key: &str) -> Result<Option<String>, String> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        if let Some(Some(raw)) = self.raw.get(key) {
            return Ok(Some(raw.clone()));
        }
        scalar_text(value)
            .map(Some)
            .ok_or_else(|| format!("\"{key}\" must be a string"))
    }

    /// A required string field.
    pub fn required_text(&self, key: &str) -> Result<String, String> {
        self.text(key)?
            .ok_or_else(|| format!("missing required field \"{key}\""))
    }

    /// A boolean field (`true`/`false`; YAML 1.1 `yes`/`no`/`on`/`off` are accepted too).
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, String> {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        let parsed = match value {
            Value::Bool(b) => Some(*b),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" => Some(true),
                "false" | "no" | "off" => Some(false),
                _ => None,
            },
            _ => None,
        };
        parsed.ok_or_else(|| format!("\"{key}\" must be true or false"))
    }

    /// A non-negative whole number field.
    pub fn count(&self, key: &str) -> Result<u32, String> {
        let Some(value) = self.get(key) else {
            return Ok(0);
        };
        value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("\"{key}\" must be a whole number (0 or more)"))
    }

    /// An optional list of strings; scalar entries are taken as text.
    pub fn list(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let error = || format!("\"{key}\" must be a list of strings");
        let Value::Sequence(items) = value else {
            return Err(error());
        };
        items
            .iter()
            .map(|item| scalar_text(item).ok_or_else(error))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// The text of a mapping key (string, number or boolean keys); other keys are ignored.
fn key_text(key: &Value) -> Option<String> {
    match key {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A scalar as text; `None` for null, lists and mappings.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(tagged) => scalar_text(&tagged.value),
        _ => None,
    }
}

/// The scalars of `text_keys` exactly as written. `None` if any of them is not a scalar (the
/// caller then falls back to the resolved values and reports the type error).
fn raw_texts(yaml: &str, text_keys: &[&str]) -> Option<BTreeMap<String, Option<String>>> {
    let deserializer = serde_yaml::Deserializer::from_str(yaml);
    serde::Deserializer::deserialize_map(deserializer, RawVisitor { text_keys }).ok()
}

struct RawVisitor<'k> {
    text_keys: &'k [&'k str],
}

impl<'de> Visitor<'de> for RawVisitor<'_> {
    type Value = BTreeMap<String, Option<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut texts = BTreeMap::new();
        let mut kebab_seen = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let normal = key.replace('_', "-");
            if !self.text_keys.contains(&normal.as_str()) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let value = map.next_value::<Option<RawText>>()?.map(|raw| raw.0);
            let is_kebab = normal == key;
            if kebab_seen.contains(&normal) && !is_kebab {
                continue;
            }
            if is_kebab {
                kebab_seen.push(normal.clone());
            }
            texts.insert(normal, value);
        }
        Ok(texts)
    }
}

/// A scalar as written, whatever type YAML would resolve it to.
struct RawText(String);

impl<'de> Deserialize<'de> for RawText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(RawText)
    }
}
