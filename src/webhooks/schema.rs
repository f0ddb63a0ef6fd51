//! A spec's `fields` as a compiled JSON Schema (draft 7) with the service's own rules (WHK-7):
//! more than [`MAX_PROPERTIES`] top-level properties fail every request with one detail, and a
//! top-level `type: string` property without `maxLength` gets [`DEFAULT_MAX_LENGTH`].
//! References are never followed outside the schema: no network, no files.

use serde_json::Value;

/// The most top-level properties a schema may declare (WHK-7).
pub const MAX_PROPERTIES: usize = 20;
/// The `maxLength` given to top-level string properties that have none (WHK-7).
pub const DEFAULT_MAX_LENGTH: u64 = 500;

/// The payload schema, ready to validate.
pub struct PayloadSchema {
    check: Check,
}

enum Check {
    /// Declares too many properties: every payload fails with the one detail.
    TooManyProperties(usize),
    Compiled(Box<jsonschema::Validator>),
}

impl std::fmt::Debug for PayloadSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.check {
            Check::TooManyProperties(n) => write!(f, "PayloadSchema(too many properties: {n})"),
            Check::Compiled(_) => f.write_str("PayloadSchema(compiled)"),
        }
    }
}

impl PayloadSchema {
    /// Compiles `schema` as draft 7; the error is the compiler's reason (an unknown type, a bad
    /// regex, a `$ref` to anything outside the schema, …).
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let declared = schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, serde_json::Map::len);
        if declared > MAX_PROPERTIES {
            return Ok(Self {
                check: Check::TooManyProperties(declared),
            });
        }
        let validator = jsonschema::draft7::options()
            .with_retriever(NoRetrieval)
            .build(&with_default_max_length(schema))
            .map_err(|error| format!("fields is not a usable JSON Schema: {error}"))?;
        Ok(Self {
            check: Check::Compiled(Box::new(validator)),
        })
    }

    /// The validation failures for `value` (empty when it passes), in the validator's order.
    pub fn validate(&self, value: &Value) -> Vec<String> {
        match &self.check {
            Check::TooManyProperties(n) => {
                vec![format!("Too many properties ({n}, max {MAX_PROPERTIES})")]
            }
            Check::Compiled(validator) => validator
                .iter_errors(value)
                .map(|error| error.to_string())
                .collect(),
        }
    }
}

/// `schema` with `maxLength: 500` added to each top-level `type: string` property lacking one.
pub fn with_default_max_length(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut()
                && property.get("type").and_then(Value::as_str) == Some("string")
                && !property.contains_key("maxLength")
            {
                property.insert("maxLength".into(), Value::from(DEFAULT_MAX_LENGTH));
            }
        }
    }
    schema
}

/// Refuses every external reference: a spec can't make the bot fetch a URL or read a file.
struct NoRetrieval;

impl jsonschema::Retrieve for NoRetrieval {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external references are not followed ({})", uri.as_str()).into())
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
