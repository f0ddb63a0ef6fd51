//! The everyday words of the synthetic year and the small deterministic random source that
//! picks them: `{slot}`s in a template are filled from the lists here, the same slot twice in
//! one template with the same word. The lists overlap the planted facts on purpose (other
//! dentists, other flights, other keys), so a fact's words are common, not a giveaway.

use std::collections::BTreeMap;

/// splitmix64: small, fast, and the same sequence on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % n as u64).unwrap_or(0)
    }

    /// True with probability `percent` / 100.
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub(crate) fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }

    /// A fresh id in the CLI's UUID v4 shape.
    pub(crate) fn uuid(&mut self) -> String {
        let (a, b) = (self.next_u64(), self.next_u64());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }
}

pub(crate) const FRIENDS: &[&str] = &[
    "Maya", "Tom", "Jonas", "Lena", "Sam", "Aisha", "Ben", "Chloe", "Dev", "Hannah", "Marco",
    "Nora", "Oliver", "Yusuf", "Zoe", "Felix", "Ines", "Kofi", "Ruth", "Priya",
];
pub(crate) const FAMILY: &[&str] = &[
    "mum",
    "dad",
    "my sister",
    "my brother",
    "grandma",
    "my aunt",
];
pub(crate) const COLLEAGUES: &[&str] = &[
    "Greta", "Paul", "Sunita", "Rafael", "Mei", "Andrew", "Leila",
];
pub(crate) const SHOPS: &[&str] = &[
    "Lidl",
    "Tesco",
    "the corner shop",
    "the market",
    "Boots",
    "IKEA",
    "the hardware store",
    "the pharmacy",
    "Aldi",
    "the bakery",
    "Sainsbury's",
    "the garden centre",
];
pub(crate) const ITEMS: &[&str] = &[
    "oat milk",
    "eggs",
    "bread",
    "coffee beans",
    "bananas",
    "rice",
    "pasta",
    "tomatoes",
    "spinach",
    "yoghurt",
    "cheese",
    "dish soap",
    "toilet paper",
    "bin bags",
    "frozen peas",
    "apples",
    "butter",
    "tea bags",
    "cat litter",
    "cat food",
    "onions",
    "garlic",
    "batteries",
    "light bulbs",
    "shampoo",
    "toothpaste",
    "sponges",
    "porridge oats",
    "peanut butter",
    "chickpeas",
    "tortillas",
    "hummus",
    "washing-up gloves",
];
pub(crate) const CHORES: &[&str] = &[
    "the laundry",
    "the dishes",
    "the hoovering",
    "the bins",
    "the bathroom",
    "the bed sheets",
    "the plants",
    "the kettle descaling",
    "the recycling",
    "the fridge clean-out",
    "the ironing pile",
    "the hallway floor",
    "the oven",
    "the windows",
];
pub(crate) const WORK: &[&str] = &[
    "the quarterly report",
    "the slide deck",
    "the client call",
    "the budget sheet",
    "the sprint review",
    "the onboarding doc",
    "the team offsite",
    "the invoice batch",
    "the vendor contract",
    "the data migration",
    "the roadmap draft",
    "the hiring panel",
    "the newsletter",
    "the user interviews",
];
pub(crate) const APPOINTMENTS: &[&str] = &[
    "the dentist",
    "the GP",
    "the physio",
    "the optician",
    "the dermatologist",
    "the therapist",
    "the blood test",
    "the hygienist",
    "the vet",
    "the hairdresser",
    "the bank",
];
pub(crate) const BILLS: &[&str] = &[
    "the electricity bill",
    "the water bill",
    "council tax",
    "the phone bill",
    "rent",
    "the internet bill",
    "the credit card",
    "the gym membership",
    "car insurance",
    "the streaming subscriptions",
    "contents insurance",
    "the gas bill",
];
pub(crate) const REPAIRS: &[&str] = &[
    "the leaking tap",
    "the bathroom fan",
    "the wobbly shelf",
    "the boiler",
    "the washing machine",
    "the broken blind",
    "the hallway light",
    "the mouldy window frame",
    "the squeaky door",
    "the radiator",
    "the shower head",
    "the smoke alarm",
];
pub(crate) const CITIES: &[&str] = &[
    "Lisbon",
    "Edinburgh",
    "Berlin",
    "Porto",
    "Copenhagen",
    "Amsterdam",
    "Bristol",
    "York",
    "Vienna",
    "Seville",
    "Glasgow",
    "Brighton",
    "Leeds",
    "Paris",
];
pub(crate) const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub(crate) const FILMS: &[&str] = &[
    "Past Lives",
    "Dune",
    "Paddington 2",
    "Aftersun",
    "The Holdovers",
    "Perfect Days",
    "Arrival",
    "Spirited Away",
    "Knives Out",
    "Little Women",
    "Barbie",
    "Oppenheimer",
    "Poor Things",
    "Everything Everywhere All at Once",
];
pub(crate) const BOOKS: &[&str] = &[
    "Piranesi",
    "Tomorrow, and Tomorrow, and Tomorrow",
    "The Overstory",
    "Four Thousand Weeks",
    "Klara and the Sun",
    "Atomic Habits",
    "Braiding Sweetgrass",
    "The Hobbit",
    "Circe",
    "Project Hail Mary",
    "Educated",
    "Normal People",
    "The Midnight Library",
    "Lessons in Chemistry",
];
pub(crate) const WEEKDAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "tomorrow",
    "the weekend",
];
pub(crate) const MEALS: &[&str] = &[
    "pasta bake",
    "stir fry",
    "chilli",
    "soup",
    "fajitas",
    "risotto",
    "shakshuka",
    "jacket potatoes",
    "a curry",
    "fish finger sandwiches",
    "noodles",
    "omelettes",
    "a traybake",
];
pub(crate) const HOME_ITEMS: &[&str] = &[
    "lamp",
    "shoe rack",
    "laundry basket",
    "bookshelf",
    "bath mat",
    "desk chair",
    "kettle",
    "toaster",
    "set of pans",
    "doormat",
    "clothes horse",
    "storage boxes",
];
pub(crate) const EVENTS: &[&str] = &[
    "a gig",
    "a pub quiz",
    "a birthday dinner",
    "a board game night",
    "a picnic",
    "a barbecue",
    "a comedy night",
    "a leaving do",
    "a wedding fair",
    "a book launch",
];
pub(crate) const PLACES: &[&str] = &[
    "the café on the corner",
    "the Crown",
    "the park",
    "the canal path",
    "the library",
    "the climbing wall",
    "the swimming pool",
    "the allotment",
    "the cinema",
    "the market hall",
];

/// The list a slot draws from, and whether it is a number instead.
fn slot(name: &str, rng: &mut Rng) -> String {
    let list = match name.trim_end_matches(char::is_numeric) {
        "friend" => FRIENDS,
        "family" => FAMILY,
        "colleague" => COLLEAGUES,
        "shop" => SHOPS,
        "item" => ITEMS,
        "chore" => CHORES,
        "work" => WORK,
        "appt" => APPOINTMENTS,
        "bill" => BILLS,
        "repair" => REPAIRS,
        "city" => CITIES,
        "month" => MONTHS,
        "film" => FILMS,
        "book" => BOOKS,
        "day" => WEEKDAYS,
        "meal" => MEALS,
        "homeitem" => HOME_ITEMS,
        "event" => EVENTS,
        "place" => PLACES,
        "amount" => return format!("£{}", 5 + rng.below(40) * 5),
        "n" => return (2 + rng.below(9)).to_string(),
        "time" => {
            let hour = 8 + rng.below(12);
            let minute = [0, 15, 30, 45][rng.below(4)];
            return format!("{hour}:{minute:02}");
        }
        other => panic!("unknown slot {{{other}}}"),
    };
    rng.pick(list).to_owned()
}

/// `template` with each `{slot}` filled; a slot named twice gets one word, `{friend}` and
/// `{friend2}` get different ones (when the list allows).
pub(crate) fn fill(template: &str, rng: &mut Rng) -> String {
    let mut chosen: BTreeMap<&str, String> = BTreeMap::new();
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("a closed slot") + start;
        let name = &rest[start + 1..end];
        if !chosen.contains_key(name) {
            let mut word = slot(name, rng);
            for _ in 0..8 {
                let taken = chosen.iter().any(|(other, value)| {
                    other.trim_end_matches(char::is_numeric)
                        == name.trim_end_matches(char::is_numeric)
                        && *value == word
                });
                if !taken {
                    break;
                }
                word = slot(name, rng);
            }
            chosen.insert(name, word);
        }
        out.push_str(&chosen[name]);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}
