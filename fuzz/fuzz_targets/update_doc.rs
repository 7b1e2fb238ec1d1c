//! Two BSON documents (split as in `query_filter`): a document and an update (modifiers or a
//! replacement); applying it must succeed or refuse, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::serve::fuzzing;

fn two_docs(data: &[u8]) -> Option<(bson::Document, bson::Document)> {
    let (&first, rest) = data.split_first()?;
    let at = (usize::from(first) * 16).min(rest.len());
    let (a, b) = rest.split_at(at);
    let doc = bson::Document::from_reader(a).ok()?;
    let update = bson::Document::from_reader(b).ok()?;
    Some((doc, update))
}

fuzz_target!(|data: &[u8]| {
    let Some((doc, update)) = two_docs(data) else {
        return;
    };
    let u = bson::Bson::Document(update);
    if let Some(after) = fuzzing::apply_update(&doc, &u) {
        // Applying again to the result must not panic either.
        let _ = fuzzing::apply_update(&after, &u);
    }
});
