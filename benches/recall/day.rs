//! What a day's sessions say: exchanges of the owner and the assistant (the main session's
//! and a fork's), and a background run with its tools, the planted passages among them.

use chrono::{Duration, NaiveDate};
use serde_json::json;

use crate::chatter::{ACKS, CALENDAR, LEAD_INS, RUN_REPORTS, TASKS, TOPICS, UPDATES};
use crate::facts::{Place, Planted, Side};
use crate::transcript::Session;
use crate::vocabulary::fill;
use crate::year::{Maker, at, stamp};

impl Maker {
    /// `count` exchanges from minute `start`, one every `step` minutes or so, the planted
    /// ones among them at random.
    pub(crate) fn exchanges(
        &mut self,
        session: &mut Session,
        date: NaiveDate,
        (start, step): (usize, usize),
        count: usize,
        planted: &[&Planted],
    ) {
        let mut slots: Vec<Option<&Planted>> = vec![None; count];
        for item in planted {
            let mut slot = self.rng.below(count);
            while slots[slot].is_some() {
                slot = self.rng.below(count);
            }
            slots[slot] = Some(item);
        }
        for (i, item) in slots.into_iter().enumerate() {
            let minute = start + i * step + self.rng.below(step.div_ceil(2));
            let said_at = at(date, minute, self.rng.below(60));
            let (said, answer) = match item {
                Some(item)
                    if matches!(
                        item.place,
                        Place::Main(Side::Said) | Place::Fork(Side::Said)
                    ) =>
                {
                    (item.text.clone(), self.rng.pick(ACKS).to_owned())
                }
                Some(item) => (self.rng.pick(LEAD_INS).to_owned(), item.text.clone()),
                None => self.chatter(),
            };
            session.prompt(
                &mut self.rng,
                said_at,
                &format!("{} {said}", stamp(said_at)),
            );
            let mut reply_at =
                said_at + Duration::seconds(20 + i64::try_from(self.rng.below(60)).unwrap_or(0));
            if item.is_none() && self.rng.chance(10) {
                let (name, list) = if self.rng.chance(50) {
                    ("mcp__discord__google_calendar", CALENDAR)
                } else {
                    ("mcp__discord__google_tasks", TASKS)
                };
                let result = fill(self.rng.pick(list), &mut self.rng);
                session.tool(
                    &mut self.rng,
                    reply_at,
                    name,
                    &json!({ "action": "list" }),
                    &result,
                );
                self.corpus.push(result.to_lowercase());
                reply_at += Duration::seconds(5);
            }
            session.reply(&mut self.rng, reply_at, &answer);
            self.corpus.push(said.to_lowercase());
            self.corpus.push(answer.to_lowercase());
            self.counts.messages += 2;
        }
    }

    /// An exchange of everyday life: a topic, something said about it (now and then two
    /// things at once), and the assistant's answer.
    fn chatter(&mut self) -> (String, String) {
        let topic = &TOPICS[self.rng.below(TOPICS.len())];
        let mut said = fill(self.rng.pick(topic.said), &mut self.rng);
        if self.rng.chance(15) {
            let other = &TOPICS[self.rng.below(TOPICS.len())];
            said.push_str(" Also: ");
            said.push_str(&fill(self.rng.pick(other.said), &mut self.rng));
        }
        (said, fill(self.rng.pick(topic.answers), &mut self.rng))
    }

    /// A background run: its prompt, the calendar read, maybe another tool, its report.
    pub(crate) fn background(
        &mut self,
        date: NaiveDate,
        minute: usize,
        prompt: &str,
        planted: &[&Planted],
        extra: bool,
    ) {
        let start = at(date, minute, self.rng.below(5));
        let mut run = self.session(start, extra);
        let find = |wanted: fn(&Place) -> bool| planted.iter().find(|p| wanted(&p.place));
        let prompt = find(|place| *place == Place::BgPrompt).map_or(prompt, |p| p.text.as_str());
        run.prompt(&mut self.rng, start, &format!("{} {prompt}", stamp(start)));
        let calendar = fill(self.rng.pick(CALENDAR), &mut self.rng);
        let day = date.to_string();
        let input = json!({ "action": "list", "date": day });
        let name = "mcp__discord__google_calendar";
        run.tool(
            &mut self.rng,
            start + Duration::seconds(15),
            name,
            &input,
            &calendar,
        );
        self.corpus.push(prompt.to_lowercase());
        self.corpus.push(calendar.to_lowercase());
        if let Some(item) = find(|place| matches!(place, Place::BgTool(_))) {
            let Place::BgTool(name) = &item.place else {
                unreachable!()
            };
            let input = json!({ "action": "search", "query": "newer_than:1d" });
            run.tool(
                &mut self.rng,
                start + Duration::seconds(30),
                name,
                &input,
                &item.text,
            );
            self.corpus.push(item.text.to_lowercase());
        }
        let report = match find(|place| *place == Place::BgAnswer) {
            Some(item) => item.text.clone(),
            None => fill(self.rng.pick(RUN_REPORTS), &mut self.rng),
        };
        run.reply(&mut self.rng, start + Duration::seconds(50), &report);
        // What the run passes on is a short line of its own: the planted reply stays one
        // passage.
        let update = fill(self.rng.pick(UPDATES), &mut self.rng);
        let input = json!({ "message": update });
        let name = "mcp__discord__report_updates";
        let done = "Update queued for the main session.";
        let then = start + Duration::seconds(55);
        run.tool(&mut self.rng, then, name, &input, done);
        self.corpus.push(report.to_lowercase());
        self.corpus.push(update.to_lowercase());
        self.corpus.push(done.to_lowercase());
        self.counts.background += 1;
        self.counts.messages += 2;
        self.close(run);
    }
}
