//! Every end-to-end test, in one binary: a module per area. The shared support code (the mock
//! Messages API, the fake Discord and Google, the harnesses) is its own crate,
//! `ollim-test-support` (`test-support/`), compiled once for these tests and the benches. They drive the
//! real `ollim-bot` binary or the library with the real Claude Code CLI (`OLLIM_TEST_CLAUDE_CLI`,
//! installed by `.ci/test.sh`) against the fakes.
//!
//! One area: `cargo test --test e2e webhooks::`; one test: `cargo test --test e2e -- --exact
//! webhooks::every_status_code_has_its_exact_body`.

use ollim_test_support as support;

mod agent;
mod agent_as_user;
mod agent_box;
mod agent_container;
mod agent_limits;
mod agent_network;
mod approval;
mod background;
mod background_cap;
mod boot;
mod chat_cli;
mod claude_login;
mod cli_rest;
mod cli_rest_fork;
mod cli_start_faults;
mod climb;
mod clock;
mod container_entrypoint;
mod container_image;
mod counterfactual;
mod crash;
mod discord;
mod discord_faults;
mod discord_forks;
mod disk_full;
mod doctor;
mod doctor_home;
mod doctor_keys;
mod driver;
mod evals;
mod fake_discord_smoke;
mod file_mention;
mod fork_threads;
mod forks;
mod forks_beside;
mod gateway_faults;
mod google_auth_discord;
mod google_buttons;
mod google_cal_gmail;
mod google_cli;
mod google_mcp;
mod history;
mod home_channel;
mod home_channel_forks;
mod home_channel_parity;
mod home_channel_settings;
mod improve_routine;
mod kill;
mod live_policy;
mod mock_api_smoke;
mod model_errors;
mod nags;
mod operations_cli;
mod permission_modes;
mod permissions;
mod power_loss;
mod quiet_end;
mod quiet_hours;
mod readme_pictures;
mod recall;
mod reflections;
mod reminder_limits;
mod reminder_tools;
mod routine_validator;
mod scheduling;
mod scheduling_watch;
mod secrets;
mod service;
mod session;
mod setup;
mod setup_install;
mod slash_jobs;
mod state_faults;
mod subagents;
mod terminal;
mod thread_commands;
mod thread_parity;
mod tool_labels;
mod tool_offer;
mod tool_policy;
mod transcript_replay;
mod update;
mod usage_chart;
mod usage_ledger;
mod webhook_server;
mod webhooks;
