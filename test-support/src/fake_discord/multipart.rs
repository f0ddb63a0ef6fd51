//! Minimal `multipart/form-data` parser (what reqwest produces for serenity's uploads).

/// One part of a multipart body.
#[derive(Clone, Debug)]
pub struct MultipartFile {
    /// Form field name, e.g. `files[0]` or `payload_json`.
    pub field: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub data: Vec<u8>,
}

impl MultipartFile {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > haystack.len() {
        return None;
    }
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn param(header: &str, name: &str) -> Option<String> {
    header.split(';').map(str::trim).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        if k.eq_ignore_ascii_case(name) {
            return Some(v.trim_matches('"').to_string());
        }
        // RFC 5987 form: filename*=utf-8''percent%20encoded
        if k.eq_ignore_ascii_case(&format!("{name}*")) {
            let raw = v.split("''").nth(1).unwrap_or(v);
            return Some(percent_decode(raw));
        }
        None
    })
}

pub(super) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses a body given its `Content-Type` header; `None` if it is not multipart.
pub(super) fn parse(content_type: &str, body: &[u8]) -> Option<Vec<MultipartFile>> {
    if !content_type.starts_with("multipart/") {
        return None;
    }
    let boundary = param(content_type, "boundary")?;
    let delim = format!("--{boundary}").into_bytes();
    let mut next_delim = b"\r\n".to_vec();
    next_delim.extend_from_slice(&delim);
    let mut parts = Vec::new();
    let mut pos = find(body, &delim, 0)? + delim.len();
    while !body[pos..].starts_with(b"--") {
        pos += 2; // CRLF after the delimiter
        let header_end = find(body, b"\r\n\r\n", pos)?;
        let headers = String::from_utf8_lossy(&body[pos..header_end]).into_owned();
        let data_start = header_end + 4;
        let data_end = find(body, &next_delim, data_start)?;
        let mut part = MultipartFile {
            field: String::new(),
            filename: None,
            content_type: None,
            data: body[data_start..data_end].to_vec(),
        };
        for line in headers.split("\r\n") {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            if name.eq_ignore_ascii_case("content-disposition") {
                part.field = param(value, "name").unwrap_or_default();
                part.filename = param(value, "filename");
            } else if name.eq_ignore_ascii_case("content-type") {
                part.content_type = Some(value.trim().to_string());
            }
        }
        parts.push(part);
        pos = data_end + next_delim.len();
        if pos > body.len() {
            return None;
        }
    }
    Some(parts)
}
