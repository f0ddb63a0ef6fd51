//! The instruction template in a spec's body (E.3, WHK-8, F-25, F-26): `{field}` is replaced
//! with the payload's value for `field`; `{{` and `}}` stand for literal braces. The template is
//! parsed once, when the spec is read, so a malformed one is a broken spec rather than a
//! failure on every request. There are no format specs: everything between the braces is the
//! field name, exactly as written.

use super::payload::{Payload, one_line};

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Text copied as is (escaped braces already turned into single ones).
    Text(String),
    /// A `{name}` placeholder.
    Field(String),
}

/// A parsed instruction template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    segments: Vec<Segment>,
}

impl Template {
    /// Parses `source`; the error says which brace is wrong and how to write a literal one.
    pub fn parse(source: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        let mut text = String::new();
        let mut chars = source.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().is_some_and(|(_, next)| *next == '{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek().is_some_and(|(_, next)| *next == '}') => {
                    chars.next();
                    text.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    let closed = loop {
                        match chars.next() {
                            Some((_, '}')) => break true,
                            Some((_, '{')) | None => break false,
                            Some((_, other)) => name.push(other),
                        }
                    };
                    if !closed {
                        return Err(format!(
                            "the template has an unclosed {{ at character {}; write {{{{ for a \
                             literal brace",
                            at + 1
                        ));
                    }
                    if name.trim().is_empty() {
                        return Err(format!(
                            "the template has an empty placeholder at character {}; name a \
                             payload field, e.g. {{repo}}",
                            at + 1
                        ));
                    }
                    if !text.is_empty() {
                        segments.push(Segment::Text(std::mem::take(&mut text)));
                    }
                    segments.push(Segment::Field(name));
                }
                '}' => {
                    return Err(format!(
                        "the template has a stray }} at character {}; write }}}} for a literal \
                         brace",
                        at + 1
                    ));
                }
                other => text.push(other),
            }
        }
        if !text.is_empty() {
            segments.push(Segment::Text(text));
        }
        Ok(Self {
            source: source.to_owned(),
            segments,
        })
    }

    /// The template as written in the spec.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The field names the template refers to, first use first, each once.
    pub fn fields(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for segment in &self.segments {
            if let Segment::Field(name) = segment
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// The referenced fields `payload` lacks (WHK-8), in template order.
    pub fn missing<'a>(&'a self, payload: &Payload) -> Vec<&'a str> {
        self.fields()
            .into_iter()
            .filter(|name| payload.get(name).is_none())
            .collect()
    }

    /// The template with every placeholder replaced by its payload value, rendered on one line
    /// as in the data block; a missing field is left as `{name}` (callers check
    /// [`Self::missing`] first). Only a field `schema` declares, holding a single value (text,
    /// number, true/false), fills the task; anything else (an undeclared key, an object, a
    /// list) is named instead and stays in the data block (issue 23 §4).
    pub fn fill(&self, payload: &Payload, schema: &serde_json::Value) -> String {
        let declared = |name: &str| {
            schema
                .get("properties")
                .and_then(serde_json::Value::as_object)
                .is_some_and(|properties| properties.contains_key(name))
        };
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Field(name) => {
                    if let Some(value) = payload.get(name) {
                        if declared(name) && !(value.is_object() || value.is_array()) {
                            out.push_str(&one_line(value));
                        } else {
                            out.push_str("(the \"");
                            out.push_str(name);
                            out.push_str("\" value in the data above)");
                        }
                    } else {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
            }
        }
        out
    }
}

/// The WHK-8 message for missing fields: `payload missing fields referenced in template:
/// ['a', 'b']` (the list written the way the original service wrote it).
pub fn missing_fields_message(missing: &[&str]) -> String {
    let quoted: Vec<String> = missing.iter().map(|name| format!("'{name}'")).collect();
    format!(
        "payload missing fields referenced in template: [{}]",
        quoted.join(", ")
    )
}

#[cfg(test)]
#[path = "template_tests.rs"]
mod tests;
