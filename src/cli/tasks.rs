//! `ollim-bot tasks list|show|add|done|update|delete` (GOO-5): Google Tasks from the terminal
//! and from the agent's shell. Every subcommand takes `--list <id>` (default: the
//! `google_task_list` setting); `list --json` prints the tasks as JSON for scripts.

use clap::{Args, Subcommand};

use super::google::{Failure, GoogleContext, ensure_connected, missing, report};
use crate::google::tasks::{Task, TaskChanges};

/// `ollim-bot tasks …`
#[derive(Debug, Args)]
pub struct TasksArgs {
    /// Task list id (default: the `google_task_list` setting, `@default`).
    #[arg(long, global = true, value_name = "ID")]
    pub list: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub action: TasksCommand,
}

/// The `tasks` subcommands.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// List incomplete tasks (`--all`: completed and hidden too).
    List {
        /// Include completed and hidden tasks.
        #[arg(long)]
        all: bool,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Show one task.
    Show {
        /// Task id.
        id: String,
    },
    /// Add a task.
    Add {
        /// Task title.
        title: String,
        /// Due date, YYYY-MM-DD.
        #[arg(long, value_parser = parse_date)]
        due: Option<String>,
        /// Notes.
        #[arg(long)]
        notes: Option<String>,
    },
    /// Mark a task completed.
    Done {
        /// Task id.
        id: String,
    },
    /// Change a task's title, due date or notes.
    Update {
        /// Task id.
        id: String,
        /// New title.
        #[arg(long)]
        title: Option<String>,
        /// New due date, YYYY-MM-DD.
        #[arg(long, value_parser = parse_date)]
        due: Option<String>,
        /// New notes.
        #[arg(long)]
        notes: Option<String>,
    },
    /// Delete a task.
    Delete {
        /// Task id.
        id: String,
    },
}

/// `--due` must be a real `YYYY-MM-DD` date.
fn parse_date(raw: &str) -> Result<String, String> {
    chrono::NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
        .map(|date| date.format("%Y-%m-%d").to_string())
        .map_err(|_| format!("invalid date {raw:?}: expected YYYY-MM-DD"))
}

/// Runs a `tasks` command; returns the exit code.
pub async fn run(context: &GoogleContext, args: TasksArgs) -> i32 {
    if let TasksCommand::Update {
        title: None,
        due: None,
        notes: None,
        ..
    } = &args.action
    {
        eprintln!("error: provide at least one of --title, --due, --notes");
        return 1;
    }
    match execute(context, args).await {
        Ok(()) => 0,
        Err(error) => report(context, &error),
    }
}

async fn execute(context: &GoogleContext, args: TasksArgs) -> Result<(), Failure> {
    ensure_connected(context).await?;
    let client = &context.client;
    let list = args.list.as_deref().unwrap_or(&context.task_list);
    match args.action {
        TasksCommand::List { all, json } => {
            let tasks = client
                .list_tasks(list, all)
                .await
                .map_err(missing(format!("task list '{list}'")))?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&tasks).unwrap_or_default()
                );
            } else if tasks.is_empty() {
                println!("no tasks");
            } else {
                for task in &tasks {
                    println!("{}", task_line(task));
                }
            }
        }
        TasksCommand::Show { id } => {
            let task = client
                .get_task(list, &id)
                .await
                .map_err(missing(format!("task {id}")))?;
            print!("{}", task_details(&task));
        }
        TasksCommand::Add { title, due, notes } => {
            let task = client
                .add_task(list, &title, due.as_deref(), notes.as_deref())
                .await
                .map_err(missing(format!("task list '{list}'")))?;
            let due = due.as_deref().unwrap_or("(no due)");
            println!("added {}: {due} -- {title}", task.id);
        }
        TasksCommand::Done { id } => {
            client
                .complete_task(list, &id)
                .await
                .map_err(missing(format!("task {id}")))?;
            println!("completed {id}");
        }
        TasksCommand::Update {
            id,
            title,
            due,
            notes,
        } => {
            let changes = TaskChanges { title, due, notes };
            client
                .update_task(list, &id, &changes)
                .await
                .map_err(missing(format!("task {id}")))?;
            println!("updated {id}");
        }
        TasksCommand::Delete { id } => {
            client
                .delete_task(list, &id)
                .await
                .map_err(missing(format!("task {id}")))?;
            println!("deleted {id}");
        }
    }
    Ok(())
}

/// `  <id>  <due, 12 wide>  [x]|[ ]  <title>[ [+]]` (GOO-5).
pub fn task_line(task: &Task) -> String {
    let due = task.due_date().unwrap_or("(no due)");
    let check = if task.is_completed() { "[x]" } else { "[ ]" };
    let notes = if task.has_notes() { " [+]" } else { "" };
    format!("  {}  {due:<12}  {check}  {}{notes}", task.id, task.title)
}

/// The `tasks show` block (GOO-5), newline-terminated.
pub fn task_details(task: &Task) -> String {
    let status = if task.is_completed() {
        "completed"
    } else {
        "needs action"
    };
    let notes = task
        .notes
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or("(none)");
    format!(
        "title:     {}\nstatus:    {status}\ndue:       {}\nnotes:     {notes}\nid:        {}\n",
        task.title,
        task.due_date().unwrap_or("(no due)"),
        task.id
    )
}
