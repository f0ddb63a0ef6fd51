//! Parsing a subagent spec's YAML frontmatter (SUB-7). Pure: text in, fields out.

use serde_yaml::Value;

use crate::tool_policy::split_tool_list;

/// The frontmatter fields of a subagent spec that the bot reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecFields {
    /// `name:`, if present and not blank.
    pub name: Option<String>,
    /// `description:`, if present and not blank.
    pub description: Option<String>,
    /// `model:`, if present and not blank.
    pub model: Option<String>,
    /// `tools:`, from a YAML list or a comma-separated string; empty when absent.
    pub tools: Vec<String>,
}

/// Parses the frontmatter of a spec: the YAML mapping between a first `---` line and the
/// next one. A leading BOM and blank lines before the first `---` are allowed.
pub fn parse_spec(text: &str) -> Result<SpecFields, String> {
    let yaml = frontmatter(text)?;
    let value: Value = if yaml.trim().is_empty() {
        Value::Mapping(serde_yaml::Mapping::default())
    } else {
        serde_yaml::from_str(yaml).map_err(|e| format!("the frontmatter is not valid YAML: {e}"))?
    };
    let Value::Mapping(mapping) = value else {
        return Err("the frontmatter is not a YAML mapping of key: value lines".to_owned());
    };
    let text_field = |key: &str| -> Result<Option<String>, String> {
        match mapping.get(key).map(untagged) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned()).filter(|s| !s.is_empty())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(format!("`{key}` must be a single line of text")),
        }
    };
    let tools = match mapping.get("tools").map(untagged) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(list)) => split_tool_list(list),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| match untagged(item) {
                Value::String(tool) => Ok(tool.trim().to_owned()),
                _ => Err("`tools` entries must be text, e.g. - Read(**.md)".to_owned()),
            })
            .filter(|tool| tool.as_ref().map_or(true, |t| !t.is_empty()))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(
                "`tools` must be a list or a comma-separated string, e.g. tools: Read, Glob"
                    .to_owned(),
            );
        }
    };
    Ok(SpecFields {
        name: text_field("name")?,
        description: text_field("description")?,
        model: text_field("model")?,
        tools,
    })
}

fn untagged(value: &Value) -> &Value {
    match value {
        Value::Tagged(tagged) => untagged(&tagged.value),
        other => other,
    }
}

/// The YAML text between the opening and the closing `---` lines.
fn frontmatter(text: &str) -> Result<&str, String> {
    frontmatter_and_body(text).map(|(yaml, _)| yaml)
}

/// The subagent's prompt: everything after the closing `---` line, trimmed.
pub fn spec_body(text: &str) -> Result<&str, String> {
    frontmatter_and_body(text).map(|(_, body)| body.trim())
}

fn frontmatter_and_body(text: &str) -> Result<(&str, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut offset = 0;
    let mut open: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let end = offset + line.len();
        let trimmed = line.trim();
        match open {
            None if trimmed == "---" => open = Some(end),
            None if trimmed.is_empty() => {}
            None => break,
            Some(start) if trimmed == "---" => return Ok((&text[start..offset], &text[end..])),
            Some(_) => {}
        }
        offset = end;
    }
    Err(match open {
        None => "no YAML frontmatter: the file must start with a --- line".to_owned(),
        Some(_) => "the frontmatter is not closed: missing the second --- line".to_owned(),
    })
}
