//! What fills the year's conversation between the planted facts: an ADHD person's life admin
//! told to their assistant, by topic, and the assistant's replies. Templates take the slots of
//! `vocabulary`.

/// One topic: what the owner says about it and what the assistant answers.
pub(crate) struct Topic {
    pub(crate) said: &'static [&'static str],
    pub(crate) answers: &'static [&'static str],
}

pub(crate) const TOPICS: &[Topic] = &[
    Topic {
        said: &[
            "Can you add {item} and {item2} to the shopping list?",
            "I'm at {shop}, what else did we need?",
            "Ordered {item} online so I don't have to go to {shop}.",
            "Forgot the {item} again. Third time this week.",
            "Is it worth getting the big pack of {item} at {shop}?",
            "Put {item} on the list for {day}, we're out.",
            "Went to {shop} for {item} and came back with everything except {item}.",
            "Spent {amount} at {shop} and I don't know how.",
        ],
        answers: &[
            "Added {item} and {item2} to the list.",
            "From the list you still need {item}, {item2} and {item3}.",
            "Done, {item} is on the list for {day}.",
            "The big pack works out cheaper per unit and {item} keeps, so yes.",
            "Want me to set a reminder for when you pass {shop} next?",
            "That happens. Put the list on your phone's lock screen so it's the first thing you see.",
        ],
    },
    Topic {
        said: &[
            "I need to book {appt} but phoning makes me want to hide under the duvet.",
            "Is {appt} on {day} at {time}?",
            "Can you move my reminder for {appt} to the morning?",
            "Did I ever call {appt} back?",
            "Missed {appt} again. They charge for that now.",
            "Got a letter from {appt} about a follow-up appointment.",
            "My back is bad again, should I see the physio or the GP?",
            "Took my meds late today and I feel scattered.",
            "Slept badly, brain fog all morning.",
            "Need to order the repeat prescription before the weekend.",
            "Headache all afternoon, probably didn't drink enough water.",
        ],
        answers: &[
            "I've set a reminder for {appt} on {day} at {time}.",
            "Want a phone script? Name, date of birth, what you need, when you're free. That's all.",
            "Nothing from {appt} in your calendar yet. Shall I add a task to ring them?",
            "No judgement. Rebook it while it's fresh and I'll hold the reminder.",
            "Water, something to eat, and one small task. The rest can wait.",
            "The repeat prescription usually takes two working days, so today is a good day.",
        ],
    },
    Topic {
        said: &[
            "{friend} invited me to {event} on {day}, should I go?",
            "I owe {friend} a reply from like two weeks ago.",
            "Had coffee with {friend} at {place}, it was nice to get out.",
            "{friend} and {friend2} are coming for dinner on {day}.",
            "Remind me to text {friend} on {day}, it's their birthday.",
            "Cancelled on {friend} again. Feel bad.",
            "{friend} recommended {film}, adding it to the list.",
            "{friend}'s birthday is coming up, any gift ideas under {amount}?",
            "Called {family} for an hour, they're fine.",
            "{family} wants me to visit in {month}.",
        ],
        answers: &[
            "You said you wanted more evenings out. You can always leave early.",
            "A short reply now beats a perfect one never: 'Sorry, I vanished, how are you?'",
            "I'll remind you on {day} morning to text {friend}.",
            "Under {amount}: a nice notebook, a plant, or tickets to something you'd do together.",
            "Cancelling happens. A quick message suggesting another date goes a long way.",
            "Noted. Want me to put a visit in the calendar for {month}?",
        ],
    },
    Topic {
        said: &[
            "{work} is due {day} and I haven't started.",
            "Meeting with {colleague} ran over, lost the whole afternoon.",
            "Can you break {work} into tiny steps?",
            "{colleague} wants {work} by {day}, I said yes before thinking.",
            "Finally sent {work}! Felt great.",
            "Inbox is at 214 again.",
            "Working from home {day}, remind me to take a lunch break.",
            "Got feedback from {colleague} on {work}, mostly fine.",
            "Stuck on {work}, I keep opening it and closing it.",
        ],
        answers: &[
            "Step one: open the file and write the title. That's it for now.",
            "I'll ping you at 12:30 to eat something.",
            "Good work on {work}. Take the win before you start the next thing.",
            "Let's pick the first three steps and ignore the rest for today.",
            "Maybe tell {colleague} the date you can actually do; a later yes beats a broken one.",
            "Try twenty minutes on {work} with a timer, then a break, no matter what.",
        ],
    },
    Topic {
        said: &[
            "{bill} went out today, {amount}.",
            "Did {bill} get paid this month?",
            "Need to sort out {bill}, it went up again.",
            "Budget check: how much is left for fun this month?",
            "Transferred {amount} to savings.",
            "Got a refund of {amount} from {shop}.",
            "Payday! Remind me not to spend it all at once.",
        ],
        answers: &[
            "{bill} is a direct debit on the 1st, so it's paid.",
            "Want me to add a task to compare prices for {bill}?",
            "You have about {amount} left for fun until payday.",
            "Nice. That's {amount} you don't have to think about.",
            "I'll remind you on Friday to check the bank app for anything odd.",
        ],
    },
    Topic {
        said: &[
            "{repair} is acting up again.",
            "Can you remind me to message the landlord about {repair}?",
            "Did {chore} finally.",
            "Need to do {chore} before {friend} comes over.",
            "The flat is a mess, where do I even start?",
            "Bought a new {homeitem} for the flat.",
            "The landlord still hasn't sent anyone about {repair}.",
            "Spent the morning on {chore} and {chore2}, feel like a real adult.",
        ],
        answers: &[
            "Start with one surface. Just the kitchen table, five minutes.",
            "I'll remind you {day} morning to message the landlord about {repair}.",
            "That's a real win, well done.",
            "Put it in writing to the landlord and keep a photo; it helps if it drags on.",
            "Do {chore} first, it's the one visitors notice.",
        ],
    },
    Topic {
        said: &[
            "Thinking about a weekend in {city} in {month}.",
            "Train tickets to {city} are {amount} return, is that normal?",
            "Packing for {city}, remind me about chargers.",
            "Can you find the cheapest way to get to {city}?",
            "Back from {city}, exhausted but happy.",
            "{friend} wants to go to {city} together in {month}.",
        ],
        answers: &[
            "{city} in {month} sounds lovely. Want me to start a packing list?",
            "Booking a few weeks ahead usually saves a lot on trains.",
            "Chargers, passport, meds, headphones. I'll remind you the night before.",
            "Welcome back! Take it easy today.",
        ],
    },
    Topic {
        said: &[
            "Finished {book}. Loved the ending.",
            "Started {book}, slow so far.",
            "Watched {film} last night.",
            "Add {film} to the watchlist.",
            "Reading {book} before bed instead of scrolling, day {n}.",
            "{friend} lent me {book}, I should actually read it.",
        ],
        answers: &[
            "Added {film} to your watchlist.",
            "Reading instead of scrolling for {n} days is great.",
            "I've noted that you finished {book}. Want something similar next?",
            "Ten pages a night gets a book done in a few weeks.",
        ],
    },
    Topic {
        said: &[
            "Pickle knocked the {homeitem} off the shelf.",
            "Pickle's food is running low, remind me to order more.",
            "Pickle has been sleeping on my laptop all day.",
            "Cleaned the litter tray.",
            "Pickle won't eat the new food.",
        ],
        answers: &[
            "I'll remind you {day} to order cat food.",
            "Cats and shelves. Maybe move the {homeitem} somewhere safer.",
            "Mixing the new food with the old for a week usually helps.",
        ],
    },
    Topic {
        said: &[
            "Can we plan tomorrow?",
            "I have too many tabs open in my brain.",
            "What's on my list today?",
            "I did nothing today.",
            "Body doubling with {friend} helped, got three things done.",
            "Remind me at {time} to stop and eat.",
            "I forgot what I came into the kitchen for again.",
            "Everything feels urgent and I can't pick.",
        ],
        answers: &[
            "Tomorrow: {work} in the morning, {chore} after lunch, and nothing else required.",
            "Let's write every tab down, then pick one. The list holds the rest.",
            "Today you have {work} and {chore}; the rest can move.",
            "You rested, and that counts. Tomorrow's list is short.",
            "I'll remind you at {time}.",
            "Pick the one with a deadline. If none has one, pick the smallest.",
        ],
    },
    Topic {
        said: &[
            "Making {meal} tonight.",
            "What can I cook with {item} and {item2}?",
            "Meal prep on {day}: {meal} and {meal2}.",
            "Ordered takeaway again.",
            "Went for a run, {n}k.",
            "Skipped the gym, couldn't face it.",
            "Yoga class on {day} at {time}, remind me?",
        ],
        answers: &[
            "{meal} sounds good and it makes leftovers for tomorrow.",
            "With {item} and {item2} you could do {meal}.",
            "Takeaway is fine. Fed is what matters.",
            "{n}k is great, well done.",
            "Reminder set for yoga on {day}.",
        ],
    },
];

/// What the owner says before an answer the assistant gives them (the planted answers).
pub(crate) const LEAD_INS: &[&str] = &[
    "Any news on that?",
    "Can you check what came back?",
    "Remind me what's happening there?",
    "Ok, what did they say?",
    "So what's the plan?",
    "Where are we with that one?",
];

/// What the assistant says after a planted line of the owner's.
pub(crate) const ACKS: &[&str] = &[
    "Noted, I'll keep that in mind.",
    "Got it, it's written down.",
    "Good, one less thing to hold in your head.",
    "Thanks for telling me, noted.",
    "Okay, saved.",
];

/// The background runs' prompts (after the stamp) and what their tools read.
pub(crate) const MORNING: &str = "[routine-bg:a1b2c3d4] Look at today's calendar and my open tasks. \
If something is due today or there is a meeting in the next two hours, send me one short \
message with the one thing to start with. Otherwise report a one-line summary to the main \
session and stay quiet.";
pub(crate) const REMINDERS: &[&str] = &[
    "[reminder-bg:{n}e1f07a] Check whether {bill} has gone out and tell me if it hasn't.",
    "[reminder-bg:{n}b3c91d] Nudge me about {chore} if it isn't ticked off in tasks.",
    "[reminder-bg:{n}a7d2e4] Ask whether I booked {appt}; if not, send the phone script.",
    "[reminder-bg:{n}c5f8b2] Check the calendar for {day} and remind me about {work}.",
];
pub(crate) const CALENDAR: &[&str] = &[
    "09:30 Standup\n11:00 {work} with {colleague}\n15:00 Focus block",
    "10:00 {appt}\n13:00 Lunch with {friend}\n18:30 {event}",
    "No events today.",
    "14:00 {work}\n16:30 Call {family}",
];
pub(crate) const TASKS: &[&str] = &[
    "Open tasks: {chore}; pay {bill}; reply to {friend}",
    "Open tasks: {work}; buy {item}",
    "Open tasks: none due today",
];
pub(crate) const RUN_REPORTS: &[&str] = &[
    "Morning check: {work} at 11 is the one thing to start with; pinged you.",
    "Morning check: nothing due before lunch, reported a one-line summary.",
    "Checked: {bill} went out as expected. Nothing to flag.",
    "Nudged you about {chore}; it's still open in tasks.",
    "Sent the phone script for {appt}.",
];
/// What a background run passes on to the main session (`report_updates`).
pub(crate) const UPDATES: &[&str] = &[
    "Morning check done; {work} is first today.",
    "Nothing urgent this morning.",
    "Checked in; one open task is overdue.",
    "Reminder handled; pinged them.",
];
