//! The whole of one event-log line, as its source has it: the documents behind the line (a live
//! cluster's `config.changelog` / `config.actionlog` entries as Extended JSON, a simulator's or a
//! trace's event in the trace format's JSON) and the error it reports, whole. It travels with
//! the line ([`super::LogLine::detail`]) so the UI's detail view (`Enter` on an event) is drawn
//! from the view data alone, with no I/O.
//!
//! Owns: the detail's data, its bounds, and how the details of the entries a line joins are
//! joined. May not touch: I/O, the terminal, the sources (which fill it).

use std::sync::Arc;

use crate::cluster::error::causes::{ErrorCause, cause_of};

/// Bytes of one document's JSON kept, at most; past it the rest is left out and counted.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024;

/// Documents one line keeps, at most (a migration's start, commit and both sides' ends fit).
pub const MAX_DOCUMENTS: usize = 6;

/// The whole of one line's event(s).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventDetail {
    /// The documents behind the line, oldest first.
    pub documents: Vec<EventDocument>,
    /// The error the event reports, whole (the newest, when the line joins several).
    pub error: Option<EventError>,
}

/// One document behind a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDocument {
    /// Where it comes from: `config.changelog`, `config.actionlog`, `simulator event`, `trace
    /// event`.
    pub origin: String,
    /// Its JSON, compact (the detail view lays it out), at most [`MAX_DOCUMENT_BYTES`].
    pub json: String,
    /// Bytes of the JSON left out past [`MAX_DOCUMENT_BYTES`] (0: whole).
    pub left_out: usize,
}

/// An error as the event reports it: MongoDB's code and code name when the source has them,
/// and the message, never cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventError {
    pub code: Option<i32>,
    pub code_name: Option<String>,
    pub errmsg: String,
}

impl EventError {
    /// What the error means, from MongoDB's error texts (`cluster::error::causes`), if known.
    pub fn cause(&self) -> Option<&'static ErrorCause> {
        cause_of(self.code_name.as_deref(), &self.errmsg)
    }
}

impl EventDocument {
    /// A document of `origin` from its JSON, cut at [`MAX_DOCUMENT_BYTES`] (at a character's
    /// boundary).
    pub fn new(origin: &str, json: &str) -> Self {
        let mut end = json.len().min(MAX_DOCUMENT_BYTES);
        while !json.is_char_boundary(end) {
            end -= 1;
        }
        Self {
            origin: origin.to_string(),
            json: json[..end].to_string(),
            left_out: json.len() - end,
        }
    }
}

impl EventDetail {
    /// A detail of one document and, when the event reports one, its error.
    pub fn of(document: EventDocument, error: Option<EventError>) -> Arc<Self> {
        Arc::new(Self {
            documents: vec![document],
            error,
        })
    }
}

/// The detail of a line that joins `later`'s entry to `earlier`'s (a migration's end to its
/// start): both documents, oldest first (the newest [`MAX_DOCUMENTS`]), and the later error, or
/// the earlier one when the later has none.
pub fn joined(
    earlier: Option<&Arc<EventDetail>>,
    later: Option<&Arc<EventDetail>>,
) -> Option<Arc<EventDetail>> {
    let (Some(a), Some(b)) = (earlier, later) else {
        return later.or(earlier).cloned();
    };
    let mut documents: Vec<EventDocument> =
        (a.documents.iter().chain(&b.documents)).cloned().collect();
    let extra = documents.len().saturating_sub(MAX_DOCUMENTS);
    documents.drain(..extra);
    Some(Arc::new(EventDetail {
        documents,
        error: b.error.clone().or_else(|| a.error.clone()),
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn detail(n: usize, error: Option<&str>) -> Arc<EventDetail> {
        EventDetail::of(
            EventDocument::new("simulator event", &format!("{{\"n\":{n}}}")),
            error.map(|e| EventError {
                code: Some(153),
                code_name: Some("ChunkTooBig".into()),
                errmsg: e.into(),
            }),
        )
    }

    #[test]
    fn a_document_is_kept_whole_up_to_its_bound_and_the_rest_counted() {
        let d = EventDocument::new("trace event", "{\"a\":1}");
        assert_eq!((d.json.as_str(), d.left_out), ("{\"a\":1}", 0));
        let long = format!("\"{}\"", "é".repeat(MAX_DOCUMENT_BYTES));
        let d = EventDocument::new("trace event", &long);
        assert!(d.json.len() <= MAX_DOCUMENT_BYTES);
        assert_eq!(d.json.len() + d.left_out, long.len());
    }

    #[test]
    fn joined_lines_keep_every_document_and_the_latest_error() {
        let start = detail(1, None);
        let end = detail(2, Some("too big"));
        let j = joined(Some(&start), Some(&end)).unwrap();
        assert_eq!(j.documents.len(), 2);
        assert_eq!(j.documents[0].json, "{\"n\":1}");
        assert_eq!(j.error.as_ref().unwrap().errmsg, "too big");
        assert!(j.error.as_ref().unwrap().cause().is_some());
        // A later entry without an error keeps the earlier one's.
        let j = joined(Some(&j), Some(&start)).unwrap();
        assert_eq!(j.error.as_ref().unwrap().errmsg, "too big");
        let mut many = Some(start.clone());
        for n in 0..10 {
            many = joined(many.as_ref(), Some(&detail(n, None)));
        }
        let many = many.unwrap();
        assert_eq!(many.documents.len(), MAX_DOCUMENTS);
        assert_eq!(many.documents[MAX_DOCUMENTS - 1].json, "{\"n\":9}");
        assert_eq!(joined(None, Some(&end)), Some(end.clone()));
        assert_eq!(joined(Some(&end), None), Some(end));
    }
}
