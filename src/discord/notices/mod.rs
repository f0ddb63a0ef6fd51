//! The notices part (issue 41 §2): what the bot tells the owner without being asked, each sent
//! once and forgotten only once it went out (through [`Reach::tell`], where the owner wants
//! unasked messages). Its watches: [`disk_space`] (writes failing and recovering),
//! [`set_aside`] (state files that couldn't be read), [`unfinished`] (what a killed process
//! left cut off); [`greeting`] holds the start-up greeting and shutdown notice texts.

pub mod disk_space;
pub mod greeting;
pub mod set_aside;
pub mod unfinished;

use std::sync::Arc;

use super::reach::Reach;

/// The notices part.
pub struct Notices {
    reach: Arc<Reach>,
}

impl Notices {
    /// The part.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self { reach }
    }
}
