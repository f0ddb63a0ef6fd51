//! `ollim-bot tasks list|show|add|done|update|delete` (GOO-5): Google Tasks from the owner's
//! terminal (the agent uses the `google_tasks` tool, which runs the same requests). Every
//! subcommand takes `--list <id>` (default: the `google_task_list` setting); `list --json`
//! prints the tasks as JSON for scripts.

use clap::{Args, Subcommand};

use super::google::{GoogleContext, ensure_connected, pretty, print_outcome, report};
use crate::google::{
    missing,
    tasks::{TaskChanges, TaskRequest, parse_due},
};

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
        #[arg(long, value_parser = parse_due)]
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
        #[arg(long, value_parser = parse_due)]
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
    if let Err(error) = ensure_connected(context).await {
        return report(context, &error.into());
    }
    let list = args.list.as_deref().unwrap_or(&context.task_list);
    let request = match args.action {
        TasksCommand::List { all, json: true } => {
            let tasks = context.client.list_tasks(list, all).await;
            let text = tasks
                .map(|tasks| pretty(&tasks))
                .map_err(missing(format!("task list '{list}'")));
            return print_outcome(context, text);
        }
        TasksCommand::List { all, json: false } => TaskRequest::List { all },
        TasksCommand::Show { id } => TaskRequest::Show { id },
        TasksCommand::Add { title, due, notes } => TaskRequest::Add { title, due, notes },
        TasksCommand::Done { id } => TaskRequest::Done { id },
        TasksCommand::Update {
            id,
            title,
            due,
            notes,
        } => TaskRequest::Update {
            id,
            changes: TaskChanges { title, due, notes },
        },
        TasksCommand::Delete { id } => TaskRequest::Delete { id },
    };
    print_outcome(context, context.client.run_tasks(list, request).await)
}
