//! Reads a cluster refuses to this user (Unauthorized, 13): an optional read gives way to its
//! default and a note of what it needs, so the pane it feeds says so and the rest goes on; an
//! essential one (shards, collections, chunks) fails the poll, in the same words.

use super::client::LiveError;
use super::privileges::{Read, needs};
use crate::view::RefusedRead;

/// The notes of one poll.
#[derive(Clone, Debug, Default)]
pub struct Refusals(pub Vec<RefusedRead>);

impl Refusals {
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
            other => other,
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
