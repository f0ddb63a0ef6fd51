//! Input for `ollim-bot chat`, read on demand on a thread of its own (a blocked read must never
//! hold up shutdown): on a terminal with line editing and a history kept in
//! `state/chat_history` (owner-only), over pipes line by line, so scripts keep working.

use std::{
    io::{BufRead, IsTerminal, Write},
    path::{Path, PathBuf},
    sync::mpsc as std_mpsc,
};

use rustyline::{Config, DefaultEditor, error::ReadlineError};
use tokio::sync::oneshot;

/// How many lines the terminal history keeps.
const HISTORY_LINES: usize = 1000;

struct Request {
    prompt: &'static str,
    reply: oneshot::Sender<Option<String>>,
}

/// Reads lines when asked; `None` is the end of input (Ctrl-D, Ctrl-C at the prompt, a closed
/// pipe).
pub struct LineReader {
    requests: std_mpsc::Sender<Request>,
}

impl LineReader {
    /// Starts the reader thread; `history` is where a terminal's history is kept.
    pub fn spawn(history: PathBuf) -> Self {
        let (requests, incoming) = std_mpsc::channel::<Request>();
        std::thread::spawn(move || {
            if std::io::stdin().is_terminal()
                && let Ok(editor) = editor(&history)
            {
                serve_terminal(editor, &history, &incoming);
            } else {
                serve_pipe(std::io::stdin().lock(), &incoming);
            }
        });
        Self { requests }
    }

    /// A reader of `input` as if it were a pipe (tests).
    pub fn over(input: impl BufRead + Send + 'static) -> Self {
        let (requests, incoming) = std_mpsc::channel::<Request>();
        std::thread::spawn(move || serve_pipe(input, &incoming));
        Self { requests }
    }

    /// The next line, after showing `prompt`.
    pub async fn read(&self, prompt: &'static str) -> Option<String> {
        let (reply, line) = oneshot::channel();
        self.requests.send(Request { prompt, reply }).ok()?;
        line.await.ok().flatten()
    }
}

fn editor(history: &Path) -> rustyline::Result<DefaultEditor> {
    let config = Config::builder()
        .max_history_size(HISTORY_LINES)?
        .history_ignore_dups(true)?
        .history_ignore_space(true)
        .auto_add_history(false)
        .build();
    let mut editor = DefaultEditor::with_config(config)?;
    if history.is_file() {
        let _ = editor.load_history(history);
    }
    Ok(editor)
}

fn serve_terminal(
    mut editor: DefaultEditor,
    history: &Path,
    incoming: &std_mpsc::Receiver<Request>,
) {
    while let Ok(request) = incoming.recv() {
        let line = match editor.readline(request.prompt) {
            Ok(line) => Some(line),
            Err(ReadlineError::Interrupted | ReadlineError::Eof) => None,
            Err(error) => {
                eprintln!("[error] cannot read the terminal: {error}");
                None
            }
        };
        if let Some(text) = &line
            && editor.add_history_entry(text.as_str()).unwrap_or(false)
        {
            remember(&mut editor, history);
        }
        let ended = line.is_none();
        if let Err(unread) = request.reply.send(line)
            && unread.is_some()
        {
            eprintln!("[note] that line came too late for its question and was not sent");
        }
        if ended {
            return;
        }
    }
}

/// Appends the newest entry to the history file, created owner-only.
fn remember(editor: &mut DefaultEditor, history: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(history);
    let _ = editor.append_history(history);
}

fn serve_pipe(mut input: impl BufRead, incoming: &std_mpsc::Receiver<Request>) {
    while let Ok(request) = incoming.recv() {
        if !request.prompt.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{}", request.prompt);
            let _ = out.flush();
        }
        let mut line = String::new();
        let read = match input.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        };
        let ended = read.is_none();
        let _ = request.reply.send(read);
        if ended {
            return;
        }
    }
}
