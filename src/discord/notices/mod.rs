//! What the bot tells the owner without being asked: [`greeting`] (the start-up greeting and
//! shutdown notice texts), [`disk_space`] (writes failing and recovering), [`set_aside`]
//! (state files that couldn't be read), [`unfinished`] (what a killed process left cut off).
//! Each notice is sent once and forgotten only once the DM went out.

pub mod disk_space;
pub mod greeting;
pub mod set_aside;
pub mod unfinished;
