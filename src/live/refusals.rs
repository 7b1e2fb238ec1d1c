//! Reads a cluster refuses: an optional read the server answers with any error — Unauthorized
//! (13), a command or stage that version does not have (CommandNotFound 59, 40324), anything
//! else — gives way to its default and a note (what it needs, or the server's own words), so the
//! pane it feeds says so and the rest goes on; an essential one (shards, collections, chunks)
//! fails the poll, in the same words. A read a capture opened does not hold gives way the same
//! way, saying "not in the capture". A read that never reached an answer (the connection went)
//! fails the poll: the view then says disconnected rather than showing a pane empty.

use super::client::LiveError;
use super::privileges::{Read, needs};
use crate::cluster::privileges::RefusedRead;

/// The notes of one poll.
#[derive(Clone, Debug, Default)]
pub struct Refusals(pub Vec<RefusedRead>);

impl Refusals {
    /// The notes as the cluster state keeps them for a recording: `(pane, note)`.
    pub fn kept(&self) -> Vec<(String, String)> {
        (self.0.iter())
            .map(|r| (r.feeds.as_str().to_string(), r.text.clone()))
            .collect()
    }

    /// The result of an optional read: a refusal becomes the default and a note.
    pub fn optional<T: Default>(
        &mut self,
        result: Result<T, LiveError>,
        read: &Read,
    ) -> Result<T, LiveError> {
        match result {
            Err(e) if e.unauthorized => {
                self.note(read);
                Ok(T::default())
            }
            Err(e) if e.code.is_some() => {
                self.failed(read, &e);
                Ok(T::default())
            }
            other => other,
        }
    }

    /// A read the server answered with an error other than Unauthorized: its words.
    pub fn failed(&mut self, read: &Read, e: &LiveError) {
        if e.code == Some(super::client::NOT_IN_CAPTURE) {
            // A capture opened without this read: no server refused anything.
            return self.say(read.feeds, e.message.clone());
        }
        self.say(
            read.feeds,
            format!("{}: the server refused it — {}", read.read, e.message),
        );
    }

    /// Any other note on what a pane shows (a setting out of range and the default used).
    pub fn say(&mut self, feeds: crate::cluster::privileges::Feeds, text: String) {
        if !self.0.iter().any(|r| r.text == text) {
            self.0.push(RefusedRead { feeds, text });
        }
    }

    pub fn note(&mut self, read: &Read) {
        let text = needs(read);
        if !self.0.iter().any(|r| r.text == text) {
            self.0.push(RefusedRead {
                feeds: read.feeds,
                text,
            });
        }
    }
}

/// An essential read's refusal, saying what it needs.
pub fn essential<T>(result: Result<T, LiveError>, read: &Read) -> Result<T, LiveError> {
    result.map_err(|e| {
        if e.unauthorized {
            LiveError {
                message: format!(
                    "{}; without it there is nothing to show (`shardtop watch URI --check` lists every read)",
                    needs(read)
                ),
                ..e
            }
        } else {
            e
        }
    })
}
