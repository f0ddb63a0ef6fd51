//! A hostile model against the owner's terminal (CMD-8): what it prints through `chat` (the
//! streamed reply, a tool's label and its approval question, an embed) shows up readable, and
//! not one byte of it is a control the terminal would obey.

use std::time::Duration;

use serde_json::json;

use crate::support::{
    chat::Chat,
    mock_api::{MockApi, Reply},
};

/// Whether a terminal would act on `c` rather than print it: C0 controls but the line end and
/// tab (ESC, BEL, BS, CR, …), DEL, C1 controls (the 8-bit CSI and OSC among them) and the bidi
/// overrides and isolates.
fn obeyed(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// CMD-8: a clipboard write (OSC 52), a window title (OSC 0), hidden text, an 8-bit CSI that
/// clears the screen, a carriage-return overprint, backspaces and a right-to-left override,
/// split across streamed deltas and put in tool input and an embed, reach the terminal as
/// visible text: `␛`, `␇`, `␍`, `␈` and `\u{9b}`-style stand-ins.
#[tokio::test]
async fn the_models_control_characters_reach_the_terminal_inert() {
    let mock = MockApi::start().await;
    let sandbox = super::sandbox_in_default_mode();
    mock.push(Reply::text_chunks(
        [
            "Copied: \x1b]52;c;ZXZp",
            "bA==\x07 then \x1b[8m hidden",
            " and \u{9b}2J kept\rOVERPRINT",
            "\r",
            "\nend.",
        ],
        Duration::from_millis(20),
    ));
    mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "\x1b]0;owned\x07Plan", "description": "step \x1b[2Kone", "color": "blue"}),
    ));
    // The CLI refuses a Bash command with control characters on its own; a Write's path
    // reaches the approval question (not a markdown one: those are written without asking).
    let path = sandbox.data_dir.join("notes/\x1b]52;c;cm0gLXJm\x07.txt");
    mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": path, "content": "x"}),
    ));
    mock.push(Reply::text(
        "Done\x08\x08\x08\x08Fine \u{202e}gnp.exe\r\nbye",
    ));
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;

    let shown = chat.say("hi", "end.").await;
    assert!(
        shown.contains(
            "Copied: ␛]52;c;ZXZpbA==␇ then ␛[8m hidden and \\u{9b}2J kept␍OVERPRINT\nend."
        ),
        "{shown}"
    );

    chat.line("show me").await;
    let shown = chat
        .expect("[approve?] Write(notes/␛]52;c;cm0gLXJm␇.txt) — ")
        .await;
    assert!(shown.contains("[embed] ␛]0;owned␇Plan"), "{shown}");
    assert!(shown.contains("  step ␛[2Kone"), "{shown}");
    chat.expect("[n]o").await;
    chat.line("n").await;
    let shown = chat.expect("bye").await;
    assert!(
        shown.contains("[approve?] Write(notes/␛]52;c;cm0gLXJm␇.txt) — denied"),
        "{shown}"
    );
    assert!(!path.exists());
    assert!(
        shown.contains("Done␈␈␈␈Fine \\u{202e}gnp.exe\nbye"),
        "{shown}"
    );
    chat.expect("you> ").await;
    chat.eof();
    chat.assert_exits_cleanly(&sandbox).await;

    let everything = chat.transcript();
    let obeyed: Vec<char> = everything.chars().filter(|&c| obeyed(c)).collect();
    assert!(obeyed.is_empty(), "{obeyed:?} in\n{everything}");
}
