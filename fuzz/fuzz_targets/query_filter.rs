//! Two BSON documents (the input split at a point chosen by its first byte): a document and a
//! query filter; the matcher must answer without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::serve::fuzzing;

fn two_docs(data: &[u8]) -> Option<(bson::Document, bson::Document)> {
    let (&first, rest) = data.split_first()?;
    let at = (usize::from(first) * 16).min(rest.len());
    let (a, b) = rest.split_at(at);
    let doc = bson::Document::from_reader(a).ok()?;
    let filter = bson::Document::from_reader(b).ok()?;
    Some((doc, filter))
}

fuzz_target!(|data: &[u8]| {
    if let Some((doc, filter)) = two_docs(data) {
        let _ = fuzzing::filter_matches(&doc, &filter);
        // The filter against itself and an empty document reaches other comparisons.
        let _ = fuzzing::filter_matches(&filter, &filter);
        let _ = fuzzing::filter_matches(&bson::Document::new(), &filter);
    }
});
