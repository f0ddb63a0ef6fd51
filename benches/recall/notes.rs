//! The notes the agent keeps between the planted ones: shopping lists, week plans, meeting
//! notes, journal pages, book and trip notes… each a markdown file with headings, named so no
//! two collide (`n` is the note's number in the year).

use chrono::NaiveDate;

use crate::chatter::TOPICS;
use crate::vocabulary::{Rng, fill};

/// One filler note for `date`: its path under the data dir and its text.
pub(crate) fn filler_note(rng: &mut Rng, date: NaiveDate, n: usize) -> (String, String) {
    let stem = date.format("%Y-%m-%d");
    let (path, template) = match rng.below(10) {
        0 => (
            format!("notes/shopping/{stem}-{n}.md"),
            "# Shopping\n\n- {item}\n- {item2}\n- {item3}\n- {item4}\n\n## If they have it\n\n\
             - {item5}\n- a new {homeitem}\n",
        ),
        1 => (
            format!("notes/plans/{stem}-week-{n}.md"),
            "# Week plan\n\n## Must\n\n- {work}\n- {chore}\n- pay {bill}\n\n## Nice to have\n\n\
             - finish {book}\n- {event} with {friend}\n- call {family}\n",
        ),
        2 => (
            format!("notes/work/{stem}-meeting-{n}.md"),
            "# {work} with {colleague}\n\nWe went through {work}. {colleague} wants a draft by \
             {day}, and {colleague2} will review it.\n\n## Actions\n\n- send notes to \
             {colleague2}\n- book a room for {day2}\n- block two focus hours\n",
        ),
        3 => (
            format!("notes/books/{stem}-{n}.md"),
            "# {book}\n\n{friend} recommended it. Reading ten pages a night.\n\n## Thoughts\n\n\
             Slow start, then I couldn't put it down. Reminds me of {book2}.\n",
        ),
        4 => (format!("notes/journal/{stem}-{n}.md"), ""),
        5 => (
            format!("notes/food/{stem}-plan-{n}.md"),
            "# Meal plan\n\n- {day}: {meal}\n- {day2}: {meal2}\n- {day3}: {meal3}\n\n## Buy\n\n\
             - {item}\n- {item2}\n",
        ),
        6 => (
            format!("notes/travel/{stem}-ideas-{n}.md"),
            "# {city} ideas\n\nMaybe in {month} with {friend}. Train is about {amount} return.\n\n\
             ## To see\n\n- the old town\n- a market\n- {place} equivalent there\n",
        ),
        7 => (
            format!("notes/money/{stem}-spend-{n}.md"),
            "# Spending check\n\n- {bill}: {amount}\n- {bill2}: {amount2}\n- {shop}: \
             {amount3}\n\n## Notes\n\nLess takeaway this week. Move {amount4} to savings on \
             payday.\n",
        ),
        8 => (
            format!("notes/home/{stem}-jobs-{n}.md"),
            "# Flat jobs\n\n- {repair}: told the landlord, waiting\n- {chore}\n- buy a \
             {homeitem}\n\n## Done\n\n- {chore2}\n",
        ),
        _ => (
            format!("notes/people/{stem}-{n}.md"),
            "# {friend}\n\nLikes {film} and {book}. Birthday in {month}. Owes me nothing, I owe \
             them a visit.\n\n## Ideas\n\n- {event} together\n- a gift under {amount}\n",
        ),
    };
    if template.is_empty() {
        return (path, journal(rng, &stem.to_string()));
    }
    (path, fill(template, rng))
}

/// A journal page: a few of the owner's own lines and the day's wins.
fn journal(rng: &mut Rng, day: &str) -> String {
    let mut text = format!("# {day}\n\n");
    for _ in 0..3 {
        let topic = &TOPICS[rng.below(TOPICS.len())];
        text.push_str(&fill(rng.pick(topic.said), rng));
        text.push(' ');
    }
    text.push_str("\n\n## Wins\n\n");
    text.push_str(&fill("- {chore}\n- replied to {friend}\n", rng));
    text
}
